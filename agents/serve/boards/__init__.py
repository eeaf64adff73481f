"""Where a move's words are clicked on the pictures: each game's click map.

The web app (:mod:`agents.serve`) draws a position with the game's ``replay`` hook (a picture
per seat, then the shared table: the pieces of :class:`~moonriver_env.family.replay.Frame`)
and lists the legal moves in the words of its ``play`` hook. A click map says, for a legal
move, where on those pictures each of its words is clicked: a :data:`Target` (the picture,
then a rectangle in that picture's SVG units) or ``None`` (a word picked from the buttons
only, such as ``stop``). The page highlights the targets of the words that can come next.

A game without a click map is still played, from the buttons alone. The maps read the
pictures' layout from the games' own painters (:mod:`moonriver_env.moonriver.render.svg`,
:mod:`moonriver_env.kingdomino.replay`); :data:`CLICK_MAPS` names them by module, as the
registry names its games' hooks, so the server itself never imports or names a game.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

Target = tuple[int, float, float, float, float]
"""``(piece, x, y, width, height)``: the picture's index (a seat's, then the table's) and a
rectangle in its SVG user units."""


class ClickMap(Protocol):
    """A game's click map."""

    def targets(
        self, state: Any, moves: Sequence[tuple[int, Sequence[str]]]
    ) -> list[list[Target | None]]:
        """For each ``(action, words)`` of the legal moves of ``state``, one entry per word:
        where it is clicked, or ``None``."""
        ...


CLICK_MAPS: dict[str, str] = {
    "moonriver": "agents.serve.boards.moonriver:CLICK_MAP",
    "kingdomino": "agents.serve.boards.kingdomino:CLICK_MAP",
}
"""The click map of each shipped game, ``"module:attribute"`` (imported when first used)."""


def click_map(game: str) -> ClickMap | None:
    """The click map of ``game``, or ``None`` (its moves are picked from buttons)."""
    where = CLICK_MAPS.get(game)
    if where is None:
        return None
    module, _, attribute = where.partition(":")
    found: ClickMap = getattr(importlib.import_module(module), attribute)
    return found


def cell_index(name: str) -> tuple[int, int] | None:
    """``"b3"`` -> ``(row 2, column 1)`` (both games name cells by column letter and row
    number from 1); ``None`` for a word that names no cell."""
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
