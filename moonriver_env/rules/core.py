"""The state's data layout, phases and per-config tables (shared by the rule modules).

The phases are the decisions of a turn in RULES.md sections 2-7 (claim, expand, symbols,
partners, bonus tile, select); the ranch cells follow section 1, "Ranch grid".

:class:`StateCore` declares every field of a game state (``__slots__``); the rules live in
mixins that derive from it: :mod:`.placement` (connection rules, bonus tiles), :mod:`.partners`
(recruiting and the immediate effects) and :mod:`.state` (setup, rounds, turns, symbols, API).
"""

from __future__ import annotations

from enum import IntEnum
from itertools import count

import numpy as np

from .config import GameConfig
from .geometry import grid_for_rows
from .scoring import KindTable

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

    __slots__ = ("config", "layout", "grid", "kt", "pairs_for", "num_rancheros")

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


def _static_for(config: GameConfig) -> _Static:
    """The shared per-config tables, cached on the (frozen) config object itself."""
    st: _Static | None = config.__dict__.get("_engine_static")
    if st is None:
        st = _Static(config)
        config.__dict__["_engine_static"] = st
    return st


class StateCore:
    """Every field of a game state; the rule mixins and :class:`.state.GameState` add behaviour."""

    __slots__ = (
        "_st",
        "config",
        "rng",
        "scenario",
        "boards",
        "slots",
        "bridges",
        "pile",
        "stack",
        "saloon",
        "cur_col",
        "cur_claim",
        "next_col",
        "next_claim",
        "removed",
        "discarded",
        "supply",
        "round",
        "final_round",
        "phase",
        "seat",
        "setup_order",
        "setup_idx",
        "turn_pos",
        "final_turn",
        "dominoes",
        "held",
        "kinds",
        "cows",
        "partners",
        "land_bb",
        "occ",
        "cow_bb",
        "partner_bb",
        "bonus_done",
        "tiles",
        "piece",
        "skulls",
        "circles",
        "reached_far",
        "effect_cell",
        "cowboy_moves",
        "ranch_stamp",
        "_legal",
    )

    # The attributes are public for encoders and tests; mutate only through apply().
    _st: _Static
    config: GameConfig
    rng: np.random.Generator
    scenario: str | None
    boards: tuple[str, ...]
    slots: tuple[int, ...]
    bridges: tuple[int, ...]
    pile: list[int]
    stack: list[int]
    saloon: list[int]
    cur_col: list[int]
    cur_claim: list[int]
    next_col: list[int]
    next_claim: list[int]
    removed: list[int]
    discarded: list[int]
    supply: int
    round: int
    final_round: bool
    phase: Phase
    seat: int
    setup_order: list[int]
    setup_idx: int
    turn_pos: int
    final_turn: bool
    dominoes: int
    held: list[list[int]]
    kinds: list[list[int]]
    cows: list[list[int]]
    partners: list[list[int]]
    land_bb: list[list[int]]
    occ: list[int]
    cow_bb: list[int]
    partner_bb: list[int]
    bonus_done: list[bool]
    tiles: list[bool]
    piece: list[int]
    skulls: list[int]
    circles: list[int]
    reached_far: bool
    effect_cell: int
    cowboy_moves: int
    ranch_stamp: list[int]
    _legal: list[int] | None

    # Hooks implemented by GameState (the turn flow), called by the rule mixins.
    def _start_piece(self, seat: int, cells: list[int]) -> None:
        raise NotImplementedError

    def _resolve_piece(self) -> None:
        raise NotImplementedError

    def _continue_turn(self) -> None:
        raise NotImplementedError
