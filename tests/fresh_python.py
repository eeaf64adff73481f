"""Python code run in a fresh interpreter, for the tests that need one (not a test module)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def as_from_a_terminal() -> None:
    """A child's ``preexec_fn``: SIGINT back to the system's default, as a shell starts a
    command. A process inherits an ignored SIGINT (from a test worker or a library that set
    SIG_IGN), and Python then leaves Ctrl-C ignored; the Ctrl-C tests need the terminal's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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


def run_scenarios(script: Path, names: list[str], timeout: float = 60.0) -> dict[str, str]:
    """Run the named scenarios of ``script`` (a test module whose ``__main__`` block is
    :func:`scenario_main`) in fresh interpreters, one after another while none crashes: name
    -> "ok", or why it failed (its error, its crash or its hang)."""
    outcome: dict[str, str] = {}
    while names:
        try:
            out = subprocess.run(
                [sys.executable, str(script), *names],
                cwd=ROOT, capture_output=True, text=True, timeout=timeout,
            )  # fmt: skip
            stdout, why = out.stdout, f"exit {out.returncode}: {out.stderr[-3000:]}"
        except subprocess.TimeoutExpired as exc:
            partial = exc.stdout or b""
            stdout = partial.decode() if isinstance(partial, bytes) else partial
            why = f"hung (no answer in {timeout:.0f} s)"
        for line in stdout.splitlines():
            verdict, _, rest = line.partition(" ")
            name, _, message = rest.partition(" ")
            if verdict in ("ok", "failed"):
                outcome[name] = "ok" if verdict == "ok" else message
        names = [n for n in names if n not in outcome]
        if names:  # the interpreter died in the first scenario without a verdict
            outcome[names.pop(0)] = f"crashed or {why}"
    return outcome


def scenario_main(scenarios: Mapping[str, Callable[[], None]], names: Sequence[str]) -> None:
    """What a scenario module runs as a script: each named scenario, a verdict line each
    (``ok NAME`` or ``failed NAME ERROR``), read back by :func:`run_scenarios`."""
    sys.path.insert(0, str(ROOT))
    for name in names:
        print("started", name, flush=True)
        try:
            scenarios[name]()
        except Exception as exc:  # noqa: BLE001 - reported to the test
            print("failed", name, repr(exc).replace("\n", " ")[:2000], flush=True)
        else:
            print("ok", name, flush=True)
