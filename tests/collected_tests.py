"""Which tests a document's citations name (not a test module): the node ids pytest collects
from some test files, and whether a cited id is one of them (the rules documents cite the
tests of each rule and ruling)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collected_ids(files: Iterable[str]) -> set[str]:
    """The node ids pytest collects from ``files`` (paths from the repository root)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return {line.strip() for line in run.stdout.splitlines() if "::" in line}


def is_collected(test_id: str, collected: set[str]) -> bool:
    """A collected node id, or a parametrized test's name (pytest runs all its rows)."""
    return test_id in collected or any(c.startswith(test_id + "[") for c in collected)
