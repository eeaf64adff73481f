"""Where a model came from: the one home of the facts a run records about itself (the git
commit of the code, the command line).

``provenance.json`` of a run or of a model kept in the repository is written by its pipeline
(:mod:`training.common.export`, :mod:`training.value.train`, :mod:`training.rllib.train`) with
these helpers, so every pipeline reads the commit and spells the command the same way.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def git_commit(cwd: str | Path = REPO) -> str | None:
    """The commit checked out at ``cwd`` (default: this repository), or ``None`` outside a git
    checkout or without git."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def command_line(module: str, argv: Sequence[str] | None = None) -> str:
    """``"python -m MODULE ARGS"`` as the run was started (``argv``: default ``sys.argv[1:]``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join([Path(sys.executable).name, "-m", module, *args])
