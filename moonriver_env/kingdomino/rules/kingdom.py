"""One player's kingdom: its squares as bitboards, its text form, where a domino may go
(RULES.md section 13, K4: the placement rules, seed lines 102-114).

A :class:`Kingdom` is a value: :meth:`Kingdom.place` returns a new kingdom, so a game state
copies its kingdoms by reference. The text form, one line per row of the kingdom's bounding
rectangle, cells separated by spaces::

    .. .. W1 W0
    F0 F1 CC W0
    .. .. L0 ..

``..`` is an empty square, ``CC`` the castle, otherwise a landscape letter (``W`` wheat field,
``F`` forest, ``L`` lake, ``G`` grassland, ``S`` swamp, ``M`` mine) and its crowns.
"""

from __future__ import annotations

from typing import Any

from moonriver_env.kingdomino.rules.board import Board, board_for
from moonriver_env.kingdomino.rules.components import Domino, half_text, parse_half

__all__ = ["CASTLE_TEXT", "EMPTY_TEXT", "Kingdom", "placement_ids"]

CASTLE_TEXT = "CC"
EMPTY_TEXT = ".."
NUM_LANDSCAPES = 6


class Kingdom:
    """The squares of one kingdom on its :class:`~.board.Board`.

    Attributes:
        board: the board (frame size 5 or 7).
        land: per landscape, the bitboard of its squares.
        crowns: bitboards of the squares with at least 1, 2 and 3 crowns.
        occupied: the bitboard of every square, the castle included.
        rmin, rmax, cmin, cmax: the bounding rows and columns of the occupied squares.
        touch: per landscape, the cells orthogonally next to its squares or to the castle:
            where a square of that landscape may go (seed lines 104-108), before the
            emptiness and the frame are checked.
        origin: how :meth:`place` made it: ``(kingdom placed on, domino, cell of the first
            half, cell of the second)``; ``None`` for a kingdom made otherwise. Readers that
            keep something per kingdom (the encoder's planes) update it from the parent.
    """

    __slots__ = (
        "board",
        "land",
        "crowns",
        "occupied",
        "rmin",
        "rmax",
        "cmin",
        "cmax",
        "touch",
        "origin",
        "memo",
    )

    def __init__(
        self,
        board: Board,
        land: tuple[int, ...],
        crowns: tuple[int, int, int],
        occupied: int,
        bounds: tuple[int, int, int, int],
        touch: tuple[int, ...] | None = None,
        origin: tuple[Kingdom, Domino, int, int] | None = None,
    ) -> None:
        self.board = board
        self.land = land
        self.crowns = crowns
        self.occupied = occupied
        self.rmin, self.rmax, self.cmin, self.cmax = bounds
        if touch is None:
            ring, neighbours = board.castle_ring, board.grid.neighbours
            touch = tuple(neighbours(m) | ring for m in land)
        self.touch = touch
        self.origin = origin
        # derived values computed once per kingdom (it never changes): e.g. its points
        self.memo: dict[object, Any] = {}

    @classmethod
    def empty(cls, size: int = 5) -> Kingdom:
        """A kingdom of only the castle, for a ``size`` x ``size`` frame (5 or 7)."""
        if size not in (5, 7):
            raise ValueError(f"size: expected 5 or 7, got {size!r}")
        board = board_for(size)
        mid = size - 1
        return cls(board, (0,) * NUM_LANDSCAPES, (0, 0, 0), board.castle_bit, (mid, mid, mid, mid))

    # -- reading --------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.board.size

    @property
    def num_squares(self) -> int:
        """Squares taken, the castle included (25 or 49 when complete)."""
        return self.occupied.bit_count()

    @property
    def is_complete(self) -> bool:
        """Every square of the frame is taken (seed line 116)."""
        return self.occupied.bit_count() == self.board.size**2

    def square(self, cell: int) -> tuple[int, int] | None:
        """``(landscape, crowns)`` of a board cell; ``(-1, 0)`` for the castle; ``None`` if
        empty."""
        bit = 1 << cell
        if not self.occupied & bit:
            return None
        if bit == self.board.castle_bit:
            return (-1, 0)
        land = next(i for i, m in enumerate(self.land) if m & bit)
        return land, sum(1 for m in self.crowns if m & bit)

    def squares(self) -> list[tuple[int, int, int]]:
        """``(cell, landscape, crowns)`` for every square but the castle, by cell."""
        out = []
        for cell in range(self.board.cells):
            sq = self.square(cell)
            if sq is not None and sq[0] >= 0:
                out.append((cell, sq[0], sq[1]))
        return out

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Kingdom)
            and self.board is other.board
            and self.land == other.land
            and self.crowns == other.crowns
            and self.occupied == other.occupied
        )

    def __hash__(self) -> int:
        return hash((self.board.size, self.land, self.crowns, self.occupied))

    def __repr__(self) -> str:
        return f"Kingdom.from_text({self.to_text()!r})"

    # -- text form ------------------------------------------------------------------------
    def to_text(self) -> str:
        """The text form (module docstring), rows of the bounding rectangle."""
        side = self.board.side
        lines = []
        for r in range(self.rmin, self.rmax + 1):
            cells = []
            for c in range(self.cmin, self.cmax + 1):
                sq = self.square(r * side + c)
                if sq is None:
                    cells.append(EMPTY_TEXT)
                elif sq[0] < 0:
                    cells.append(CASTLE_TEXT)
                else:
                    cells.append(half_text(*sq))
            lines.append(" ".join(cells))
        return "\n".join(lines)

    @classmethod
    def from_text(cls, text: str, size: int | None = None) -> Kingdom:
        """Parse the text form (module docstring).

        Args:
            text: one line per row; blank lines and surrounding blanks are ignored.
            size: the frame (5 or 7); ``None``: 5, or 7 when the text does not fit 5 x 5.

        Raises:
            ValueError: naming the row and column of a bad cell, a ragged row, a missing or
                second castle, or a kingdom larger than the frame.
        """
        if not isinstance(text, str):
            raise TypeError(f"text: expected a str, got {type(text).__name__}")
        rows = [line.split() for line in text.strip().splitlines() if line.strip()]
        if not rows:
            raise ValueError("kingdom text: empty (expected rows like 'W0 CC ..')")
        width = len(rows[0])
        parsed: list[tuple[int, int, int, int]] = []  # (row, col, landscape, crowns)
        castle: tuple[int, int] | None = None
        for r, cells in enumerate(rows):
            if len(cells) != width:
                raise ValueError(
                    f"kingdom text: row {r + 1} has {len(cells)} cells, row 1 has {width}"
                )
            for c, cell in enumerate(cells):
                if cell == EMPTY_TEXT:
                    continue
                if cell == CASTLE_TEXT:
                    if castle is not None:
                        raise ValueError(
                            f"kingdom text: row {r + 1}, column {c + 1}: a second castle "
                            f"(the first is at row {castle[0] + 1}, column {castle[1] + 1})"
                        )
                    castle = (r, c)
                    continue
                try:
                    square_land, square_crowns = parse_half(cell)
                except ValueError as exc:
                    raise ValueError(f"kingdom text: row {r + 1}, column {c + 1}: {exc}") from None
                parsed.append((r, c, int(square_land), square_crowns))
        if castle is None:
            raise ValueError("kingdom text: no castle 'CC'")
        rs = [castle[0]] + [p[0] for p in parsed]
        cs = [castle[1]] + [p[1] for p in parsed]
        extent = max(max(rs) - min(rs), max(cs) - min(cs)) + 1
        if size is None:
            size = 5 if extent <= 5 else 7
        if size not in (5, 7):
            raise ValueError(f"size: expected 5 or 7, got {size!r}")
        if extent > size:
            raise ValueError(
                f"kingdom text: spans {max(rs) - min(rs) + 1} rows and "
                f"{max(cs) - min(cs) + 1} columns, more than the {size} x {size} frame"
            )
        board = board_for(size)
        mid = size - 1
        land = [0] * NUM_LANDSCAPES
        crowns = [0, 0, 0]
        occupied = board.castle_bit
        for r, c, lnd, k in parsed:
            bit = 1 << ((r - castle[0] + mid) * board.side + (c - castle[1] + mid))
            land[lnd] |= bit
            for i in range(k):
                crowns[i] |= bit
            occupied |= bit
        bounds = (
            min(rs) - castle[0] + mid,
            max(rs) - castle[0] + mid,
            min(cs) - castle[1] + mid,
            max(cs) - castle[1] + mid,
        )
        return cls(board, tuple(land), (crowns[0], crowns[1], crowns[2]), occupied, bounds)

    # -- placing --------------------------------------------------------------------------
    def place(self, domino: Domino, cell: int, direction: int) -> Kingdom:
        """The kingdom with ``domino``'s first half on ``cell`` and its second half next to
        it in ``direction`` (:data:`~.board.DIRECTIONS`). Legality is the caller's (see
        :func:`placement_ids`)."""
        board = self.board
        other = cell + board.grid.delta[direction]
        a, b = 1 << cell, 1 << other
        l1, l2 = domino.land1, domino.land2
        land = list(self.land)
        land[l1] |= a
        land[l2] |= b
        touch = list(self.touch)
        touch[l1] |= board.neighbour_mask[cell]
        touch[l2] |= board.neighbour_mask[other]
        crowns = self.crowns
        k1, k2 = domino.crowns1, domino.crowns2
        if k1 or k2:
            c1, c2, c3 = crowns
            crowns = (
                c1 | (a if k1 >= 1 else 0) | (b if k2 >= 1 else 0),
                c2 | (a if k1 >= 2 else 0) | (b if k2 >= 2 else 0),
                c3 | (a if k1 >= 3 else 0) | (b if k2 >= 3 else 0),
            )
        # the bounds grow by the two squares (orthogonal neighbours: one row or one column)
        row, col = board.row_of, board.col_of
        r1, r2, q1, q2 = row[cell], row[other], col[cell], col[other]
        lo, hi = (r1, r2) if r1 <= r2 else (r2, r1)
        rmin = lo if lo < self.rmin else self.rmin
        rmax = hi if hi > self.rmax else self.rmax
        lo, hi = (q1, q2) if q1 <= q2 else (q2, q1)
        cmin = lo if lo < self.cmin else self.cmin
        cmax = hi if hi > self.cmax else self.cmax
        bounds = (rmin, rmax, cmin, cmax)
        occupied = self.occupied | a | b
        origin = (self, domino, cell, other)
        return Kingdom(board, tuple(land), crowns, occupied, bounds, tuple(touch), origin)


def placement_ids(kingdom: Kingdom, domino: Domino, offset: int = 0) -> list[int]:
    """The legal placements of ``domino`` in ``kingdom`` as ids ``offset + direction * cells
    + cell`` (cell of the first half), ascending.

    A placement is legal when both squares are empty, the kingdom still fits the frame
    (seed line 114), and one half touches the castle or a square of its own landscape
    orthogonally (seed lines 104-108). A domino with two equal halves has one id per
    position: directions S and E only (N and W would place the same squares again).
    """
    board = kingdom.board
    free = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax) & ~kingdom.occupied
    if not free:
        return []
    side = board.side
    t1 = kingdom.touch[domino.land1]  # the cells where the first half touches (the second)
    t2 = kingdom.touch[domino.land2]
    s_, e_, n_, w_ = board.src
    cells = board.cells
    # The first halves of the legal placements, per direction d = S (+side), E (+1),
    # N (-side), W (-1) (second half on first + delta), packed into one int: direction d in
    # bits d * cells ... so that bit i stands for the id offset + i.
    legal = (free & (free >> side) & s_ & (t1 | (t2 >> side))) | (
        (free & (free >> 1) & e_ & (t1 | (t2 >> 1))) << cells
    )
    if not domino.symmetric:
        legal |= (free & (free << side) & n_ & (t1 | (t2 << side))) << (2 * cells) | (
            (free & (free << 1) & w_ & (t1 | (t2 << 1))) << (3 * cells)
        )
    out: list[int] = []
    append = out.append
    while legal:  # few bits: one step per set bit, highest first
        i = legal.bit_length() - 1
        append(offset + i)
        legal ^= 1 << i
    out.reverse()
    return out
