"""The flat action numbering (one ``Discrete`` space per config), its decoding and text form.

Every choice a player makes at the table (RULES.md sections 2-7) is one integer. The numbering
depends only on the player count and the mode, and is declared once, in :data:`SEGMENTS`: an
ordered tuple of segments, each an array of ids laid out row-major (last axis fastest) from the
segment's first id. The axes' sizes come from the config (:func:`axis_sizes`); offsets, sizes,
strides and the per-id decoding tables are derived from the declaration by :class:`Segment` and
:class:`ActionLayout`, and every other module (engine, encoder, agents, policy head) reads them
from there. With ``C`` cells (25, or 50 with 2 players), ``H`` held-plot positions (largest
reserve of the mode + 1 for the collected plot: 4 in the base game, 5 in Legends),
``P = H (H - 1) / 2`` unordered pairs of held positions, ``S`` saloon spaces (5) and ``n``
players::

    id 0                                                                   num_actions - 1
    |claim|place ..................|stop|discard|skull|recruit|cowboy_move|cowboy_stop|
        |desperado_swap|desperado_skip|thief_steal|thief_skip|bonus_place|bonus_remove|

    segment         shape              axes                  meaning of the index
    claim           column_size (4)    position              position in the column (0 = lowest)
    place           P x C x 4          pair, cell,           plot i of pair (i, j) on the cell,
                                       direction             plot j on its neighbour there
    stop            ()                                       stop expanding
    discard         P                  pair                  held plots discarded (nothing fits)
    skull           C                  cell                  cell whose cow a skull removes
    recruit         2 x S x 2          circle, slot, side    circle 0 first plot / 1 second, saloon
                                                             space, side 0 specialist / 1 cowboy
    cowboy_move     C x 4              cell, direction       cell of the cow, direction
    cowboy_stop     ()                                       end the Cowboy's moves
    desperado_swap  H x (n-1) x (H-1)  own, target, theirs   own held position, target seat
                                                             offset - 1, target reserve position
    desperado_skip  ()
    thief_steal     (n-1) x C          target, cell          target seat offset - 1, cell of the cow
    thief_skip      ()
    bonus_place     T x 2 x C          tile, tile_side, cell 2 players only (T = 2 tiles, else 0)
    bonus_remove    T                  tile                  2 players only: tile that fits nowhere

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

import numbers
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, get_args

import numpy as np

from moonriver_env.family.geometry import DIRECTIONS, grid_for_rows
from moonriver_env.family.sparse import ActionTable, action_table

if TYPE_CHECKING:
    from moonriver_env.moonriver.rules.components import Components

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

TEXT_FORMS: dict[str, str] = {
    "claim": "claim {position}",
    "place": "place {pair} {cell} {direction}",
    "stop": "stop",
    "discard": "discard {pair}",
    "skull": "skull {cell}",
    "recruit": "recruit c{circle} s{slot} {side}",
    "cowboy_move": "move {cell} {direction}",
    "cowboy_stop": "cowboy stop",
    "desperado_swap": "swap {own} +{target} {theirs}",
    "desperado_skip": "desperado skip",
    "thief_steal": "steal +{target} {cell}",
    "thief_skip": "thief skip",
    "bonus_place": "bonus {tile}{tile_side} {cell}",
    "bonus_remove": "bonus {tile} remove",
}
"""The text form of each segment, its axes in braces (written by :meth:`ActionLayout._axis_text`:
pairs ``i+j``, cells ``b1``, directions ``N``, sides ``cowboy``, targets as seat offsets)."""


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
class DesperadoSwap:
    """Swap own held plot ``own`` with reserve plot ``theirs`` of seat (acting + ``target``) % n."""

    own: int
    target: int
    theirs: int


@dataclass(frozen=True, slots=True)
class ThiefSteal:
    """Steal one cow from ``cell`` of seat (acting + ``target``) % n."""

    target: int
    cell: int


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


# The actions without an argument: one id each (a segment of shape ``()``).


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop expanding this turn."""


@dataclass(frozen=True, slots=True)
class CowboyStop:
    """End the Cowboy's moves."""


@dataclass(frozen=True, slots=True)
class DesperadoSkip:
    """Do not use the Desperado's swap."""


@dataclass(frozen=True, slots=True)
class ThiefSkip:
    """Do not use the Cattle Thief's steal."""


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
"""Any decoded action; its members are in segment order (:data:`SEGMENTS`)."""

ACTION_CLASSES: dict[str, type[Action]] = dict(
    zip((name for name, _ in SEGMENTS), get_args(Action), strict=True)
)
"""Segment name -> the class of its decoded actions. The class's fields are the segment's axes
in order, but that a ``pair`` is two fields (``first``, ``second``), a ``target`` is the seat
offset (index + 1) and a ``side`` is ``cowboy`` (a bool)."""
SEGMENT_OF: dict[type, str] = {cls: name for name, cls in ACTION_CLASSES.items()}
"""The inverse of :data:`ACTION_CLASSES`."""
_AXES: dict[str, tuple[str, ...]] = dict(SEGMENTS)


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
            if not seg.shape:
                located.append((seg.name, ()))
                continue
            unravelled = np.unravel_index(np.arange(seg.size), seg.shape)  # row-major, as .id
            columns = [a.tolist() for a in unravelled]
            located.extend((seg.name, index) for index in zip(*columns, strict=True))
        self.located: tuple[tuple[str, tuple[int, ...]], ...] = tuple(located)

    @cached_property
    def action_table(self) -> ActionTable:
        """Every id's segment and components as arrays (:class:`ActionTable`)."""
        return action_table(
            list(self.located),
            [seg.name for seg in self.segment_list],
            {seg.name: seg.axes for seg in self.segment_list},
            {seg.name: seg.shape for seg in self.segment_list},
        )

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
        name = SEGMENT_OF.get(type(action))
        if name is None:
            raise TypeError(f"not an action: {action!r}")
        values = iter(getattr(action, f) for f in type(action).__match_args__)
        index = []
        for axis in _AXES[name]:
            value = next(values)
            if axis == "pair":
                index.append(self._pair(value, next(values)))
            elif axis == "target":
                index.append(_target_index(value))
            elif axis == "side":
                index.append(int(value))
            else:
                index.append(value)
        return name, tuple(index)

    def _pair(self, first: int, second: int) -> int:
        pair = self.pair_index.get((first, second))
        if pair is None:
            raise ValueError(f"no held pair ({first}, {second})")
        return pair

    def decode(self, action: int) -> Action:
        """The frozen dataclass describing action id ``action`` (inverse of :meth:`encode`)."""
        name, index = self.located[_as_int(action, self.num_actions)]
        values: list[Any] = []
        for axis, i in zip(self.by_name[name].axes, index, strict=True):
            if axis == "pair":
                values.extend(self.pairs[i])
            elif axis == "target":
                values.append(i + 1)  # seat offset
            elif axis == "side":
                values.append(bool(i))  # SIDES: 1 is the cowboy side
            else:
                values.append(i)
        return ACTION_CLASSES[name](*values)

    # -- text ------------------------------------------------------------------------------
    def to_text(self, action: int) -> str:
        """Stable text form of ``action`` (:data:`TEXT_FORMS`)."""
        return self.texts[_as_int(action, self.num_actions)]

    def from_text(self, text: str) -> int:
        """Parse a text form back to its id (any case and spacing); ``ValueError`` naming the
        expected form otherwise."""
        words = text.strip().lower().split()
        if not words:
            raise ValueError("empty action text")
        action = self._ids_by_text.get(" ".join(words))
        if action is None:
            raise ValueError(f"cannot parse action {text!r}: {self._expected(words)}")
        return action

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """The text form of every id, ``texts[a]`` (built on first use)."""
        out: list[str] = []
        for seg in self.segment_list:
            form = TEXT_FORMS[seg.name]
            for a in range(seg.start, seg.stop):
                index = self.located[a][1]
                values = zip(seg.axes, index, strict=True)
                out.append(form.format(**{axis: self._axis_text(axis, i) for axis, i in values}))
        return tuple(out)

    @cached_property
    def _ids_by_text(self) -> dict[str, int]:
        return {" ".join(t.lower().split()): a for a, t in enumerate(self.texts)}

    def _axis_text(self, axis: str, i: int) -> str:
        """How index ``i`` of ``axis`` is written in the text forms."""
        if axis == "pair":
            first, second = self.pairs[i]
            return f"{first}+{second}"
        if axis == "cell":
            return self.grid.cell_name(i)
        if axis == "direction":
            return DIRECTIONS[i]
        if axis == "side":
            return SIDES[i]
        if axis == "target":
            return str(i + 1)  # seat offset
        if axis == "tile":
            return TILE_NAMES[i]
        return str(i)

    def _expected(self, words: list[str]) -> str:
        """Why ``words`` name no action: the forms their first word starts, with the ranges."""
        names = [name for name, form in TEXT_FORMS.items() if form.split()[0] == words[0]]
        if not names:
            return f"unknown action word {words[0]!r}"
        present = [self.by_name[name] for name in names if name in self.by_name]
        if not present:
            return f"no {' or '.join(names)} actions in a {self.num_players}-player game"
        hints = []
        for seg in present:
            ranges = ", ".join(
                f"{axis} {self._axis_text(axis, 0)}..{self._axis_text(axis, n - 1)}"
                for axis, n in zip(seg.axes, seg.shape, strict=True)
            )
            hints.append(f"'{TEXT_FORMS[seg.name]}'" + (f" ({ranges})" if ranges else ""))
        return "expected " + " or ".join(hints)

    def table(self) -> str:
        """A Markdown table of the segments (for docs)."""
        lines = ["| segment | first id | size |", "|---|---:|---:|"]
        for name, (start, size) in self.segments.items():
            lines.append(f"| {name} | {start} | {size} |")
        lines.append(f"| **total** | | {self.num_actions} |")
        return "\n".join(lines)


def _as_int(action: object, num_actions: int) -> int:
    """``action`` as a Python int id in ``0..num_actions - 1``; ``ValueError`` otherwise."""
    if isinstance(action, bool) or not isinstance(action, numbers.Integral):
        raise ValueError(f"action must be an integer, got {action!r}")
    a = int(action)
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is outside 0..{num_actions - 1}")
    return a


def _check(value: int, bound: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < bound:
        raise ValueError(f"{name} must be in 0..{bound - 1}, got {value!r}")
    return value


def _target_index(target: int) -> int:
    """The ``target`` axis index of seat offset ``target`` (1..n-1); see :func:`target_seat`."""
    if isinstance(target, bool) or not isinstance(target, int):
        raise ValueError(f"target must be a seat offset, got {target!r}")
    return target - 1
