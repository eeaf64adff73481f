"""Ranch grids as integer bitboards (RULES.md section 1, "Ranch grid"; section 3, connection rules).

A ranch is a grid of ``rows`` x 5 cells. Cell ``index = row * 5 + col``; row 0 lies along the
reservation board (the river), row ``rows - 1`` is the far row. A set of cells is a Python
``int`` whose bit ``index`` is set. Every mask operation used by the hot paths (neighbours,
shifts in the four directions, flood fill of territories) is a handful of integer operations.

Directions (the second plot of a domino relative to the first, a Cowboy's move)::

    N = 0  toward the far row   (row + 1)
    E = 1  toward column e      (col + 1)
    S = 2  toward the river     (row - 1)
    W = 3  toward column a      (col - 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field

COLS = 5
DIRECTIONS = ("N", "E", "S", "W")
NUM_DIRECTIONS = 4
COLUMN_LETTERS = "abcde"

# Positions of the set bits of every 12-bit chunk, used to turn a mask into cell indices
# quickly (a 5 x 5 mask is 3 chunks, a 5 x 10 mask 5): a few table lookups instead of a loop
# over bits.
_CHUNK = 12
_CHUNK_MASK = (1 << _CHUNK) - 1
CHUNK_BITS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(_CHUNK) if b >> i & 1) for b in range(1 << _CHUNK)
)


def bit_indices(mask: int) -> list[int]:
    """Return the indices of the set bits of ``mask`` in ascending order."""
    if mask <= _CHUNK_MASK:
        return list(CHUNK_BITS[mask])
    out: list[int] = []
    base = 0
    while mask:
        chunk = mask & _CHUNK_MASK
        if chunk:
            if base:
                out.extend([base + i for i in CHUNK_BITS[chunk]])
            else:
                out.extend(CHUNK_BITS[chunk])
        mask >>= _CHUNK
        base += _CHUNK
    return out


def extend_ids(out: list[int], mask: int, offset: int, stride: int) -> None:
    """Append ``offset + stride * i`` for every set bit ``i`` of ``mask``, ascending."""
    base = offset
    step = stride * _CHUNK
    while mask:
        chunk = mask & _CHUNK_MASK
        if chunk:
            out.extend([base + stride * i for i in CHUNK_BITS[chunk]])
        mask >>= _CHUNK
        base += step


@dataclass(frozen=True)
class Grid:
    """Precomputed masks for one grid size (5 x 5 or 5 x 10)."""

    rows: int
    cols: int = COLS
    cells: int = field(init=False)
    full: int = field(init=False)
    river_row: int = field(init=False)
    far_row: int = field(init=False)
    not_first_col: int = field(init=False)
    not_last_col: int = field(init=False)
    # src[d]: cells whose neighbour in direction d lies inside the grid.
    src: tuple[int, int, int, int] = field(init=False)
    # delta[d]: index offset of the neighbour in direction d.
    delta: tuple[int, int, int, int] = field(init=False)
    # neighbour_list[c]: the orthogonal neighbours of cell c.
    neighbour_list: tuple[tuple[int, ...], ...] = field(init=False)
    # step[d][c]: neighbour of c in direction d, or -1 outside the grid.
    step: tuple[tuple[int, ...], ...] = field(init=False)

    def __post_init__(self) -> None:
        rows, cols = self.rows, self.cols
        cells = rows * cols
        full = (1 << cells) - 1
        first_col = sum(1 << (r * cols) for r in range(rows))
        last_col = first_col << (cols - 1)
        river = (1 << cols) - 1
        far = river << ((rows - 1) * cols)
        delta = (cols, 1, -cols, -1)
        src = (full & ~far, full & ~last_col, full & ~river, full & ~first_col)
        step = []
        for d in range(NUM_DIRECTIONS):
            row_steps = []
            for c in range(cells):
                row_steps.append(c + delta[d] if src[d] >> c & 1 else -1)
            step.append(tuple(row_steps))
        nbrs = tuple(
            tuple(step[d][c] for d in range(NUM_DIRECTIONS) if step[d][c] >= 0)
            for c in range(cells)
        )
        set_ = object.__setattr__
        set_(self, "cells", cells)
        set_(self, "full", full)
        set_(self, "river_row", river)
        set_(self, "far_row", far)
        set_(self, "not_first_col", full & ~first_col)
        set_(self, "not_last_col", full & ~last_col)
        set_(self, "src", src)
        set_(self, "delta", delta)
        set_(self, "step", tuple(step))
        set_(self, "neighbour_list", nbrs)

    def neighbours(self, mask: int) -> int:
        """Cells orthogonally adjacent to any cell of ``mask`` (may include ``mask`` itself)."""
        c = self.cols
        return (
            ((mask & self.not_last_col) << 1)
            | ((mask & self.not_first_col) >> 1)
            | (mask << c)
            | (mask >> c)
        ) & self.full

    def back(self, mask: int, d: int) -> int:
        """Cells ``a`` whose neighbour ``a + delta[d]`` is in ``mask`` (a shift against d)."""
        dl = self.delta[d]
        shifted = mask >> dl if dl > 0 else mask << -dl
        return shifted & self.src[d]

    def flood(self, seed: int, within: int) -> int:
        """The cells of ``within`` orthogonally connected to ``seed`` (``seed`` within ``within``)."""
        region = seed
        c = self.cols
        nl, nf = self.not_last_col, self.not_first_col
        while True:
            grown = (
                region | ((region & nl) << 1) | ((region & nf) >> 1) | (region << c) | (region >> c)
            ) & within
            if grown == region:
                return region
            region = grown

    def components(self, mask: int) -> list[int]:
        """Split ``mask`` into its maximal orthogonally connected groups."""
        groups = []
        while mask:
            seed = mask & -mask
            group = self.flood(seed, mask)
            groups.append(group)
            mask &= ~group
        return groups

    def cell_name(self, cell: int) -> str:
        """Text name of a cell: column letter a-e then row number from 1 (``a1`` is at the river)."""
        return f"{COLUMN_LETTERS[cell % self.cols]}{cell // self.cols + 1}"

    def parse_cell(self, text: str) -> int:
        """Inverse of :meth:`cell_name`; raises ``ValueError`` for text that names no cell."""
        if len(text) < 2 or text[0] not in COLUMN_LETTERS or not text[1:].isdigit():
            raise ValueError(f"not a cell name: {text!r} (expected like 'a1'..'e{self.rows}')")
        row = int(text[1:]) - 1
        if not 0 <= row < self.rows:
            raise ValueError(f"cell {text!r} is outside the {self.cols} x {self.rows} grid")
        return row * self.cols + COLUMN_LETTERS.index(text[0])


_GRIDS: dict[int, Grid] = {}


def grid_for_rows(rows: int) -> Grid:
    """Shared :class:`Grid` instance for a number of rows."""
    grid = _GRIDS.get(rows)
    if grid is None:
        grid = _GRIDS[rows] = Grid(rows)
    return grid
