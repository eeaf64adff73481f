"""What a picture of the table shows: a plain description of the public position.

Everything in a :class:`TableView` is public (RULES.md section 8): every ranch with its cows,
partners and bridges (section 1), every reserve, both columns with their claims (section 2),
the saloon, the cow supply, the stack and pile sizes, the scores so far (section 5), the
scenario (section 7) and, with 2 players, the bonus tiles (section 6). :func:`table_view`
builds it from a :class:`GameState`; the painters (``text.py``, ``picture.py``) only read it.
Names shared by both painters (letters, partner names) live here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from moonriver_env.moonriver.rules.core import RESOLVE_PHASES
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown

if TYPE_CHECKING:
    from moonriver_env.moonriver.rules.state import GameState

LANDSCAPE_LETTERS = "DCMFKA"
"""One letter per :class:`Landscape`: Desert, Canyon, Meadow, Forest, Korn (cornfield), fArm."""

PARTNER_LETTERS = "dtgrf"
"""One letter per :class:`PartnerKind` (specialist side up); a Cowboy side up is ``W``."""

COWBOY_LETTER = "W"

PARTNER_NAMES = ("Desperado", "Cattle Thief", "Gold Digger", "Trapper", "Farmer")


@dataclass(frozen=True)
class Face:
    """What a cell content shows: a plot kind (section 1) or a bonus tile side (section 6).

    ``back`` is a plot's back number, ``bonus`` marks a bonus tile side.
    """

    land: int
    gold: int
    beaver: int
    corn: int
    cows: int
    skull: bool
    circle: bool
    back: int = 0
    bonus: bool = False


@dataclass(frozen=True)
class Cell:
    """A ranch cell: the face lying there (None if empty), its cows and its partner token
    (``2 * PartnerKind + (1 if Cowboy side up)``, -1 for none)."""

    face: Face | None
    cows: int
    partner: int


@dataclass(frozen=True)
class Ranch:
    """One seat's ranch and reserve (sections 1 and 3)."""

    label: str
    board: str
    """``"camp"`` in the base game, the Legends board's name otherwise."""
    score: ScoreBreakdown
    acting: bool
    winner: bool
    cells: tuple[Cell, ...]
    """Indexed ``row * cols + col``, row 0 next to the river."""
    piece: tuple[int, ...]
    """Cells of the piece being resolved, sorted (only on the acting seat's ranch)."""
    bridges: tuple[bool, ...]
    """One per column: a bridge crosses the river there."""
    held: tuple[Face, ...]
    slots: int


@dataclass(frozen=True)
class Column:
    """A column of plots (section 2): a face per place (None once taken) and the seat that
    claimed it (-1 for none); ``drawn`` is False before it is laid out or in the final round."""

    plots: tuple[Face | None, ...]
    claims: tuple[int, ...]
    drawn: bool


@dataclass(frozen=True)
class BonusTile:
    """A bonus tile of the 2-player game (section 6): its two sides and whether it is free."""

    name: str
    side_names: tuple[str, str]
    faces: tuple[Face, Face]
    free: bool


@dataclass(frozen=True)
class TableView:
    """The whole public table at one moment."""

    num_players: int
    rows: int
    cols: int
    round: int
    final_round: bool
    terminal: bool
    phase: str
    scenario: str
    to_act: int | None
    labels: tuple[str, ...]
    winners: tuple[int, ...]
    """Winning seats in the engine's order (empty until the game is over)."""
    piece: tuple[int, ...]
    """Cells of the piece being resolved (sorted), and their names."""
    piece_names: tuple[str, ...]
    supply: int
    """Cows left in the general supply."""
    stack: int
    """Partner tokens left in the stack (their order is hidden)."""
    pile: int
    """Plots left in the draw pile (their order is hidden)."""
    saloon: tuple[int, ...]
    """Partner kind per saloon place, -1 for an empty place."""
    now: Column
    next: Column
    bonus_tiles: tuple[BonusTile, ...]
    """With 2 players only (else empty)."""
    ranches: tuple[Ranch, ...]


def _seat_labels(state: GameState, seat_names: Sequence[str] | None) -> tuple[str, ...]:
    """A label per seat: ``seat_names`` checked against the player count, else ``"seat i"``."""
    n = state.config.num_players
    if seat_names is None:
        return tuple(f"seat {i}" for i in range(n))
    if len(seat_names) != n:
        raise ValueError(f"seat_names: expected {n} names, got {len(seat_names)}")
    return tuple(str(name) for name in seat_names)


def face_of(state: GameState, kind: int) -> Face:
    """The face of a cell content ``kind`` (a plot kind, or ``num_plot_kinds + 2 * tile +
    side`` for a bonus tile side)."""
    kt = state.kind_table
    return Face(
        land=kt.land[kind],
        gold=kt.gold[kind],
        beaver=kt.beaver[kind],
        corn=kt.corn[kind],
        cows=kt.cows[kind],
        skull=kt.skull[kind],
        circle=kt.circle[kind],
        back=kt.back[kind],
        bonus=kind >= kt.num_plot_kinds,
    )


def _column(state: GameState, kinds: Sequence[int], claims: Sequence[int], drawn: bool) -> Column:
    plots = tuple(face_of(state, k) if k >= 0 else None for k in kinds)
    return Column(plots, tuple(claims), drawn)


def _bonus_tiles(state: GameState) -> tuple[BonusTile, ...]:
    if state.config.num_players != 2:
        return ()
    nk = state.kind_table.num_plot_kinds
    return tuple(
        BonusTile(
            name=tile.name,
            side_names=(tile.sides[0].name.lower(), tile.sides[1].name.lower()),
            faces=(face_of(state, nk + 2 * t), face_of(state, nk + 2 * t + 1)),
            free=free,
        )
        for t, (tile, free) in enumerate(
            zip(state.config.components.bonus_tiles, state.tiles, strict=True)
        )
    )


def _ranch(
    state: GameState,
    seat: int,
    label: str,
    score: ScoreBreakdown,
    winners: tuple[int, ...],
    piece: tuple[int, ...],
) -> Ranch:
    acting = seat == state.current_seat
    kinds, cows, partners = state.kinds[seat], state.cows[seat], state.partners[seat]
    cells = tuple(
        Cell(face_of(state, k) if k >= 0 else None, cows[c], partners[c])
        for c, k in enumerate(kinds)
    )
    return Ranch(
        label=label,
        board=state.boards[seat],
        score=score,
        acting=acting,
        winner=seat in winners,
        cells=cells,
        piece=piece if acting else (),
        bridges=tuple(bool(state.bridges[seat] >> col & 1) for col in range(state.grid.cols)),
        held=tuple(face_of(state, k) for k in state.held[seat]),
        slots=state.slots[seat],
    )


def table_view(state: GameState, seat_names: Sequence[str] | None = None) -> TableView:
    """Describe the public table of ``state``.

    Args:
        state: the game state.
        seat_names: a label per seat (default ``"seat 0"``, ``"seat 1"``, ...).

    Raises:
        ValueError: ``seat_names`` does not have one name per seat.
    """
    labels = _seat_labels(state, seat_names)
    scores = state.scores()
    winners = tuple(state.winners()) if state.is_terminal else ()
    piece = tuple(sorted(set(state.piece))) if state.phase in RESOLVE_PHASES else ()
    return TableView(
        num_players=state.config.num_players,
        rows=state.grid.rows,
        cols=state.grid.cols,
        round=state.round,
        final_round=state.final_round,
        terminal=state.is_terminal,
        phase=state.phase.name,
        to_act=state.current_seat,
        winners=winners,
        piece=piece,
        piece_names=tuple(state.grid.cell_name(c) for c in piece),
        labels=labels,
        scenario="base game" if state.scenario is None else state.scenario.replace("_", " "),
        supply=state.supply,
        stack=len(state.stack),
        pile=len(state.pile),
        saloon=tuple(state.saloon),
        now=_column(
            state,
            state.cur_col,
            state.cur_claim,
            any(k >= 0 for k in state.cur_col) or state.round > 0,
        ),
        next=_column(
            state,
            state.next_col,
            state.next_claim,
            state.round > 0 and not state.final_round,
        ),
        bonus_tiles=_bonus_tiles(state),
        ranches=tuple(
            _ranch(state, seat, labels[seat], scores[seat], winners, piece)
            for seat in range(state.config.num_players)
        ),
    )
