"""What Kingdomino's search agents (``mc``, ``mcts``) share: the playouts (greedy,
player-greedy or random), the value of a finished game and the base class with the budget
and the root's candidates."""

from __future__ import annotations

import numpy as np

from agents.search import Budget, check_search
from moonriver_env.kingdomino import KingdominoState, Phase

from .common import KingdominoAgent
from .greedy import greedy_picks, greedy_placements
from .heuristic import heuristic_picks, heuristic_placements

ROLLOUTS = ("greedy", "player_greedy", "random")
"""The playout policies (:func:`playout`)."""
VALUES = ("win", "margin")
"""The values of a finished game (:func:`outcome`)."""


def playout(state: KingdominoState, policy: str, rng: np.random.Generator, me: int = -1) -> None:
    """Play ``state`` to the end in place: ``"random"`` (uniform), ``"greedy"`` (every seat
    full greedy) or ``"player_greedy"`` (seat ``me`` full greedy, the others random: the
    paper's player-greedy playout)."""
    integers = rng.integers
    while state.phase != Phase.GAME_OVER:
        legal = state.legal_action_list()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        if policy == "random" or (policy == "player_greedy" and state.seat != me):
            state.apply(legal[int(integers(len(legal)))])
            continue
        options = greedy_placements(state) if state.phase == Phase.PLACE else greedy_picks(state)
        state.apply(options[int(integers(len(options)))] if len(options) > 1 else options[0])


def outcome(state: KingdominoState, seat: int, value: str) -> float:
    """A finished game's value for ``seat``: its share of the win, or its margin over the
    best other seat (points), scaled by 1/100."""
    if value == "win":
        winners = state.winners()
        return 1.0 / len(winners) if seat in winners else 0.0
    pts = state.points()
    return (pts[seat] - max(p for s, p in enumerate(pts) if s != seat)) / 100.0


class SearchKingdominoAgent(KingdominoAgent):
    """Shared arguments of the search agents.

    Args:
        sims: playouts per decision (``0``: only ``time`` limits).
        time: seconds per decision (``None``: only ``sims`` limits).
        rollout: playout policy, one of :data:`ROLLOUTS` (see :func:`playout`).
        value: ``"win"`` (share of the win) or ``"margin"`` (points over the best other).
        k: candidate placements at the root, the heuristic's best ``k`` (``0``: all).
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        sims: int = 200,
        rollout: str = "player_greedy",
        k: int = 6,
        value: str = "win",
        time: float | None = None,
    ) -> None:
        super().__init__(seed)
        check_search(sims, time, k, rollout=(rollout, ROLLOUTS), value=(value, VALUES))
        self.sims, self.time, self.rollout, self.value, self.k = sims, time, rollout, value, k
        self.last_sims = 0

    def choose(self, state: KingdominoState) -> int:
        """A single legal action or a single root candidate is answered at once; otherwise
        :meth:`search` decides within the budget (started before the candidates are ranked)."""
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        budget = Budget(self.sims, self.time)
        cands = self.candidates(state)
        if len(cands) == 1:
            return cands[0]
        return self.search(state, cands, budget)

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        """The action played among ``cands`` (at least two), searched within ``budget``."""
        raise NotImplementedError

    def candidates(self, state: KingdominoState) -> list[int]:
        """The root's candidates, best first by the heuristic."""
        if state.phase == Phase.PLACE:
            ranked = heuristic_placements(state)
            if self.k:
                ranked = ranked[: self.k]
        else:
            ranked = heuristic_picks(state)
        return [a for _, a in ranked]
