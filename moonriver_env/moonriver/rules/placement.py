"""Connection rules and the landscape bonus tiles (RULES.md section 3; section 6).

Legal placements are computed with bitboards (:mod:`.geometry`): for each direction, the cells
whose pair of cells is empty; for each landscape, the cells from which a plot of it connects
(a bridge cell, or a neighbour of a plot of that landscape). One mask per (pair, direction),
no loop over cells.
"""

from __future__ import annotations

from moonriver_env.family.geometry import bit_indices, extend_ids
from moonriver_env.moonriver.rules.core import StateCore, new_stamp


class PlacementRules(StateCore):
    """Legal placements, placing dominoes and bonus tiles."""

    __slots__ = ()

    def _placements(self, seat: int) -> list[int]:
        """Legal domino placements (RULES.md section 3, connection rules), vectorised over cells
        with bitboards: per direction, cells whose pair of cells is empty, and per landscape,
        the cells from which a plot of it connects (a bridge, or a neighbour of that landscape)."""
        held = self.held[seat]
        h = len(held)
        if h < 2:
            return []
        st = self._st
        g = st.grid
        land = st.kt.land
        bb = self.land_bb[seat]
        bridge = self.bridges[seat]
        empty = g.full & ~self.occ[seat]
        back = g.back
        free = [empty & back(empty, d) for d in range(4)]
        attach: dict[int, int] = {}
        done: dict[tuple[int, int], list[tuple[int, int]]] = {}
        out: list[int] = []
        # Ids by the layout's strides (pair, cell, direction): a run of cells per mask.
        place = st.layout.by_name["place"]
        pair_stride, cell_stride, dir_stride = place.strides
        for k, i, j in st.pairs_for[h]:
            la, lb = land[held[i]], land[held[j]]
            key = (la, lb)
            masks = done.get(key)
            if masks is None:
                xa = attach.get(la)
                if xa is None:
                    xa = attach[la] = bridge | g.neighbours(bb[la])
                xb = attach.get(lb)
                if xb is None:
                    xb = attach[lb] = bridge | g.neighbours(bb[lb])
                masks = done[key] = [
                    (d, m) for d in range(4) if (m := free[d] & (xa | back(xb, d)))
                ]
            if not masks:
                continue
            off = place.start + k * pair_stride
            if len(masks) == 1:
                d, m = masks[0]
                extend_ids(out, m, off + d * dir_stride, cell_stride)
            else:
                ids: list[int] = []
                for d, m in masks:
                    extend_ids(ids, m, off + d * dir_stride, cell_stride)
                ids.sort()
                out.extend(ids)
        return out

    def _bonus_options(self, seat: int) -> list[int]:
        st = self._st
        g = st.grid
        place_ids = st.layout.by_name["bonus_place"].ids  # [tile][side][cell]
        remove_ids = st.layout.by_name["bonus_remove"].ids  # [tile]
        kt = st.kt
        empty = g.full & ~self.occ[seat]
        bridge = self.bridges[seat]
        bb = self.land_bb[seat]
        place: list[int] = []
        remove: list[int] = []
        for t, available in enumerate(self.tiles):
            if not available:
                continue
            fits = False
            for side in (0, 1):
                land = kt.land[kt.num_plot_kinds + 2 * t + side]
                m = empty & (bridge | g.neighbours(bb[land]))
                if m:
                    fits = True
                    row = place_ids[t][side]
                    place.extend([row[c] for c in bit_indices(m)])
            if not fits:
                remove.append(remove_ids[t])
        return place + remove

    def _put(self, seat: int, cell: int, kind: int) -> None:
        bit = 1 << cell
        self.kinds[seat][cell] = kind
        self.land_bb[seat][self._st.kt.land[kind]] |= bit
        self.occ[seat] |= bit

    def _place(self, pair: int, cell: int, d: int) -> None:
        """Action ``place`` at index (pair, cell, direction)."""
        st = self._st
        g = st.grid
        i, j = st.layout.pairs[pair]
        seat = self.seat
        held = self.held[seat]
        ka, kb = held[i], held[j]
        del held[j]
        del held[i]
        other = g.step[d][cell]
        self.ranch_stamp[seat] = new_stamp()
        self._put(seat, cell, ka)
        self._put(seat, other, kb)
        self.dominoes += 1
        self.reached_far = self.config.num_players == 2 and bool(
            ((1 << cell) | (1 << other)) & g.far_row
        )
        self._start_piece(seat, [cell, other])

    def _bonus_place(self, tile: int, side: int, cell: int) -> None:
        """Action ``bonus_place`` at index (tile, tile side, cell)."""
        seat = self.seat
        self.tiles[tile] = False
        self.ranch_stamp[seat] = new_stamp()
        self._put(seat, cell, self._st.kt.num_plot_kinds + 2 * tile + side)
        self.reached_far = False
        self._start_piece(seat, [cell])

    def _bonus_remove(self, tile: int) -> None:
        """Action ``bonus_remove``: the tile fits nowhere and leaves the game (section 6)."""
        self.tiles[tile] = False
        self.piece = []
        self._continue_turn()
