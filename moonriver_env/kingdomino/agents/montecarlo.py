"""Kingdomino's ``mc``: flat Monte Carlo over the heuristic's best candidates (the paper's
MCE), its playouts in Python or in the native core."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from agents.search import Budget
from moonriver_env.family.native import NATIVE
from moonriver_env.kingdomino import KingdominoState
from moonriver_env.kingdomino.vector.search import NativeKingdominoState

from .search import SearchKingdominoAgent, outcome, playout

ENGINES = ("auto", "native", "python")
"""Where ``mc`` plays its playouts: ``auto`` (the native core when built), or either one."""


class MonteCarloKingdominoAgent(SearchKingdominoAgent):
    """Flat Monte Carlo evaluation (the paper's MCE): each candidate (the heuristic's best
    ``k`` placements; every pick) gets playouts to the end in rounds; each round re-deals the
    unseen dominoes once and plays every candidate from that deal (common random numbers).
    The candidate with the best mean value is played; ties go to the heuristic's order."""

    name = "mc"

    def __init__(self, seed: int | None = None, engine: str = "auto", **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        if engine not in ENGINES:
            raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
        if engine == "native" and not NATIVE:
            raise ValueError(
                "engine: the native core is not available (not built, or switched off)"
            )
        self.engine = engine

    @property
    def native(self) -> bool:
        """Whether the playouts run in the native core
        (:mod:`moonriver_env.kingdomino.vector.search`)."""
        return NATIVE and self.engine != "python"

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        evaluate = self._native_rounds if self.native else self._python_rounds
        totals, counts = evaluate(state, cands, budget)
        self.last_sims = budget.done
        best = max(
            range(len(cands)),
            key=lambda i: (totals[i] / counts[i] if counts[i] else float("-inf"), -i),
        )
        return cands[best]

    def _python_rounds(
        self, state: KingdominoState, cands: list[int], budget: Budget
    ) -> tuple[list[float], list[int]]:
        """The rounds in Python: the totals and playout counts per candidate."""
        seat = state.seat
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        rng = self.rng
        while budget.more():
            det = state.clone()
            det.redetermine(rng)
            seed = int(rng.integers(2**62))
            for i, a in enumerate(cands):
                sim = det.clone()
                sim.apply(a)
                playout(sim, self.rollout, np.random.default_rng(seed), seat)
                totals[i] += outcome(sim, seat, self.value)
                counts[i] += 1
                budget.done += 1
                if not budget.more():
                    break
        return totals, counts

    def _native_rounds(
        self, state: KingdominoState, cands: list[int], budget: Budget
    ) -> tuple[list[float], list[int]]:
        """The same rounds in the native core, drawing the same numbers from the agent's
        generator: with a playout budget alone, the same totals and counts as
        :meth:`_python_rounds`. With a time budget the rounds go in chunks, each about a
        quarter of the time left (at least one round), until the deadline."""
        native = NativeKingdominoState.from_state(state)
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        rounds = 1
        while budget.more():
            sims = rounds * len(cands)
            if budget.sims > 0:
                sims = min(sims, budget.sims - budget.done)
            start = time.perf_counter()
            got, n = native.monte_carlo(cands, sims, self.rollout, self.value, state.seat, self.rng)
            spent = time.perf_counter() - start
            totals = [t + g for t, g in zip(totals, got, strict=True)]
            counts = [c + k for c, k in zip(counts, n, strict=True)]
            budget.done += sims
            if budget.deadline is not None:
                per_round = max(spent / rounds, 1e-6)
                left = budget.deadline - time.perf_counter()
                rounds = max(1, int(0.25 * left / per_round))
        return totals, counts
