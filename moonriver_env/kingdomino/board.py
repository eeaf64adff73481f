"""Kingdomino's board view (the ``board`` hook of its entry,
:mod:`moonriver_env.family.board`): where its moves are clicked on the pictures of
:mod:`moonriver_env.kingdomino.replay` (a kingdom per seat, then the two lines), in their SVG
units.

- ``place CELL DIR``: the square of the domino's first half, then the square of its second
  (so the clicks set the rotation);
- ``pick N``: the domino at place ``N`` of the line being picked from (the current line while
  the first kings are placed, the next line afterwards);
- ``discard``: a button (a domino that fits nowhere).

The layout is the painter's (:data:`~moonriver_env.kingdomino.replay.CELL`); the API test
checks it against the squares the engine fills.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from moonriver_env.family.board import (
    STEPS_FROM_TOP,
    ClickPath,
    Target,
    cell_index,
    complete,
    neighbour,
)
from moonriver_env.kingdomino.replay import CELL


def _square(state: Any, seat: int, cell: tuple[int, int] | None) -> Target | None:
    if cell is None:
        return None
    side = state.kingdoms[seat].board.side
    row, col = cell
    if not (0 <= row < side and 0 <= col < side):
        return None
    return Target(seat, col * CELL, row * CELL, CELL, CELL)


class KingdominoBoard:
    """Kingdomino's board view (the module docstring)."""

    def paths(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[ClickPath]]:
        seat = state.current_seat
        table = len(state.kingdoms)
        line = 1 if state.next_kings else 0
        out: list[list[ClickPath]] = []
        for _, words in moves:
            paths: list[ClickPath] = []
            if words[:1] == ["place"] and len(words) == 3:
                cell = cell_index(words[1])
                after = None if cell is None else neighbour(cell, words[2], STEPS_FROM_TOP)
                paths = complete((_square(state, seat, cell), _square(state, seat, after)))
            elif words[:1] == ["pick"] and len(words) == 2 and words[1].isdigit():
                x = (int(words[1]) - 1) * (2 * CELL + 16)
                y = line * (CELL + 22) + 16
                paths = complete((Target(table, x, y, 2 * CELL + 12, CELL),))
            out.append(paths)
        return out


BOARD = KingdominoBoard()
"""Kingdomino's board view: the ``board`` hook of its entry."""
