"""What the terminal play command needs of a game (the ``play`` hook of a
:class:`~moonriver_env.games.GameEntry`): its board on screen, its move words, its help and
its final score table.

A game declares one :class:`PlayScreen` in its folder (``play.py``, named by the entry's
``hooks["play"]``); the play command (:mod:`agents.play`) keeps the generic loop (seats,
agents, humans, watching, saving and resuming) and never imports a game.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PlayScreen"]


@dataclass(frozen=True)
class PlayScreen:
    """A game's terminal screen and move words.

    Attributes:
        board: ``(state, color, seat_names)`` -> the board as text (ANSI colours when
            ``color``).
        legend: the lines that explain the board's letters (printed once; may be empty).
        help: the text of the ``help`` command (how moves are typed).
        legal_moves: state -> the legal moves in text form, as a human reads them.
        parse_move: ``(state, text)`` -> ``(action, None)`` for a legal move typed as text
            (or its action id), else ``(None, why)``.
        score_table: ``(state, seat_names)`` -> the final scores as text.
        round: state -> a value that changes when a new round starts (a watched game shows
            the board once per round).
        setting: state -> what the title adds after the mode (Moon River: the drawn
            scenario), ``""`` for nothing.
        load_state: the state's JSON (``to_json``) -> the state (``ValueError`` if it is
            not one of this game's).
    """

    board: Callable[[Any, bool, Sequence[str]], str]
    legend: Sequence[str]
    help: str
    legal_moves: Callable[[Any], str]
    parse_move: Callable[[Any, str], tuple[int | None, str | None]]
    score_table: Callable[[Any, Sequence[str]], str]
    round: Callable[[Any], Hashable]
    setting: Callable[[Any], str]
    load_state: Callable[[str], Any]
