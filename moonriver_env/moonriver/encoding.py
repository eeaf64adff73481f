"""Tensor encodings of a game state for learning agents (NumPy only, no RL imports).

An observation is taken from one seat's point of view: ranch 0 is the observing seat's own,
ranch ``k`` is the seat ``k`` places after it (``(seat + k) % n``; the same relative offsets as
the action targets ``+k``). It shows everything on the table (RULES.md section 8) and nothing
hidden: neither the order of the draw pile nor that of the partner stack (nor which
specialists remain in it) is encoded.

Two arrays, both ``float32``:

``planes``, shape ``(n * RANCH_CHANNELS, rows, 5)``: for ranch ``k`` the channels
``k * RANCH_CHANNELS + i`` with ``i`` from :data:`RANCH_CHANNEL_NAMES`::

     0- 5  land_desert .. land_farm   landscape one-hot
     6     empty                      no plot on the cell
     7     cows                       cows standing on the cell (count)
     8-10  gold, beaver, corn         resource symbols (count)
    11     skull                      the plot shows a skull (spent after placement)
    12     circle                     the plot shows a circle
    13-22  partner_<kind>_<side>      partner token by kind and side up (one-hot)
    23     protected                  the cell's territory holds a partner (ruling R16)
    24     river                      row 0 (touches the river)
    25     bridge                     row-0 cell next to one of this board's bridges
    26     bonus_tile                 a landscape bonus tile lies there (2 players)
    27     piece                      cells of the piece whose symbols are being resolved
    28     skull_target               cells of the territory the pending skull acts on

``features``, shape ``(num_features,)``: named slices listed by
:attr:`ObservationEncoder.feature_slices` (documented in the environment card): phase,
acting seat, round, reserves, columns with claims, saloon, stack size, cow supply, unseen plot
counts, scores so far by category, the pending decision's context, bonus tiles, scenario,
boards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from moonriver_env.family.geometry import bit_indices
from moonriver_env.moonriver.rules import (
    LEGENDS_BOARDS,
    SCENARIOS,
    GameConfig,
    GameState,
    Landscape,
    PartnerKind,
    Phase,
    protected_cells,
)
from moonriver_env.moonriver.rules.core import build_kind_table

if TYPE_CHECKING:
    from numpy.typing import NDArray

_LANDS = [land.name.lower() for land in Landscape]
_PARTNERS = [k.name.lower() for k in PartnerKind]
RANCH_CHANNEL_NAMES: tuple[str, ...] = (
    *(f"land_{x}" for x in _LANDS),
    "empty",
    "cows",
    "gold",
    "beaver",
    "corn",
    "skull",
    "circle",
    *(f"partner_{k}_{side}" for k in _PARTNERS for side in ("specialist", "cowboy")),
    "protected",
    "river",
    "bridge",
    "bonus_tile",
    "piece",
    "skull_target",
)
RANCH_CHANNELS = len(RANCH_CHANNEL_NAMES)
_CH = {name: i for i, name in enumerate(RANCH_CHANNEL_NAMES)}
# The encoder's cache keeps each ranch cell-major (one row of channels per cell, so a new
# plot is one row write) in an internal channel order: the 13 channels given by the cell's
# content (landscape, empty, resources, skull, circle, bonus tile: one lookup-table row), the
# 10 partner channels (one row of a second table), then cows, protected, river, bridge, piece,
# skull_target. The gather that builds an observation maps it to the public channel-major order.
_KIND_CHANNELS = 13
_INTERNAL_ORDER: tuple[int, ...] = (
    *(_CH[f"land_{x}"] for x in _LANDS),
    _CH["empty"],
    _CH["gold"],
    _CH["beaver"],
    _CH["corn"],
    _CH["skull"],
    _CH["circle"],
    _CH["bonus_tile"],
    *range(_CH["partner_desperado_specialist"], _CH["partner_desperado_specialist"] + 10),
    _CH["cows"],
    _CH["protected"],
    _CH["river"],
    _CH["bridge"],
    _CH["piece"],
    _CH["skull_target"],
)
_INTERNAL_OF = {pub: i for i, pub in enumerate(_INTERNAL_ORDER)}
_I_PARTNER = _KIND_CHANNELS
_I_COWS = _INTERNAL_OF[_CH["cows"]]
_I_PROTECTED = _INTERNAL_OF[_CH["protected"]]
_I_RIVER = _INTERNAL_OF[_CH["river"]]
_I_BRIDGE = _INTERNAL_OF[_CH["bridge"]]
_PIECE = _CH["piece"]
_SKULL_TARGET = _CH["skull_target"]
_NO_PIECE_PHASES = (Phase.SELECT, Phase.SETUP_CLAIM, Phase.GAME_OVER)
BOARD_NAMES: tuple[str, ...] = ("camp", *LEGENDS_BOARDS)
SCORE_PARTS = ("territories", "resources", "partners", "scenario", "total")
SCORE_SCALE = 100.0


class ObservationEncoder:
    """Builds ``(planes, features)`` for any state of one config.

    Per-ranch planes and scores are cached and rebuilt only for ranches that changed since the
    last call (a ranch is compared by its per-cell lists), so a step usually re-encodes one
    ranch. An encoder is tied to one config; reuse it across games of that config.
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        comps = config.components
        self.n = n = config.num_players
        self.rows = rows = config.rows
        self.cells = cells = rows * 5
        self.num_kinds = k = len(comps.plots)
        self.column_size = comps.column_size
        self.saloon_size = comps.saloon_size
        self.max_held = config.layout.held  # held positions, as the actions number them
        self.total_plots = comps.num_plots
        self.total_partners = comps.num_partners
        self.total_cows = max(comps.cows, 1)
        self.plane_shape = (n * RANCH_CHANNELS, rows, 5)
        # kind lookup: row 0 = empty cell, row 1 + kind = content (plot kinds, then tile sides).
        kt = build_kind_table(config)
        self.kind_table = kt
        # Rows in the internal channel order (_INTERNAL_ORDER): public channel ch of a kind
        # row is column _INTERNAL_OF[ch].
        table = np.zeros((len(kt.land) + 1, _KIND_CHANNELS), dtype=np.float32)
        table[0, _INTERNAL_OF[_CH["empty"]]] = 1.0
        for idx in range(len(kt.land)):
            row = table[idx + 1]
            row[_INTERNAL_OF[kt.land[idx]]] = 1.0
            row[_INTERNAL_OF[_CH["gold"]]] = kt.gold[idx]
            row[_INTERNAL_OF[_CH["beaver"]]] = kt.beaver[idx]
            row[_INTERNAL_OF[_CH["corn"]]] = kt.corn[idx]
            row[_INTERNAL_OF[_CH["skull"]]] = float(kt.skull[idx])
            row[_INTERNAL_OF[_CH["circle"]]] = float(kt.circle[idx])
            row[_INTERNAL_OF[_CH["bonus_tile"]]] = float(idx >= kt.num_plot_kinds)
        self._kind_table = table
        ptable = np.zeros((11, 10), dtype=np.float32)  # row 0 = no partner
        for code in range(10):
            ptable[code + 1, code] = 1.0
        self._partner_table = ptable
        self._river = np.zeros(cells, dtype=np.float32)
        self._river[:5] = 1.0
        # Feature layout.
        sizes: list[tuple[str, int]] = [
            ("phase", len(Phase)),
            ("actor", n),
            ("round", 1),
            ("final_round", 1),
            ("final_turn", 1),
            ("dominoes_this_turn", 1),
            ("held", n * k),
            ("held_count", n),
            ("reserve_slots", n),
            ("board", n * len(BOARD_NAMES)),
            ("current_column", self.column_size * (k + 1)),
            ("current_claims", self.column_size * n),
            ("next_column", self.column_size * (k + 1)),
            ("next_claims", self.column_size * n),
            ("saloon", self.saloon_size * len(PartnerKind)),
            ("stack_size", 1),
            ("cow_supply", 1),
            ("unseen_plots", k),
            ("scores", n * len(SCORE_PARTS)),
            ("pending_skulls", 1),
            ("pending_circles", 2),
            ("cowboy_moves_left", 1),
            ("bonus_tiles_available", 2),
            ("bonus_tile_taken", n),
            ("scenario", 1 + len(SCENARIOS)),
        ]
        self.feature_slices: dict[str, slice] = {}
        start = 0
        for name, size in sizes:
            self.feature_slices[name] = slice(start, start + size)
            start += size
        self.num_features = start
        self._offsets = {name: sl.start for name, sl in self.feature_slices.items()}
        self._board_index = {name: i for i, name in enumerate(BOARD_NAMES)}
        self.feature_high = self._feature_bounds()
        self.plane_high = self._plane_bounds()
        self._cache_key: list[int | None] = [None] * n
        # One absolute-seat buffer: the planes of seats 0..n-1, then the features. An
        # observation is one gather from it (observer's ranch first) into a fresh array.
        self.plane_size = p = n * RANCH_CHANNELS * cells
        # Length of the flat observation (planes, then features): the env's Box, the networks.
        self.flat_size = p + self.num_features
        self._abs = np.zeros(self.flat_size, dtype=np.float32)
        self._planes_abs = self._abs[:p].reshape(n, cells, RANCH_CHANNELS)  # cell-major
        self._features_abs = self._abs[p:]
        self._cache_block: list[NDArray[np.float32]] = [self._planes_abs[s] for s in range(n)]
        block = RANCH_CHANNELS * cells
        # Offset of (public channel, cell) inside a cached ranch block, channel-major.
        inner = (
            np.array([_INTERNAL_OF[ch] for ch in range(RANCH_CHANNELS)])[:, None]
            + np.arange(cells)[None, :] * RANCH_CHANNELS
        ).ravel()
        self._gather = [
            np.concatenate(
                [((s + r) % n) * block + inner for r in range(n)] + [p + self._permutation(s)]
            )
            for s in range(n)
        ]
        # Per seat: what the cached block was built from (for incremental updates).
        self._built: list[tuple[int, int, list[int], list[int], list[int]] | None] = [None] * n
        fs = self.feature_slices
        self._ones: list[int] = []
        self._scalars: tuple[int, ...] = ()
        self._scalar_index = [
            fs[x].start
            for x in (
                "round",
                "dominoes_this_turn",
                "stack_size",
                "cow_supply",
                "pending_skulls",
                "cowboy_moves_left",
            )
        ]
        self._held_key: list[list[int] | None] = [None] * n
        # What the feature parts were written from: cur_col, cur_claim, next_col, next_claim,
        # saloon, pile, bonus_done (None: not written yet), and whether the fixed parts are.
        self._parts_key: list[list[int] | None] = [None] * 7
        self._fixed_written = False
        self._boards_key: tuple[str, ...] | None = None
        self._slices = fs
        self._cache_score: list[tuple[float, ...]] = [(0.0,) * len(SCORE_PARTS)] * n
        self._cache_scenario: str | None = None
        self._checked_config: GameConfig | None = None
        self._column_slices = {
            which: (fs[f"{which}_column"], fs[f"{which}_claims"]) for which in ("current", "next")
        }
        self._dirty_scores: list[int] = list(range(n))

    def _permutation(self, seat: int) -> NDArray[np.intp]:
        """Index array taking the absolute-seat feature vector to ``seat``'s point of view."""
        n = self.n
        perm = np.arange(self.num_features)
        fs = self.feature_slices

        def per_seat(name: str, width: int, groups: int = 1) -> None:
            start = fs[name].start
            for g in range(groups):
                for r in range(n):
                    a = (seat + r) % n
                    dst = start + (g * n + r) * width
                    src = start + (g * n + a) * width
                    perm[dst : dst + width] = np.arange(src, src + width)

        per_seat("actor", 1)
        per_seat("held", self.num_kinds)
        per_seat("held_count", 1)
        per_seat("reserve_slots", 1)
        per_seat("board", len(BOARD_NAMES))
        per_seat("current_claims", 1, self.column_size)
        per_seat("next_claims", 1, self.column_size)
        per_seat("scores", len(SCORE_PARTS))
        per_seat("bonus_tile_taken", 1)
        return perm

    # -- bounds (for the observation spaces) -----------------------------------------------
    def _feature_bounds(self) -> NDArray[np.float32]:
        high = np.ones(self.num_features, dtype=np.float32)
        fs = self.feature_slices
        high[fs["held"]] = float(self.max_held)
        high[fs["held_count"]] = float(self.max_held)
        high[fs["unseen_plots"]] = float(max(p.count for p in self.config.components.plots))
        high[fs["scores"]] = 20.0  # scores / 100; far above any reachable score
        high[fs["pending_skulls"]] = 2.0
        return high

    def _plane_bounds(self) -> NDArray[np.float32]:
        per = np.ones(RANCH_CHANNELS, dtype=np.float32)
        per[_CH["cows"]] = float(self.total_cows)
        kt = self.kind_table
        per[_CH["gold"]] = float(max(max(kt.gold), 1))
        per[_CH["beaver"]] = float(max(max(kt.beaver), 1))
        per[_CH["corn"]] = float(max(max(kt.corn), 1))
        high = np.broadcast_to(np.tile(per, self.n)[:, None, None], self.plane_shape).astype(
            np.float32
        )
        return high

    # -- encoding ----------------------------------------------------------------------------
    def _ranch_block(self, state: GameState, seat: int) -> None:
        """Refresh the cached planes (all but piece / skull_target) and score of one ranch when
        its stamp (:attr:`GameState.ranch_stamp`, unique per ranch content) changed. Plots and
        partners are only ever added in play, so usually just the new cells are written."""
        stamp = state.ranch_stamp[seat]
        if self._cache_key[seat] == stamp:
            return
        kinds, cows, partners = state.kinds[seat], state.cows[seat], state.partners[seat]
        occ, pbb = state.occ[seat], state.partner_bb[seat]
        blk = self._cache_block[seat]  # (cells, channels), internal channel order
        built = self._built[seat]
        full = True
        if built is not None:
            b_occ, b_pbb, b_kinds, b_cows, b_partners = built
            if not b_occ & ~occ and not b_pbb & ~pbb:  # nothing removed
                full = False
                new_plots, new_partners = occ ^ b_occ, pbb ^ b_pbb
                # A hand-made position may change cells in place: all but the new ones must match.
                plot_cells = bit_indices(new_plots) if new_plots else []
                partner_cells = bit_indices(new_partners) if new_partners else []
                full = not (
                    _same_outside(b_kinds, kinds, plot_cells)
                    and _same_outside(b_partners, partners, partner_cells)
                )
        if full:
            blk[:, :_KIND_CHANNELS] = self._kind_table[np.add(kinds, 1)]
            blk[:, _I_PARTNER : _I_PARTNER + 10] = self._partner_table[np.add(partners, 1)]
            blk[:, _I_COWS] = cows
            blk[:, _I_RIVER] = self._river
            bridge = blk[:, _I_BRIDGE]
            bridge[:] = 0.0
            bridge[bit_indices(state.bridges[seat])] = 1.0
            changed_cells = True
        else:
            table = self._kind_table
            if new_plots:
                for c in plot_cells:
                    blk[c, :_KIND_CHANNELS] = table[kinds[c] + 1]
            if new_partners:
                ptable = self._partner_table
                for c in partner_cells:
                    blk[c, _I_PARTNER : _I_PARTNER + 10] = ptable[partners[c] + 1]
            if b_cows != cows:
                blk[:, _I_COWS] = cows
            changed_cells = bool(new_plots or new_partners)
        if changed_cells:  # protection depends on landscapes and partners
            prot = blk[:, _I_PROTECTED]
            prot[:] = 0.0
            protected = protected_cells(state, seat)
            if protected:
                prot[bit_indices(protected)] = 1.0
            self._built[seat] = (occ, pbb, kinds.copy(), cows.copy(), partners.copy())
        else:  # only cows changed: the kinds and partners lists kept still match
            self._built[seat] = (occ, pbb, b_kinds, cows.copy(), b_partners)
        self._cache_key[seat] = stamp
        self._dirty_scores.append(seat)
        t, r, pp, sc = state.score_points(seat)
        self._cache_score[seat] = (
            t / SCORE_SCALE,
            r / SCORE_SCALE,
            pp / SCORE_SCALE,
            sc / SCORE_SCALE,
            (t + r + pp + sc) / SCORE_SCALE,
        )

    def encode(
        self, state: GameState, seat: int
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """``(planes, features)`` of ``state`` as seen by ``seat`` (views of one fresh array)."""
        return self.split_flat(self.encode_flat(state, seat))

    def encode_flat(self, state: GameState, seat: int) -> NDArray[np.float32]:
        """One fresh float32 vector: the planes (C-order ravel) followed by the features."""
        n = self.n
        if state.config is not self._checked_config:
            if state.config.num_players != n or state.grid.cells != self.cells:
                raise ValueError("state does not belong to this encoder's config")
            self._checked_config = state.config
        if self._cache_scenario != state.scenario or self._boards_key != state.boards:
            self._cache_key = [None] * n
            self._built = [None] * n
            self._parts_key = [None] * len(self._parts_key)
            self._fixed_written = False
            self._held_key = [None] * n
            self._scalars = ()
            self._cache_scenario = state.scenario
            self._boards_key = state.boards
        if state.ranch_stamp != self._cache_key:
            for s in range(n):
                self._ranch_block(state, s)
        actor = state.current_seat
        self._update_features(state, actor)
        out = self._abs[self._gather[seat]]  # piece / skull_target channels are zero here
        if actor is not None and state.piece and state.phase not in _NO_PIECE_PHASES:
            cells = self.cells
            base = ((actor - seat) % n) * RANCH_CHANNELS * cells
            piece = base + _PIECE * cells
            for c in state.piece:  # one or two cells: scalar writes
                out[piece + c] = 1.0
            if state.phase == Phase.SKULL:
                skull = base + _SKULL_TARGET * cells
                out[[skull + c for c in bit_indices(state.skull_territory())]] = 1.0
        return out

    def _update_features(self, state: GameState, actor: int | None) -> None:
        """Refresh the absolute-seat feature vector; parts are rewritten only when changed."""
        f = self._features_abs
        o = self._offsets
        k = self.num_kinds
        ones = [o["phase"] + int(state.phase)]
        if actor is not None:
            ones.append(o["actor"] + actor)
            if state.final_turn:
                ones.append(o["final_turn"])
        if state.final_round:
            ones.append(o["final_round"])
        if state.circles:
            ones.extend([o["pending_circles"] + c for c in state.circles])
        tiles = state.tiles
        if tiles:
            if tiles[0]:
                ones.append(o["bonus_tiles_available"])
            if len(tiles) > 1 and tiles[1]:
                ones.append(o["bonus_tiles_available"] + 1)
        if ones != self._ones:  # the one-hots of the moment (phase, actor, flags)
            for i in self._ones:  # scalar writes: far cheaper than fancy indexing for a few
                f[i] = 0.0
            for i in ones:
                f[i] = 1.0
            self._ones = ones
        phase = state.phase
        scalars = (
            state.round,
            state.dominoes,
            len(state.stack),
            state.supply,
            len(state.skulls),
            state.cowboy_moves if phase == Phase.COWBOY else 0,
        )
        if scalars != self._scalars:
            rnd, dominoes, stack, supply, skulls, moves = scalars
            for i, x in zip(
                self._scalar_index,
                (
                    min(rnd / 24.0, 1.0),
                    dominoes / 2.0,
                    stack / self.total_partners,
                    supply / self.total_cows,
                    skulls,
                    moves / 3.0,
                ),
                strict=True,
            ):
                f[i] = x
            self._scalars = scalars
        # Per seat: held plots (change every turn), boards and bonus flags.
        held_key = self._held_key
        if held_key != state.held:
            for s, held in enumerate(state.held):
                if held_key[s] != held:
                    base = o["held"] + s * k
                    f[base : base + k] = 0.0
                    for kind in held:
                        f[base + kind] += 1.0
                    f[o["held_count"] + s] = len(held)
                    held_key[s] = list(held)
        keys = self._parts_key
        if keys[0] != state.cur_col or keys[1] != state.cur_claim:
            self._write_column(state.cur_col, state.cur_claim, keys[0], keys[1], "current")
            keys[0], keys[1] = list(state.cur_col), list(state.cur_claim)
        if keys[2] != state.next_col or keys[3] != state.next_claim:
            self._write_column(state.next_col, state.next_claim, keys[2], keys[3], "next")
            keys[2], keys[3] = list(state.next_col), list(state.next_claim)
        if keys[4] != state.saloon:
            sal = self._slices["saloon"]
            f[sal] = 0.0
            npk = len(PartnerKind)
            for i, tok in enumerate(state.saloon):
                if tok >= 0:
                    f[sal.start + i * npk + tok] = 1.0
            keys[4] = list(state.saloon)
        if keys[5] != state.pile:  # only the counts are shown, never the order
            un = o["unseen_plots"]
            f[un : un + k] = np.bincount(state.pile, minlength=k)[:k] if state.pile else 0.0
            keys[5] = list(state.pile)
        if keys[6] != state.bonus_done:
            taken = self._slices["bonus_tile_taken"]
            f[taken] = state.bonus_done
            keys[6] = list(state.bonus_done)
        if not self._fixed_written:  # boards and scenario: fixed for a game
            self._write_fixed(state)
            self._fixed_written = True
        if self._dirty_scores:
            width = len(SCORE_PARTS)
            for s in self._dirty_scores:
                i = o["scores"] + s * width
                for x in self._cache_score[s]:
                    f[i] = x
                    i += 1
            self._dirty_scores = []

    def _write_column(
        self,
        col: list[int],
        claim: list[int],
        old_col: list[int] | None,
        old_claim: list[int] | None,
        which: str,
    ) -> None:
        """Write a column's kind and claim one-hots; with the previous lists, only the
        positions that changed."""
        f = self._features_abs
        n, k1 = self.n, self.num_kinds + 1
        cols, claims = self._column_slices[which]
        if old_col is None or old_claim is None or len(old_col) != len(col):
            f[cols] = 0.0
            f[claims] = 0.0
            old_col, old_claim = [-2] * len(col), [-1] * len(claim)  # -2: nothing written
        base = cols.start
        for p, kind in enumerate(col):
            was = old_col[p]
            if kind != was:
                if was != -2:
                    f[base + (was if was >= 0 else k1 - 1)] = 0.0
                f[base + (kind if kind >= 0 else k1 - 1)] = 1.0
            base += k1
        base = claims.start
        for p, seat in enumerate(claim):
            was = old_claim[p]
            if seat != was:
                if was >= 0:
                    f[base + was] = 0.0
                if seat >= 0:
                    f[base + seat] = 1.0
            base += n

    def _write_fixed(self, state: GameState) -> None:
        """Boards, reserve sizes and scenario (fixed for a game)."""
        f = self._features_abs
        o = self._offsets
        for name in ("board", "reserve_slots", "scenario"):
            f[self._slices[name]] = 0.0
        nb = len(BOARD_NAMES)
        for s in range(self.n):
            f[o["board"] + s * nb + self._board_index[state.boards[s]]] = 1.0
            f[o["reserve_slots"] + s] = state.slots[s] / 4.0
        scen = state.scenario
        f[o["scenario"] + (0 if scen is None else 1 + SCENARIOS.index(scen))] = 1.0

    def split_flat(
        self, flat: NDArray[np.float32]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """Views ``(planes, features)`` into a vector made by :meth:`encode_flat` (batched
        inputs of shape ``(..., size)`` work too)."""
        p = self.plane_size
        planes = flat[..., :p].reshape(*flat.shape[:-1], *self.plane_shape)
        return planes, flat[..., p:]

    def ranch_totals(self, state: GameState) -> list[int]:
        """Each seat's score total as the ranch stands (cached like the planes)."""
        if self._cache_scenario != state.scenario or self._boards_key != state.boards:
            self.encode_flat(state, 0)
        for s in range(self.n):
            self._ranch_block(state, s)
        return [round(sc[-1] * SCORE_SCALE) for sc in self._cache_score]

    @property
    def feature_ranges(self) -> dict[str, tuple[int, int]]:
        """Each feature slice's ``(start, stop)`` in the flat observation (after the planes)."""
        p = self.plane_size
        return {k: (p + v.start, p + v.stop) for k, v in self.feature_slices.items()}

    @property
    def ranch_sparse_width(self) -> int:
        """A bound on one ranch's non-zero plane entries, the pending piece and skull territory
        aside: per cell its content's channels (landscape or empty, its symbols), a partner,
        cows and protection; the river and bridge cells of row 0."""
        kt = self.kind_table
        symbols = max(
            (
                1
                + (kt.gold[i] != 0)
                + (kt.beaver[i] != 0)
                + (kt.corn[i] != 0)
                + bool(kt.skull[i])
                + bool(kt.circle[i])
                + (i >= kt.num_plot_kinds)
                for i in range(len(kt.land))
            ),
            default=1,
        )
        return int(min(RANCH_CHANNELS * self.cells, self.cells * (symbols + 3) + 2 * 5))

    @property
    def sparse_width(self) -> int:
        """A bound on the non-zero entries of any observation of this config (the width of
        the sparse observation), from the layout: each ranch's bound
        (:attr:`ranch_sparse_width`), the pending piece and skull territory once, and per
        feature slice its one-hot groups, or its size."""
        n, cells, k = self.n, self.cells, self.num_kinds
        planes = n * self.ranch_sparse_width + 2 + cells
        groups = {
            "phase": 1,
            "actor": 1,
            "held": n * min(k, self.max_held),
            "board": n,
            "current_column": self.column_size,
            "current_claims": self.column_size,
            "next_column": self.column_size,
            "next_claims": self.column_size,
            "saloon": self.saloon_size,
            "scenario": 1,
        }
        features = sum(
            min(groups.get(name, sl.stop - sl.start), sl.stop - sl.start)
            for name, sl in self.feature_slices.items()
        )
        return int(min(self.flat_size, planes + features))

    def describe(self) -> dict[str, object]:
        """Names of the plane channels and the feature slices (for docs and notebooks)."""
        return {
            "plane_shape": self.plane_shape,
            "ranch_channels": RANCH_CHANNEL_NAMES,
            "feature_slices": {k: (v.start, v.stop) for k, v in self.feature_slices.items()},
            "num_features": self.num_features,
        }


def _same_outside(old: list[int], new: list[int], cells: list[int]) -> bool:
    """Whether ``new`` equals ``old`` on every cell but ``cells``."""
    if not cells:
        return old == new
    patched = old.copy()
    for c in cells:
        patched[c] = new[c]
    return patched == new
