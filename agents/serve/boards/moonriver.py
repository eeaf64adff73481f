"""Moon River's click map (:mod:`agents.serve.boards`): where its move words lie on the
pictures of :func:`moonriver_env.moonriver.render.svg.ranch_svg` (a ranch per seat) and
:func:`~moonriver_env.moonriver.render.svg.table_svg` (the table), in their SVG units.

- ``claim N``: the plot of the column it claims (found by playing the claim on a copy);
- ``place I+J CELL DIR``, ``move CELL DIR``: the cell, then its neighbour in ``DIR``;
- ``recruit sN SIDE on CELL``: the saloon space, then the cell;
- ``skull CELL``, ``bonus TS CELL``: the cell of the acting ranch; ``steal +K CELL``: the cell
  of the ranch ``K`` seats on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from moonriver_env.moonriver.render import svg
from moonriver_env.moonriver.render.view import TableView, table_view

from . import Target, cell_index, neighbour

_GRID_X = svg._PAD + svg._ROW_LABEL
_GRID_Y = svg._PAD + svg._LABEL_H + svg._LETTERS_H
_SALOON_X = svg._INFO_W + svg._GAP
_TOKEN_STEP = 2 * svg._TOKEN_R + 4
_FACE_STEP = svg._FACE + 4


def _cell(view: TableView, seat: int, cell: tuple[int, int] | None) -> Target | None:
    if cell is None:
        return None
    row, col = cell
    if not (0 <= row < view.rows and 0 <= col < view.cols):
        return None
    x = _GRID_X + col * svg.CELL
    y = _GRID_Y + (view.rows - 1 - row) * svg.CELL
    return (seat, x, y, svg.CELL, svg.CELL)


def _column_x(view: TableView) -> float:
    return _SALOON_X + len(view.saloon) * _TOKEN_STEP + svg._GAP


def _claim(state: Any, view: TableView, action: int, table: int) -> Target | None:
    """The column plot ``action`` claims: the place whose claim becomes the acting seat's."""
    seat = state.current_seat
    after = state.clone()
    after.apply(action)
    new = table_view(after, view.labels)
    x = _column_x(view)
    for before, now in ((view.now, new.now), (view.next, new.next)):
        for i, (was, claim) in enumerate(zip(before.claims, now.claims, strict=True)):
            if claim == seat and was != seat:
                return (table, x + i * _FACE_STEP, 14, svg._FACE, svg._FACE + 16)
        x += len(before.plots) * _FACE_STEP + svg._GAP
    return None


class MoonRiverClickMap:
    """Moon River's click map."""

    def targets(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[Target | None]]:
        view = table_view(state)
        seat = state.current_seat
        table = view.num_players
        out: list[list[Target | None]] = []
        for action, words in moves:
            marks: list[Target | None] = [None] * len(words)
            kind = words[0] if words else ""
            if kind == "claim":
                marks[-1] = _claim(state, view, action, table)
            elif kind in ("place", "move") and len(words) >= 3:
                k = len(words) - 2
                cell = cell_index(words[k])
                marks[k] = _cell(view, seat, cell)
                if cell is not None:
                    marks[k + 1] = _cell(view, seat, neighbour(cell, words[k + 1]))
            elif kind == "recruit" and len(words) == 5:
                slot = words[1][1:]
                if slot.isdigit() and 1 <= int(slot) <= len(view.saloon):
                    cx = _SALOON_X + (int(slot) - 1) * _TOKEN_STEP
                    marks[1] = (table, cx, 14 + svg._FACE / 2 - svg._TOKEN_R - 2, 20, 24)
                marks[4] = _cell(view, seat, cell_index(words[4]))
            elif kind in ("skull", "bonus") and len(words) >= 2:
                marks[-1] = _cell(view, seat, cell_index(words[-1]))
            elif kind == "steal" and len(words) == 3 and words[1][1:].isdigit():
                other = (seat + int(words[1][1:])) % view.num_players
                marks[2] = _cell(view, other, cell_index(words[2]))
            out.append(marks)
        return out


CLICK_MAP = MoonRiverClickMap()
"""Moon River's click map."""
