"""One game in the native core, for search: clone, apply, legal actions, scores,
redetermine and random rollouts at C speed.

A :class:`NativeState` is the game a :class:`~moonriver_env.rules.GameState` plays (made from
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

from ..rules import GameConfig, GameState, IllegalActionError, Phase
from ..rules.scoring import ScoreBreakdown, rank_winners
from ._backend import native_config
from ._native_core import IMPORT_ERROR
from ._native_core import native as _maybe_native
from ._spec import (
    generator_words,
    record_dtype,
    record_to_state,
    set_generator_words,
    state_to_record,
)


def _extension() -> Any:
    """The extension module; ``ImportError`` when the core is not built (or switched off)."""
    if _maybe_native is None:
        raise ImportError(f"moonriver_env.vector.search needs the native core: {IMPORT_ERROR}")
    return _maybe_native


__all__ = ["NativeState"]

_POLICIES = ("random", "heuristic")  # the core's policy codes (agents.rollout.ROLLOUT_POLICIES)
_VALUES = ("margin", "win")  # the core's value codes (agents.search.VALUE_MODES)


class NativeState:
    """One game in the core (see the module docstring)."""

    __slots__ = ("config", "_core")

    def __init__(self, config: GameConfig, seed: int = 0, *, _core: Any = None) -> None:
        self.config = config
        if _core is None:
            if (
                isinstance(seed, bool)
                or not isinstance(seed, (int, np.integer))
                or not (0 <= seed < 2**64)
            ):
                raise ValueError(f"seed: expected an integer in 0..2**64-1, got {seed!r}")
            _core = _extension().new_state(native_config(config), int(seed))
        self._core = _core

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

    def clone(self) -> NativeState:
        """An independent copy (one struct copy in the core)."""
        return NativeState(self.config, _core=self._core.clone())

    def copy_from(self, other: NativeState) -> None:
        """Become a copy of ``other`` (no allocation: for search loops)."""
        self._core.copy_from(other._core)

    def legal_action_list(self) -> list[int]:
        """Legal action ids, ascending (empty when the game is over)."""
        return self._core.legal()

    def apply(self, action: int) -> None:
        """Play ``action``; :class:`IllegalActionError` (nothing changes) if it is not legal."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"action must be an integer id, got {action!r}")
        if not -(2**63) <= int(action) < 2**63 or not self._core.apply(int(action)):
            raise IllegalActionError(
                f"action {action} is not legal in phase {self.phase.name} for seat "
                f"{self._core.seat}"
            )

    @property
    def phase(self) -> Phase:
        return Phase(self._core.phase)

    @property
    def current_seat(self) -> int | None:
        seat = self._core.seat
        return None if seat < 0 else int(seat)

    @property
    def is_terminal(self) -> bool:
        return self._core.phase == Phase.GAME_OVER

    def scores(self) -> list[ScoreBreakdown]:
        """One :class:`ScoreBreakdown` per seat, on the ranches as they stand."""
        return [ScoreBreakdown(*row) for row in self._core.scores()]

    def winners(self) -> list[int]:
        return rank_winners(self.scores())

    def redetermine(self, seed: int) -> None:
        """Re-shuffle the hidden pile and stack as ``redetermine(default_rng(seed))``."""
        self._core.redetermine(int(seed))

    def rollout(self, seed: int, depth: int = 0) -> int:
        """Play uniformly random legal actions (module docstring); return how many."""
        return int(self._core.rollout(int(seed), int(depth)))

    def determinize(self, rng: np.random.Generator) -> None:
        """Sort the pile and the stack, then shuffle them with ``rng`` (a PCG64 generator,
        advanced as NumPy would): ``agents.base.determinize`` in place."""
        out = self._core.determinize(*generator_words(rng))
        set_generator_words(rng, out)

    def simulate(
        self, policy: str, depth: int, value: str, seed: int, weights: Sequence[float]
    ) -> tuple[float, ...]:
        """``agents.search.SearchAgent.simulate`` in the core, in place: a rollout of
        ``depth`` decisions (0: to the end) with ``policy`` (``"heuristic"``: the light
        policy of ``agents.rollout``, ``"random"``) drawing from ``random.Random(seed)``,
        then every seat's leaf value (``value``: ``"margin"`` or ``"win"``); ``weights``:
        the fields of ``agents.evaluation.Weights`` in order."""
        return self._core.simulate(
            _POLICIES.index(policy), int(depth), _VALUES.index(value), int(seed), tuple(weights)
        )

    def time_clones(self, k: int) -> int:
        """Copy the state ``k`` times inside the core (the benchmark's clone row)."""
        return int(self._core.time_clones(int(k)))
