"""Copying a random generator: the one way both engines clone the rng a state carries."""

from __future__ import annotations

import numpy as np

__all__ = ["copy_rng"]


def copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state."""
    new = np.random.Generator(type(rng.bit_generator)(0))
    new.bit_generator.state = rng.bit_generator.state
    return new
