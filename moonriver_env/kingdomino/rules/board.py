"""The board a kingdom is built on (RULES.md section 13, K4), as integer bitboards.

A kingdom must fit a ``size`` x ``size`` frame (5, or 7 in the Mighty Duel) but the frame may
lie anywhere around the castle, so the board is ``side = 2 * size - 1`` squares wide with the
castle in its middle: every frame that holds the castle fits. Cell ``index = row * side +
col``; row 1 is printed at the top. The flood fill of territories and the shifts come from
the Moon River grid (:class:`moonriver_env.family.geometry.Grid`), which the two games share.

Directions (where the second half of a domino lies, seen from the first), in the grid's
order of shifts::

    S = 0  one row down   (row + 1)
    E = 1  one column right
    N = 2  one row up     (row - 1)
    W = 3  one column left
"""

from __future__ import annotations

from functools import cache

from moonriver_env.family.geometry import Grid

__all__ = ["DIRECTIONS", "Board", "board_for"]

DIRECTIONS = ("S", "E", "N", "W")
COLUMN_LETTERS = "abcdefghijklm"


class Board:
    """Precomputed masks for one frame size."""

    __slots__ = (
        "size",
        "side",
        "cells",
        "grid",
        "castle",
        "castle_bit",
        "castle_ring",
        "centred",
        "row_of",
        "col_of",
        "src",
        "neighbour_mask",
        "_allowed",
    )

    def __init__(self, size: int) -> None:
        self.size = size
        side = self.side = 2 * size - 1
        self.cells = side * side
        self.grid = Grid(rows=side, cols=side)
        mid = size - 1
        self.castle = mid * side + mid
        self.castle_bit = 1 << self.castle
        self.castle_ring = self.grid.neighbours(self.castle_bit) & ~self.castle_bit
        half = (size - 1) // 2
        self.centred = self.frame(mid - half, mid + half, mid - half, mid + half)
        self.row_of = tuple(c // side for c in range(self.cells))
        self.col_of = tuple(c % side for c in range(self.cells))
        self.src = self.grid.src
        # neighbour_mask[c]: the bitboard of the orthogonal neighbours of cell c
        self.neighbour_mask = tuple(
            sum(1 << n for n in self.grid.neighbour_list[c]) for c in range(self.cells)
        )
        self._allowed: dict[tuple[int, int, int, int], int] = {}

    def frame(self, r0: int, r1: int, c0: int, c1: int) -> int:
        """The cells of rows ``r0..r1`` and columns ``c0..c1`` (clipped to the board)."""
        side = self.side
        mask = 0
        for r in range(max(r0, 0), min(r1, side - 1) + 1):
            for c in range(max(c0, 0), min(c1, side - 1) + 1):
                mask |= 1 << (r * side + c)
        return mask

    def allowed(self, rmin: int, rmax: int, cmin: int, cmax: int) -> int:
        """Cells a new square may take so that the kingdom (bounding rows ``rmin..rmax``,
        columns ``cmin..cmax``) still fits a ``size`` x ``size`` frame (seed line 114)."""
        key = (rmin, rmax, cmin, cmax)
        mask = self._allowed.get(key)
        if mask is None:
            s = self.size - 1
            mask = self._allowed[key] = self.frame(rmax - s, rmin + s, cmax - s, cmin + s)
        return mask

    def cell_name(self, cell: int) -> str:
        """``"e5"``: column letter, row number from 1 at the top (the castle is at the middle,
        ``e5`` on the 9 x 9 board, ``g7`` on the 13 x 13 one)."""
        return f"{COLUMN_LETTERS[cell % self.side]}{cell // self.side + 1}"

    def parse_cell(self, text: str) -> int:
        """Inverse of :meth:`cell_name`; ``ValueError`` for text that names no cell."""
        letters = COLUMN_LETTERS[: self.side]
        if len(text) < 2 or text[0] not in letters or not text[1:].isdigit():
            raise ValueError(
                f"not a cell: {text!r} (expected a column a-{letters[-1]} and a row "
                f"1-{self.side}, e.g. 'd5')"
            )
        row = int(text[1:]) - 1
        if not 0 <= row < self.side:
            raise ValueError(f"cell {text!r}: row outside 1-{self.side}")
        return row * self.side + letters.index(text[0])


@cache
def board_for(size: int) -> Board:
    """The shared :class:`Board` of a frame size (5 or 7)."""
    return Board(size)
