"""The flat action numbering of a Kingdomino game and the text form of actions.

Layout (``cells = side * side``; ``side`` 9, or 13 in the Mighty Duel; ``L`` the line size)::

    0 ........................ 4*cells-1 | 4*cells   | 4*cells+1 ... 4*cells+L
    place: direction * cells + cell      | discard   | pick: 4*cells + 1 + position
           (cell of the first half,      |           | (position in the line,
            direction of the second)     |           |  0 = the top, lowest number)

Text forms: ``"place d5 E"`` (first half on d5, second half east of it, :mod:`.board`),
``"discard"`` (the domino goes back to the box), ``"pick 1"`` (position from the top, 1-based).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from moonriver_env.family.sparse import ActionTable, action_table
from moonriver_env.kingdomino.rules.board import DIRECTIONS, board_for
from moonriver_env.kingdomino.rules.config import KingdominoConfig

__all__ = ["Discard", "KingdominoAction", "Pick", "Place", "action_layout"]


@dataclass(frozen=True, slots=True)
class Place:
    """Place the domino: the first half on ``cell``, the second next to it in ``direction``."""

    cell: int
    direction: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Put the domino back in the box instead of placing it (seed lines 95, 112)."""


@dataclass(frozen=True, slots=True)
class Pick:
    """Put one's king on the free domino at ``position`` of the line (0 = the top)."""

    position: int


KingdominoAction = Place | Discard | Pick


class ActionLayout:
    """The numbering of one config's actions (module docstring)."""

    def __init__(self, config: KingdominoConfig) -> None:
        self.board = board_for(config.size)
        self.cells = self.board.cells
        self.line_size = config.line_size
        self.discard = 4 * self.cells
        self.pick_base = self.discard + 1
        self.num_actions = config.num_actions

    @cached_property
    def action_table(self) -> ActionTable:
        """Every id's segment and components as arrays (module docstring's layout)."""
        located: list[tuple[str, tuple[int, ...]]] = [
            ("place", divmod(a, self.cells)) for a in range(self.discard)
        ]
        located.append(("discard", ()))
        located.extend(("pick", (pos,)) for pos in range(self.line_size))
        return action_table(
            located,
            ["place", "discard", "pick"],
            {"place": ("direction", "cell"), "discard": (), "pick": ("position",)},
            {"place": (4, self.cells), "discard": (), "pick": (self.line_size,)},
        )

    def place(self, cell: int, direction: int) -> int:
        return direction * self.cells + cell

    def pick(self, position: int) -> int:
        return self.pick_base + position

    def decode(self, action: int) -> KingdominoAction:
        """The action an id stands for; ``ValueError`` for an id outside the layout."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(f"action: expected an int id, got {action!r}")
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action: id {action} outside 0..{self.num_actions - 1}")
        if action < self.discard:
            return Place(action % self.cells, action // self.cells)
        if action == self.discard:
            return Discard()
        return Pick(action - self.pick_base)

    def encode(self, action: KingdominoAction) -> int:
        if isinstance(action, Place):
            return self.place(action.cell, action.direction)
        if isinstance(action, Discard):
            return self.discard
        return self.pick(action.position)

    def to_text(self, action: int) -> str:
        a = self.decode(action)
        if isinstance(a, Place):
            return f"place {self.board.cell_name(a.cell)} {DIRECTIONS[a.direction]}"
        if isinstance(a, Discard):
            return "discard"
        return f"pick {a.position + 1}"

    def from_text(self, text: str) -> int:
        """Parse a text form; ``ValueError`` naming what is wrong (legality not checked)."""
        words = text.split() if isinstance(text, str) else []
        if words == ["discard"]:
            return self.discard
        if len(words) == 2 and words[0] == "pick" and words[1].isdigit():
            pos = int(words[1])
            if 1 <= pos <= self.line_size:
                return self.pick(pos - 1)
        if len(words) == 3 and words[0] == "place" and words[2] in DIRECTIONS:
            return self.place(self.board.parse_cell(words[1]), DIRECTIONS.index(words[2]))
        raise ValueError(
            f"not an action: {text!r} (expected 'place d5 E', 'discard' or "
            f"'pick 1'..'pick {self.line_size}')"
        )


@cache
def action_layout(config: KingdominoConfig) -> ActionLayout:
    """The shared :class:`ActionLayout` of a config."""
    return ActionLayout(config)
