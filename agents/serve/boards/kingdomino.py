"""Kingdomino's click map (:mod:`agents.serve.boards`): where its move words lie on the
pictures of :mod:`moonriver_env.kingdomino.replay` (a kingdom per seat, then the two lines),
in their SVG units.

- ``place CELL DIR``: the square of the first half, then the square of the second;
- ``pick N``: the domino at place ``N`` of the line being picked from (the current line while
  the first kings are placed, the next line afterwards);
- ``discard``: a button only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from moonriver_env.kingdomino.replay import CELL

from . import STEPS_FROM_TOP, Target, cell_index, neighbour


def _square(state: Any, seat: int, cell: tuple[int, int] | None) -> Target | None:
    if cell is None:
        return None
    side = state.kingdoms[seat].board.side
    row, col = cell
    if not (0 <= row < side and 0 <= col < side):
        return None
    return (seat, col * CELL, row * CELL, CELL, CELL)


class KingdominoClickMap:
    """Kingdomino's click map."""

    def targets(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[Target | None]]:
        seat = state.current_seat
        table = len(state.kingdoms)
        line = 1 if state.next_kings else 0
        out: list[list[Target | None]] = []
        for _, words in moves:
            marks: list[Target | None] = [None] * len(words)
            if words[:1] == ["place"] and len(words) == 3:
                cell = cell_index(words[1])
                marks[1] = _square(state, seat, cell)
                if cell is not None:
                    marks[2] = _square(state, seat, neighbour(cell, words[2], STEPS_FROM_TOP))
            elif words[:1] == ["pick"] and len(words) == 2 and words[1].isdigit():
                pos = int(words[1]) - 1
                y = line * (CELL + 22) + 16
                marks[1] = (table, pos * (2 * CELL + 16), y, 2 * CELL + 12, CELL)
            out.append(marks)
        return out


CLICK_MAP = KingdominoClickMap()
"""Kingdomino's click map."""
