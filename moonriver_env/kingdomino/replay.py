"""Kingdomino's replay (the ``replay`` hook of its entry, :mod:`moonriver_env.family.replay`):
each kingdom and the two draft lines as SVG, per position.

The pictures come from the same data as :mod:`moonriver_env.kingdomino.render`: a kingdom's
squares (:meth:`~moonriver_env.kingdomino.Kingdom.square`, the landscape colours of
:data:`~moonriver_env.kingdomino.render.LANDSCAPE_COLOURS`, a dot per crown, the castle
white) and the lines with the kings on them. Scores by category are the engine's
(:class:`~moonriver_env.kingdomino.rules.scoring.KingdomScore`).
"""

from __future__ import annotations

from html import escape
from typing import Any

from moonriver_env.family.colours import hex_colour, seat_hex
from moonriver_env.family.replay import Replay, Scores, assemble_replay, walk_frames
from moonriver_env.kingdomino import Kingdom, KingdominoState
from moonriver_env.kingdomino.render import LANDSCAPE_COLOURS
from moonriver_env.kingdomino.rules.state import DOMINOES

CATEGORIES = ("territories", "harmony", "middle kingdom")
"""Kingdomino's score categories (the score pad's territories and the two bonuses)."""
DYNASTY_CATEGORY = "earlier games"
"""A Dynasty's extra category: the points of its finished games."""

CELL = 22
"""Side of one square in the pictures, in SVG units."""

LANDSCAPES = ("wheat field", "forest", "lake", "grassland", "swamp", "mine")
"""The landscapes, in the engine's order (the colours' order)."""


FILL = tuple(hex_colour(c) for c in LANDSCAPE_COLOURS)


def _square(x: int, y: int, land: int, crowns: int) -> str:
    fill = "#f5f5f5" if land < 0 else FILL[land]
    out = [f'<rect x="{x + 1}" y="{y + 1}" width="{CELL - 2}" height="{CELL - 2}" fill="{fill}"/>']
    out += [
        f'<circle cx="{x + 5 + 5 * i}" cy="{y + 5}" r="2" fill="#141414"/>' for i in range(crowns)
    ]
    return "".join(out)


def kingdom_svg(kingdom: Kingdom, label: str, colour: str, points: int) -> str:
    """One seat's kingdom: a square per cell of its frame region, the label and points."""
    side = kingdom.board.side
    size = side * CELL
    body = [
        f'<rect width="{size}" height="{size}" fill="#202028" stroke="{colour}" stroke-width="3"/>'
    ]
    for c in range(kingdom.board.cells):
        sq = kingdom.square(c)
        if sq is not None:
            r, q = divmod(c, side)
            body.append(_square(q * CELL, r * CELL, sq[0], sq[1]))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 -18 {size} {size + 18}" '
        f'width="{size}" height="{size + 18}"><text x="0" y="-5" font-size="13" fill="{colour}">'
        f"{escape(label)}: {points}</text>{''.join(body)}</svg>"
    )


def lines_svg(state: KingdominoState) -> str:
    """The current and the next line: each domino's two halves, the king on it (seat colour)."""
    rows = []
    width = 0
    for li, (name, line, kings) in enumerate(
        (("current", state.cur_line, state.cur_kings), ("next", state.next_line, state.next_kings))
    ):
        y = li * (CELL + 22) + 16
        rows.append(f'<text x="0" y="{y - 4}" font-size="12">{name} line</text>')
        for pos, (d, king) in enumerate(zip(line, kings, strict=True)):
            x = pos * (2 * CELL + 16)
            width = max(width, x + 2 * CELL + 16)
            if d >= 0:
                dom = DOMINOES[d]
                rows.append(_square(x, y, dom.land1, dom.crowns1))
                rows.append(_square(x + CELL, y, dom.land2, dom.crowns2))
            if king >= 0:
                rows.append(
                    f'<circle cx="{x + 2 * CELL + 6}" cy="{y + CELL // 2}" r="5" '
                    f'fill="{seat_hex(king)}"><title>king of seat {king}</title></circle>'
                )
    height = 2 * (CELL + 22) + 6
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {max(width, 100)} {height}" '
        f'width="{max(width, 100)}" height="{height}">{"".join(rows)}</svg>'
    )


def legend_svg() -> str:
    """The landscapes' colours (a dot is a crown, white the castle)."""
    items = [
        f'<rect x="{i * 90}" y="2" width="12" height="12" fill="{FILL[i]}"/>'
        f'<text x="{i * 90 + 16}" y="12" font-size="11">{name}</text>'
        for i, name in enumerate(LANDSCAPES)
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {90 * len(LANDSCAPES)} 18" '
        f'width="{90 * len(LANDSCAPES)}" height="18">{"".join(items)}</svg>'
    )


def _score_row(state: KingdominoState) -> tuple[tuple[int, ...], ...]:
    """Per seat the categories, then the total (its points, a Dynasty's earlier games
    included)."""
    dynasty = state.config.has("dynasty")
    rows = []
    for s, total in zip(state.scores(), state.points(), strict=True):
        row = (s.territory_points, s.harmony, s.middle_kingdom)
        rows.append((*row, total - s.total, total) if dynasty else (*row, total))
    return tuple(rows)


class KingdominoReplay:
    """Kingdomino's replay: a kingdom per seat and the draft lines per position."""

    name = "kingdomino"

    def replay(self, moves: Any, title: str) -> Replay:
        labels = moves.seats
        colours = tuple(seat_hex(s) for s in range(moves.players))

        def draw(state: KingdominoState) -> tuple[list[str], Scores]:
            scores = _score_row(state)
            shown = [
                kingdom_svg(k, labels[s], colours[s], scores[s][-1])
                for s, k in enumerate(state.kingdoms)
            ]
            shown.append(lines_svg(state))
            return shown, scores

        walk = walk_frames(moves, draw)
        config = walk.last.config
        dynasty = config.has("dynasty")
        return assemble_replay(
            moves,
            title,
            f"Kingdomino, {config.describe()}",
            walk,
            colours,
            categories=(*CATEGORIES, DYNASTY_CATEGORY) if dynasty else CATEGORIES,
            defs="",
            legend=legend_svg(),
        )


REPLAY = KingdominoReplay()
"""Kingdomino's replay."""
