"""What Moon River's agents share: the copy of a state with its hidden parts re-drawn
(:func:`determinize`) and the state in the native core for simulations (:func:`native_root`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def choose_on_core(
    agent: Any,
    vg: Any,
    rows: np.ndarray,
    decide: Callable[[NativeState, list[int]], int],
    native: bool = True,
) -> np.ndarray:
    """An agent's ``choose_batch``: for the acting seat of each game ``rows`` of the batched
    game ``vg``, the one legal move, or ``decide(det, legal)`` on the core's copy of the game
    (``vg.native_state(i)``, determinized with the agent's generator as ``choose`` does, no
    :class:`GameState` built); ``agent.choose(vg.get_state(i))`` where there is no such copy
    (``native`` false, or a batched game without the core)."""
    out = np.empty(len(rows), dtype=np.int64)
    native_state = getattr(vg, "native_state", None) if native else None
    for k, i in enumerate(np.asarray(rows).tolist()):
        legal = vg.legal_ids[i, : int(vg.num_legal[i])].tolist()
        if len(legal) == 1:
            out[k] = legal[0]
            continue
        det = native_state(i) if native_state is not None else None
        if det is None:
            out[k] = agent.choose(vg.get_state(i))
            continue
        det.determinize(agent.rng)
        out[k] = decide(det, legal)
    return out
