"""One game in the native core, for search: clone, apply, legal actions, scores,
redetermine and random rollouts at C speed.

A :class:`NativeState` is the game a :class:`~moonriver_env.moonriver.rules.GameState` plays (made from
one with :meth:`NativeState.from_state`, or set up from a seed as ``new_game(config, seed)``),
and :meth:`NativeState.to_state` gives it back. Its random parts use NumPy's generator as the
Python engine does: ``redetermine(seed)`` shuffles like ``GameState.redetermine(
numpy.random.default_rng(seed))``, and ``rollout(seed, depth)`` plays
``legal[rng.integers(len(legal))]`` with ``rng = numpy.random.default_rng(seed)`` until the
end (or ``depth`` decisions), so a Python loop with the same seed plays the same game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.family.core_state import CoreState, check_seed64
from moonriver_env.family.native import IMPORT_ERROR
from moonriver_env.family.native import native as _maybe_native
from moonriver_env.family.rng import generator_words, set_generator_words
from moonriver_env.moonriver.rules import GameConfig, GameState, IllegalActionError, Phase
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown, rank_winners
from moonriver_env.moonriver.vector._backend import native_config
from moonriver_env.moonriver.vector._spec import record_dtype, record_to_state, state_to_record


def _extension() -> Any:
    """The extension module; ``ImportError`` when the core is not built (or switched off)."""
    if _maybe_native is None:
        raise ImportError(
            f"moonriver_env.moonriver.vector.search needs the native core: {IMPORT_ERROR}"
        )
    return _maybe_native


__all__ = ["NativeState"]

# the core's policy and value codes (Moon River's agents: rollout.ROLLOUT_POLICIES and
# search.VALUE_MODES, moonriver_env/moonriver/agents/)
_POLICIES = ("random", "heuristic")
_VALUES = ("margin", "win")


class NativeState(CoreState):
    """One game in the core (see the module docstring; the game-free part: :class:`CoreState`)."""

    __slots__ = ()
    phases = Phase
    illegal_action_error = IllegalActionError

    def __init__(self, config: GameConfig, seed: int = 0, *, _core: Any = None) -> None:
        self.config = config
        if _core is None:
            _core = _extension().new_state(native_config(config), check_seed64(seed))
        self._core = _core

    @classmethod
    def from_record(cls, config: GameConfig, record: bytes) -> NativeState:
        """The game of the core's ``record`` of a ``config`` game (checked by the core): a
        :class:`~moonriver_env.moonriver.vector.VectorGame` slot's
        (:meth:`~moonriver_env.moonriver.vector.VectorGame.native_state`), with no
        :class:`GameState` in between."""
        return cls(config, _core=_extension().state_from_record(native_config(config), record))

    @classmethod
    def from_state(cls, state: GameState) -> NativeState:
        """The game of ``state`` (checked by the core)."""
        dtype = record_dtype(_extension())
        core = _extension().state_from_record(
            native_config(state.config), state_to_record(dtype, state)
        )
        return cls(state.config, _core=core)

    def to_state(self) -> GameState:
        """This game as a :class:`GameState` (a copy)."""
        rec = np.frombuffer(self._core.record(), dtype=record_dtype(_extension()))[0]
        return record_to_state(self.config, rec)

    def scores(self) -> list[ScoreBreakdown]:
        """One :class:`ScoreBreakdown` per seat, on the ranches as they stand."""
        return [ScoreBreakdown(*row) for row in self._core.scores()]

    def winners(self) -> list[int]:
        return rank_winners(self.scores())

    def observation(self, seat: int) -> np.ndarray:
        """``seat``'s flat observation of this game (a new float32 vector, encoded in the
        core: what ``ObservationEncoder(config).encode_flat(self.to_state(), seat)`` gives)."""
        n = self.config.num_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"seat: expected an integer in 0..{n - 1}, got {seat!r}")
        out = np.empty(native_config(self.config).obs_size, dtype=np.float32)
        self._core.observe(int(seat), out)
        return out

    def redetermine(self, seed: int) -> None:
        """Re-shuffle the hidden pile and stack as ``redetermine(default_rng(seed))``."""
        self._core.redetermine(int(seed))

    def rollout(self, seed: int, depth: int = 0) -> int:
        """Play uniformly random legal actions (module docstring); return how many."""
        return int(self._core.rollout(int(seed), int(depth)))

    def determinize(self, rng: np.random.Generator) -> None:
        """Sort the pile and the stack, then shuffle them with ``rng`` (a PCG64 generator,
        advanced as NumPy would): ``moonriver_env.moonriver.agents.common.determinize`` in place."""
        out = self._core.determinize(*generator_words(rng))
        set_generator_words(rng, out)

    def simulate(
        self, policy: str, depth: int, value: str, seed: int, weights: Sequence[float]
    ) -> tuple[float, ...]:
        """``moonriver_env.moonriver.agents.search.SearchAgent.simulate`` in the core, in place: a
        rollout of ``depth`` decisions (0: to the end) with ``policy`` (``"heuristic"``: the light
        policy of ``moonriver_env.moonriver.agents.rollout``, ``"random"``) drawing from
        ``random.Random(seed)``, then every seat's leaf value (``value``: ``"margin"`` or
        ``"win"``); ``weights``:
        the fields of ``moonriver_env.moonriver.agents.evaluation.Weights`` in order."""
        return self._core.simulate(
            _POLICIES.index(policy), int(depth), _VALUES.index(value), int(seed), tuple(weights)
        )

    def action_values(self, actions: Sequence[int], weights: Sequence[float]) -> list[float]:
        """``moonriver_env.moonriver.agents.heuristic.HeuristicAgent.action_values`` on this
        determinization (which stays as it is): the one-ply value of each of ``actions`` for the
        acting seat, each applied to a copy, its pending effects played with the rule-based choices
        and the result evaluated against the opponents (plus the claim order bonus). ``weights``:
        the fields of ``moonriver_env.moonriver.agents.evaluation.Weights`` in order. ``ValueError``
        if an action is not legal."""
        return list(self._core.action_values([int(a) for a in actions], tuple(weights)))

    def greedy_keys(self, actions: Sequence[int]) -> tuple[list[float], list[float]]:
        """``moonriver_env.moonriver.agents.greedy.GreedyAgent``'s keys on this determinization
        (which stays as it is): for each of ``actions``, the change of the acting seat's total
        when it is applied to a copy, and the agent's tie-break key. ``ValueError`` if an
        action is not legal."""
        gains, ties = self._core.greedy_keys([int(a) for a in actions])
        return list(gains), list(ties)

    def value_leaves(
        self,
        seat: int,
        actions: Sequence[int],
        depth: int,
        seed: int,
        weights: Sequence[float],
    ) -> tuple[np.ndarray, list[float | None]]:
        """The ``trained`` agent's leaves (``moonriver_env.moonriver.agents.trained``) of
        ``actions`` on this determinization, which stays as it is: each action applied to a copy,
        then ``seat``'s pending effects played with the rule-based choices, then ``depth`` decisions
        (0: to the end) of the light heuristic drawing from ``random.Random(seed)``.

        Returns the network input rows (float32, one per action, those of
        ``moonriver_env.moonriver.agents.trained.state_inputs`` for ``seat``) and, per action,
        ``seat``'s final margin when the leaf's game ended (its row is then unset) or ``None``.
        ``depth < 0``: no rollout and every row evaluated with this state's context
        (``moonriver_env.moonriver.agents.trained.candidate_inputs``). ``weights``: the fields of
        ``moonriver_env.moonriver.agents.evaluation.Weights`` in order. ``ValueError`` if an action
        is not legal."""
        cfg = native_config(self.config)
        width = cfg.obs_size + self.config.num_players + 1
        rows = np.empty((len(actions), width), dtype=np.float32)
        margins = self._core.value_leaves(
            int(seat), [int(a) for a in actions], int(depth), int(seed), tuple(weights), rows
        )
        return rows, list(margins)
