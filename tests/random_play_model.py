"""An independent model of the rules for the random-play tests (not a test module).

What a cell shows, flood-fill territories and a simple scorer, the per-game context
:class:`Ctx`, and the legal sets of each decision enumerated from the rules (RULES.md sections
3-6) without the engine's bitboards, kind table, scoring or legal-move code."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from moonriver_env.moonriver.render import Face
from moonriver_env.moonriver.rules.components import Landscape, PartnerKind
from moonriver_env.rules import LEGENDS_BOARDS, SCENARIOS, GameConfig, GameState, Phase

CORN = int(Landscape.CORNFIELD)
FOREST = int(Landscape.FOREST)
FARM = int(Landscape.FARM)
BANDITS = (int(PartnerKind.DESPERADO), int(PartnerKind.CATTLE_THIEF))
COLS = 5


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
    json_trips: int = 0

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
