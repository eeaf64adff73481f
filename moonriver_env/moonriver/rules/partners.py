"""Recruiting partners and their immediate effects (RULES.md section 4, "Circle", "Partners").

Cowboy moves (up to 3, never onto a cornfield), the Desperado's reserve swap and the Cattle
Thief's steal of an unprotected cow (ruling R16: a partner anywhere in the territory protects
it; ruling R4: a thief on a cornfield cannot steal).
"""

from __future__ import annotations

from moonriver_env.family.geometry import bit_indices
from moonriver_env.moonriver.rules.actions import target_seat
from moonriver_env.moonriver.rules.components import Landscape, PartnerKind
from moonriver_env.moonriver.rules.core import Phase, StateCore, new_stamp
from moonriver_env.moonriver.rules.scoring import partner_code

CORN = int(Landscape.CORNFIELD)


def protected_cells(state: StateCore, seat: int) -> int:
    """Cells (a bitboard) of ``seat``'s ranch whose territory holds a partner: a partner
    anywhere in a territory protects its cows from the Cattle Thief (ruling R16)."""
    partners = state.partner_bb[seat]
    if not partners:
        return 0
    flood = state._st.grid.flood
    out = 0
    for land_mask in state.land_bb[seat]:
        seeds = partners & land_mask
        if seeds:
            out |= flood(seeds, land_mask)
    return out


def unprotected_cows(state: StateCore, seat: int) -> int:
    """Cells (a bitboard) of ``seat`` with a cow that no partner protects (ruling R16): what a
    Cattle Thief may steal."""
    cows = state.cow_bb[seat]
    return cows & ~protected_cells(state, seat) if cows else 0


class PartnerRules(StateCore):
    """Legal partner actions and their effects."""

    __slots__ = ()

    def _cowboy_moves(self, seat: int) -> list[int]:
        g = self._st.grid
        target = self.occ[seat] & ~self.land_bb[seat][CORN]
        cows = self.cow_bb[seat]
        move_ids = self._st.layout.by_name["cowboy_move"].ids  # [cell][direction]
        ids = [move_ids[c][d] for d in range(4) for c in bit_indices(cows & g.back(target, d))]
        ids.sort()
        return ids

    def _swaps(self, seat: int) -> list[int]:
        swap_ids = self._st.layout.by_name["desperado_swap"].ids  # [own][target][theirs]
        n = self.config.num_players
        mine = len(self.held[seat])
        out: list[int] = []
        if not mine:
            return out
        for own in range(mine):
            for t in range(n - 1):
                theirs = len(self.held[target_seat(seat, t, n)])
                out.extend(swap_ids[own][t][:theirs])
        return out

    def _steals(self, seat: int) -> list[int]:
        # Ruling R4: a thief on a cornfield cannot steal (cows may not stand there).
        kind = self.kinds[seat][self.effect_cell]
        if self._st.kt.land[kind] == CORN:
            return []
        steal_ids = self._st.layout.by_name["thief_steal"].ids  # [target][cell]
        n = self.config.num_players
        out: list[int] = []
        for t in range(n - 1):
            row = steal_ids[t]
            out.extend(
                [row[c] for c in bit_indices(unprotected_cows(self, target_seat(seat, t, n)))]
            )
        return out

    def _recruit(self, circle: int, slot: int, side: int) -> None:
        """Action ``recruit`` at index (circle, saloon slot, side)."""
        seat = self.seat
        cell = self.piece[circle]
        token = self.saloon[slot]
        self.saloon[slot] = -1
        self.circles.remove(circle)
        self.partners[seat][cell] = partner_code(token, bool(side))
        self.partner_bb[seat] |= 1 << cell
        self.ranch_stamp[seat] = new_stamp()
        self.effect_cell = cell
        if side:
            self.cowboy_moves = 3
            if self._cowboy_moves(seat):
                self.phase = Phase.COWBOY
                return
        elif token == PartnerKind.DESPERADO:
            if self._swaps(seat):
                self.phase = Phase.DESPERADO
                return
        elif token == PartnerKind.CATTLE_THIEF and self._steals(seat):
            self.phase = Phase.THIEF
            return
        self._resolve_piece()

    def _cowboy_move(self, cell: int, d: int) -> None:
        """Action ``cowboy_move`` at index (cell, direction)."""
        seat = self.seat
        target = self._st.grid.step[d][cell]
        cows = self.cows[seat]
        cows[cell] -= 1
        cows[target] += 1
        bb = self.cow_bb[seat] | (1 << target)
        if not cows[cell]:
            bb &= ~(1 << cell)
        self.cow_bb[seat] = bb
        self.ranch_stamp[seat] = new_stamp()
        self.cowboy_moves -= 1
        if self.cowboy_moves > 0:
            self.phase = Phase.COWBOY  # _cowboy_moves is non-empty: the cow can move back
            return
        self._resolve_piece()

    def _swap(self, own: int, target: int, theirs: int) -> None:
        """Action ``desperado_swap`` at index (own position, target, their position)."""
        seat = self.seat
        other = target_seat(seat, target, self.config.num_players)
        mine, yours = self.held[seat], self.held[other]
        mine[own], yours[theirs] = yours[theirs], mine[own]
        mine.sort()
        yours.sort()
        self._resolve_piece()

    def _steal(self, target: int, cell: int) -> None:
        """Action ``thief_steal`` at index (target, cell)."""
        seat = self.seat
        victim = target_seat(seat, target, self.config.num_players)
        vcows = self.cows[victim]
        vcows[cell] -= 1
        if not vcows[cell]:
            self.cow_bb[victim] &= ~(1 << cell)
        self.cows[seat][self.effect_cell] += 1
        self.cow_bb[seat] |= 1 << self.effect_cell
        self.ranch_stamp[seat] = new_stamp()
        self.ranch_stamp[victim] = new_stamp()
        self._resolve_piece()
