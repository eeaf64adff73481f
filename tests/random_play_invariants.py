"""The invariants the random-play tests check after every action (not a test module): ids,
segments per phase, the plots, tokens and cows all accounted for, scores, and every
decision's legal options against :mod:`random_play_model`."""

from __future__ import annotations

from collections import Counter

import numpy as np
from random_play_model import (
    CORN,
    PHASE_SEGMENTS,
    Ctx,
    connects,
    expected_cowboy_moves,
    expected_placements,
    expected_skull_options,
    expected_steals,
    expected_swaps,
    ids_in,
    score_seat,
    segment_name,
)

from moonriver_env.rules import CLAIM_PHASES, PLACE_PHASES, Phase

# --------------------------------------------------------------------------- checks


def check_invariants(ctx: Ctx) -> None:
    s = ctx.state
    cfg = s.config
    comps = cfg.components
    n = cfg.num_players
    info = ctx.info
    nk = len(comps.plots)
    where = ctx.where

    # Legal actions: range, order, mask, segments of the phase.
    legal = s.legal_action_list()
    num = cfg.num_actions
    if legal:
        assert legal[0] >= 0 and legal[-1] < num, where()
        assert all(x < y for x, y in zip(legal, legal[1:], strict=False)), where()
    mask = s.legal_action_mask()
    assert mask.shape == (num,) and mask.dtype == np.bool_, where()
    assert np.flatnonzero(mask).tolist() == legal, where()
    terminal = s.phase == Phase.GAME_OVER
    assert s.is_terminal == terminal
    assert bool(legal) != terminal, f"legal={legal} ({where()})"
    if not terminal:
        seat = s.current_seat
        assert seat is not None and 0 <= seat < n, where()
        allowed, required = PHASE_SEGMENTS[s.phase]
        names = {segment_name(ctx, a) for a in legal}
        assert names <= allowed and required <= names, f"{names} ({where()})"
        ctx.phases.add(s.phase.name)

    # Plots: every one of the 96 is somewhere, exactly once.
    seen: Counter[int] = Counter(s.pile)
    seen.update(k for k in s.cur_col if k != -1)
    seen.update(k for k in s.next_col if k != -1)
    seen.update(s.removed)
    seen.update(s.discarded)
    bonus_placed = 0
    for seat_i in range(n):
        seen.update(s.held[seat_i])
        for k in s.kinds[seat_i]:
            if k >= nk:
                assert n == 2 and k in info, where()
                bonus_placed += 1
            elif k >= 0:
                seen[k] += 1
            else:
                assert k == -1, where()
    assert seen == ctx.plot_counter, (
        f"plots differ: {seen - ctx.plot_counter} / {ctx.plot_counter - seen} ({where()})"
    )
    if n == 2:
        assert bonus_placed + sum(s.tiles) <= len(comps.bonus_tiles), where()
        for seat_i in range(n):
            assert sum(1 for k in s.kinds[seat_i] if k >= nk) <= 1, where()  # ruling R19
    else:
        assert not any(s.tiles), where()

    # Cows and partners.
    on_ranches = 0
    tokens: Counter[int] = Counter(s.stack)
    tokens.update(t for t in s.saloon if t >= 0)
    for seat_i in range(n):
        kinds, cows, partners = s.kinds[seat_i], s.cows[seat_i], s.partners[seat_i]
        for c in range(ctx.cells):
            k = cows[c]
            if k:
                assert k > 0, f"negative cows at seat {seat_i} cell {c} ({where()})"
                assert kinds[c] >= 0, f"cow on an empty cell: seat {seat_i} cell {c} ({where()})"
                assert info[kinds[c]].land != CORN, (
                    f"cow on a cornfield: seat {seat_i} cell {c} ({where()})"
                )
                on_ranches += k
            p = partners[c]
            if p >= 0:
                assert kinds[c] >= 0 and info[kinds[c]].circle, f"partner off a circle ({where()})"
                tokens[p // 2] += 1
    assert on_ranches + s.supply == comps.cows, f"cows {on_ranches} + supply {s.supply} ({where()})"
    assert s.supply >= 0, where()
    assert tokens == ctx.partner_counter, f"partner tokens {tokens} ({where()})"
    assert len(s.saloon) == comps.saloon_size, where()

    # Columns: sorted by the numbers on the backs; rancheros per seat; turn order by position.
    back = [p.back for p in comps.plots]
    for col in (s.cur_col, s.next_col):
        backs = [back[k] for k in col if k != -1]
        assert backs == sorted(backs), f"column {col} not sorted by back number ({where()})"
    if s.phase != Phase.SETUP_CLAIM and not terminal:
        rpp = 2 if n == 2 else 1
        assert Counter(c for c in s.cur_claim if c >= 0) == dict.fromkeys(range(n), rpp), where()
        claimed = [p for p, c in enumerate(s.cur_claim) if c >= 0]
        taken = [p for p in claimed if s.cur_col[p] == -1]
        assert taken and taken == claimed[: len(taken)], f"turn order {s.cur_claim} ({where()})"
        assert s.cur_claim[taken[-1]] == s.current_seat, f"not the claimant's turn ({where()})"
    for p, c in enumerate(s.next_claim):
        assert c < 0 or s.next_col[p] != -1, where()

    # Held plots: sorted, and within the reserve except the acting seat mid-turn (ruling R13).
    for seat_i in range(n):
        held = s.held[seat_i]
        assert held == sorted(held), where()
        extra = 1 if seat_i == s.current_seat and s.phase != Phase.SELECT else 0
        assert len(held) <= ctx.slots[seat_i] + extra, f"seat {seat_i} holds {held} ({where()})"

    # Scores: the engine's vs the independent scorer (cached while a ranch is unchanged).
    engine = s.scores()
    for seat_i in range(n):
        key = (tuple(s.kinds[seat_i]), tuple(s.cows[seat_i]), tuple(s.partners[seat_i]))
        cached_key, mine = ctx.score_cache[seat_i]
        if cached_key != key:
            mine = score_seat(
                s.kinds[seat_i], s.cows[seat_i], s.partners[seat_i], info, ctx.rows, s.scenario
            )
            ctx.score_cache[seat_i] = (key, mine)
        e = engine[seat_i]
        got = (
            e.territories,
            e.resources,
            e.partners,
            e.scenario,
            e.total,
            e.largest_territory,
            e.cows,
        )
        assert got == mine, f"seat {seat_i}: engine {got} != independent {mine} ({where()})"

    # Phase-specific legal sets, computed independently (placements only in heavy checks).
    if terminal:
        return
    seat = s.seat
    ph = s.phase
    if ph in CLAIM_PHASES:
        col, claim = (
            (s.cur_col, s.cur_claim) if ph == Phase.SETUP_CLAIM else (s.next_col, s.next_claim)
        )
        expect = {ctx.seg["claim"][0] + p for p in range(len(col)) if col[p] != -1 and claim[p] < 0}
        assert set(legal) == expect, where()
    elif ph == Phase.DISCARD:
        held = s.held[seat]
        assert len(held) > ctx.slots[seat], where()
        assert not expected_placements(ctx, seat), f"discard while a domino fits ({where()})"
        start = ctx.seg["discard"][0]
        assert set(legal) == {start + p for p, (i, j) in enumerate(ctx.pairs) if j < len(held)}, (
            where()
        )
    elif ph == Phase.RECRUIT:
        kinds, partners = s.kinds[seat], s.partners[seat]
        start, size = ctx.seg["recruit"][0], comps.saloon_size
        expect = {
            start + (i * size + slot) * 2 + side
            for i, c in enumerate(ctx.piece)
            if info[kinds[c]].circle and partners[c] < 0
            for slot, token in enumerate(s.saloon)
            if token >= 0
            for side in (0, 1)
        }
        assert set(legal) == expect, where()
    elif ph == Phase.SKULL:
        options = expected_skull_options(ctx, seat)
        got_cells = {a - ctx.seg["skull"][0] for a in legal}
        assert got_cells in options, f"skull options {got_cells} not in {options} ({where()})"
    elif ph == Phase.COWBOY:
        assert ids_in(ctx, legal, "cowboy_move") == expected_cowboy_moves(ctx, s, seat), where()
    elif ph == Phase.DESPERADO:
        assert ids_in(ctx, legal, "desperado_swap") == expected_swaps(ctx, s, seat), where()
    elif ph == Phase.THIEF:
        assert ids_in(ctx, legal, "thief_steal") == expected_steals(ctx, s, seat), where()
    elif ph in (Phase.MUST_EXPAND, Phase.FINAL_EXPAND):
        assert len(s.held[seat]) >= 2, where()
        if ph == Phase.MUST_EXPAND:
            assert len(s.held[seat]) > ctx.slots[seat], where()
    elif ph == Phase.BONUS:
        assert ctx.bonus_due[seat], f"bonus tile offered without reaching the far row ({where()})"
        assert set(legal) == expected_bonus_options(ctx, seat), where()
    if ph == Phase.SELECT:
        assert not s.final_round, f"a Select in the final round ({where()})"


def tiles_available(ctx: Ctx) -> list[int]:
    s = ctx.state
    nk = len(s.config.components.plots)
    placed = {(k - nk) // 2 for kinds in s.kinds for k in kinds if k >= nk}
    return [
        t
        for t in range(len(s.config.components.bonus_tiles))
        if s.config.num_players == 2 and t not in placed and t not in ctx.tiles_removed
    ]


def expected_bonus_options(ctx: Ctx, seat: int) -> set[int]:
    """Place a tile on any side where it connects; remove a tile only if it fits nowhere."""
    s = ctx.state
    kinds = s.kinds[seat]
    nk = len(s.config.components.plots)
    place, remove = ctx.seg["bonus_place"][0], ctx.seg["bonus_remove"][0]
    out = set()
    for t in tiles_available(ctx):
        fits = False
        for side in (0, 1):
            land = ctx.info[nk + 2 * t + side].land
            for c in range(ctx.cells):
                if kinds[c] < 0 and connects(ctx, kinds, seat, c, land):
                    out.add(place + (2 * t + side) * ctx.cells + c)
                    fits = True
        if not fits:
            out.add(remove + t)
    return out


def check_placements(ctx: Ctx) -> None:
    s = ctx.state
    if s.phase in PLACE_PHASES:
        legal = s.legal_action_list()
        assert ids_in(ctx, legal, "place") == expected_placements(ctx, s.seat), ctx.where()
