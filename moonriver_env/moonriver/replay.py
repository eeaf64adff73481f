"""Moon River's replay (the ``replay`` hook of its entry,
:mod:`moonriver_env.family.replay`): a ranch per seat and the shared table per position, drawn
with the SVG painter (:mod:`moonriver_env.moonriver.render.svg`) from the same view model as
the pictures (:func:`moonriver_env.moonriver.render.table_view`)."""

from __future__ import annotations

from typing import Any

from moonriver_env.family.colours import seat_hex
from moonriver_env.family.replay import Replay, Scores, assemble_replay, walk_frames
from moonriver_env.moonriver.render.svg import SvgDefs, legend_svg, ranch_svg, table_svg
from moonriver_env.moonriver.render.view import table_view
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown

__all__ = ["CATEGORIES", "REPLAY", "MoonRiverReplay"]

CATEGORIES = ("territories", "resources", "partners", "scenario")
"""Moon River's score categories (RULES.md section 5), in the order of the score table."""


def _score_row(score: ScoreBreakdown) -> tuple[int, ...]:
    return (*(getattr(score, c) for c in CATEGORIES), score.total)


class MoonRiverReplay:
    """Moon River's replay: a ranch per seat and the shared table per position."""

    name = "moonriver"

    def replay(self, moves: Any, title: str) -> Replay:
        defs = SvgDefs()
        labels = moves.seats

        def draw(state: GameState) -> tuple[list[str], Scores]:
            view = table_view(state, labels)
            shown = [ranch_svg(view, s, defs) for s in range(view.num_players)]
            shown.append(table_svg(view, defs))
            return shown, tuple(_score_row(s) for s in state.scores())

        walk = walk_frames(moves, draw)
        setup = f"{moves.players} players, {moves.mode}"
        if walk.last.scenario:
            setup += f", scenario {walk.last.scenario.replace('_', ' ')}"
        return assemble_replay(
            moves,
            title,
            setup,
            walk,
            tuple(seat_hex(s) for s in range(moves.players)),
            categories=CATEGORIES,
            defs=defs.markup(),
            legend=legend_svg(),
        )


REPLAY = MoonRiverReplay()
"""Moon River's replay."""
