"""Moon River's board view (the ``board`` hook of its entry,
:mod:`moonriver_env.family.board`): where its moves are clicked on the pictures of
:func:`~moonriver_env.moonriver.render.svg.ranch_svg` (a ranch per seat, with its reserve)
and :func:`~moonriver_env.moonriver.render.svg.table_svg` (the table), in their SVG units.

- ``claim N``: the plot it claims in a column (found by playing the claim on a copy);
- ``place I+J CELL DIR``: the two held plots of the reserve, in either order, then the cell of
  the first one clicked and the cell of the second (so the clicks set the rotation);
  ``discard I+J``: the two held plots;
- ``recruit sN SIDE on CELL``: the saloon's token, then its side (two chips drawn under the
  token: the specialist and the cowboy face), then the cell whose circle takes it;
- ``move CELL DIR`` (a Cowboy): the cell, then its neighbour; ``skull CELL``: the cell;
  ``steal +K CELL``: the cell of the ranch ``K`` seats on; ``swap OWN +K THEIRS``: the held
  plot of the acting reserve, then the one of the reserve ``K`` seats on;
- ``bonus TS CELL``: the tile's side on the table, then the cell; ``bonus T remove``: the tile;
- ``stop``, ``cowboy stop``, ``desperado skip``, ``thief skip``: buttons (passes).

The layout is the painter's (:mod:`moonriver_env.moonriver.render.svg`); the API test checks
it against the cells the engine fills.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from moonriver_env.family.board import ClickPath, Target, cell_index, complete, neighbour
from moonriver_env.moonriver.render import svg
from moonriver_env.moonriver.render.view import TableView, table_view
from moonriver_env.moonriver.rules.actions import SIDES

_GRID_X = svg._PAD + svg._ROW_LABEL
_GRID_Y = svg._PAD + svg._LABEL_H + svg._LETTERS_H
_SALOON_X = svg._INFO_W + svg._GAP
_TOKEN_STEP = 2 * svg._TOKEN_R + 4
_FACE_STEP = svg._FACE + 4
_TOP = 14
_CHIP = 2 * svg._TOKEN_R


class _Table:
    """The positions of one view's pieces."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.view: TableView = table_view(state)
        self.seat = int(state.current_seat)
        self.table = self.view.num_players
        self.columns_x = _SALOON_X + len(self.view.saloon) * _TOKEN_STEP + svg._GAP
        self.bonus_x = (
            self.columns_x
            + (len(self.view.now.plots) + len(self.view.next.plots)) * _FACE_STEP
            + 2 * svg._GAP
        )

    def cell(self, seat: int, name: str) -> Target | None:
        cell = cell_index(name)
        return None if cell is None else self._cell(seat, cell)

    def _cell(self, seat: int, cell: tuple[int, int] | None) -> Target | None:
        if cell is None:
            return None
        row, col = cell
        view = self.view
        if not (0 <= row < view.rows and 0 <= col < view.cols):
            return None
        x = _GRID_X + col * svg.CELL
        y = _GRID_Y + (view.rows - 1 - row) * svg.CELL
        return Target(seat, x, y, svg.CELL, svg.CELL)

    def pair(self, name: str, direction: str) -> tuple[Target | None, Target | None]:
        """The cell ``name`` and its neighbour in ``direction`` on the acting ranch."""
        cell = cell_index(name)
        after = None if cell is None else neighbour(cell, direction)
        return self._cell(self.seat, cell), self._cell(self.seat, after)

    def held(self, seat: int, index: str) -> Target | None:
        """The ``index``-th plot of ``seat``'s reserve."""
        if not index.isdigit() or int(index) >= len(self.view.ranches[seat].held):
            return None
        x = svg._PAD + int(index) * (svg._MINI + 4)
        y = _GRID_Y + self.view.rows * svg.CELL + 1 + svg._RIVER_H + 4 + 13
        return Target(seat, x, y, svg._MINI, svg._MINI)

    def other(self, offset: str) -> int | None:
        """The seat ``+K`` seats on."""
        if not offset.startswith("+") or not offset[1:].isdigit():
            return None
        return (self.seat + int(offset[1:])) % self.view.num_players

    def token(self, slot: str) -> tuple[float, int] | None:
        """The saloon token ``sN``: its centre's x and its partner kind."""
        if not slot[1:].isdigit() or not 1 <= int(slot[1:]) <= len(self.view.saloon):
            return None
        i = int(slot[1:]) - 1
        return _SALOON_X + svg._TOKEN_R + i * _TOKEN_STEP, self.view.saloon[i]

    def claim(self, action: int) -> Target | None:
        """The column plot ``action`` claims: the place whose claim becomes the acting seat's."""
        after = self.state.clone()
        after.apply(action)
        new = table_view(after, self.view.labels)
        columns = (self.view.now, self.view.next)
        xs = (self.columns_x, self.columns_x + len(columns[0].plots) * _FACE_STEP + svg._GAP)
        for before, now, x in zip(columns, (new.now, new.next), xs, strict=True):
            for i, (was, claim) in enumerate(zip(before.claims, now.claims, strict=True)):
                if claim == self.seat and was != self.seat:
                    return Target(self.table, x + i * _FACE_STEP, _TOP, svg._FACE, svg._FACE + 16)
        # the round's last claim: the columns moved on; the free place of its number
        i = int(self.state.layout.located[action][1][0])
        for column, x in zip(columns, xs, strict=True):
            if i < len(column.plots) and column.plots[i] is not None and column.claims[i] < 0:
                return Target(self.table, x + i * _FACE_STEP, _TOP, svg._FACE, svg._FACE + 16)
        return None

    def tile(self, name: str) -> tuple[int, Any] | None:
        for t, tile in enumerate(self.view.bonus_tiles):
            if tile.name == name:
                return t, tile
        return None


def _recruit(table: _Table, words: Sequence[str]) -> list[ClickPath]:
    """``recruit sN SIDE on CELL``: the token, its side, the cell."""
    found = table.token(words[1])
    if found is None or words[2] not in SIDES:
        return []
    cx, kind = found
    side = SIDES.index(words[2])
    left = cx - _CHIP - 1 + side * (_CHIP + 2)  # the specialist side left, the cowboy right
    top = _TOP + svg._FACE + 2
    chip = svg._token(left + _CHIP / 2, top + _CHIP / 2, svg._TOKEN_R - 1, 2 * kind + side)
    token = Target(table.table, cx - svg._TOKEN_R - 2, _TOP + svg._FACE / 2 - svg._TOKEN_R - 2,
                   _CHIP + 4, _CHIP + 4)  # fmt: skip
    side_chip = Target(table.table, left, top, _CHIP, _CHIP, chip)
    return complete((token, side_chip, table.cell(table.seat, words[4])))


def _bonus(table: _Table, words: Sequence[str]) -> list[ClickPath]:
    """``bonus TS CELL``: the tile's side, then the cell; ``bonus T remove``: the tile."""
    name = words[1]
    found = table.tile(name if words[2] == "remove" else name[:-1])
    if found is None:
        return []
    t, tile = found
    x = table.bonus_x + t * (2 * svg._FACE + 10)
    if words[2] == "remove":
        return complete((Target(table.table, x, _TOP, 2 * svg._FACE, svg._FACE),))
    if not name[-1:].isdigit() or int(name[-1]) > 1:
        return []
    face = Target(table.table, x + int(name[-1]) * svg._FACE, _TOP, svg._FACE, svg._FACE)
    return complete((face, table.cell(table.seat, words[2])))


class MoonRiverBoard:
    """Moon River's board view (the module docstring)."""

    def paths(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[ClickPath]]:
        table = _Table(state)
        seat = table.seat
        out: list[list[ClickPath]] = []
        for action, words in moves:
            kind, n = (words[0] if words else ""), len(words)
            paths: list[ClickPath] = []
            if kind == "claim":
                paths = complete((table.claim(action),))
            elif kind in ("place", "discard") and n in (2, 4) and "+" in words[1]:
                i, _, j = words[1].partition("+")
                first, second = table.held(seat, i), table.held(seat, j)
                if n == 2:
                    paths = complete((first, second), (second, first))
                else:
                    a, b = table.pair(words[2], words[3])
                    paths = complete((first, second, a, b), (second, first, b, a))
            elif kind == "move" and n == 3:
                paths = complete(table.pair(words[1], words[2]))
            elif kind == "recruit" and n == 5:
                paths = _recruit(table, words)
            elif kind == "skull" and n == 2:
                paths = complete((table.cell(seat, words[1]),))
            elif kind == "steal" and n == 3:
                other = table.other(words[1])
                paths = complete(((None if other is None else table.cell(other, words[2])),))
            elif kind == "swap" and n == 4:
                other = table.other(words[2])
                theirs = None if other is None else table.held(other, words[3])
                paths = complete((table.held(seat, words[1]), theirs))
            elif kind == "bonus" and n == 3:
                paths = _bonus(table, words)
            out.append(paths)
        return out


BOARD = MoonRiverBoard()
"""Moon River's board view: the ``board`` hook of its entry."""
