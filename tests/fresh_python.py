"""Python code run in a fresh interpreter, for the tests that need one (not a test module)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_python(
    code: str, *, timeout: float, paths: Sequence[str] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` with ``python -c`` from the repository root and return what it printed.

    ``paths`` go first on PYTHONPATH, then the repository, then the caller's PYTHONPATH;
    ``env`` adds environment variables. A non-zero exit fails the calling test.
    """
    environ = dict(os.environ, **env)
    search = (*paths, str(ROOT), environ.get("PYTHONPATH", ""))
    environ["PYTHONPATH"] = os.pathsep.join(p for p in search if p)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, out.stderr
    return out
