"""Where a move is clicked on the pictures of a position, game by game (the ``board`` hook of a
:class:`~moonriver_env.games.GameEntry` is a :class:`BoardView`).

The web app (:mod:`agents.serve`) draws a position with the game's ``replay`` hook (a picture
per seat, then the shared table: the pieces of :class:`~moonriver_env.family.replay.Frame`)
and lists the legal moves in the words of its ``play`` hook. A board view says, for each legal
move, the clicks that make it: one or more :data:`ClickPath` (a move that can be clicked in
several orders, such as a domino whose two plots are picked in either order, has several),
each a sequence of :class:`Target` rectangles on those pictures. The page highlights the
targets that can come next after the clicks so far and plays a move once the clicks leave
only it. A move with no path (a pass such as ``stop``) is picked from the buttons, and a game
without a board view is played from the buttons alone.

A game plugs in with a board view in its folder (``board.py``:
:mod:`moonriver_env.moonriver.board`, :mod:`moonriver_env.kingdomino.board`), which reads the
pictures' layout from the game's own painter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Target:
    """A place to click: ``piece`` (the picture's index: a seat's, then the table's) and a
    rectangle in that picture's SVG user units; ``chip``, where the place is not on the
    picture (a choice such as a token's side), the SVG markup the page draws there."""

    piece: int
    x: float
    y: float
    width: float
    height: float
    chip: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "piece": self.piece,
            "box": [round(v, 2) for v in (self.x, self.y, self.width, self.height)],
        }
        if self.chip:
            out["chip"] = self.chip
        return out


ClickPath = tuple[Target, ...]
"""The clicks that make a move, in order."""


class BoardView(Protocol):
    """A game's board view (the module docstring)."""

    def paths(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[ClickPath]]:
        """For each ``(action, words)`` of the legal moves of ``state`` (the words of the
        game's ``play`` hook), the click paths that make it (none: a button only)."""
        ...


def cell_index(name: str) -> tuple[int, int] | None:
    """``"b3"`` -> ``(row 2, column 1)`` (the family's games name cells by column letter and
    row number from 1); ``None`` for a word that names no cell."""
    if len(name) < 2 or not ("a" <= name[0] <= "z") or not name[1:].isdigit():
        return None
    return int(name[1:]) - 1, ord(name[0]) - ord("a")


STEPS = {"N": (1, 0), "E": (0, 1), "S": (-1, 0), "W": (0, -1)}
"""The row and column steps of the directions where rows count from the river (Moon River:
N is row + 1)."""
STEPS_FROM_TOP = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
"""The steps where rows count from the top (Kingdomino: N is row - 1)."""


def neighbour(
    cell: tuple[int, int], direction: str, steps: dict[str, tuple[int, int]] = STEPS
) -> tuple[int, int] | None:
    """The cell next to ``cell`` in ``direction`` (``None`` for a word that is none)."""
    step = steps.get(direction)
    if step is None:
        return None
    return cell[0] + step[0], cell[1] + step[1]


def complete(*paths: Sequence[Target | None]) -> list[ClickPath]:
    """The paths with no missing click (a path with a ``None`` is dropped: that move is then
    picked from the buttons)."""
    return [tuple(t for t in p if t is not None) for p in paths if p and None not in p]
