"""The native core's extension module, if it was built, and the facts both engines share."""

from __future__ import annotations

import os
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
"""Columns of a score breakdown (``moonriver_env.aec.SCORE_COLUMNS``)."""
REWARD_CODES = {"win": 0, "score": 1, "score_diff": 2}
"""The core's code of each reward mode (``moonriver_env.env_args.REWARD_MODES``)."""
