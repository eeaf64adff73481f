"""The per-action checks of the random-play tests (not a test module): clone independence,
illegal ids, the JSON round trip, what an action did, turn order, and the end of a game."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from random_play_invariants import tiles_available
from random_play_model import (
    COLS,
    Ctx,
    expected_cowboy_moves,
    expected_skull_options,
    expected_steals,
    expected_swaps,
    fits_any,
    segment_name,
)

from moonriver_env.rules import (
    BonusPlace,
    CowboyMove,
    Discard,
    GameState,
    IllegalActionError,
    PartnerKind,
    Phase,
    Place,
    Recruit,
    SkullCow,
    ThiefSteal,
)

# The state's array fields that apply() may change, compared by value.
SNAPSHOT_ARRAYS = (
    "pile",
    "stack",
    "saloon",
    "cur_col",
    "cur_claim",
    "next_col",
    "next_claim",
    "removed",
    "discarded",
    "tiles",
    "bonus_done",
    "piece",
    "skulls",
    "circles",
    "occ",
    "cow_bb",
    "partner_bb",
)
SNAPSHOT_PER_SEAT = ("held", "kinds", "cows", "partners", "land_bb")
SNAPSHOT_VALUES = ("phase", "current_seat", "supply", "round", "final_round", "scenario", "boards")


def snapshot(s: GameState) -> tuple[Any, ...]:
    """Everything observable that apply() may change (the RNG is compared separately)."""
    return (
        *([x.copy() for x in getattr(s, name)] for name in SNAPSHOT_PER_SEAT),
        *(getattr(s, name).copy() for name in SNAPSHOT_ARRAYS),
        *(getattr(s, name) for name in SNAPSHOT_VALUES),
        list(s.legal_action_list()),
    )


def check_clone_and_apply(ctx: Ctx, action: int) -> None:
    """Clone equal; playing on the clone leaves the original alone; both then agree."""
    s = ctx.state
    before = snapshot(s)
    rng_before = s.rng.bit_generator.state
    clone = s.clone()
    assert snapshot(clone) == before, ctx.where()
    clone.apply(action)
    assert snapshot(s) == before, f"applying to a clone changed the original ({ctx.where()})"
    clone.rng.random()
    assert s.rng.bit_generator.state == rng_before, ctx.where()
    s.apply(action)
    assert snapshot(s) == snapshot(clone), f"clone diverged after {action} ({ctx.where()})"


def check_illegal(ctx: Ctx, chooser: random.Random) -> None:
    s = ctx.state
    legal = set(s.legal_action_list())
    num = s.config.num_actions
    bad = [-1, num]
    for _ in range(20):
        a = chooser.randrange(num)
        if a not in legal:
            bad.append(a)
            break
    before = snapshot(s)
    for a in bad:
        with pytest.raises(IllegalActionError):
            s.apply(a)
        assert snapshot(s) == before, f"illegal {a} changed the state ({ctx.where()})"


def check_json_round_trip(ctx: Ctx, chooser: random.Random) -> None:
    """Round trip through JSON; both copies then play the same actions alike."""
    s = ctx.state
    text = s.to_json()
    loaded = GameState.from_json(text)
    assert snapshot(loaded) == snapshot(s), f"JSON round trip differs ({ctx.where()})"
    assert loaded.to_json() == text, f"JSON not stable under a round trip ({ctx.where()})"
    c1, c2 = loaded.config, s.config
    assert (c1.num_players, c1.mode, c1.scenario, c1.boards, c1.auto_resolve) == (
        c2.num_players,
        c2.mode,
        c2.scenario,
        c2.boards,
        c2.auto_resolve,
    ), ctx.where()
    assert loaded.scores() == s.scores(), ctx.where()
    probe = s.clone()
    for _ in range(8):
        if probe.is_terminal:
            break
        a = chooser.choice(probe.legal_action_list())
        probe.apply(a)
        loaded.apply(a)
        assert snapshot(loaded) == snapshot(probe), f"loaded plays differently ({ctx.where()})"
    ctx.json_trips += 1


def check_action_effect(ctx: Ctx, action: int, before: GameState) -> None:
    """What the chosen action did, against the rules (uses a pre-apply copy ``before``)."""
    s = ctx.state
    seat = before.seat
    dec = s.decode(action)
    info = ctx.info
    if isinstance(dec, Place):
        held = before.held[seat]
        ka, kb = held[dec.first], held[dec.second]
        a, b = dec.cell, ctx.steps[dec.direction][dec.cell]
        kinds0 = before.kinds[seat]
        assert b >= 0 and kinds0[a] < 0 and kinds0[b] < 0, ctx.where()
        bridges = ctx.bridge_cells[seat]
        la, lb = info[ka].land, info[kb].land
        assert (
            a in bridges
            or b in bridges
            or any(kinds0[x] >= 0 and info[kinds0[x]].land == la for x in ctx.nbrs[a])
            or any(kinds0[x] >= 0 and info[kinds0[x]].land == lb for x in ctx.nbrs[b])
        ), f"domino breaks the connection rules ({ctx.where()})"
        assert s.kinds[seat][a] == ka and s.kinds[seat][b] == kb, ctx.where()
        ctx.piece = [a, b]
        if s.phase != Phase.GAME_OVER:  # (overpopulation may follow in the same apply)
            want = min(info[ka].cows + info[kb].cows, before.supply)  # ruling R1
            got = s.cows[seat][a] + s.cows[seat][b]
            assert got == want, f"domino brought {got} cows, want {want} ({ctx.where()})"
        expect_after_piece(ctx, seat, before)
    elif isinstance(dec, BonusPlace):
        k = len(s.config.components.plots) + 2 * dec.tile + dec.side
        cell = dec.cell
        kinds0 = before.kinds[seat]
        assert kinds0[cell] < 0, ctx.where()
        land = info[k].land
        assert cell in ctx.bridge_cells[seat] or any(
            kinds0[x] >= 0 and info[kinds0[x]].land == land for x in ctx.nbrs[cell]
        ), f"bonus tile breaks the connection rules ({ctx.where()})"
        ctx.piece = [cell]
        expect_after_piece(ctx, seat, before)
    elif isinstance(dec, Recruit):
        cell = ctx.piece[dec.circle]
        token = before.saloon[dec.slot]
        assert token >= 0, ctx.where()
        assert s.partners[seat][cell] == 2 * token + int(dec.cowboy), ctx.where()
        ctx.effect_cell = cell
        ctx.cowboy_moves = 0
        # The effect's options on the state the recruit started from (recruiting changes
        # neither cows, held plots nor other ranches; only the thief's cell matters).
        if dec.cowboy:
            want_phase = Phase.COWBOY if expected_cowboy_moves(ctx, before, seat) else None
        elif token == PartnerKind.DESPERADO:
            want_phase = Phase.DESPERADO if expected_swaps(ctx, before, seat) else None
        elif token == PartnerKind.CATTLE_THIEF:
            want_phase = Phase.THIEF if expected_steals(ctx, before, seat) else None
        else:
            want_phase = None
        if want_phase is not None:
            assert s.phase == want_phase and s.seat == seat, (
                f"expected {want_phase.name} ({ctx.where()})"
            )
        else:
            assert s.phase not in (Phase.COWBOY, Phase.DESPERADO, Phase.THIEF) or s.seat != seat, (
                ctx.where()
            )
    elif isinstance(dec, CowboyMove):
        ctx.cowboy_moves += 1
        assert ctx.cowboy_moves <= 3, f"a Cowboy moved more than 3 cows ({ctx.where()})"
        if s.phase == Phase.GAME_OVER:
            return
        t = ctx.steps[dec.direction][dec.cell]
        assert s.cows[seat][dec.cell] == before.cows[seat][dec.cell] - 1, ctx.where()
        assert s.cows[seat][t] == before.cows[seat][t] + 1, ctx.where()
    elif s.phase == Phase.GAME_OVER:
        return
    elif isinstance(dec, ThiefSteal):
        victim = (seat + dec.target) % s.config.num_players
        assert before.cows[victim][dec.cell] > 0, ctx.where()
        assert s.cows[victim][dec.cell] == before.cows[victim][dec.cell] - 1, ctx.where()
        assert s.cows[seat][ctx.effect_cell] == before.cows[seat][ctx.effect_cell] + 1, ctx.where()
    elif isinstance(dec, SkullCow):
        assert s.cows[seat][dec.cell] == before.cows[seat][dec.cell] - 1, ctx.where()
        assert s.supply == before.supply + 1, ctx.where()


def expect_after_piece(ctx: Ctx, seat: int, before: GameState) -> None:
    """Right after a piece lands: a skull with cows in its territory asks first; else a circle
    with a token in the saloon asks (RULES.md section 4)."""
    s = ctx.state
    skull_with_cows = any(options for options in expected_skull_options(ctx, seat))
    if skull_with_cows:
        assert s.phase == Phase.SKULL and s.seat == seat, f"skull not resolved ({ctx.where()})"
        return
    assert s.phase != Phase.SKULL or s.seat != seat, ctx.where()
    kinds = s.kinds[seat]
    circles = any(ctx.info[kinds[c]].circle for c in ctx.piece)
    if circles and any(t >= 0 for t in before.saloon):
        assert s.phase == Phase.RECRUIT and s.seat == seat, f"circle not resolved ({ctx.where()})"


def check_turn_rules(ctx: Ctx, action: int, before: GameState) -> None:
    """Ranch changes, the 2-domino limit, optional expansion offered, forced final placements,
    bonus tiles handed out (RULES.md sections 3, 5, 6)."""
    s = ctx.state
    n = s.config.num_players
    nk = len(s.config.components.plots)
    seat = before.seat
    name = segment_name(ctx, action)
    dec = s.decode(action)

    # Ranches only grow, and only by the piece the action places.
    placed: list[list[int]] = []
    for x in range(n):
        k0, k1 = before.kinds[x], s.kinds[x]
        changed = [c for c in range(ctx.cells) if k0[c] != k1[c]]
        assert all(k0[c] < 0 for c in changed), f"a plot left seat {x}'s ranch ({ctx.where()})"
        if isinstance(dec, Place) and x == seat:
            want = sorted((dec.cell, ctx.steps[dec.direction][dec.cell]))
        elif isinstance(dec, BonusPlace) and x == seat:
            want = [dec.cell]
        else:
            want = []
        assert changed == want, f"seat {x}: cells {changed} changed, want {want} ({ctx.where()})"
        placed.append([k1[c] for c in changed if k1[c] < nk])

    # At most 2 dominoes in a turn, except the forced placements of the final turn.
    turn = (before.round, before.turn_pos)
    if isinstance(dec, Place):
        ctx.turn_dominoes[turn] += 1
        final_turn = before.final_round and seat not in before.cur_claim[before.turn_pos + 1 :]
        if not final_turn:
            assert ctx.turn_dominoes[turn] <= 2, f"a third domino in one turn ({ctx.where()})"

    # Expanding is optional, but must be offered while it is possible (up to 2 dominoes).
    if s.phase == Phase.SELECT and name != "stop":
        now = s.seat
        held = s.held[now]
        if ctx.turn_dominoes[(s.round, s.turn_pos)] < 2 and len(held) >= 2:
            assert not fits_any(ctx, s.kinds[now], now, held), (
                f"seat {now} sent to Select while a domino fits ({ctx.where()})"
            )

    # Bonus tiles (2 players): the first domino to reach the far row earns one.
    if n == 2:
        if isinstance(dec, Place):
            assert not ctx.bonus_due[seat], f"bonus tile not handed out ({ctx.where()})"
            far = (ctx.rows - 1) * COLS
            cells = (dec.cell, ctx.steps[dec.direction][dec.cell])
            if any(c >= far for c in cells) and not ctx.bonus_taken[seat] and tiles_available(ctx):
                ctx.bonus_due[seat] = True
        elif name in ("bonus_place", "bonus_remove"):
            ctx.bonus_due[seat] = False
            ctx.bonus_taken[seat] = True
            if name == "bonus_remove":
                ctx.tiles_removed.add(action - ctx.seg["bonus_remove"][0])
        assert s.tiles == [t in tiles_available(ctx) for t in range(len(s.tiles))], ctx.where()

    # Columns are drawn from the pile; the saloon changes by a recruit, or is refilled (as far
    # as the stack allows, ruling R14) when a new round starts.
    drawn = Counter(before.pile) - Counter(s.pile)
    if drawn:
        assert len(s.pile) + s.config.components.column_size == len(before.pile), ctx.where()
        assert Counter(s.next_col) == drawn, ctx.where()
    if s.round != before.round:
        assert s.round == before.round + 1, ctx.where()
        assert all(t >= 0 for t in s.saloon) or not s.stack, f"saloon not refilled ({ctx.where()})"
        filled = sum(1 for t in s.saloon if t >= 0) - sum(1 for t in before.saloon if t >= 0)
        assert len(before.stack) - len(s.stack) == filled, ctx.where()
    else:
        assert s.stack == before.stack, ctx.where()
        changed = [i for i, t in enumerate(s.saloon) if t != before.saloon[i]]
        if isinstance(dec, Recruit):
            assert changed == [dec.slot] and s.saloon[dec.slot] == -1, ctx.where()
        else:
            assert changed == [], f"saloon changed mid-round ({ctx.where()})"

    # Discards: a Discard action drops its pair; otherwise only the final turn's leftovers,
    # and only plots no two of which could still be placed.
    assert s.discarded[: len(before.discarded)] == before.discarded, ctx.where()
    new = Counter(s.discarded[len(before.discarded) :])
    pair: Counter[int] = Counter()
    if isinstance(dec, Discard):
        pair = Counter((before.held[seat][dec.first], before.held[seat][dec.second]))
        assert not pair - new, f"discarded {new}, want {pair} ({ctx.where()})"
        new -= pair
    size = s.config.components.column_size
    if before.pile and not s.pile and len(before.pile) < size:  # ruling R6: short remainder
        new -= Counter(before.pile)
    if not new:
        return
    assert s.final_round, f"plots discarded outside the final round ({ctx.where()})"
    if name == "desperado_swap":
        return  # held plots moved between seats; attribution below would need the swap
    col0 = before.cur_col if before.final_round else before.next_col
    total: Counter[int] = Counter()
    for x in range(n):
        collected = [
            col0[p]
            for p in range(size)
            if s.cur_claim[p] == x and col0[p] != -1 and s.cur_col[p] == -1
        ]
        mine = Counter(before.held[x]) + Counter(collected)
        mine -= Counter(s.held[x])
        mine -= Counter(placed[x])
        if x == seat:
            mine -= pair
        total += mine
        left = sorted(mine.elements())
        if len(left) >= 2:
            assert not fits_any(ctx, s.kinds[x], x, left), (
                f"seat {x} discarded {left} although a domino of them fits ({ctx.where()})"
            )
    assert total == new, f"discards {new} not accounted for by seat: {total} ({ctx.where()})"


def check_terminal(ctx: Ctx) -> None:
    s = ctx.state
    assert s.is_terminal and s.current_seat is None, ctx.where()
    assert s.legal_action_list() == [] and len(s.legal_actions()) == 0, ctx.where()
    assert not s.legal_action_mask().any(), ctx.where()
    n = s.config.num_players
    for seat in range(n):
        assert s.held[seat] == [], f"seat {seat} still holds {s.held[seat]} ({ctx.where()})"
        assert max(s.cows[seat]) <= 1, f"overpopulation not applied at seat {seat} ({ctx.where()})"
    assert not s.pile, ctx.where()
    assert not any(ctx.bonus_due), f"bonus tile never handed out ({ctx.where()})"
    assert all(k == -1 for k in s.cur_col) and all(k == -1 for k in s.next_col), ctx.where()
    mine = [ctx.score_cache[seat][1] for seat in range(n)]
    best = max((m[4], m[5], m[6]) for m in mine)
    assert s.winners() == [i for i, m in enumerate(mine) if (m[4], m[5], m[6]) == best], ctx.where()
    with pytest.raises(IllegalActionError):
        s.apply(0)
