"""What Moon River's agents share: the copy of a state with its hidden parts re-drawn
(:func:`determinize`) and the state in the native core for simulations (:func:`native_root`)."""

from __future__ import annotations

import numpy as np

from moonriver_env.family.native import NATIVE
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.vector.search import NativeState

__all__ = ["determinize", "native_root"]


def determinize(state: GameState, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` whose hidden information is re-drawn with ``rng``.

    The copy's draw pile and partner stack are first put in a canonical (sorted) order and
    then shuffled, so the result depends only on what the table shows (the multisets, which
    are public) and on ``rng``, never on the true hidden order.
    """
    sim = state.clone()
    sim.pile.sort()
    sim.stack.sort()
    sim.redetermine(rng)
    return sim


def native_root(state: GameState) -> NativeState | None:
    """``state`` in the native core for simulations, or ``None`` (core not built, or a state
    the core does not hold: a chance-node game)."""
    if type(state) is not GameState or not NATIVE:
        return None
    return NativeState.from_state(state)
