"""The flat action numbering (one ``Discrete`` space per config), its decoding and text form.

Every choice a player makes at the table (RULES.md sections 2-7) is one integer. The numbering
depends only on the player count and the mode, and is declared once, in :data:`SEGMENTS`: an
ordered tuple of segments, each an array of ids laid out row-major (last axis fastest) from the
segment's first id. The axes' sizes come from the config (:func:`axis_sizes`); offsets, sizes,
strides and the per-id decoding tables are derived from the declaration by :class:`Segment` and
:class:`ActionLayout`, and every other module (engine, encoder, agents, policy head) reads them
from there. With ``C`` cells (25, or 50 with 2 players), ``H`` held-plot positions (largest
reserve of the mode + 1 for the collected plot: 4 in the base game, 5 in Legends),
``P = H (H - 1) / 2`` unordered pairs of held positions and ``n`` players::

    id 0                                                                   num_actions - 1
    |claim|place ..................|stop|discard|skull|recruit|cowboy_move|cowboy_stop|
        |desperado_swap|desperado_skip|thief_steal|thief_skip|bonus_place|bonus_remove|

    segment          shape (axes)                          meaning of the index
    claim            column_size (position)                position in the column (0 = lowest number)
    place            P x C x 4 (pair, cell, direction)     pair's first plot on cell, second in direction
    stop             ()                                    stop expanding
    discard          P (pair)                              pair of held plots discarded (nothing fits)
    skull            C (cell)                              cell whose cow a skull removes
    recruit          2 x S x 2 (circle, slot, side)        circle 0 first plot / 1 second, saloon
                                                           space 0..S-1, side 0 specialist / 1 cowboy
    cowboy_move      C x 4 (cell, direction)               cell of the cow, direction
    cowboy_stop      ()                                    end the Cowboy's moves
    desperado_swap   H x (n-1) x (H-1) (own, target, theirs)  own held position, target seat
                                                           offset - 1, target reserve position
    desperado_skip   ()
    thief_steal      (n-1) x C (target, cell)              target seat offset - 1, cell of the cow
    thief_skip       ()
    bonus_place      T x 2 x C (tile, tile_side, cell)     2 players only (T = 2 tiles, else 0)
    bonus_remove     T (tile)                              2 players only: tile that fits nowhere

A segment with an axis of size 0 (the bonus tiles outside 2-player games) is left out. First
ids, e.g. 4 players base: claim 0, place 4, stop 604, discard 605, skull 611, recruit 636,
cowboy_move 656, cowboy_stop 756, desperado_swap 757, desperado_skip 793, thief_steal 794,
thief_skip 869; 870 ids (:meth:`ActionLayout.table` prints any config).

Held positions index the player's held plots sorted by plot kind (the reserve, plus the plot
just collected). A pair ``(i, j)`` always has ``i < j``: plot ``i`` goes on the cell, plot ``j``
on its neighbour in the direction, so every placement on the table has exactly one id.
Target seats are relative: offset ``k`` (index ``k - 1`` on the ``target`` axis) means seat
``(acting seat + k) % n`` (:func:`target_seat`).

Text forms (stable; parsed back by :meth:`ActionLayout.from_text`)::

    claim 2 | place 0+2 b1 N | stop | discard 0+1 | skull c3 | recruit c0 s3 cowboy
    move b2 E | cowboy stop | swap 1 +1 0 | desperado skip | steal +1 c3 | thief skip
    bonus A0 c10 | bonus B remove

Cells are named like a chess board: columns ``a``-``e``, rows from ``1`` at the river.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .geometry import DIRECTIONS, grid_for_rows

if TYPE_CHECKING:
    from .components import Components

SIDES = ("specialist", "cowboy")
TILE_NAMES = ("A", "B")

SEGMENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("claim", ("position",)),
    ("place", ("pair", "cell", "direction")),
    ("stop", ()),
    ("discard", ("pair",)),
    ("skull", ("cell",)),
    ("recruit", ("circle", "slot", "side")),
    ("cowboy_move", ("cell", "direction")),
    ("cowboy_stop", ()),
    ("desperado_swap", ("own", "target", "theirs")),
    ("desperado_skip", ()),
    ("thief_steal", ("target", "cell")),
    ("thief_skip", ()),
    ("bonus_place", ("tile", "tile_side", "cell")),
    ("bonus_remove", ("tile",)),
)
"""The action segments in id order: (name, axis names); the module docstring draws them."""


class LayoutSource(Protocol):
    """What the numbering depends on (a :class:`~.config.GameConfig` is one)."""

    @property
    def num_players(self) -> int: ...

    @property
    def rows(self) -> int: ...

    @property
    def max_slots(self) -> int: ...

    @property
    def components(self) -> Components: ...


def axis_sizes(config: LayoutSource) -> dict[str, int]:
    """The size of every axis named in :data:`SEGMENTS` for ``config``."""
    comps = config.components
    n = config.num_players
    held = config.max_slots + 1
    return {
        "position": comps.column_size,
        "pair": held * (held - 1) // 2,
        "cell": grid_for_rows(config.rows).cells,
        "direction": len(DIRECTIONS),
        "circle": 2,  # a domino's two plots
        "slot": comps.saloon_size,
        "side": len(SIDES),
        "own": held,
        "target": n - 1,
        "theirs": held - 1,
        "tile": len(comps.bonus_tiles) if n == 2 else 0,  # RULES.md section 6: 2 players only
        "tile_side": 2,
    }


def target_seat(seat: int, target: int, num_players: int) -> int:
    """The seat that index ``target`` of a ``target`` axis names, seen from ``seat``."""
    return (seat + 1 + target) % num_players


@dataclass(frozen=True, slots=True)
class Segment:
    """One run of consecutive action ids: an array of ``shape`` stored row-major from
    ``start`` (``shape == ()``: the single id ``start``).

    Attributes:
        name, axes, shape, start: as declared (:data:`SEGMENTS`) and placed by the layout.
        size, stop, strides: derived; ``id = start + sum(index[k] * strides[k])``.
        ids: the ids as nested lists of ``shape`` (``ids[i][j]...``; an ``int`` if ``shape``
            is ``()``), for hot paths that look ids up instead of computing them.
    """

    name: str
    axes: tuple[str, ...]
    shape: tuple[int, ...]
    start: int
    size: int = field(init=False)
    stop: int = field(init=False)
    strides: tuple[int, ...] = field(init=False)
    ids: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        size = int(np.prod(self.shape, dtype=np.int64))
        strides = tuple(
            int(np.prod(self.shape[k + 1 :], dtype=np.int64)) for k in range(len(self.shape))
        )
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "stop", self.start + size)
        object.__setattr__(self, "strides", strides)
        ids = np.arange(self.start, self.start + size, dtype=np.int64).reshape(self.shape)
        object.__setattr__(self, "ids", ids.tolist())

    def id(self, *index: int) -> int:
        """The id at ``index`` (one integer per axis); ``ValueError`` naming a bad axis."""
        if len(index) != len(self.shape):
            raise ValueError(f"{self.name} takes {len(self.shape)} indices, got {len(index)}")
        a = self.start
        for value, bound, stride, axis in zip(
            index, self.shape, self.strides, self.axes, strict=True
        ):
            a += _check(value, bound, axis) * stride
        return a

    def index(self, action: int) -> tuple[int, ...]:
        """The index of id ``action`` inside this segment (inverse of :meth:`id`)."""
        if not self.start <= action < self.stop:
            raise ValueError(f"action {action} is not in segment {self.name}")
        k = action - self.start
        return tuple(k // stride % n for stride, n in zip(self.strides, self.shape, strict=True))


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
    """The segments of the flat action space of one config, with encode/decode/text helpers.

    Attributes:
        segment_list: the :class:`Segment` objects in id order; ``by_name`` maps names to them.
        segments: ``name -> (first id, size)`` in id order.
        located: ``located[a] == (segment name, index)`` for every id ``a`` (precomputed).
        num_actions: the number of ids.
        pairs: the held-position pairs ``(i, j)``, ``i < j``, in ``pair`` axis order;
            ``pair_index`` inverts it.
    """

    def __init__(self, config: LayoutSource) -> None:
        sizes = axis_sizes(config)
        self.num_players = config.num_players
        self.grid = grid_for_rows(config.rows)
        self.cells = sizes["cell"]
        self.held = h = sizes["own"]  # held positions
        self.saloon = sizes["slot"]
        self.column = sizes["position"]
        self.pairs: tuple[tuple[int, int], ...] = tuple(
            (i, j) for i in range(h) for j in range(i + 1, h)
        )
        self.pair_index: dict[tuple[int, int], int] = {p: k for k, p in enumerate(self.pairs)}
        self.tile_sides: tuple[tuple[str, str], ...] = tuple(
            (t.sides[0].name.lower(), t.sides[1].name.lower())
            for t in config.components.bonus_tiles
        )
        segment_list: list[Segment] = []
        start = 0
        for name, axes in SEGMENTS:
            shape = tuple(sizes[axis] for axis in axes)
            if 0 in shape:
                continue
            segment_list.append(seg := Segment(name, axes, shape, start))
            start = seg.stop
        self.segment_list: tuple[Segment, ...] = tuple(segment_list)
        self.by_name: dict[str, Segment] = {seg.name: seg for seg in segment_list}
        self.segments: dict[str, tuple[int, int]] = {
            seg.name: (seg.start, seg.size) for seg in segment_list
        }
        self.num_actions = start
        located: list[tuple[str, tuple[int, ...]]] = []
        for seg in segment_list:
            located.extend((seg.name, seg.index(a)) for a in range(seg.start, seg.stop))
        self.located: tuple[tuple[str, tuple[int, ...]], ...] = tuple(located)

    # -- encoding --------------------------------------------------------------------------
    def locate(self, action: int) -> tuple[str, tuple[int, ...]]:
        """``(segment name, index)`` of id ``action``; ``ValueError`` if out of range."""
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        return self.located[action]

    def segment_of(self, action: int) -> str:
        """Name of the segment holding ``action``; ``ValueError`` if out of range."""
        return self.locate(action)[0]

    def encode(self, action: Action) -> int:
        """The id of a decoded action (inverse of :meth:`decode`)."""
        name, index = self._index_of(action)
        seg = self.by_name.get(name)
        if seg is None:
            raise ValueError("bonus tiles exist only with 2 players")
        return seg.id(*index)

    def _index_of(self, action: Action) -> tuple[str, tuple[int, ...]]:
        match action:
            case Claim(position):
                return "claim", (position,)
            case Place(first, second, cell, direction):
                return "place", (self._pair(first, second), cell, direction)
            case Stop():
                return "stop", ()
            case Discard(first, second):
                return "discard", (self._pair(first, second),)
            case SkullCow(cell):
                return "skull", (cell,)
            case Recruit(circle, slot, cowboy):
                return "recruit", (circle, slot, int(cowboy))
            case CowboyMove(cell, direction):
                return "cowboy_move", (cell, direction)
            case CowboyStop():
                return "cowboy_stop", ()
            case DesperadoSwap(own, target, theirs):
                return "desperado_swap", (own, _target_index(target), theirs)
            case DesperadoSkip():
                return "desperado_skip", ()
            case ThiefSteal(target, cell):
                return "thief_steal", (_target_index(target), cell)
            case ThiefSkip():
                return "thief_skip", ()
            case BonusPlace(tile, side, cell):
                return "bonus_place", (tile, side, cell)
            case BonusRemove(tile):
                return "bonus_remove", (tile,)
        raise TypeError(f"not an action: {action!r}")

    def _pair(self, first: int, second: int) -> int:
        pair = self.pair_index.get((first, second))
        if pair is None:
            raise ValueError(f"no held pair ({first}, {second})")
        return pair

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
        name, ix = self.locate(action)
        if name == "claim":
            return Claim(ix[0])
        if name == "place":
            return Place(*self.pairs[ix[0]], ix[1], ix[2])
        if name == "stop":
            return Stop()
        if name == "discard":
            return Discard(*self.pairs[ix[0]])
        if name == "skull":
            return SkullCow(ix[0])
        if name == "recruit":
            return Recruit(ix[0], ix[1], bool(ix[2]))
        if name == "cowboy_move":
            return CowboyMove(ix[0], ix[1])
        if name == "cowboy_stop":
            return CowboyStop()
        if name == "desperado_swap":
            return DesperadoSwap(ix[0], ix[1] + 1, ix[2])
        if name == "desperado_skip":
            return DesperadoSkip()
        if name == "thief_steal":
            return ThiefSteal(ix[0] + 1, ix[1])
        if name == "thief_skip":
            return ThiefSkip()
        if name == "bonus_place":
            return BonusPlace(ix[0], ix[1], ix[2])
        return BonusRemove(ix[0])

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


def _target_index(target: int) -> int:
    """The ``target`` axis index of seat offset ``target`` (1..n-1); see :func:`target_seat`."""
    if isinstance(target, bool) or not isinstance(target, int):
        raise ValueError(f"target must be a seat offset, got {target!r}")
    return target - 1
