"""Kingdomino's ``mcts``: determinized UCT over the decisions."""

from __future__ import annotations

import math
from typing import Any

from agents.search import Budget, TreeNode
from moonriver_env.kingdomino import KingdominoState, Phase

from .search import SearchKingdominoAgent, outcome, playout


class MCTSKingdominoAgent(SearchKingdominoAgent):
    """Determinized UCT (single-observer information-set MCTS): each iteration re-deals the
    unseen dominoes, descends the tree by UCB1 among the children legal in that deal (the
    root limited to :meth:`candidates`), adds one node and finishes with a playout. A node
    keeps the value of the seat that moved into it (a share of the win, or the margin)."""

    name = "mcts"

    def __init__(self, seed: int | None = None, c: float = 0.7, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        if not c >= 0:
            raise ValueError(f"c: expected a number >= 0, got {c!r}")
        self.c = c

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        root = TreeNode(-1)
        rng = self.rng
        n = state.config.num_players
        while budget.more():
            sim = state.clone()
            sim.redetermine(rng)
            node, path = root, [root]
            options: list[int] = cands
            while sim.phase != Phase.GAME_OVER:
                untried = [a for a in options if a not in node.children]
                if untried:
                    a = untried[int(rng.integers(len(untried)))]
                    child = node.children[a] = TreeNode(sim.seat)
                    sim.apply(a)
                    path.append(child)
                    break
                a = self._select(node, options)
                sim.apply(a)
                node = node.children[a]
                path.append(node)
                options = sim.legal_action_list()
            playout(sim, self.rollout, rng, state.seat)
            values = [outcome(sim, s, self.value) for s in range(n)]
            for nd in path:
                nd.visits += 1
                if nd.mover >= 0:
                    nd.total += values[nd.mover]
            budget.done += 1
        self.last_sims = budget.done
        return max(
            cands,
            key=lambda a: root.children[a].visits if a in root.children else -1,
        )

    def _select(self, node: TreeNode, options: list[int]) -> int:
        log_n = math.log(max(1, sum(node.children[a].visits for a in options)))
        c = self.c
        best, best_u = options[0], float("-inf")
        for a in options:
            ch = node.children[a]
            u = ch.total / ch.visits + c * math.sqrt(log_n / ch.visits)
            if u > best_u:
                best, best_u = a, u
        return best
