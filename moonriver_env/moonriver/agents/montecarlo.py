"""Flat Monte Carlo over determinizations."""

from __future__ import annotations

import random
from collections.abc import Sequence

from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.vector.search import NativeState

from .common import determinize, native_root
from .search import Decision, SearchAgent


class MonteCarloAgent(SearchAgent):
    """Flat Monte Carlo: every root candidate gets the same number of rollouts, and the one
    with the best mean value is played.

    The root candidates are the ``k`` best actions by the heuristic's one-ply value (all legal
    actions with ``k=0``). Simulations run in rounds: each round draws one determinization (the
    hidden draw pile and partner stack re-shuffled, see
    :func:`~moonriver_env.moonriver.agents.common.determinize`) and one rollout seed, and plays
    every candidate from it (common random numbers: the candidates are compared on the same
    futures). A rollout plays ``depth`` decisions with the rollout policy, then the position is
    evaluated (:class:`~moonriver_env.moonriver.agents.evaluation.Evaluator`, relative to the
    opponents); a finished game is scored by its final margin. Ties between means go to the better
    one-ply value.

    Decisions with a single legal action, or a single candidate, are answered at once.
    Deterministic for a given seed when only ``sims`` limits the search.

    The simulations (determinization, rollout, leaf value) run in the native core when it is
    built (:meth:`moonriver_env.moonriver.vector.search.NativeState.simulate`): the same values to the
    last bit, so the same decisions (tests/vector/test_search.py), many times faster. Set
    ``native = False`` on an agent to simulate (and rank its candidates) in Python.
    """

    name = "mc"

    def search(self, decision: Decision) -> int:
        state, cands, budget = decision.state, decision.cands, decision.budget
        seat = state.seat
        totals = dict.fromkeys(cands, 0.0)
        counts = dict.fromkeys(cands, 0)
        core = native_root(state) if self.native else None
        weights = self.evaluator.w.as_list()
        while budget.more():
            if core is not None:
                native_det = core.clone()
                native_det.determinize(self.rng)
                det: NativeState | GameState = native_det
            else:
                det = determinize(state, self.rng)
            seed = int(self.rng.integers(2**62))
            for a in cands:
                sim = det.clone()
                sim.apply(a)
                values: Sequence[float]
                if isinstance(sim, NativeState):
                    values = sim.simulate(
                        self.rollout_policy, self.depth, self.value_mode, seed, weights
                    )
                else:
                    values = self.simulate(sim, random.Random(seed))
                totals[a] += values[seat]
                counts[a] += 1
                budget.done += 1
                if not budget.more():
                    break
        self.last_sims = budget.done
        self.last_values = {a: totals[a] / counts[a] for a in cands if counts[a]}
        return max(
            cands,
            key=lambda a: (
                totals[a] / counts[a] if counts[a] else float("-inf"),
                decision.prior[a],
            ),
        )
