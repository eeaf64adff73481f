"""Random generators of a state: the one way both engines clone the rng a state carries, and
the one check of a saved PCG64 state (what the native core can hold)."""

from __future__ import annotations

import numpy as np

from moonriver_env.family.validation import describe

__all__ = ["copy_rng", "pcg64_problem"]


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state."""
    new = np.random.Generator(type(rng.bit_generator)(0))
    new.bit_generator.state = rng.bit_generator.state
    return new


_PCG64_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")
_WORD_BOUNDS = {"state": 128, "inc": 128, "has_uint32": 1, "uinteger": 32}
"""Each word's size in bits."""


def pcg64_problem(raw: object) -> str | None:
    """Why ``raw`` (NumPy's ``PCG64().state`` dict, as read from JSON) is not a state the
    native core holds (two 128-bit words, the increment odd, ``has_uint32`` 0 or 1, a 32-bit
    ``uinteger``), as ``"key: detail"``; ``None`` if it is one. Both engines' loaders ask it, so a state the
    Python loader takes is one the core takes."""
    if not isinstance(raw, dict) or sorted(raw) != sorted(_PCG64_KEYS):
        return f"expected an object with the keys {', '.join(_PCG64_KEYS)}"
    if raw["bit_generator"] != "PCG64":
        return f"bit_generator: expected 'PCG64', got {raw['bit_generator']!r}"
    words = raw["state"]
    if not isinstance(words, dict) or sorted(words) != ["inc", "state"]:
        return "state: expected an object with the keys state, inc"
    for key, value in (
        *words.items(),
        ("has_uint32", raw["has_uint32"]),
        ("uinteger", raw["uinteger"]),
    ):
        bits = _WORD_BOUNDS[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >> bits:
            where = f"state.{key}" if key in ("state", "inc") else key
            top = "1" if bits == 1 else f"2**{bits} - 1"
            return f"{where}: expected an integer 0..{top}, got {describe(value)}"
    if not words["inc"] & 1:  # NumPy seeds it as 2 x sequence + 1: an even one is no PCG64's
        return f"state.inc: expected an odd integer (PCG64's increment), got {words['inc']}"
    return None
