"""Random generators of a state: the one way both engines clone the rng a state carries, the
one check of a saved PCG64 state (what the native core can hold), and a generator crossing into
the core and back as six words (every game's record holds them in :data:`RNG_FIELDS`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.family.validation import describe

__all__ = [
    "RNG_FIELDS",
    "copy_rng",
    "generator_words",
    "pcg64_problem",
    "put_generator",
    "record_generator",
    "set_generator_words",
]


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


RNG_FIELDS = (
    "rng_state_hi",
    "rng_state_lo",
    "rng_inc_hi",
    "rng_inc_lo",
    "rng_has_uint32",
    "rng_uinteger",
)
"""A record's fields of the game's generator: NumPy's PCG64 state in the core's words."""
_MASK64 = (1 << 64) - 1


def generator_words(rng: np.random.Generator) -> tuple[int, int, int, int, int, int]:
    """A PCG64 generator's state as the core's six words (:data:`RNG_FIELDS`)."""
    raw = rng.bit_generator.state
    if raw.get("bit_generator") != "PCG64":
        raise ValueError(f"expected a PCG64 generator, got {raw.get('bit_generator')!r}")
    state, inc = raw["state"]["state"], raw["state"]["inc"]
    return (
        state >> 64,
        state & _MASK64,
        inc >> 64,
        inc & _MASK64,
        int(raw["has_uint32"]),
        int(raw["uinteger"]),
    )


def set_generator_words(rng: np.random.Generator, words: Any) -> None:
    """Put the core's six words (:func:`generator_words`) into a PCG64 generator."""
    w = [int(x) for x in words]
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": w[0] << 64 | w[1], "inc": w[2] << 64 | w[3]},
        "has_uint32": w[4],
        "uinteger": w[5],
    }


def record_generator(rec: Any) -> np.random.Generator:
    """The generator a record holds (a new PCG64 generator in that state)."""
    rng = np.random.Generator(np.random.PCG64(0))
    set_generator_words(rng, [rec[name] for name in RNG_FIELDS])
    return rng


def put_generator(rec: Any, rng: np.random.Generator) -> None:
    """Write ``rng``'s state into a record's :data:`RNG_FIELDS`."""
    for name, word in zip(RNG_FIELDS, generator_words(rng), strict=True):
        rec[name] = word
