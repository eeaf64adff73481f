"""The README's Python snippets run as written (issue: RL interface, "a quickstart that runs")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


def python_blocks() -> list[str]:
    text = README.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_a_short_quickstart() -> None:
    blocks = python_blocks()
    assert blocks, "README has no python snippet"
    quickstart = blocks[0]
    assert "moonriver_v0" in quickstart
    assert len([line for line in quickstart.splitlines() if line.strip()]) <= 12


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_readme_snippet_runs(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = python_blocks()[index]
    exec(compile(code, f"README.md[python block {index}]", "exec"), {})
