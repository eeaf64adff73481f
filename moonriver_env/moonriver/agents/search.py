"""Shared machinery of Moon River's search agents: leaf values, candidate pruning (the budget
and its checks: :mod:`agents.search`)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from agents.base import Agent
from agents.search import Budget, check_count, check_search
from moonriver_env.moonriver.rules import GameState

from .evaluation import Context, Evaluator, Weights, final_margin, make_context, rel_from_values
from .heuristic import HeuristicAgent, HeuristicPrior
from .rollout import ROLLOUT_POLICIES, rollout

VALUE_MODES = ("margin", "win")


@dataclass(frozen=True)
class Decision:
    """What a search decides: the position, its evaluation context, the candidate actions
    (at least two), their one-ply values (``prior``) and the budget, started before the
    candidates were ranked."""

    state: GameState
    ctx: Context
    cands: list[int]
    prior: dict[int, float]
    budget: Budget


class SearchAgent(HeuristicPrior, Agent):
    """Base of :class:`~moonriver_env.moonriver.agents.montecarlo.MonteCarloAgent` and
    :class:`~moonriver_env.moonriver.agents.mcts.MCTSAgent`.

    Args:
        sims: simulations per decision (``0``: only the time budget limits).
        time: seconds per decision (``None``: only ``sims`` limits). A time budget makes
            the agent's choices depend on the machine's speed, so not reproducible.
        rollout: ``"heuristic"`` (the light heuristic of
            :mod:`moonriver_env.moonriver.agents.rollout`) or
            ``"random"``.
        depth: decisions per rollout before the evaluation takes over (``0``: to the end).
        value: ``"margin"`` (final score margin, or the evaluation's margin at a cutoff) or
            ``"win"`` (+1 / 0 / -1 at the end; ``tanh(margin / 20)`` at a cutoff).
        k: candidate actions at the root: the ``k`` best by the heuristic's one-ply value
            (``0``: every legal action).
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        sims: int = 32,
        time: float | None = None,
        rollout: str = "heuristic",
        depth: int = 16,
        value: str = "margin",
        k: int = 4,
        weights: Weights | None = None,
    ) -> None:
        super().__init__(seed)
        check_search(sims, time, k, rollout=(rollout, ROLLOUT_POLICIES), value=(value, VALUE_MODES))
        check_count("depth", depth)
        self.sims, self.time, self.depth, self.k = sims, time, depth, k
        self.rollout_policy, self.value_mode = rollout, value
        self.evaluator = Evaluator(weights)
        self.prior = HeuristicAgent(seed, weights)
        self.last_sims = 0  # simulations of the last decision
        self.last_values: dict[int, float] = {}  # mean value of each searched root action

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prior.reset(None if seed is None else seed + 1)

    def choose(self, state: GameState) -> int:
        """A single legal action or a single root candidate is answered at once; otherwise
        :meth:`search` decides within the budget (started before the candidates are ranked)."""
        legal = state.legal_action_list()
        self.last_sims = 0
        self.last_values = {}
        if len(legal) == 1:
            return legal[0]
        budget = Budget(self.sims, self.time)
        ctx = make_context(state)
        cands, prior = self.candidates(state, ctx)
        if len(cands) == 1:
            return cands[0]
        return self.search(Decision(state, ctx, cands, prior, budget))

    def search(self, decision: Decision) -> int:
        """The action to play among ``decision.cands``; sets :attr:`last_sims` and
        :attr:`last_values`."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def candidates(self, state: GameState, ctx: Context) -> tuple[list[int], dict[int, float]]:
        """Root candidates: the ``k`` best actions by the heuristic's one-ply value."""
        legal = state.legal_action_list()
        prior = self.prior.action_values(state, ctx)
        ranked = sorted(legal, key=lambda a: (-prior[a], a))
        if self.k:
            ranked = ranked[: self.k]
        return ranked, prior

    def simulate(self, sim: GameState, rnd: random.Random) -> list[float]:
        """Roll ``sim`` forward (in place) and return the leaf value of every seat."""
        ctx = make_context(sim)
        rollout(sim, self.rollout_policy, ctx, rnd, self.depth)
        return self.leaf_values(sim)

    def leaf_values(self, sim: GameState) -> list[float]:
        n = sim.config.num_players
        if sim.is_terminal:
            margins = [final_margin(sim, s) for s in range(n)]
            if self.value_mode == "win":
                return [1.0 if m > 0 else (-1.0 if m < 0 else 0.0) for m in margins]
            return margins
        ctx = make_context(sim)
        vals = self.evaluator.values(sim, ctx)
        rel = [rel_from_values(vals, s, 1.0) for s in range(n)]
        if self.value_mode == "win":
            return [math.tanh(r / 20.0) for r in rel]
        return rel
