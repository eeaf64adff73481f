"""What a tournament records of a game (the ``records`` hook of a
:class:`~moonriver_env.games.GameEntry`): the score columns of ``games.csv``, the parts of the
total that the summary averages and plots, and how a finished state fills them.

A game declares one :class:`ScoreSheet` in its folder (``records.py``, named by the entry's
``hooks["records"]``); the tournament (:mod:`agents.tournament`) reads every game through it
and never imports a game. Every game's ``games.csv`` has the same frame (one row per game and
seat: ``game``, ``seed``, the game's text columns, ``seat``, the seat's text columns,
``agent``, the score columns, ``rank``, ``win``, ``win_share``, ``decisions``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ScoreSheet", "SeatSheet", "win_share"]


@dataclass(frozen=True)
class SeatSheet:
    """One seat of a finished game: its text columns, its score columns (``total`` among
    them) and its rank key (a higher key ranks first, equal keys share)."""

    text: Mapping[str, str]
    scores: Mapping[str, int]
    rank_key: tuple[int, ...]


@dataclass(frozen=True)
class ScoreSheet:
    """A game's score columns and how a finished state fills them.

    Attributes:
        score_columns: the integer columns of a seat, ``"total"`` (the seat's points) among
            them, in file order.
        categories: the columns that add up to the total (averaged per agent in
            ``summary.csv`` and stacked in the plot), with their short table headings.
        game_columns: text columns of the whole game (Moon River: ``game_scenario``).
        seat_columns: text columns of a seat (Moon River: ``board``).
        read: a finished state -> the game's text columns and every seat's sheet.
    """

    score_columns: tuple[str, ...]
    categories: Mapping[str, str]
    read: Callable[[Any], tuple[Mapping[str, str], Sequence[SeatSheet]]]
    game_columns: tuple[str, ...] = ()
    seat_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if "total" not in self.score_columns:
            raise ValueError(f"score_columns: must include 'total', got {self.score_columns!r}")
        missing = [c for c in self.categories if c not in self.score_columns]
        if missing:
            raise ValueError(f"categories: not score columns: {missing!r}")


def win_share(winners: Collection[int], seat: int) -> float:
    """``seat``'s share of the win when the seats ``winners`` win: 1/k for each of the k
    winners (a shared win), 0 for the others and when there is no winner yet."""
    return 1.0 / len(winners) if seat in winners else 0.0
