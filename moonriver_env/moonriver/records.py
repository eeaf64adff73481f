"""Moon River's score columns in a tournament (the ``records`` hook of its entry,
:mod:`moonriver_env.family.records`): the engine's score breakdown per seat (the categories
and the tie-break keys), the board each seat played and the game's Legends scenario."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields

from moonriver_env.family.records import ScoreSheet, SeatSheet
from moonriver_env.moonriver.rules import GameState, ScoreBreakdown

__all__ = ["RECORDS"]


def _read(state: GameState) -> tuple[Mapping[str, str], Sequence[SeatSheet]]:
    seats = [
        SeatSheet(text={"board": str(state.boards[s])}, scores=asdict(sc), rank_key=sc.rank_key)
        for s, sc in enumerate(state.scores())
    ]
    return {"game_scenario": state.scenario or ""}, seats


RECORDS = ScoreSheet(
    score_columns=tuple(f.name for f in fields(ScoreBreakdown)),
    categories={"territories": "terr", "resources": "res", "partners": "partn", "scenario": "scen"},
    read=_read,
    game_columns=("game_scenario",),
    seat_columns=("board",),
)
"""Moon River's score sheet."""
