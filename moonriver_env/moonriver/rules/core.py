"""The state's data layout, phases and per-config tables (shared by the rule modules).

The phases are the decisions of a turn in RULES.md sections 2-7 (claim, expand, symbols,
partners, bonus tile, select); the ranch cells follow section 1, "Ranch grid".

:class:`StateCore` declares every field of a game state once (a slotted dataclass whose
field metadata says how each is copied, created empty and saved); :data:`STATE_FIELDS` reads
that declaration, and ``clone``, the empty state, the JSON codec (:mod:`.serialization`) and the
structural checks (:mod:`.invariants`) are derived from it. The rules live in mixins that
derive from it: :mod:`.table` (setup, columns, saloon), :mod:`.placement` (connection rules,
bonus tiles), :mod:`.partners` (recruiting, the immediate effects, protection) and
:mod:`.state` (rounds, turns, symbols, API). The phase groups are named here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields
from enum import IntEnum
from itertools import count
from typing import Any, Literal, Self

import numpy as np

from moonriver_env.family.geometry import grid_for_rows
from moonriver_env.family.rng import copy_rng
from moonriver_env.family.validation import Bool, Bools, Check, Custom, Int, Ints
from moonriver_env.moonriver.rules.components import PartnerKind
from moonriver_env.moonriver.rules.config import GameConfig
from moonriver_env.moonriver.rules.scoring import KindTable

NO_PLOT = -1
# Ranch stamps: every change of a ranch gives it a number never used before (in this process),
# so equal stamps mean equal ranches even across clones; encoders cache by them.
new_stamp = count(1).__next__
NO_SEAT = -1


class Phase(IntEnum):
    """What the acting seat is deciding."""

    SETUP_CLAIM = 0  # claim a plot of the first column (setup step 3)
    EXPAND = 1  # place a domino or stop (optional expansion)
    MUST_EXPAND = 2  # place a domino (reserve overflow)
    FINAL_EXPAND = 3  # place a domino (end of the player's final turn)
    DISCARD = 4  # discard two held plots (mandatory expansion, nothing fits)
    SKULL = 5  # choose the cow a skull removes
    RECRUIT = 6  # choose circle, saloon token and side
    COWBOY = 7  # move a cow or stop
    DESPERADO = 8  # swap reserve plots or skip
    THIEF = 9  # steal a cow or skip
    BONUS = 10  # place (or remove) a landscape bonus tile
    SELECT = 11  # put the ranchero on a plot of the next column
    GAME_OVER = 12


# Phase groups (one home; the engine, the invariants, the agents and the tests use them).
CLAIM_PHASES = frozenset((Phase.SETUP_CLAIM, Phase.SELECT))
"""A ranchero claims a column position."""
PLACE_PHASES = frozenset((Phase.EXPAND, Phase.MUST_EXPAND, Phase.FINAL_EXPAND))
"""A domino is placed (legal actions: the placements, plus Stop in EXPAND)."""
SYMBOL_PHASES = frozenset((Phase.SKULL, Phase.RECRUIT, Phase.COWBOY, Phase.DESPERADO, Phase.THIEF))
"""The symbols of a placed piece resolve (``piece`` is pending; RULES.md section 4)."""
RESOLVE_PHASES = SYMBOL_PHASES | {Phase.BONUS}
"""Everything that follows a placement inside a turn: the symbols, then the bonus tile."""


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (the state is left unchanged)."""


def build_kind_table(config: GameConfig) -> KindTable:
    """Symbol lookups per cell content: the plot kinds, then each bonus tile side."""
    comps = config.components
    plots = comps.plots
    tiles = [side for tile in comps.bonus_tiles for side in tile.sides]
    zeros = (0,) * len(tiles)
    return KindTable(
        land=tuple(int(p.landscape) for p in plots) + tuple(int(side) for side in tiles),
        gold=tuple(p.gold for p in plots) + zeros,
        beaver=tuple(p.beaver for p in plots) + zeros,
        corn=tuple(p.corn for p in plots) + zeros,
        cows=tuple(p.cows for p in plots) + zeros,
        skull=tuple(p.skull for p in plots) + (False,) * len(tiles),
        circle=tuple(p.circle for p in plots) + (True,) * len(tiles),  # ruling R10
        back=tuple(p.back for p in plots) + zeros,
        num_plot_kinds=len(plots),
    )


class _Static:
    """Per-config data shared (never mutated) by every state of that config."""

    __slots__ = ("config", "layout", "grid", "kt", "pairs_for", "num_rancheros", "limits")

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        self.layout = config.layout
        self.grid = grid_for_rows(config.rows)
        self.kt = build_kind_table(config)
        lay = self.layout
        # pairs_for[h]: (pair index, i, j) for every pair of h held plots.
        self.pairs_for = [
            [(k, i, j) for k, (i, j) in enumerate(lay.pairs) if j < h] for h in range(lay.held + 1)
        ]
        self.num_rancheros = config.num_players * config.rancheros_per_seat
        self.limits = _limits(config, self)


def _limits(config: GameConfig, st: _Static) -> dict[str, int]:
    """The named bounds of :data:`STATE_FIELDS`' checks for one config."""
    comps = config.components
    n = config.num_players
    max_kind = len(comps.plots) - 1
    return {
        "max_kind": max_kind,
        "max_content": max_kind + (2 * len(comps.bonus_tiles) if n == 2 else 0),
        "max_token": len(PartnerKind) - 1,
        "max_code": 2 * len(PartnerKind) - 1,  # partner codes (scoring.partner_code)
        "last_seat": n - 1,
        "column": comps.column_size,
        "last_position": comps.column_size - 1,
        "plots": comps.num_plots,
        "partners": comps.num_partners,
        "saloon": comps.saloon_size,
        "cows": comps.cows,
        "rancheros": st.num_rancheros,
        "held": st.layout.held,
        "tiles": len(comps.bonus_tiles),
        "cells": st.grid.cells,
        "last_cell": st.grid.cells - 1,
    }


def _static_for(config: GameConfig) -> _Static:
    """The shared per-config tables, cached on the (frozen) config object itself."""
    st: _Static | None = config.__dict__.get("_engine_static")
    if st is None:
        st = _Static(config)
        config.__dict__["_engine_static"] = st
    return st


Copy = Literal["share", "copy", "copy_each", "rng"]
"""How :meth:`StateCore.clone` copies a field: share the (immutable) value, ``.copy()`` the
list, copy each per-seat list, or copy the random generator with its state."""
New = Callable[[GameConfig, _Static], Any]


@dataclass(frozen=True, slots=True)
class StateField:
    """What the rest of the engine needs to know about one field of the state.

    Attributes:
        name: the attribute.
        copy: how :meth:`StateCore.clone` copies it (:data:`Copy`).
        new: its value in an empty state (``None``: set by :meth:`StateCore._empty`'s
            arguments).
        check: how it is saved as JSON and checked (:mod:`.validation`; bounds name entries
            of ``_Static.limits``); ``None``: not saved, derived on load (bitboards, stamps,
            caches) or saved apart (``config``, ``rng``). ``phase``, ``scenario`` and
            ``boards`` are saved by name (custom checks in :mod:`.serialization`).
        per_seat: saved in the seat objects (``seats[i]``), one entry per seat.
        key: the JSON key, if not ``name``.
    """

    name: str
    copy: Copy
    new: New | None
    check: Check | None
    per_seat: bool
    key: str


def _f(
    copy: Copy,
    new: New | None,
    check: Check | None = None,
    *,
    per_seat: bool = False,
    key: str | None = None,
) -> Any:
    return field(metadata={"state": (copy, new, check, per_seat, key)})


def _const(value: object) -> New:
    """An immutable initial value (shared by every state)."""
    return lambda config, st: value


def _new_list(config: GameConfig, st: _Static) -> list[Any]:
    return []


def _column(fill: int) -> New:
    return lambda config, st: [fill] * config.components.column_size


def _seats(fill: object) -> New:
    """One immutable ``fill`` per seat."""
    return lambda config, st: [fill] * config.num_players


def _ranches(fill: int) -> New:
    """Per seat, one ``fill`` per cell of the ranch."""
    return lambda config, st: [[fill] * st.grid.cells for _ in range(config.num_players)]


_NAMED = Custom("a name")  # phase, scenario, board: checked in .serialization


@dataclass(slots=True, init=False, repr=False, eq=False, match_args=False)
class StateCore:
    """Every field of a game state, declared once; the rule mixins and
    :class:`.state.GameState` add behaviour.

    The declaration order is the JSON order of :mod:`.serialization` (the seat fields form
    its ``seats`` objects). :data:`STATE_FIELDS` reads it; :meth:`clone`, :meth:`_empty`,
    the JSON codec and the structural checks of :mod:`.invariants` are derived from it.
    """

    # The attributes are public for encoders and tests; mutate only through apply().
    _st: _Static = _f("share", None)
    config: GameConfig = _f("share", None)
    rng: np.random.Generator = _f("rng", None)
    scenario: str | None = _f("share", _const(None), _NAMED)
    # The table (RULES.md sections 2-3).
    pile: list[int] = _f("copy", _new_list, Ints(0, "max_kind", max_size="plots"))
    stack: list[int] = _f("copy", _new_list, Ints(0, "max_token", max_size="partners"))
    saloon: list[int] = _f(
        "copy", lambda c, st: [-1] * c.components.saloon_size, Ints(-1, "max_token", "saloon")
    )
    cur_col: list[int] = _f("copy", _column(NO_PLOT), Ints(-1, "max_kind", "column"))
    cur_claim: list[int] = _f("copy", _column(NO_SEAT), Ints(-1, "last_seat", "column"))
    next_col: list[int] = _f("copy", _column(NO_PLOT), Ints(-1, "max_kind", "column"))
    next_claim: list[int] = _f("copy", _column(NO_SEAT), Ints(-1, "last_seat", "column"))
    removed: list[int] = _f("copy", _new_list, Ints(0, "max_kind", max_size="plots"))
    discarded: list[int] = _f("copy", _new_list, Ints(0, "max_kind", max_size="plots"))
    supply: int = _f("share", lambda c, st: c.components.cows, Int(0, "cows"))
    # Rounds and turns.
    # a round draws its column from the pile: a game has fewer rounds than plots
    round: int = _f("share", _const(0), Int(0, "plots"))
    final_round: bool = _f("share", _const(False), Bool())
    phase: Phase = _f("share", _const(Phase.SETUP_CLAIM), _NAMED)
    seat: int = _f("share", _const(NO_SEAT), Int(-1, "last_seat"))
    setup_order: list[int] = _f("copy", _new_list, Ints(0, "last_seat", "rancheros"))
    setup_idx: int = _f("share", _const(0), Int(0, "rancheros"))
    turn_pos: int = _f("share", _const(0), Int(-1, "last_position"))
    final_turn: bool = _f("share", _const(False), Bool())
    # two cells of the ranch per domino (R3: at most 2 a turn, more in a final turn)
    dominoes: int = _f("share", _const(0), Int(0, "cells"))
    # Per seat (the "seats" objects in JSON).
    boards: tuple[str, ...] = _f(
        "share", lambda c, st: ("camp",) * c.num_players, _NAMED, per_seat=True, key="board"
    )
    held: list[list[int]] = _f(
        "copy_each",
        lambda c, st: [[] for _ in range(c.num_players)],
        Ints(0, "max_kind", max_size="held"),
        per_seat=True,
    )
    kinds: list[list[int]] = _f(
        "copy_each", _ranches(NO_PLOT), Ints(-1, "max_content", "cells"), per_seat=True
    )
    cows: list[list[int]] = _f("copy_each", _ranches(0), Ints(0, "cows", "cells"), per_seat=True)
    partners: list[list[int]] = _f(
        "copy_each", _ranches(-1), Ints(-1, "max_code", "cells"), per_seat=True
    )
    bonus_done: list[bool] = _f("copy", _seats(False), Bool(), per_seat=True)
    # Bonus tiles still available (2 players), then the piece whose symbols resolve.
    tiles: list[bool] = _f(
        "copy", lambda c, st: [c.num_players == 2] * len(c.components.bonus_tiles), Bools("tiles")
    )
    piece: list[int] = _f("copy", _new_list, Ints(0, "last_cell", max_size=2))
    skulls: list[int] = _f("copy", _new_list, Ints(0, "last_cell", max_size="piece"))
    circles: list[int] = _f("copy", _new_list, Ints(0, "last_piece", max_size="piece"))
    reached_far: bool = _f("share", _const(False), Bool())
    effect_cell: int = _f("share", _const(-1), Int(-1, "last_cell"))
    cowboy_moves: int = _f("share", _const(0), Int(0, 3))
    # Derived: from the boards (:meth:`_set_boards`) and the per-cell lists (bitboards).
    slots: tuple[int, ...] = _f("share", _const(()))
    bridges: tuple[int, ...] = _f("share", _const(()))
    land_bb: list[list[int]] = _f(
        "copy_each", lambda c, st: [[0] * 6 for _ in range(c.num_players)]
    )
    occ: list[int] = _f("copy", _seats(0))
    cow_bb: list[int] = _f("copy", _seats(0))
    partner_bb: list[int] = _f("copy", _seats(0))
    # Caches: a new stamp per ranch change (encoders key on it), the legal action ids.
    ranch_stamp: list[int] = _f("copy", lambda c, st: [new_stamp() for _ in range(c.num_players)])
    _legal: list[int] | None = _f("share", _const(None))

    @classmethod
    def _empty(cls, config: GameConfig, rng: np.random.Generator) -> Self:
        """A state with every container allocated and no game set up (for new_game/from_json)."""
        self = cls.__new__(cls)
        st = self._st = _static_for(config)
        self.config = config
        self.rng = rng
        for f in _NEW_FIELDS:
            setattr(self, f.name, f.new(config, st))  # type: ignore[misc]
        return self

    def clone(self) -> Self:
        """An independent copy (the RNG is copied too)."""
        raise NotImplementedError  # replaced below by the code generated from the fields

    def _set_boards(self, boards: tuple[str, ...]) -> None:
        """Set the seats' board sides and what follows from them (reserve slots, bridges)."""
        comps = self.config.components
        river = self._st.grid.river_row
        self.boards = boards
        self.slots = tuple(comps.boards[b].slots for b in boards)
        self.bridges = tuple(sum(1 << c for c in comps.boards[b].bridges) & river for b in boards)

    def rebuild_masks(self) -> None:
        """Recompute every bitboard from the per-cell lists (``kinds``, ``cows``, ``partners``)
        and drop cached legal actions. For loaders and hand-built test positions."""
        kt = self._st.kt
        n = self.config.num_players
        self.land_bb = [[0] * 6 for _ in range(n)]
        self.occ = [0] * n
        self.cow_bb = [0] * n
        self.partner_bb = [0] * n
        for seat in range(n):
            for c, k in enumerate(self.kinds[seat]):
                if k >= 0:
                    self.land_bb[seat][kt.land[k]] |= 1 << c
                    self.occ[seat] |= 1 << c
                if self.cows[seat][c]:
                    self.cow_bb[seat] |= 1 << c
                if self.partners[seat][c] >= 0:
                    self.partner_bb[seat] |= 1 << c
        self.ranch_stamp = [new_stamp() for _ in range(n)]
        self._legal = None

    # Hooks implemented by GameState (the turn flow), called by the rule mixins.
    def _start_piece(self, seat: int, cells: list[int]) -> None:
        raise NotImplementedError

    def _resolve_piece(self) -> None:
        raise NotImplementedError

    def _continue_turn(self) -> None:
        raise NotImplementedError

    def legal_action_list(self) -> list[int]:
        raise NotImplementedError


def _state_field(f: Field[Any]) -> StateField:
    copy, new, check, per_seat, key = f.metadata["state"]
    return StateField(f.name, copy, new, check, per_seat, key or f.name)


STATE_FIELDS: tuple[StateField, ...] = tuple(_state_field(f) for f in fields(StateCore))
"""Every field of :class:`StateCore`, in declaration order."""
_NEW_FIELDS = tuple(f for f in STATE_FIELDS if f.new is not None)


def _compile_clone() -> Callable[[StateCore], StateCore]:
    """``clone`` written out field by field from :data:`STATE_FIELDS` (it is on the search
    agents' hot path: no loop, no getattr)."""
    copy = {
        "share": "self.{0}",
        "copy": "self.{0}.copy()",
        "copy_each": "[x.copy() for x in self.{0}]",
        "rng": "copy_rng(self.{0})",
    }
    lines = [f"    new.{f.name} = {copy[f.copy].format(f.name)}" for f in STATE_FIELDS]
    src = "\n".join(
        ["def clone(self):", "    new = new_state(type(self))", *lines, "    return new"]
    )
    namespace: dict[str, Any] = {"new_state": object.__new__, "copy_rng": copy_rng}
    exec(compile(src, "<StateCore.clone>", "exec"), namespace)  # noqa: S102 - our own text
    clone = namespace["clone"]
    clone.__doc__ = StateCore.clone.__doc__
    clone.__qualname__ = "StateCore.clone"
    return clone  # type: ignore[no-any-return]


setattr(StateCore, "clone", _compile_clone())  # noqa: B010 - a method mypy must not see assigned
