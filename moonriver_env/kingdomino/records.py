"""Kingdomino's score columns in a tournament (the ``records`` hook of its entry,
:mod:`moonriver_env.family.records`): per seat its points (``total``; in a Dynasty the games
before included), this game's territory and bonus points and the tie-break keys."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from moonriver_env.family.records import ScoreSheet, SeatSheet
from moonriver_env.kingdomino.rules.state import KingdominoState

__all__ = ["RECORDS"]


def _read(state: KingdominoState) -> tuple[Mapping[str, str], Sequence[SeatSheet]]:
    keys = state.rank_keys()
    seats = [
        SeatSheet(
            text={},
            scores={
                "territories": sc.territory_points,
                "harmony": sc.harmony,
                "middle_kingdom": sc.middle_kingdom,
                "earlier_games": points - sc.total,
                "total": points,
                "largest_territory": keys[s][1],
                "crowns": sc.crowns,
            },
            rank_key=keys[s],
        )
        for s, (sc, points) in enumerate(zip(state.scores(), state.points(), strict=True))
    ]
    return {}, seats


RECORDS = ScoreSheet(
    score_columns=(
        "territories",
        "harmony",
        "middle_kingdom",
        "earlier_games",
        "total",
        "largest_territory",
        "crowns",
    ),
    categories={
        "territories": "terr",
        "harmony": "harm",
        "middle_kingdom": "middle",
        "earlier_games": "dyn",
    },
    read=_read,
)
"""Kingdomino's score sheet (``earlier_games``: a Dynasty's finished games; 0 otherwise)."""
