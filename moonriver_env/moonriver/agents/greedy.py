"""One-ply greedy: the action that raises the agent's own score the most right now."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.vector.search import NativeState

from .common import choose_on_core, determinize
from .evaluation import popcount, steal_value


class GreedyAgent(Agent):
    """For every legal action: copy the state, apply the action and measure the change of
    the agent's own score (``score_seat(seat).total``); play the largest change.

    Ties (most actions change nothing now) are broken by a cheap documented key, then
    uniformly at random with the agent's Generator:

    * placements: the number of orthogonal neighbours of the same landscape the two plots
      get (extending territories), +2 per plot joining a territory that already holds cows,
      +0.5 when both plots share a landscape; ``stop`` ranks below every placement;
    * claims: the plot's symbols (resources + 2 per cow + 1 per circle - 1 per skull);
    * a Cattle Thief's steals: the cow's value to its owner (size of its territory);
    * everything else: nothing (random among equals).

    The copy is a determinization (:func:`~moonriver_env.moonriver.agents.common.determinize`): a
    claim that ends a round draws the next column from a re-shuffled pile, never from the true one.
    """

    name = "greedy"

    def choose(self, state: GameState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        seat = state.seat
        root = determinize(state, self.rng)
        before = root.score_seat(seat).total
        best: list[int] = []
        best_key = (float("-inf"), float("-inf"))
        for a in legal:
            sim = root.clone()
            sim.apply(a)
            key = (float(sim.score_seat(seat).total - before), self._tiebreak(state, a))
            if key > best_key:
                best_key, best = key, [a]
            elif key == best_key:
                best.append(a)
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        """:meth:`choose` for the acting seat of each game ``rows`` of the batched game ``vg``
        (a :class:`~moonriver_env.moonriver.vector.VectorGame`; what the Gymnasium vector env,
        the reference PPO and the evaluation ask of an opponent): the keys computed in the
        core on its copy of each game (``vg.native_state(i)``, no :class:`GameState` built),
        the same decisions as ``choose(vg.get_state(i))`` in the same order
        (``tests/vector/test_gym_generic.py``)."""
        return choose_on_core(self, vg, rows, self._best_by_keys)

    def _best_by_keys(self, det: NativeState, legal: list[int]) -> int:
        """The move ``choose`` plays on the determinization ``det``: the best keys from the
        core, ties drawn in ``legal``'s order with the agent's generator."""
        gains, ties = det.greedy_keys(legal)
        keys = list(zip(gains, ties, strict=True))
        top = max(keys)
        best = [a for a, key in zip(legal, keys, strict=True) if key == top]
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    @staticmethod
    def _tiebreak(state: GameState, a: int) -> float:
        lay = state.layout
        kt = state.kind_table
        seat = state.seat
        segment, index = lay.located[a]
        if segment == "place":
            g = state.grid
            pair, cell, d = index
            i, j = lay.pairs[pair]
            held = state.held[seat]
            other = g.step[d][cell]
            la, lb = kt.land[held[i]], kt.land[held[j]]
            bb = state.land_bb[seat]
            cows = state.cow_bb[seat]
            v = 0.5 if la == lb else 0.0
            for x, y, lx in ((cell, other, la), (other, cell, lb)):
                nb = g.neighbours(1 << x) & ~(1 << y) & bb[lx]
                v += popcount(nb)
                if nb and g.flood(nb, bb[lx]) & cows:
                    v += 2.0
            return v
        if segment == "stop":
            return -1.0
        if segment == "claim":  # setup claim / select
            col = state.cur_col if state.phase.name == "SETUP_CLAIM" else state.next_col
            k = col[index[0]]
            return (
                kt.gold[k] + kt.beaver[k] + kt.corn[k] + 2 * kt.cows[k] + kt.circle[k] - kt.skull[k]
            )
        if segment == "thief_steal":
            return steal_value(state, a, leader_bonus=False)
        return 0.0
