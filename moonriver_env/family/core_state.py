"""What a game held by the native core offers search, in both games: the part of
:class:`~moonriver_env.moonriver.vector.search.NativeState` (Moon River) and
:class:`~moonriver_env.kingdomino.vector.search.NativeKingdominoState` (Kingdomino) that does not
depend on the game."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, ClassVar, TypeVar

import numpy as np

__all__ = ["CoreState", "check_seed64"]

_State = TypeVar("_State", bound="CoreState")


def check_seed64(seed: object) -> int:
    """A seed for NumPy's generator in the core: an integer in 0..2**64-1."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: expected an integer in 0..2**64-1, got {seed!r}")
    return int(seed)


class CoreState:
    """One game in the core: ``config`` (the game's config) and ``_core`` (the extension's
    state object). Subclasses name the game's phases and its illegal-action error."""

    __slots__ = ("config", "_core")

    phases: ClassVar[type[IntEnum]]
    """The game's phase enum (its ``GAME_OVER`` member ends the game)."""
    illegal_action_error: ClassVar[type[ValueError]]

    config: Any
    _core: Any

    def clone(self: _State) -> _State:
        """An independent copy (one struct copy in the core)."""
        new = object.__new__(type(self))
        new.config = self.config
        new._core = self._core.clone()
        return new

    def copy_from(self: _State, other: _State) -> None:
        """Become a copy of ``other`` (no allocation: for search loops)."""
        self._core.copy_from(other._core)

    def legal_action_list(self) -> list[int]:
        """Legal action ids, ascending (empty when the game is over)."""
        legal: list[int] = self._core.legal()
        return legal

    def apply(self, action: int) -> None:
        """Play ``action``; the game's IllegalActionError (nothing changes) if it is not
        legal."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise self.illegal_action_error(f"action must be an integer id, got {action!r}")
        if not -(2**63) <= int(action) < 2**63 or not self._core.apply(int(action)):
            raise self.illegal_action_error(
                f"action {action} is not legal in phase {self.phase.name} for seat "
                f"{self._core.seat}"
            )

    @property
    def phase(self) -> IntEnum:
        return self.phases(self._core.phase)

    @property
    def current_seat(self) -> int | None:
        seat = self._core.seat
        return None if seat < 0 else int(seat)

    @property
    def is_terminal(self) -> bool:
        return bool(self._core.phase == self.phases["GAME_OVER"])

    def time_clones(self, k: int) -> int:
        """Copy the state ``k`` times inside the core (the benchmark's clone row)."""
        return int(self._core.time_clones(int(k)))
