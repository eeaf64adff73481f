"""What the terminal play command needs of a game (the ``play`` hook of a
:class:`~moonriver_env.games.GameEntry`): its board on screen, its move words, its help and
its final score table.

A game declares one :class:`PlayScreen` in its folder (``play.py``, named by the entry's
``hooks["play"]``); the play command (:mod:`agents.play`) keeps the generic loop (seats,
agents, humans, watching, saving and resuming) and never imports a game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any

__all__ = ["PlayScreen"]


class PlayScreen(ABC):
    """A game's terminal screen and move words."""

    help: str = ""
    """The text of the ``help`` command (how moves are typed)."""
    legend: Sequence[str] = ()
    """The lines that explain the board's letters (printed once; may be empty)."""

    @abstractmethod
    def board(self, state: Any, color: bool, seat_names: Sequence[str]) -> str:
        """The board as text (ANSI colours when ``color``)."""

    @abstractmethod
    def legal_moves(self, state: Any) -> str:
        """The legal moves in text form, as a human reads them."""

    @abstractmethod
    def parse_move(self, state: Any, text: str) -> tuple[int | None, str | None]:
        """``(action, None)`` for a legal move typed as text (or its action id), else
        ``(None, why)``."""

    def move_words(self, state: Any, action: int) -> str:
        """``action`` as a player types it on this screen (by default the engine's text form,
        ``state.action_to_string``)."""
        return str(state.action_to_string(action))

    @abstractmethod
    def score_table(self, state: Any, seat_names: Sequence[str]) -> str:
        """The final scores as text."""

    @abstractmethod
    def round(self, state: Any) -> Hashable:
        """A value that changes when a new round starts (a watched game shows the board once
        per round)."""

    @abstractmethod
    def load_state(self, text: str) -> Any:
        """The state of its JSON (``to_json``); ``ValueError`` if it is not one of this
        game's."""

    def setting(self, state: Any) -> str:
        """What the title adds after the mode (Moon River: the drawn scenario)."""
        return ""
