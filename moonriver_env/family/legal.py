"""The legal-action queries both games' states answer the same way (Moon River's
:class:`~moonriver_env.moonriver.rules.state.GameState`, whose choices are RULES.md sections 2-7, and
Kingdomino's :class:`~moonriver_env.kingdomino.rules.state.KingdominoState`, section 13): from one
ascending list of action ids, generated when first asked for and kept until the state
changes."""

from __future__ import annotations

from bisect import bisect_left
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["LegalActions"]


class LegalActions:
    """Mixin of a game state that keeps its legal ids in ``_legal`` (``None`` once it
    changes), generates them with ``_generate_legal()`` (ascending) and has a ``config`` with
    ``num_actions``."""

    __slots__ = ()

    _legal: list[int] | None
    config: Any

    @property
    def layout(self) -> Any:
        """The config's action layout (ids and their text forms)."""
        raise NotImplementedError

    @property
    def is_terminal(self) -> bool:
        raise NotImplementedError

    def _generate_legal(self) -> list[int]:
        raise NotImplementedError

    def _illegal_message(self, a: int) -> str:
        """Why action id ``a`` is refused: no action of this config, the game is over, or not
        legal in this phase for the seat to act."""
        try:
            text = self.layout.to_text(a)
        except ValueError as exc:
            return f"action {a} is not an action of this config: {exc}"
        if self.is_terminal:
            return f"action {a} ({text}) is illegal: the game is over"
        state: Any = self  # both games' states have a phase (an enum) and a seat to act
        return f"action {a} ({text}) is not legal in phase {state.phase.name} for seat {state.seat}"

    def legal_action_list(self) -> list[int]:
        """Legal action ids, ascending, as a Python list (do not mutate it)."""
        legal = self._legal
        if legal is None:
            # the slot is the subclass's (a mixin of both states keeps no slots of its own)
            legal = self._legal = self._generate_legal()  # type: ignore[misc]
        return legal

    def legal_actions(self) -> NDArray[np.int64]:
        """Legal action ids, ascending (empty when the game is over)."""
        return np.array(self.legal_action_list(), dtype=np.int64)

    def legal_action_mask(self) -> NDArray[np.bool_]:
        """Boolean mask of length ``config.num_actions``."""
        mask = np.zeros(self.config.num_actions, dtype=np.bool_)
        mask[self.legal_action_list()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        legal = self.legal_action_list()
        i = bisect_left(legal, action)
        return i < len(legal) and legal[i] == action
