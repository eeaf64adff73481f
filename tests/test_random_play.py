"""Random play over every mode and player count, with invariants checked after every action.

The games are spread over 2/3/4 players x base/legends; Legends games use a randomly drawn
scenario (``scenario="random"``) and each of the four scenarios explicitly, with the boards
by seat, dealt at random, or given explicitly. Every action is chosen uniformly at random
among the legal ones by a seeded ``random.Random``, so every failure is reproducible from
the test id and the seed printed in the assertion message.

How many games:
    By default 306 games in all (17 per configuration, 18 configurations; at least 300).
    Set the environment variable ``MOONRIVER_RANDOM_GAMES`` to a larger total to play more,
    e.g. ``MOONRIVER_RANDOM_GAMES=5000 pytest tests/test_random_play.py -n 2``. Values below
    300 are raised to 300. ``MOONRIVER_RANDOM_SEED`` (default 0) shifts every game's seed.

Everything is checked against data computed here, independently of the engine's own helpers
(its bitboards, kind table, scoring and legal-move code):

after every action
    legal ids in range, strictly ascending, equal to ``legal_action_mask()``, drawn only from
    the action segments of the phase; the 96 plots all accounted for (pile + both columns +
    held + placed + removed + discarded == the component multiset); the 20 partner tokens all
    accounted for (ranches + saloon + stack); cows on ranches + supply == 32, never negative,
    never on a cornfield or an empty cell; partners only on circle plots; held plots sorted
    and within the reserve; ``scores()`` equal to a simple flood-fill scorer written here;
    the legal skull / cowboy / desperado / thief / claim / discard options equal to an
    independent enumeration (also recruit and bonus tile options); a placed domino obeys the
    connection rules and brings its cows; the decision after a domino / recruit is the one the
    rules call for; ranches only grow, by exactly the piece placed; columns sorted by back
    number, drawn from the pile; turns in column order, each seat with its rancheros; the
    saloon changes only by a recruit or a round-start refill; no Select while a domino could
    still be placed voluntarily, none in the final round; final-turn leftovers discarded only
    when no two of them fit; a bonus tile (2 players) handed to each seat whose domino first
    reaches the far row while one is left; setup claims in a random order (2 players A B B A).
every few actions (random, about 1 in ``CHECK_EVERY``)
    the legal domino placements equal an independent enumeration; a clone is equal and
    independent (playing on it leaves the original unchanged; the original then reaches the
    same state); an illegal action id raises ``IllegalActionError`` and changes nothing;
    at a few points per game, the JSON round trip (once serialization has landed).
at the end
    no legal actions, ``current_seat is None``, nobody holds plots, at most one cow per plot,
    the winners by the tie-breaks of RULES.md section 5; the game ends within ``MAX_DECISIONS``.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from moonriver_env.render import Face
from moonriver_env.rules import (
    CLAIM_PHASES,
    LEGENDS_BOARDS,
    PLACE_PHASES,
    SCENARIOS,
    BonusPlace,
    CowboyMove,
    Discard,
    GameConfig,
    GameState,
    IllegalActionError,
    Landscape,
    PartnerKind,
    Phase,
    Place,
    Recruit,
    SkullCow,
    ThiefSteal,
    new_game,
)
from moonriver_env.rules import serialization as serialization_module

MAX_DECISIONS = 2_000
CHECK_EVERY = 16  # heavy checks on about 1 step in CHECK_EVERY
JSON_POINTS = 3  # JSON round trips per game (plus the terminal state)
MIN_GAMES = 300

CORN = int(Landscape.CORNFIELD)
FOREST = int(Landscape.FOREST)
FARM = int(Landscape.FARM)
BANDITS = (int(PartnerKind.DESPERADO), int(PartnerKind.CATTLE_THIEF))
COLS = 5

# --------------------------------------------------------------------------- configurations


def _legends_boards(n: int, k: int) -> tuple[str, ...] | str | None:
    """Cycle the board assignment: by seat, dealt at random, explicit (reversed)."""
    return (None, "random", tuple(reversed(LEGENDS_BOARDS))[:n])[k % 3]


def _configs() -> list[tuple[str, list[GameConfig]]]:
    cells: list[tuple[str, list[GameConfig]]] = []
    for n in (2, 3, 4):
        cells.append((f"{n}p-base", [GameConfig(num_players=n, mode="base")]))
    for n in (2, 3, 4):
        for scen in ("random", *SCENARIOS):
            variants = [
                GameConfig(
                    num_players=n, mode="legends", scenario=scen, boards=_legends_boards(n, k)
                )
                for k in range(3)
            ]
            cells.append((f"{n}p-legends-{scen}", variants))
    return cells


CONFIG_CELLS = _configs()


def _total_games() -> int:
    raw = os.environ.get("MOONRIVER_RANDOM_GAMES", "")
    total = int(raw) if raw.strip() else MIN_GAMES
    return max(total, MIN_GAMES)


GAMES_PER_CELL = math.ceil(_total_games() / len(CONFIG_CELLS))
SEED_BASE = int(os.environ.get("MOONRIVER_RANDOM_SEED", "0") or 0)

# --------------------------------------------------------------------------- independent data


# What a cell content shows (land, gold, beaver, corn, cows, skull, circle), filled below
# from the component data rather than from the engine's kind table.
KindInfo = Face


def kind_infos(config: GameConfig) -> dict[int, KindInfo]:
    """Plot kinds from the component data, then bonus tile sides (index NK + 2 * tile + side)."""
    comps = config.components
    out = {
        p.index: KindInfo(int(p.landscape), p.gold, p.beaver, p.corn, p.cows, p.skull, p.circle)
        for p in comps.plots
    }
    nk = len(comps.plots)
    for t, tile in enumerate(comps.bonus_tiles):
        for side, land in enumerate(tile.sides):
            out[nk + 2 * t + side] = KindInfo(int(land), 0, 0, 0, 0, False, True)
    return out


def _neighbours(rows: int) -> list[list[int]]:
    out = []
    for c in range(rows * COLS):
        r, col = divmod(c, COLS)
        nb = []
        if r + 1 < rows:
            nb.append(c + COLS)
        if col + 1 < COLS:
            nb.append(c + 1)
        if r > 0:
            nb.append(c - COLS)
        if col > 0:
            nb.append(c - 1)
        out.append(nb)
    return out


def _steps(rows: int) -> list[list[int]]:
    """steps[d][c]: neighbour of c in direction d (N row+1, E col+1, S row-1, W col-1) or -1."""
    out = []
    for dr, dc in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        row = []
        for c in range(rows * COLS):
            r, col = divmod(c, COLS)
            r2, c2 = r + dr, col + dc
            row.append(r2 * COLS + c2 if 0 <= r2 < rows and 0 <= c2 < COLS else -1)
        out.append(row)
    return out


NEIGHBOURS = {rows: _neighbours(rows) for rows in (5, 10)}
STEPS = {rows: _steps(rows) for rows in (5, 10)}


def flood(start: int, member: set[int], nbrs: list[list[int]]) -> set[int]:
    group = {start}
    todo = [start]
    while todo:
        c = todo.pop()
        for x in nbrs[c]:
            if x in member and x not in group:
                group.add(x)
                todo.append(x)
    return group


def groups_of(cells: set[int], nbrs: list[list[int]]) -> list[set[int]]:
    left = set(cells)
    out = []
    while left:
        g = flood(next(iter(left)), left, nbrs)
        out.append(g)
        left -= g
    return out


def territory(
    kinds: list[int], cell: int, info: dict[int, KindInfo], nbrs: list[list[int]]
) -> set[int]:
    land = info[kinds[cell]].land
    same = {c for c, k in enumerate(kinds) if k >= 0 and info[k].land == land}
    return flood(cell, same, nbrs)


def scenario_value(size: int) -> int:
    return 10 + 10 * (size - 3)


def score_seat(
    kinds: list[int],
    cows: list[int],
    partners: list[int],
    info: dict[int, KindInfo],
    rows: int,
    scenario: str | None,
) -> tuple[int, int, int, int, int, int, int]:
    """(territories, resources, partners, scenario, total, largest territory, cows)."""
    nbrs = NEIGHBOURS[rows]
    by_land: dict[int, set[int]] = {}
    for c, k in enumerate(kinds):
        if k >= 0:
            by_land.setdefault(info[k].land, set()).add(c)
    terr = 0
    largest = 0
    scen = 0
    for land, cells in by_land.items():
        for g in groups_of(cells, nbrs):
            largest = max(largest, len(g))
            if land != CORN:
                terr += len(g) * sum(cows[c] for c in g)
            if len(g) >= 3 and (
                (scenario == "timber_rafting" and land == FOREST and any(c < COLS for c in g))
                or (scenario == "moon_river_city" and land == FARM)
            ):
                scen += scenario_value(len(g))
    placed = [c for c, k in enumerate(kinds) if k >= 0]
    gold = sum(info[kinds[c]].gold for c in placed)
    beaver = sum(info[kinds[c]].beaver for c in placed)
    corn = sum(info[kinds[c]].corn for c in placed)
    part = 0
    for c in placed:
        p = partners[c]
        if p >= 0 and p % 2 == 0:
            token = p // 2
            if token == PartnerKind.GOLD_DIGGER:
                part += gold
            elif token == PartnerKind.TRAPPER:
                part += beaver
            elif token == PartnerKind.FARMER:
                part += corn
    if scenario == "gold_rush":
        gold_cells = {c for c in placed if info[kinds[c]].gold > 0}
        for g in groups_of(gold_cells, nbrs):
            if len(g) >= 3:
                scen += scenario_value(sum(info[kinds[c]].gold for c in g))
    elif scenario == "outlaws":
        partner_cells = {c for c in placed if partners[c] >= 0}
        for g in groups_of(partner_cells, nbrs):
            bandit = any(partners[c] % 2 == 0 and partners[c] // 2 in BANDITS for c in g)
            if len(g) >= 3 and bandit:
                scen += scenario_value(len(g))
    res = gold + beaver + corn
    return (terr, res, part, scen, terr + res + part + scen, largest, sum(cows))


# --------------------------------------------------------------------------- per-game context


@dataclass
class Ctx:
    """What a game's checks need, computed once from the config and the component data."""

    state: GameState
    seed: int
    info: dict[int, KindInfo]
    rows: int
    cells: int
    nbrs: list[list[int]]
    steps: list[list[int]]
    plot_counter: Counter[int]
    partner_counter: Counter[int]
    bridge_cells: list[set[int]]
    slots: list[int]
    seg: dict[str, tuple[int, int]]
    pairs: list[tuple[int, int]]
    held_max: int
    score_cache: list[tuple[Any, Any]] = field(default_factory=list)
    piece: list[int] = field(default_factory=list)
    effect_cell: int = -1
    cowboy_moves: int = 0
    phases: set[str] = field(default_factory=set)
    turn_dominoes: Counter[tuple[int, int]] = field(default_factory=Counter)
    bonus_due: list[bool] = field(default_factory=list)
    bonus_taken: list[bool] = field(default_factory=list)
    tiles_removed: set[int] = field(default_factory=set)

    def where(self) -> str:
        s = self.state
        return f"seed={self.seed} config={s.config!r} round={s.round} phase={s.phase.name}"


def make_ctx(state: GameState, seed: int) -> Ctx:
    cfg = state.config
    comps = cfg.components
    n = cfg.num_players
    rows = 10 if n == 2 else 5
    # Boards: base -> camp; legends -> as configured (by seat / explicit), or a deal.
    if cfg.mode == "base":
        assert state.boards == ("camp",) * n
    else:
        assert len(set(state.boards)) == n and set(state.boards) <= set(LEGENDS_BOARDS)
        if cfg.boards is None:
            assert state.boards == LEGENDS_BOARDS[:n]
        elif cfg.boards != "random":
            assert state.boards == cfg.boards
    if cfg.mode == "base":
        assert state.scenario is None
    elif cfg.scenario in (None, "random"):
        assert state.scenario in SCENARIOS
    else:
        assert state.scenario == cfg.scenario
    bridge_cells = [set(comps.boards[b].bridges) for b in state.boards]  # row 0: cell == column
    slots = [comps.boards[b].slots for b in state.boards]
    lay = state.layout
    held_max = (
        max(comps.boards[b].slots for b in (LEGENDS_BOARDS if cfg.mode == "legends" else ("camp",)))
        + 1
    )
    pairs = [(i, j) for i in range(held_max) for j in range(i + 1, held_max)]
    return Ctx(
        state=state,
        seed=seed,
        info=kind_infos(cfg),
        rows=rows,
        cells=rows * COLS,
        nbrs=NEIGHBOURS[rows],
        steps=STEPS[rows],
        plot_counter=Counter(comps.plot_list()),
        partner_counter=Counter(comps.partner_list()),
        bridge_cells=bridge_cells,
        slots=slots,
        seg=dict(lay.segments),
        pairs=pairs,
        held_max=held_max,
        score_cache=[(None, None)] * n,
        bonus_due=[False] * n,
        bonus_taken=[False] * n,
    )


# Action segments each phase may offer; the second set must be present in the phase.
PHASE_SEGMENTS: dict[Phase, tuple[set[str], set[str]]] = {
    Phase.SETUP_CLAIM: ({"claim"}, set()),
    Phase.SELECT: ({"claim"}, set()),
    Phase.EXPAND: ({"place", "stop"}, {"place", "stop"}),
    Phase.MUST_EXPAND: ({"place"}, {"place"}),
    Phase.FINAL_EXPAND: ({"place"}, {"place"}),
    Phase.DISCARD: ({"discard"}, {"discard"}),
    Phase.SKULL: ({"skull"}, {"skull"}),
    Phase.RECRUIT: ({"recruit"}, {"recruit"}),
    Phase.COWBOY: ({"cowboy_move", "cowboy_stop"}, {"cowboy_stop"}),
    Phase.DESPERADO: ({"desperado_swap", "desperado_skip"}, {"desperado_skip"}),
    Phase.THIEF: ({"thief_steal", "thief_skip"}, {"thief_skip"}),
    Phase.BONUS: ({"bonus_place", "bonus_remove"}, set()),
}


def ids_in(ctx: Ctx, legal: list[int], name: str) -> set[int]:
    start, size = ctx.seg[name]
    return {a for a in legal if start <= a < start + size}


def segment_name(ctx: Ctx, a: int) -> str:
    for name, (start, size) in ctx.seg.items():
        if start <= a < start + size:
            return name
    raise AssertionError(f"action {a} is in no segment ({ctx.where()})")


# --------------------------------------------------------------------------- independent legal sets


def expected_placements(ctx: Ctx, seat: int) -> set[int]:
    """Every (pair, cell, direction) that obeys the connection rules (RULES.md section 3)."""
    s = ctx.state
    held = s.held[seat]
    kinds = s.kinds[seat]
    start = ctx.seg["place"][0]
    out: set[int] = set()
    for p, (i, j) in enumerate(ctx.pairs):
        if j < len(held):
            for a, d in domino_spots(ctx, kinds, seat, held[i], held[j]):
                out.add(start + (p * ctx.cells + a) * 4 + d)
    return out


def connects(ctx: Ctx, kinds: list[int], seat: int, cell: int, land: int) -> bool:
    """A plot of ``land`` on ``cell`` is next to a bridge or to a plot of its landscape."""
    if cell in ctx.bridge_cells[seat]:
        return True
    info = ctx.info
    return any(kinds[x] >= 0 and info[kinds[x]].land == land for x in ctx.nbrs[cell])


def domino_spots(
    ctx: Ctx, kinds: list[int], seat: int, ka: int, kb: int, first_only: bool = False
) -> list[tuple[int, int]]:
    """(cell of A, direction of B) for every legal placement of the domino A-B."""
    la, lb = ctx.info[ka].land, ctx.info[kb].land
    out = []
    for a in range(ctx.cells):
        if kinds[a] >= 0:
            continue
        a_ok = connects(ctx, kinds, seat, a, la)
        for d in range(4):
            b = ctx.steps[d][a]
            if b < 0 or kinds[b] >= 0:
                continue
            if a_ok or connects(ctx, kinds, seat, b, lb):
                out.append((a, d))
                if first_only:
                    return out
    return out


def fits_any(ctx: Ctx, kinds: list[int], seat: int, plots: list[int]) -> bool:
    """Whether any two of ``plots`` form a domino with a legal placement on ``kinds``."""
    return any(
        domino_spots(ctx, kinds, seat, plots[i], plots[j], first_only=True)
        for i in range(len(plots))
        for j in range(i + 1, len(plots))
    )


def protected_cells(ctx: Ctx, s: GameState, seat: int) -> set[int]:
    """Cells in a territory holding at least one partner (ruling R16)."""
    kinds, partners = s.kinds[seat], s.partners[seat]
    out: set[int] = set()
    for c in range(ctx.cells):
        if partners[c] >= 0 and c not in out:
            out |= territory(kinds, c, ctx.info, ctx.nbrs)
    return out


def expected_steals(ctx: Ctx, s: GameState, seat: int) -> set[int]:
    n = s.config.num_players
    kinds = s.kinds[seat]
    if ctx.info[kinds[ctx.effect_cell]].land == CORN:  # ruling R4
        return set()
    start = ctx.seg["thief_steal"][0]
    out = set()
    for t in range(1, n):
        victim = (seat + t) % n
        prot = protected_cells(ctx, s, victim)
        for c, k in enumerate(s.cows[victim]):
            if k and c not in prot:
                out.add(start + (t - 1) * ctx.cells + c)
    return out


def expected_cowboy_moves(ctx: Ctx, s: GameState, seat: int) -> set[int]:
    kinds, cows = s.kinds[seat], s.cows[seat]
    start = ctx.seg["cowboy_move"][0]
    out = set()
    for c in range(ctx.cells):
        if cows[c]:
            for d in range(4):
                t = ctx.steps[d][c]
                if t >= 0 and kinds[t] >= 0 and ctx.info[kinds[t]].land != CORN:
                    out.add(start + c * 4 + d)
    return out


def expected_swaps(ctx: Ctx, s: GameState, seat: int) -> set[int]:
    n = s.config.num_players
    start = ctx.seg["desperado_swap"][0]
    h = ctx.held_max
    out = set()
    for own in range(len(s.held[seat])):
        for t in range(1, n):
            for theirs in range(len(s.held[(seat + t) % n])):
                out.add(start + (own * (n - 1) + t - 1) * (h - 1) + theirs)
    return out


def expected_skull_options(ctx: Ctx, seat: int) -> list[set[int]]:
    """Per skull plot of the last piece: the cells with cows in its territory."""
    s = ctx.state
    kinds, cows = s.kinds[seat], s.cows[seat]
    out = []
    for c in ctx.piece:
        if ctx.info[kinds[c]].skull:
            out.append({x for x in territory(kinds, c, ctx.info, ctx.nbrs) if cows[x]})
    return out


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


def snapshot(s: GameState) -> tuple[Any, ...]:
    """Everything observable that apply() may change (the RNG is compared separately)."""
    return (
        [h.copy() for h in s.held],
        [k.copy() for k in s.kinds],
        [c.copy() for c in s.cows],
        [p.copy() for p in s.partners],
        s.phase,
        s.current_seat,
        s.supply,
        s.pile.copy(),
        s.stack.copy(),
        s.saloon.copy(),
        s.cur_col.copy(),
        s.cur_claim.copy(),
        s.next_col.copy(),
        s.next_claim.copy(),
        s.removed.copy(),
        s.discarded.copy(),
        s.round,
        s.final_round,
        s.tiles.copy(),
        s.bonus_done.copy(),
        s.piece.copy(),
        s.skulls.copy(),
        s.circles.copy(),
        [b.copy() for b in s.land_bb],
        s.occ.copy(),
        s.cow_bb.copy(),
        s.partner_bb.copy(),
        s.scenario,
        s.boards,
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


def json_available() -> bool:
    return hasattr(serialization_module, "state_to_json")


def check_json_round_trip(ctx: Ctx, chooser: random.Random) -> bool:
    """Round trip through JSON; both copies then play the same actions alike. False if the
    serializer is not implemented yet."""
    s = ctx.state
    if not json_available():
        return False
    try:
        text = s.to_json()
    except NotImplementedError:
        return False
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
        legal = probe.legal_action_list()
        if not legal:
            break
        a = legal[chooser.randrange(len(legal))]
        probe.apply(a)
        loaded.apply(a)
        assert snapshot(loaded) == snapshot(probe), (
            f"loaded state plays differently ({ctx.where()})"
        )
    return True


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


# --------------------------------------------------------------------------- the game loop


def play_checked(config: GameConfig, seed: int, json_ok: list[bool] | None = None) -> Ctx:
    """Play one game with random legal actions, checking everything; return its context."""
    state = new_game(config, seed=seed)
    ctx = make_ctx(state, seed)
    chooser = random.Random(seed * 1_000_003 + config.num_players * 10 + len(config.mode))
    json_steps = {chooser.randrange(120) for _ in range(JSON_POINTS)}
    check_invariants(ctx)
    steps = 0
    setup_seats: list[int] = []
    while not state.is_terminal:
        assert steps < MAX_DECISIONS, f"no end after {MAX_DECISIONS} decisions ({ctx.where()})"
        legal = state.legal_action_list()
        action = legal[chooser.randrange(len(legal))]
        if state.phase == Phase.SETUP_CLAIM:
            setup_seats.append(state.seat)
        heavy = chooser.randrange(CHECK_EVERY) == 0
        if heavy:
            check_placements(ctx)
            check_illegal(ctx, chooser)
        if steps in json_steps:
            done = check_json_round_trip(ctx, chooser)
            if json_ok is not None:
                json_ok.append(done)
        before = state.clone()
        if heavy:
            check_clone_and_apply(ctx, action)
        else:
            state.apply(action)
        steps += 1
        check_action_effect(ctx, action, before)
        check_turn_rules(ctx, action, before)
        check_invariants(ctx)
    # Setup claims (section 2, step 3): a random order; with 2 players A, B, B, A.
    n = config.num_players
    if n == 2:
        a, b = setup_seats[0], 1 - setup_seats[0]
        assert setup_seats == [a, b, b, a], setup_seats
    else:
        assert sorted(setup_seats) == list(range(n)), setup_seats
    check_terminal(ctx)
    done = check_json_round_trip(ctx, chooser)
    if json_ok is not None:
        json_ok.append(done)
    return ctx


# Phases every configuration's games must reach (random play covers them easily).
MUST_SEE = {"SETUP_CLAIM", "SELECT", "EXPAND", "SKULL", "RECRUIT", "COWBOY", "FINAL_EXPAND"}


@pytest.mark.parametrize("name,configs", CONFIG_CELLS, ids=[name for name, _ in CONFIG_CELLS])
def test_random_play(name: str, configs: list[GameConfig]) -> None:
    phases: set[str] = set()
    for g in range(GAMES_PER_CELL):
        seed = SEED_BASE + g
        ctx = play_checked(configs[g % len(configs)], seed)
        phases |= ctx.phases
    missing = MUST_SEE - phases
    assert not missing, f"{name}: random play never reached {sorted(missing)}"


def test_random_play_covers_rare_phases() -> None:
    """Across all configurations, random play reaches every decision type at least once."""
    phases: set[str] = set()
    for _, configs in CONFIG_CELLS:
        for g in range(2):
            phases |= play_checked(configs[g % len(configs)], SEED_BASE + 1000 + g).phases
    rare = {"DESPERADO", "THIEF", "BONUS", "MUST_EXPAND"}
    assert rare <= phases, f"never reached {sorted(rare - phases)}"


def test_json_round_trip_during_random_play() -> None:
    """The JSON round trip at several points per game (skipped until serialization lands)."""
    if not json_available():
        pytest.skip("moonriver_env.rules.serialization is still the placeholder")
    done: list[bool] = []
    for _, configs in CONFIG_CELLS:
        play_checked(configs[0], SEED_BASE + 2000, json_ok=done)
    if not any(done):
        pytest.skip("GameState.to_json raises NotImplementedError")
    assert all(done)
