"""Finding D of issue 32: ``make test`` runs ruff and mypy even when pytest fails (and still
fails); what the tools write by default lands under ``runs/`` or is ignored by git."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_runs_every_check_and_fails_if_one_failed(tmp_path: Path) -> None:
    # stand-ins for the tools: pytest fails, ruff and mypy pass; each leaves a mark
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, rc in (("python", 1), ("ruff", 0), ("mypy", 0)):
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\ntouch {tmp_path}/{name}.ran\nexit {rc}\n")
        tool.chmod(0o755)
    run = subprocess.run(
        ["make", "-s", "-o", "install", "test", f"BIN={bin_dir}", f"PY={bin_dir}/python"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0, run.stdout + run.stderr
    assert {p.name for p in tmp_path.glob("*.ran")} == {"python.ran", "ruff.ran", "mypy.ran"}


def _ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0


@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout"
)
def test_default_outputs_are_ignored_or_under_runs() -> None:
    from agents.saved_game import free_path

    assert _ignored(free_path(".").name)  # agents.play's `quit` save in the current directory
    assert _ignored(free_path(".", stem="kingdomino-game").name)  # agents.kingdomino_play's
    assert _ignored("replay.html")  # agents.replay's default -o
    commands = re.findall(r"python -m agents\.replay .*", (ROOT / "README.md").read_text())
    assert commands
    for command in commands:
        out = re.search(r"-o (\S+)", command)
        assert out is None or out.group(1).startswith("runs/") or _ignored(out.group(1)), command
