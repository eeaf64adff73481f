"""The flat action numbering (one ``Discrete`` space per config), its decoding and text form.

Every choice a player makes at the table (RULES.md sections 2-7) is one integer. The numbering
depends only on the player count and the mode. With ``C`` cells (25, or 50 with 2 players),
``H`` held-plot positions (largest reserve of the mode + 1 for the collected plot: 4 in the
base game, 5 in Legends), ``P = H (H - 1) / 2`` unordered pairs of held positions and ``n``
players, the segments are laid out in this order::

    segment          size              meaning of the index inside the segment
    claim            column_size (4)   position in the column (0 = lowest number)
    place            P x C x 4         (pair, cell of the pair's first plot, direction of the second)
    stop             1                 stop expanding
    discard          P                 pair of held plots discarded (forced, no legal placement)
    skull            C                 cell whose cow a skull removes
    recruit          2 x S x 2         (circle of the piece: 0 first plot / 1 second, saloon
                                        space 0..S-1, side 0 specialist / 1 cowboy)
    cowboy_move      C x 4             (cell of the cow, direction)
    cowboy_stop      1                 end the Cowboy's moves
    desperado_swap   H x (n-1) x (H-1) (own held position, target seat offset 1..n-1, target
                                        reserve position)
    desperado_skip   1
    thief_steal      (n-1) x C         (target seat offset 1..n-1, cell of the cow)
    thief_skip       1
    bonus_place      2 x 2 x C         2 players only: (tile, side, cell)
    bonus_remove     2                 2 players only: tile removed (it fits nowhere)

Held positions index the player's held plots sorted by plot kind (the reserve, plus the plot
just collected). A pair ``(i, j)`` always has ``i < j``: plot ``i`` goes on the cell, plot ``j``
on its neighbour in the direction, so every placement on the table has exactly one id.
Target seats are relative: offset ``k`` means seat ``(acting seat + k) % n``.

Text forms (stable; parsed back by :meth:`ActionLayout.from_text`)::

    claim 2 | place 0+2 b1 N | stop | discard 0+1 | skull c3 | recruit c0 s3 cowboy
    move b2 E | cowboy stop | swap 1 +1 0 | desperado skip | steal +1 c3 | thief skip
    bonus A0 c10 | bonus B remove

Cells are named like a chess board: columns ``a``-``e``, rows from ``1`` at the river.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .geometry import DIRECTIONS, grid_for_rows

if TYPE_CHECKING:
    from .config import GameConfig

SIDES = ("specialist", "cowboy")
TILE_NAMES = ("A", "B")


@dataclass(frozen=True, slots=True)
class Claim:
    """Put a ranchero on the free plot at ``position`` of the column being claimed."""

    position: int


@dataclass(frozen=True, slots=True)
class Place:
    """Join held plots ``first`` < ``second`` into a domino: ``first`` on ``cell``, ``second``
    on the neighbour in ``direction`` (0 N, 1 E, 2 S, 3 W)."""

    first: int
    second: int
    cell: int
    direction: int


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop expanding this turn."""


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard held plots ``first`` and ``second`` (forced expansion, nothing fits)."""

    first: int
    second: int


@dataclass(frozen=True, slots=True)
class SkullCow:
    """Remove one cow from ``cell`` (the skull's territory)."""

    cell: int


@dataclass(frozen=True, slots=True)
class Recruit:
    """Recruit the token on saloon space ``slot`` onto circle ``circle`` of the piece just
    placed (0 = its first plot, 1 = its second), ``cowboy`` side up or specialist side up."""

    circle: int
    slot: int
    cowboy: bool


@dataclass(frozen=True, slots=True)
class CowboyMove:
    """Move one cow from ``cell`` to its neighbour in ``direction``."""

    cell: int
    direction: int


@dataclass(frozen=True, slots=True)
class CowboyStop:
    """End the Cowboy's moves."""


@dataclass(frozen=True, slots=True)
class DesperadoSwap:
    """Swap own held plot ``own`` with reserve plot ``theirs`` of seat (acting + ``target``) % n."""

    own: int
    target: int
    theirs: int


@dataclass(frozen=True, slots=True)
class DesperadoSkip:
    """Do not use the Desperado's swap."""


@dataclass(frozen=True, slots=True)
class ThiefSteal:
    """Steal one cow from ``cell`` of seat (acting + ``target``) % n."""

    target: int
    cell: int


@dataclass(frozen=True, slots=True)
class ThiefSkip:
    """Do not use the Cattle Thief's steal."""


@dataclass(frozen=True, slots=True)
class BonusPlace:
    """Take bonus tile ``tile`` (0 = A, 1 = B) and place it ``side`` up (0 or 1) on ``cell``."""

    tile: int
    side: int
    cell: int


@dataclass(frozen=True, slots=True)
class BonusRemove:
    """Take bonus tile ``tile``, which fits nowhere, and remove it from the game."""

    tile: int


Action = (
    Claim
    | Place
    | Stop
    | Discard
    | SkullCow
    | Recruit
    | CowboyMove
    | CowboyStop
    | DesperadoSwap
    | DesperadoSkip
    | ThiefSteal
    | ThiefSkip
    | BonusPlace
    | BonusRemove
)
"""Any decoded action."""


class ActionLayout:
    """The segments of the flat action space of one config, with encode/decode/text helpers."""

    def __init__(self, config: GameConfig) -> None:
        comps = config.components
        self.num_players = n = config.num_players
        self.grid = grid = grid_for_rows(config.rows)
        self.cells = c = grid.cells
        self.held = h = config.max_slots + 1
        self.saloon = s = comps.saloon_size
        self.column = comps.column_size
        self.pairs: tuple[tuple[int, int], ...] = tuple(
            (i, j) for i in range(h) for j in range(i + 1, h)
        )
        self.pair_index: dict[tuple[int, int], int] = {p: k for k, p in enumerate(self.pairs)}
        self.tile_sides: tuple[tuple[str, str], ...] = tuple(
            (t.sides[0].name.lower(), t.sides[1].name.lower()) for t in comps.bonus_tiles
        )
        p = len(self.pairs)
        sizes = [
            ("claim", self.column),
            ("place", p * c * 4),
            ("stop", 1),
            ("discard", p),
            ("skull", c),
            ("recruit", 2 * s * 2),
            ("cowboy_move", c * 4),
            ("cowboy_stop", 1),
            ("desperado_swap", h * (n - 1) * (h - 1)),
            ("desperado_skip", 1),
            ("thief_steal", (n - 1) * c),
            ("thief_skip", 1),
        ]
        if n == 2:
            sizes += [("bonus_place", 2 * 2 * c), ("bonus_remove", 2)]
        self.segments: dict[str, tuple[int, int]] = {}
        start = 0
        for name, size in sizes:
            self.segments[name] = (start, size)
            start += size
        self.num_actions = start
        seg = self.segments
        self.CLAIM = seg["claim"][0]
        self.PLACE = seg["place"][0]
        self.STOP = seg["stop"][0]
        self.DISCARD = seg["discard"][0]
        self.SKULL = seg["skull"][0]
        self.RECRUIT = seg["recruit"][0]
        self.COWBOY_MOVE = seg["cowboy_move"][0]
        self.COWBOY_STOP = seg["cowboy_stop"][0]
        self.SWAP = seg["desperado_swap"][0]
        self.SWAP_SKIP = seg["desperado_skip"][0]
        self.STEAL = seg["thief_steal"][0]
        self.STEAL_SKIP = seg["thief_skip"][0]
        self.BONUS = seg["bonus_place"][0] if n == 2 else -1
        self.BONUS_REMOVE = seg["bonus_remove"][0] if n == 2 else -1
        self._order = [(name, start) for name, (start, _) in seg.items()]

    # -- encoding --------------------------------------------------------------------------
    def segment_of(self, action: int) -> str:
        """Name of the segment holding ``action``; ``ValueError`` if out of range."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        name = self._order[0][0]
        for seg_name, start in self._order:
            if action < start:
                break
            name = seg_name
        return name

    def encode(self, action: Action) -> int:
        """The id of a decoded action (inverse of :meth:`decode`)."""
        c, n, h = self.cells, self.num_players, self.held
        if isinstance(action, Claim):
            return self.CLAIM + _check(action.position, self.column, "position")
        if isinstance(action, Place):
            pair = self.pair_index.get((action.first, action.second))
            if pair is None:
                raise ValueError(f"no held pair ({action.first}, {action.second})")
            return (
                self.PLACE
                + (pair * c + _check(action.cell, c, "cell")) * 4
                + _check(action.direction, 4, "direction")
            )
        if isinstance(action, Stop):
            return self.STOP
        if isinstance(action, Discard):
            pair = self.pair_index.get((action.first, action.second))
            if pair is None:
                raise ValueError(f"no held pair ({action.first}, {action.second})")
            return self.DISCARD + pair
        if isinstance(action, SkullCow):
            return self.SKULL + _check(action.cell, c, "cell")
        if isinstance(action, Recruit):
            return (
                self.RECRUIT
                + (
                    _check(action.circle, 2, "circle") * self.saloon
                    + _check(action.slot, self.saloon, "slot")
                )
                * 2
                + int(action.cowboy)
            )
        if isinstance(action, CowboyMove):
            return (
                self.COWBOY_MOVE
                + _check(action.cell, c, "cell") * 4
                + _check(action.direction, 4, "direction")
            )
        if isinstance(action, CowboyStop):
            return self.COWBOY_STOP
        if isinstance(action, DesperadoSwap):
            t = _check(action.target - 1, n - 1, "target")
            return (
                self.SWAP
                + (_check(action.own, h, "own") * (n - 1) + t) * (h - 1)
                + _check(action.theirs, h - 1, "theirs")
            )
        if isinstance(action, DesperadoSkip):
            return self.SWAP_SKIP
        if isinstance(action, ThiefSteal):
            t = _check(action.target - 1, n - 1, "target")
            return self.STEAL + t * c + _check(action.cell, c, "cell")
        if isinstance(action, ThiefSkip):
            return self.STEAL_SKIP
        if n != 2:
            raise ValueError("bonus tiles exist only with 2 players")
        if isinstance(action, BonusPlace):
            return (
                self.BONUS
                + (_check(action.tile, 2, "tile") * 2 + _check(action.side, 2, "side")) * c
                + _check(action.cell, c, "cell")
            )
        if isinstance(action, BonusRemove):
            return self.BONUS_REMOVE + _check(action.tile, 2, "tile")
        raise TypeError(f"not an action: {action!r}")

    def decode(self, action: int) -> Action:
        """The frozen dataclass describing action id ``action``."""
        if isinstance(action, bool) or not isinstance(action, int):
            try:
                import numbers

                if not isinstance(action, numbers.Integral) or isinstance(action, bool):
                    raise TypeError
                action = int(action)
            except TypeError:
                raise ValueError(f"action must be an integer, got {action!r}") from None
        seg = self.segment_of(action)
        c, n, h = self.cells, self.num_players, self.held
        if seg == "claim":
            return Claim(action - self.CLAIM)
        if seg == "place":
            k = action - self.PLACE
            pair, rest = divmod(k, c * 4)
            cell, d = divmod(rest, 4)
            i, j = self.pairs[pair]
            return Place(i, j, cell, d)
        if seg == "stop":
            return Stop()
        if seg == "discard":
            i, j = self.pairs[action - self.DISCARD]
            return Discard(i, j)
        if seg == "skull":
            return SkullCow(action - self.SKULL)
        if seg == "recruit":
            k = action - self.RECRUIT
            rest, side = divmod(k, 2)
            circle, slot = divmod(rest, self.saloon)
            return Recruit(circle, slot, bool(side))
        if seg == "cowboy_move":
            cell, d = divmod(action - self.COWBOY_MOVE, 4)
            return CowboyMove(cell, d)
        if seg == "cowboy_stop":
            return CowboyStop()
        if seg == "desperado_swap":
            k = action - self.SWAP
            rest, theirs = divmod(k, h - 1)
            own, t = divmod(rest, n - 1)
            return DesperadoSwap(own, t + 1, theirs)
        if seg == "desperado_skip":
            return DesperadoSkip()
        if seg == "thief_steal":
            t, cell = divmod(action - self.STEAL, c)
            return ThiefSteal(t + 1, cell)
        if seg == "thief_skip":
            return ThiefSkip()
        if seg == "bonus_place":
            rest, cell = divmod(action - self.BONUS, c)
            tile, side = divmod(rest, 2)
            return BonusPlace(tile, side, cell)
        return BonusRemove(action - self.BONUS_REMOVE)

    # -- text ------------------------------------------------------------------------------
    def to_text(self, action: int) -> str:
        """Stable text form of ``action`` (see the module docstring)."""
        a = self.decode(action)
        g = self.grid
        if isinstance(a, Claim):
            return f"claim {a.position}"
        if isinstance(a, Place):
            return f"place {a.first}+{a.second} {g.cell_name(a.cell)} {DIRECTIONS[a.direction]}"
        if isinstance(a, Stop):
            return "stop"
        if isinstance(a, Discard):
            return f"discard {a.first}+{a.second}"
        if isinstance(a, SkullCow):
            return f"skull {g.cell_name(a.cell)}"
        if isinstance(a, Recruit):
            return f"recruit c{a.circle} s{a.slot} {SIDES[int(a.cowboy)]}"
        if isinstance(a, CowboyMove):
            return f"move {g.cell_name(a.cell)} {DIRECTIONS[a.direction]}"
        if isinstance(a, CowboyStop):
            return "cowboy stop"
        if isinstance(a, DesperadoSwap):
            return f"swap {a.own} +{a.target} {a.theirs}"
        if isinstance(a, DesperadoSkip):
            return "desperado skip"
        if isinstance(a, ThiefSteal):
            return f"steal +{a.target} {g.cell_name(a.cell)}"
        if isinstance(a, ThiefSkip):
            return "thief skip"
        if isinstance(a, BonusPlace):
            return f"bonus {TILE_NAMES[a.tile]}{a.side} {g.cell_name(a.cell)}"
        assert isinstance(a, BonusRemove)
        return f"bonus {TILE_NAMES[a.tile]} remove"

    def from_text(self, text: str) -> int:
        """Parse a text form back to its id; ``ValueError`` naming the problem otherwise."""
        words = text.strip().lower().split()
        if not words:
            raise ValueError("empty action text")
        try:
            return self.encode(self._parse(words))
        except ValueError as exc:
            raise ValueError(f"cannot parse action {text!r}: {exc}") from None

    def _parse(self, w: list[str]) -> Action:
        g = self.grid
        head, args = w[0], w[1:]

        def need(k: int) -> None:
            if len(args) != k:
                raise ValueError(f"'{head}' takes {k} argument(s), got {len(args)}")

        def num(s: str, prefix: str = "") -> int:
            if prefix:
                if not s.startswith(prefix):
                    raise ValueError(f"expected {prefix!r} before the number in {s!r}")
                s = s[len(prefix) :]
            if not s.isdigit():
                raise ValueError(f"not a number: {s!r}")
            return int(s)

        def direction(s: str) -> int:
            if s.upper() not in DIRECTIONS:
                raise ValueError(f"unknown direction {s!r} (N, E, S or W)")
            return DIRECTIONS.index(s.upper())

        def pair(s: str) -> tuple[int, int]:
            parts = s.split("+")
            if len(parts) != 2:
                raise ValueError(f"expected two held positions like '0+2', got {s!r}")
            return num(parts[0]), num(parts[1])

        if head == "claim":
            need(1)
            return Claim(num(args[0]))
        if head == "place":
            need(3)
            i, j = pair(args[0])
            return Place(i, j, g.parse_cell(args[1]), direction(args[2]))
        if head == "stop":
            need(0)
            return Stop()
        if head == "discard":
            need(1)
            return Discard(*pair(args[0]))
        if head == "skull":
            need(1)
            return SkullCow(g.parse_cell(args[0]))
        if head == "recruit":
            need(3)
            if args[2] not in SIDES:
                raise ValueError(f"side must be 'specialist' or 'cowboy', got {args[2]!r}")
            return Recruit(num(args[0], "c"), num(args[1], "s"), args[2] == "cowboy")
        if head == "move":
            need(2)
            return CowboyMove(g.parse_cell(args[0]), direction(args[1]))
        if head == "cowboy":
            if args != ["stop"]:
                raise ValueError("expected 'cowboy stop'")
            return CowboyStop()
        if head == "swap":
            need(3)
            return DesperadoSwap(num(args[0]), num(args[1], "+"), num(args[2]))
        if head == "desperado":
            if args != ["skip"]:
                raise ValueError("expected 'desperado skip'")
            return DesperadoSkip()
        if head == "steal":
            need(2)
            return ThiefSteal(num(args[0], "+"), g.parse_cell(args[1]))
        if head == "thief":
            if args != ["skip"]:
                raise ValueError("expected 'thief skip'")
            return ThiefSkip()
        if head == "bonus":
            need(2)
            tile_text = args[0].upper()
            if not tile_text or tile_text[0] not in TILE_NAMES:
                raise ValueError(f"unknown bonus tile {args[0]!r} (A or B)")
            tile = TILE_NAMES.index(tile_text[0])
            if args[1] == "remove":
                if len(tile_text) != 1:
                    raise ValueError("expected 'bonus A remove' or 'bonus B remove'")
                return BonusRemove(tile)
            return BonusPlace(tile, num(tile_text[1:]), g.parse_cell(args[1]))
        raise ValueError(f"unknown action word {head!r}")

    def table(self) -> str:
        """A Markdown table of the segments (for docs)."""
        lines = ["| segment | first id | size |", "|---|---:|---:|"]
        for name, (start, size) in self.segments.items():
            lines.append(f"| {name} | {start} | {size} |")
        lines.append(f"| **total** | | {self.num_actions} |")
        return "\n".join(lines)


def _check(value: int, bound: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise ValueError(f"{name} must be in 0..{bound - 1}, got {value!r}")
    return value
