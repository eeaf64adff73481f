"""A hand-written strategy: one-ply lookahead on a position evaluation with game sense."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from moonriver_env.moonriver.rules import CLAIM_PHASES, GameState

from .common import choose_on_core, determinize, native_root
from .evaluation import Context, Evaluator, Weights, complete_effects, make_context, pipeline


class HeuristicAgent(Agent):
    """Plays the action whose resulting position
    :class:`~moonriver_env.moonriver.agents.evaluation.Evaluator` rates best for the agent relative
    to its opponents.

    For every legal action the agent copies a determinization of the state, applies the action, then
    plays its own pending effect decisions with the rule-based choices of
    :mod:`moonriver_env.moonriver.agents.evaluation` (a placement's skulls and circles: the recruit,
    a Cowboy's moves toward the biggest territory, a thief's steal from the most valuable territory,
    the bonus tile) and evaluates. What this gives, decision by decision:

    * **Placements / stop**: projected territories (size x cows, growth of territories holding
      cows along their open frontier, future cows of the landscape into its biggest open
      territory), odd empty regions (cells no domino can fill) penalised, skull damage and
      unprotected cows (theft risk) counted; ``stop`` when holding the plots is worth more
      (the reserve's plots count in the projection).
    * **Claims**: the claimed plot joins the seat's pipeline, so its landscape, cows,
      resources and circle are valued against the ranch as it stands; a small bonus for an
      earlier position (earlier pick in the next round).
    * **Recruits**: a Gold Digger / Trapper / Farmer by the symbols held and to come, a
      Cattle Thief by the best steal (from the leader with 3-4 players), the Cowboy side by
      its moves; the token protects its territory (herder) whichever side is up.
    * **Cowboy moves, thief, Desperado swaps, skulls, bonus tiles, discards**: each option
      followed by the rule-based rest of the effect, then the same evaluation.
    * **End game**: the potential terms scale with the unseen plots and vanish in the final
      round, where the evaluation is the score (overpopulation included).

    Deterministic given the seed (ties: uniformly at random with the agent's Generator).

    The one-ply values are computed in the native core when it is built
    (:meth:`moonriver_env.moonriver.vector.search.NativeState.action_values`): the same values to the
    last bit, so the same decisions (``tests/agents/test_agents.py``). Set ``native = False``
    on an agent to evaluate in Python.
    """

    name = "heuristic"
    native = True

    def __init__(self, seed: int | None = None, weights: Weights | None = None) -> None:
        super().__init__(seed)
        self.evaluator = Evaluator(weights)

    def choose(self, state: GameState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        return self.pick(legal, self.action_values(state))

    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        """:meth:`choose` for the acting seat of each game ``rows`` of the batched game ``vg``
        (a :class:`~moonriver_env.moonriver.vector.VectorGame`; what the Gymnasium vector env
        asks of an opponent): on the core's copy of each game (``vg.native_state(i)``), with no
        :class:`GameState` built, the same decisions as ``choose(vg.get_state(i))`` in the same
        order (``tests/vector/test_gym_generic.py``)."""
        weights = self.evaluator.w.as_list()

        def decide(det: Any, legal: list[int]) -> int:
            values = det.action_values(legal, weights)
            return self.pick(legal, dict(zip(legal, values, strict=True)))

        # a batched game without the core's copies (another batched form) decides on states
        return choose_on_core(self, vg, rows, decide, native=self.native)

    def pick(self, legal: list[int], scores: dict[int, float]) -> int:
        """The move :meth:`choose` plays given the one-ply values ``scores`` of ``legal``: the
        best, ties broken uniformly at random with the agent's Generator."""
        best_v = max(scores.values())
        best = [a for a in legal if scores[a] >= best_v - 1e-9]
        return best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]

    def action_values(
        self, state: GameState, ctx: Context | None = None, actions: list[int] | None = None
    ) -> dict[int, float]:
        """The one-ply value of each legal action (or of ``actions``) for the acting seat;
        ``ctx``: the decision's context, ``make_context(state)`` (computed when not given; the
        core reads the same from the state)."""
        legal = state.legal_action_list() if actions is None else actions
        core = native_root(state) if self.native else None
        if core is not None:
            det = core.clone()
            det.determinize(self.rng)
            weights = self.evaluator.w.as_list()
            return dict(zip(legal, det.action_values(legal, weights), strict=True))
        seat = state.seat
        if ctx is None:
            ctx = make_context(state)
        root = determinize(state, self.rng)
        cache: dict[tuple[int, int, tuple[int, ...]], float] = {}
        ev = self.evaluator
        located = state.layout.located
        claim_phase = state.phase in CLAIM_PHASES
        col = len(state.next_col)
        out: dict[int, float] = {}
        for a in legal:
            sim = root.clone()
            sim.apply(a)
            complete_effects(sim, seat, ctx)
            v = self._relative(sim, seat, ctx, cache)
            if claim_phase:
                position = located[a][1][0]
                v += ev.w.order_w * (col - 1 - position)
            out[a] = v
        return out

    def _relative(
        self,
        state: GameState,
        seat: int,
        ctx: Context,
        cache: dict[tuple[int, int, tuple[int, ...]], float],
    ) -> float:
        vals = []
        ev = self.evaluator
        for s in range(ctx.n):
            key = (s, state.ranch_stamp[s], tuple(pipeline(state, s)))
            v = cache.get(key)
            if v is None:
                v = cache[key] = ev.seat_value(state, s, ctx)
            vals.append(v)
        others = [v for i, v in enumerate(vals) if i != seat]
        opp = others[0] if len(others) == 1 else 0.5 * (max(others) + sum(others) / len(others))
        return vals[seat] - ev.w.opp_w * opp


class HeuristicPrior:
    """Mixin of the agents that rank their candidates with a :class:`HeuristicAgent`
    (``prior``): ``native`` switches the native core on or off for the agent's simulations and
    its prior together (``False``: all in Python)."""

    prior: HeuristicAgent

    @property
    def native(self) -> bool:
        return self.prior.native

    @native.setter
    def native(self, on: bool) -> None:
        self.prior.native = on


def core_teacher() -> tuple[str, list[float]]:
    """The warm start's teacher in the core (``az_selfplay`` with ``teacher``): the heuristic
    agent with its default weights (the ``az_teacher`` hook of Moon River's entry)."""
    return "heuristic", Weights().as_list()
