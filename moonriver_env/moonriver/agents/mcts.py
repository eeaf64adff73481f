"""Determinized UCT (information-set style: a new determinization every iteration)."""

from __future__ import annotations

import math
import random
from typing import Any

from agents.search import TreeNode

from .common import determinize
from .rollout import light_candidates
from .search import Decision, SearchAgent


class MCTSAgent(SearchAgent):
    """UCT over determinizations.

    Each iteration draws a new determinization of the hidden information
    (:func:`~moonriver_env.moonriver.agents.common.determinize`) and walks the tree from the root
    with it: nodes are decisions (sequences of action ids; decisions with a single legal action are
    played through without a node), and only the children legal in this determinization compete
    (UCB1 on the mover's mean value, exploration constant ``c``, the parent count being the visits
    of the available children). One child is added per iteration, then a rollout of ``depth``
    decisions and the evaluation (or the final margin) give the value vector, backed up with each
    node's mover reading its own entry. Values are scaled by 1/20 in ``"margin"`` mode so that ``c``
    is on the scale of ``"win"`` values.

    Branching is pruned: the root's children are the ``k`` best actions by the heuristic's
    one-ply value; inner nodes keep the ``width`` best by the light heuristic (effect
    decisions: the single rule-based choice), new children are tried best first. The action
    played is the most visited root child (ties: the better mean). Deterministic for a given
    seed when only ``sims`` limits the search.
    """

    name = "mcts"

    def __init__(
        self, seed: int | None = None, *, c: float = 0.7, width: int = 3, **search: Any
    ) -> None:
        """``c``, ``width`` (see above) and the
        :class:`~moonriver_env.moonriver.agents.search.SearchAgent` parameters."""
        super().__init__(seed, **search)
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"c: expected a number >= 0, got {c!r}")
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ValueError(f"width: expected an integer >= 1, got {width!r}")
        self.c = float(c)
        self.width = width
        self.scale = 20.0 if self.value_mode == "margin" else 1.0

    def search(self, decision: Decision) -> int:
        state, ctx, cands, budget = decision.state, decision.ctx, decision.cands, decision.budget
        root = TreeNode(-1)
        c = self.c
        scale = self.scale
        while budget.more():
            sim = determinize(state, self.rng)
            rnd = random.Random(int(self.rng.integers(2**62)))
            node = root
            path = [root]
            options = cands
            while True:
                mover = sim.seat
                untried = [a for a in options if a not in node.children]
                if untried:
                    a = untried[0]
                    child = node.children[a] = TreeNode(mover)
                    sim.apply(a)
                    path.append(child)
                    break
                kids = [node.children[a] for a in options]
                log_n = math.log(max(1, sum(k.visits for k in kids)))
                best_i, best_u = 0, float("-inf")
                for i, kid in enumerate(kids):
                    u = kid.total / (kid.visits * scale) + c * math.sqrt(log_n / kid.visits)
                    if u > best_u:
                        best_i, best_u = i, u
                a = options[best_i]
                node = kids[best_i]
                sim.apply(a)
                path.append(node)
                # Play forced decisions through; stop at the end of the game.
                while not sim.is_terminal and len(sim.legal_action_list()) == 1:
                    sim.apply(sim.legal_action_list()[0])
                if sim.is_terminal:
                    break
                options = light_candidates(sim, ctx, self.width)
            values = self.simulate(sim, rnd)
            for nd in path[1:]:
                nd.visits += 1
                nd.total += values[nd.mover]
            budget.done += 1
        self.last_sims = budget.done
        self.last_values = {a: kid.total / kid.visits for a, kid in root.children.items()}
        return max(
            cands,
            key=lambda a: (
                root.children[a].visits if a in root.children else -1,
                root.children[a].total / root.children[a].visits
                if a in root.children
                else float("-inf"),
                decision.prior[a],
            ),
        )
