"""The native core's extension module, if it was built, and the facts both engines share."""

from __future__ import annotations

import os
import warnings
from types import ModuleType

_native: ModuleType | None
IMPORT_ERROR: ImportError | None = None
if os.environ.get("MOONRIVER_NATIVE", "1") == "0":  # off by request (benchmarks, debugging)
    _native = None
    IMPORT_ERROR = ImportError("the native core is switched off (MOONRIVER_NATIVE=0)")
else:
    try:
        import moonriver_env._native as _native
    except ImportError as exc:  # no C compiler at install time: the Python engine stands in
        _native = None
        IMPORT_ERROR = exc

native = _native
NATIVE = _native is not None
"""Whether the native core is available (else VectorGame runs on the Python engine). The
environment variable ``MOONRIVER_NATIVE=0`` switches it off (everything then runs as without
a compiler: VectorGame on the Python engine, mc and self-play simulating in Python)."""
GAME_SEED_HIGH = 2**63 - 1
"""The env draws each game's seed as ``integers(GAME_SEED_HIGH)`` from its seed generator."""
SCORE_WIDTH = 7
"""Columns of a score breakdown (``moonriver_env.moonriver.env.SCORE_COLUMNS``)."""
REWARD_CODES = {"win": 0, "score": 1, "score_diff": 2}
"""The core's code of each reward mode (``moonriver_env.env_checks.REWARD_MODES``)."""
BACKENDS = ("native", "python")
"""The engines a vector game runs on: the native core, or the Python engine (the fallback)."""
_warned = False


def choose_backend(backend: str | None, what: str) -> str:
    """The engine ``what`` (a vector game's class name) runs on: ``backend``, or the native
    core when it is built; without it, the Python engine with one warning per process."""
    global _warned
    if backend is None:
        backend = "native" if NATIVE else "python"
    if backend not in BACKENDS:
        raise ValueError(f"backend: expected 'native' or 'python', got {backend!r}")
    if backend == "native" and not NATIVE:
        if not _warned:
            warnings.warn(
                f"moonriver_env.vector: the native core is not built ({IMPORT_ERROR}); {what} "
                "runs on the Python engine (slow). Reinstall with a C compiler (make install, "
                "or pip install -e .) to build it.",
                RuntimeWarning,
                stacklevel=3,
            )
            _warned = True
        backend = "python"
    return backend
