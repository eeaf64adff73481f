"""The game state machine: setup, rounds, turns, symbols, partners, the end (RULES.md 2-7).

A :class:`GameState` is mutated in place by :meth:`GameState.apply`. Every decision a player
makes at the table is one action id of the config's flat numbering (:mod:`.actions`); everything
else (collecting, cows arriving, a skull or effect with nothing to act on, refilling the
saloon, the end of the game) happens inside ``apply``. A phase is only ever offered when it has
at least one legal action, so ``legal_actions()`` is empty exactly when the game is over.

Ranches are stored per seat as flat per-cell lists plus integer bitboards (:mod:`.geometry`):
one mask per landscape, occupied cells, cells with cows, cells with partners.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from moonriver_env.family.geometry import Grid, bit_indices
from moonriver_env.family.legal import LegalActions
from moonriver_env.moonriver.rules.actions import Action, ActionLayout
from moonriver_env.moonriver.rules.config import GameConfig
from moonriver_env.moonriver.rules.core import (
    NO_PLOT,
    NO_SEAT,
    IllegalActionError,
    Phase,
    new_stamp,
)
from moonriver_env.moonriver.rules.partners import PartnerRules
from moonriver_env.moonriver.rules.placement import PlacementRules
from moonriver_env.moonriver.rules.scoring import (
    KindTable,
    RanchView,
    ScoreBreakdown,
    rank_winners,
    score_masks,
    score_points,
)
from moonriver_env.moonriver.rules.serialization import state_from_json, state_to_json
from moonriver_env.moonriver.rules.table import TableRules

if TYPE_CHECKING:
    pass

__all__ = ["GameState", "IllegalActionError", "Phase", "new_game"]


class GameState(LegalActions, TableRules, PlacementRules, PartnerRules):
    """A Moon River game in progress. Create one with :func:`new_game`.

    The fields (declared in :class:`.core.StateCore`) are public for encoders and tests;
    mutate them only through :meth:`apply`.
    """

    __slots__ = ()

    # ------------------------------------------------------------------ public API
    @property
    def current_seat(self) -> int | None:
        """The seat to act, or ``None`` when the game is over."""
        return None if self.phase == Phase.GAME_OVER else self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def grid(self) -> Grid:
        return self._st.grid

    @property
    def layout(self) -> ActionLayout:
        return self._st.layout

    @property
    def kind_table(self) -> KindTable:
        return self._st.kt

    def apply(self, action: int) -> None:
        """Play ``action`` for the current seat (in place).

        Raises:
            IllegalActionError: naming the action and the phase; the state is unchanged.
        """
        if type(action) is int:
            a = action
        else:
            a = _as_action_id(action)
        if not self.is_legal(a):
            raise IllegalActionError(self._illegal_message(a))
        self._apply(a)
        if self.config.auto_resolve:
            self._auto_resolve()

    def decode(self, action: int) -> Action:
        """The frozen dataclass describing ``action`` (see :mod:`.actions`)."""
        return self._st.layout.decode(action)

    def action_to_string(self, action: int) -> str:
        return self._st.layout.to_text(action)

    def string_to_action(self, text: str) -> int:
        """Parse a text form; ``ValueError`` if it names no action (legality is not checked)."""
        return self._st.layout.from_text(text)

    def scores(self) -> list[ScoreBreakdown]:
        """One :class:`ScoreBreakdown` per seat, on the ranches as they stand."""
        return [self.score_seat(s) for s in range(self.config.num_players)]

    def score_points(self, seat: int) -> tuple[int, int, int, int]:
        """(territories, resources, partners, scenario) of one seat, without the tie-break
        keys (cheaper than :meth:`score_seat`; encoders call it after every change)."""
        return score_points(*self._ranch_view(seat))

    def score_seat(self, seat: int) -> ScoreBreakdown:
        """The :class:`ScoreBreakdown` of one seat, on its ranch as it stands."""
        return score_masks(self._ranch_view(seat))

    def _ranch_view(self, seat: int) -> RanchView:
        st = self._st
        return (
            st.grid,
            st.kt,
            self.land_bb[seat],
            self.cow_bb[seat],
            self.partner_bb[seat],
            self.kinds[seat],
            self.cows[seat],
            self.partners[seat],
            self.scenario,
        )

    def winners(self) -> list[int]:
        """Seats that win after the tie-breaks (on the ranches as they stand)."""
        return rank_winners(self.scores())

    def redetermine(self, rng: np.random.Generator) -> None:
        """Re-shuffle the hidden information (draw pile order, partner stack order) with
        ``rng``, for determinized search. Nothing public changes."""
        rng.shuffle(self.pile)
        rng.shuffle(self.stack)

    def to_json(self) -> str:
        """The whole state as versioned JSON (schema in :mod:`.serialization`)."""
        return state_to_json(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameState:
        """Load a state saved by :meth:`to_json`; ``ValueError`` naming the bad entry's path."""
        return state_from_json(text, cls)

    def __repr__(self) -> str:
        return (
            f"GameState(players={self.config.num_players}, mode={self.config.mode!r}, "
            f"round={self.round}, phase={self.phase.name}, seat={self.current_seat})"
        )

    # ------------------------------------------------------------------ legal actions
    def _generate_legal(self) -> list[int]:
        """Legal ids, ascending, looked up in the layout's id tables (:mod:`.actions`)."""
        ph = self.phase
        seg = self._st.layout.by_name
        seat = self.seat
        if ph == Phase.EXPAND:
            return [*self._placements(seat), seg["stop"].ids]
        if ph in (Phase.MUST_EXPAND, Phase.FINAL_EXPAND):
            return self._placements(seat)
        if ph == Phase.SELECT:
            claim = seg["claim"].ids
            return [
                claim[p] for p, c in enumerate(self.next_claim) if c < 0 and self.next_col[p] >= 0
            ]
        if ph == Phase.SETUP_CLAIM:
            claim = seg["claim"].ids
            return [
                claim[p] for p, c in enumerate(self.cur_claim) if c < 0 and self.cur_col[p] >= 0
            ]
        if ph == Phase.SKULL:
            skull = seg["skull"].ids
            return [skull[c] for c in bit_indices(self._skull_targets())]
        if ph == Phase.RECRUIT:
            recruit = seg["recruit"].ids  # [circle][slot][side]
            return [
                recruit[k][slot][side]
                for k in sorted(self.circles)
                for slot, tok in enumerate(self.saloon)
                if tok >= 0
                for side in (0, 1)
            ]
        if ph == Phase.COWBOY:
            return [*self._cowboy_moves(seat), seg["cowboy_stop"].ids]
        if ph == Phase.DESPERADO:
            return [*self._swaps(seat), seg["desperado_skip"].ids]
        if ph == Phase.THIEF:
            return [*self._steals(seat), seg["thief_skip"].ids]
        if ph == Phase.DISCARD:
            discard = seg["discard"].ids
            return [discard[k] for k, _, _ in self._st.pairs_for[len(self.held[seat])]]
        if ph == Phase.BONUS:
            return self._bonus_options(seat)
        return []

    def skull_territory(self) -> int:
        """Cells (a bitboard) of the territory the pending skull acts on; 0 if none pends."""
        if not self.skulls:
            return 0
        seat = self.seat
        cell = self.skulls[0]
        k = self.kinds[seat][cell]
        return self._st.grid.flood(1 << cell, self.land_bb[seat][self._st.kt.land[k]])

    def _skull_targets(self) -> int:
        return self.skull_territory() & self.cow_bb[self.seat]

    # ------------------------------------------------------------------ transitions
    def _auto_resolve(self) -> None:
        while self.phase != Phase.GAME_OVER:
            legal = self.legal_action_list()
            if len(legal) != 1:
                return
            self._apply(legal[0])

    def _apply(self, a: int) -> None:
        """Apply a legal action id (no legality check): the handler of its segment
        (:data:`_APPLY`) with the id's index, both looked up in the layout's table."""
        self._legal = None
        name, index = self._st.layout.located[a]
        _APPLY[name](self, *index)

    def _claim(self, pos: int) -> None:
        """Action ``claim``: a setup claim or the selection of a plot of the next column."""
        if self.phase == Phase.SETUP_CLAIM:
            self._setup_claim(pos)
        else:
            self._select(pos)

    # -- rounds ------------------------------------------------------------------------------
    def _setup_claim(self, pos: int) -> None:
        self.cur_claim[pos] = self.seat
        self.setup_idx += 1
        if self.setup_idx < len(self.setup_order):
            self.seat = self.setup_order[self.setup_idx]
            return
        self._remove_unclaimed(self.cur_col, self.cur_claim)
        self._open_next_column()
        self.round = 1
        self._start_round()

    def _start_round(self) -> None:
        self.turn_pos = -1
        self._next_turn()

    def _next_turn(self) -> None:
        claim = self.cur_claim
        for pos in range(self.turn_pos + 1, len(claim)):
            if claim[pos] >= 0:
                self.turn_pos = pos
                self._start_turn()
                return
        self._end_round()

    def _end_round(self) -> None:
        if self.final_round:
            self._end_game()
            return
        self.cur_col = self.next_col
        self.cur_claim = self.next_claim
        self._open_next_column()
        self._refill_saloon()
        self.round += 1
        self._start_round()

    def _end_game(self) -> None:
        # Overpopulation: at most one cow per plot; the extras return to the supply.
        for cows in self.cows:
            for c, k in enumerate(cows):
                if k > 1:
                    self.supply += k - 1
                    cows[c] = 1
        self.ranch_stamp = [new_stamp() for _ in self.cows]
        self.phase = Phase.GAME_OVER
        self.seat = NO_SEAT
        self.piece = []
        self.skulls = []
        self.circles = []

    # -- a turn ------------------------------------------------------------------------------
    def _start_turn(self) -> None:
        pos = self.turn_pos
        seat = self.seat = self.cur_claim[pos]
        held = self.held[seat]
        held.append(self.cur_col[pos])  # Collect (ruling R13: held from now on)
        held.sort()
        self.cur_col[pos] = NO_PLOT
        self.dominoes = 0
        self.final_turn = self.final_round and seat not in self.cur_claim[pos + 1 :]
        self._continue_turn()

    def _continue_turn(self) -> None:
        """Decide what the acting seat does next in its turn (expansion, then selection)."""
        seat = self.seat
        held = self.held[seat]
        if self.final_turn:
            if len(held) >= 2:
                legal = self._placements(seat)
                if legal:
                    self.phase = Phase.FINAL_EXPAND
                    self._legal = legal
                    return
            self.discarded.extend(held)
            held.clear()
            self._next_turn()
            return
        if len(held) > self.slots[seat]:
            legal = self._placements(seat)
            if legal:
                self.phase = Phase.MUST_EXPAND
                self._legal = legal
            else:
                self.phase = Phase.DISCARD
            return
        if self.dominoes < 2 and len(held) >= 2:  # ruling R3: 2 dominoes per turn
            legal = self._placements(seat)
            if legal:
                self.phase = Phase.EXPAND
                legal.append(self._st.layout.by_name["stop"].ids)
                self._legal = legal
                return
        self._after_expansion()

    def _after_expansion(self) -> None:
        if self.final_round:  # no next column to claim a place in
            self._next_turn()
        else:
            self.phase = Phase.SELECT

    def _select(self, pos: int) -> None:
        self.next_claim[pos] = self.seat
        if sum(1 for c in self.next_claim if c >= 0) == self._st.num_rancheros:
            self._remove_unclaimed(self.next_col, self.next_claim)
        self._next_turn()

    def _discard(self, pair: int) -> None:
        i, j = self._st.layout.pairs[pair]
        held = self.held[self.seat]
        self.discarded.append(held[i])
        self.discarded.append(held[j])
        del held[j]
        del held[i]
        self._continue_turn()

    # -- placing pieces and resolving symbols ------------------------------------------------

    def _start_piece(self, seat: int, cells: list[int]) -> None:
        """Resolve a placed piece's symbols: all cows, then skulls, then circles (section 4)."""
        kt = self._st.kt
        kinds = self.kinds[seat]
        cows = self.cows[seat]
        for c in cells:
            n = kt.cows[kinds[c]]
            if n:
                n = min(n, self.supply)  # ruling R1: an empty supply places nothing
                if n:
                    self.supply -= n
                    cows[c] += n
                    self.cow_bb[seat] |= 1 << c
        self.piece = cells
        self.skulls = [c for c in cells if kt.skull[kinds[c]]]
        self.circles = [i for i, c in enumerate(cells) if kt.circle[kinds[c]]]
        self._resolve_piece()

    def _resolve_piece(self) -> None:
        """Advance the pending symbols of the piece; then the bonus tile; then the turn."""
        while self.skulls:
            if self._skull_targets():
                self.phase = Phase.SKULL
                return
            self.skulls.pop(0)
        if self.circles:
            if any(t >= 0 for t in self.saloon):
                self.phase = Phase.RECRUIT
                return
            self.circles = []
        seat = self.seat
        if self.reached_far:
            self.reached_far = False
            # Ruling R19: first arrival in the far row takes a tile; at most one per player.
            if not self.bonus_done[seat] and any(self.tiles):
                self.bonus_done[seat] = True
                self.phase = Phase.BONUS
                return
        self.piece = []  # resolved: ``piece`` is non-empty only while its symbols act
        self._continue_turn()

    def _skull(self, cell: int) -> None:
        seat = self.seat
        cows = self.cows[seat]
        cows[cell] -= 1
        if not cows[cell]:
            self.cow_bb[seat] &= ~(1 << cell)
        self.ranch_stamp[seat] = new_stamp()
        self.supply += 1
        self.skulls.pop(0)
        self._resolve_piece()


# What each action segment does (one entry per name of :data:`.actions.SEGMENTS`); the handler
# gets the id's index inside its segment.
_APPLY: dict[str, Callable[..., None]] = {
    "claim": GameState._claim,
    "place": GameState._place,
    "stop": GameState._after_expansion,
    "discard": GameState._discard,
    "skull": GameState._skull,
    "recruit": GameState._recruit,
    "cowboy_move": GameState._cowboy_move,
    "cowboy_stop": GameState._resolve_piece,
    "desperado_swap": GameState._swap,
    "desperado_skip": GameState._resolve_piece,
    "thief_steal": GameState._steal,
    "thief_skip": GameState._resolve_piece,
    "bonus_place": GameState._bonus_place,
    "bonus_remove": GameState._bonus_remove,
}


def _as_action_id(action: object) -> int:
    """Accept Python and NumPy integers (not bools, floats or strings) as action ids."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise IllegalActionError(f"action must be an integer id, got {action!r}")
    return int(action)


def new_game(config: GameConfig | None = None, seed: int | None = None) -> GameState:
    """Set up a new game (RULES.md section 2).

    Args:
        config: the game to play (default: ``GameConfig()``, 2 players, base game).
        seed: seeds the game's ``numpy.random.Generator``; every chance event comes from it.
    """
    if config is None:
        config = GameConfig()
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise ValueError(f"seed: expected an integer or None, got {seed!r}")
    state = GameState._empty(config, np.random.default_rng(seed))
    state._setup()
    if config.auto_resolve:
        state._auto_resolve()
    return state
