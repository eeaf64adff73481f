"""The seeds of a run: every seed of game ``i`` of a run with master seed ``S`` comes from
``SeedSequence([S, i, ...])`` (63 bits, :func:`derive_seed`).

The environment's reset seed is :func:`game_seed` ``= derive_seed(S, i)`` and the agent in slot
``k`` is reset with :func:`agent_seed` ``= derive_seed(S, i, 1 + k)``; other per-game streams use
further words (the teacher games' exploration: ``derive_seed(S, i, 99)``). Results then depend
on neither the number of workers, nor the backend, nor the order in which games finish.
"""

from __future__ import annotations

import numpy as np

__all__ = ["agent_seed", "derive_seed", "game_seed"]


def derive_seed(*words: int) -> int:
    """A 63-bit seed from ``SeedSequence(words)``."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0]) >> 1


def game_seed(seed: int, index: int) -> int:
    """The ``env.reset`` seed of game ``index``: 63 bits of ``SeedSequence([seed, index])``."""
    return derive_seed(seed, index)


def agent_seed(seed: int, index: int, slot: int) -> int:
    """The ``agent.reset`` seed of the agent in ``slot`` (a seat) of game ``index``."""
    return derive_seed(seed, index, 1 + slot)
