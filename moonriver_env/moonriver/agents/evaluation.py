"""Game knowledge shared by the heuristic and search agents: a position evaluation and cheap
rule-based choices for the small decisions (skulls, Cowboys, thieves, recruits, bonus tiles,
discards) and for fast rollouts.

Everything here reads only what the table shows (RULES.md section 8): ranches, cows, partners,
reserves, the claimed plots of both columns, the saloon, the stack *size*, and the multiset of
plots not yet seen (the rulebook's remaining-plot counts; read as counts of the draw pile,
never its order).

Evaluation (:class:`Evaluator`), per seat, in points:

* **Territories**, projected. Each territory of plots of one landscape with ``s`` plots and
  ``c`` cows (a plot's second cow counts only partly: overpopulation removes it unless a
  Cowboy spreads it) scores ``s * c`` now. Future plots of its landscape (the seat's
  *pipeline* -- reserve plus claimed plots -- and its share ``1/n`` of the unseen plots) are
  allocated to the territories with the most cows, as far as their open frontier allows:
  ``+ grow_w * c * growth``. Future cows of that landscape (pipeline cow symbols at weight
  ``pipe_cow_w``, unseen ones at ``unseen_cow_w / n``) go to its biggest open territory:
  ``+ cows * (s + grow_w * growth)``. Cornfields never score. Scenario territories (Moon River
  City farms, Timber Rafting forests by the river) get ``10`` per projected extra plot.
* **Resources, specialists, scenario** as scored now, plus the pipeline's resource symbols,
  and each Gold Digger / Trapper / Farmer times the matching symbols still to come.
* **Circles** in the pipeline (a partner to recruit), **skulls** in it (small cost).
* **Waste**: an empty region of odd size (a lone empty cell above all) can never be filled
  with dominoes: ``waste_w`` per odd region.
* **Theft risk**: each unprotected cow (no partner in its territory, ruling R16) costs
  ``theft_w * f * s`` (``f`` is the fraction of the game still to come).

Every potential term fades with ``f`` through the counts of unseen plots, so the evaluation
becomes the final score at the end. :func:`rel_from_values` turns :meth:`Evaluator.values`
into the seat's value minus the opponents' (2 players: the opponent; more: the mean of the
strongest and the average).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from moonriver_env.family.geometry import bit_indices
from moonriver_env.moonriver.rules import (
    RESOLVE_PHASES,
    GameState,
    Landscape,
    PartnerKind,
    Phase,
    unprotected_cows,
)
from moonriver_env.moonriver.rules.actions import target_seat

DESERT, CANYON, MEADOW, FOREST, CORN, FARM = (int(x) for x in Landscape)
DESPERADO, THIEF, DIGGER, TRAPPER, FARMER = (int(x) for x in PartnerKind)


def popcount(x: int) -> int:
    return x.bit_count()


bits = bit_indices


@dataclass(frozen=True)
class Weights:
    """Tunable weights of :class:`Evaluator` (see the module docstring)."""

    grow_w: float = 0.6
    pipe_cow_w: float = 0.8
    unseen_cow_w: float = 0.5
    pipe_res_w: float = 0.8
    circle_w: float = 3.0
    skull_w: float = 1.0
    waste_w: float = 3.0
    theft_w: float = 0.3
    spread_w: float = 0.5
    order_w: float = 0.3
    opp_w: float = 1.0

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def as_list(self) -> list[float]:
        """The weights in :meth:`names` order (what the native core takes)."""
        return [getattr(self, f) for f in self.names()]


@dataclass
class Context:
    """Public facts of a position that change slowly (computed once per decision)."""

    n: int
    share: float
    frac: float  # fraction of the plots still unseen (1 at the start, 0 in the final round)
    unseen_land: list[int] = field(default_factory=list)  # plots per landscape
    unseen_cows: list[int] = field(default_factory=list)  # cow symbols per landscape
    unseen_gold: int = 0
    unseen_beaver: int = 0
    unseen_corn: int = 0
    tokens: int = 0  # partner tokens left in saloon + stack


def make_context(state: GameState) -> Context:
    """The public counts of what is still to come (the unseen plots as a multiset)."""
    kt = state.kind_table
    comps = state.config.components
    n = state.config.num_players
    land = [0] * 6
    cows = [0] * 6
    gold = beaver = corn = 0
    for k in state.pile:  # a multiset: the order is never used
        lk = kt.land[k]
        land[lk] += 1
        cows[lk] += kt.cows[k]
        gold += kt.gold[k]
        beaver += kt.beaver[k]
        corn += kt.corn[k]
    tokens = sum(1 for t in state.saloon if t >= 0) + len(state.stack)
    return Context(
        n=n,
        share=1.0 / n,
        frac=len(state.pile) / comps.num_plots,
        unseen_land=land,
        unseen_cows=cows,
        unseen_gold=gold,
        unseen_beaver=beaver,
        unseen_corn=corn,
        tokens=tokens,
    )


def pipeline(state: GameState, seat: int) -> list[int]:
    """Plots ``seat`` holds or has claimed (current and next column) but not yet placed."""
    out = list(state.held[seat])
    for col, claim in ((state.cur_col, state.cur_claim), (state.next_col, state.next_claim)):
        for p, c in enumerate(claim):
            if c == seat and col[p] >= 0:
                out.append(col[p])
    return out


class Evaluator:
    """Static evaluation of positions (module docstring)."""

    def __init__(self, weights: Weights | None = None) -> None:
        self.w = weights or Weights()

    # ------------------------------------------------------------------ per seat
    def seat_value(self, state: GameState, seat: int, ctx: Context) -> float:
        w = self.w
        g = state.grid
        kt = state.kind_table
        land_bb = state.land_bb[seat]
        cow_bb = state.cow_bb[seat]
        partner_bb = state.partner_bb[seat]
        cows = state.cows[seat]
        occ = state.occ[seat]
        share = ctx.share
        full = g.full
        empty = full & ~occ
        # Pipeline per landscape.
        pipe = pipeline(state, seat)
        p_land = [0] * 6
        p_cows = [0] * 6
        p_res = 0
        p_gold = p_beaver = p_corn = 0
        p_circles = p_skulls = 0
        klands, kcows, kgold, kbeaver, kcorn = kt.land, kt.cows, kt.gold, kt.beaver, kt.corn
        for k in pipe:
            lk = klands[k]
            p_land[lk] += 1
            p_cows[lk] += kcows[k]
            p_gold += kgold[k]
            p_beaver += kbeaver[k]
            p_corn += kcorn[k]
            p_circles += kt.circle[k]
            p_skulls += kt.skull[k]
        p_res = p_gold + p_beaver + p_corn
        # Empty regions: frontier cells (fillable by a domino) and odd regions (waste).
        regions = g.components(empty) if empty else []
        fillable = 0
        odd = 0
        for r in regions:
            size = popcount(r)
            if size > 1:
                fillable |= r
            if size & 1:
                odd += 1
        frac = ctx.frac
        spread = w.spread_w * frac
        scen = state.scenario
        value = 0.0
        risk = 0.0
        for lk in (DESERT, CANYON, MEADOW, FOREST, FARM):
            mask = land_bb[lk]
            exp_plots = p_land[lk] + share * ctx.unseen_land[lk]
            exp_cows = w.pipe_cow_w * p_cows[lk] + w.unseen_cow_w * share * ctx.unseen_cows[lk]
            scen_terr = (scen == "moon_river_city" and lk == FARM) or (
                scen == "timber_rafting" and lk == FOREST
            )
            if not mask:
                if exp_cows:
                    value += 2.0 * exp_cows
                continue
            terrs = []
            for t in g.components(mask):
                s = popcount(t)
                herd = t & cow_bb
                c = 0.0
                if herd:
                    cells = bits(herd)
                    total = sum(cows[x] for x in cells)
                    c = len(cells) + spread * (total - len(cells))
                    if not (t & partner_bb):
                        risk += s * len(cells)
                front = popcount(g.neighbours(t) & fillable)
                terrs.append((c, s, front, t))
            terrs.sort(key=lambda x: (-x[0], -x[1]))
            left = exp_plots
            best_size = 0.0
            for c, s, front, t in terrs:
                grow = min(front, left) if left > 0 else 0.0
                left -= grow
                proj = s + w.grow_w * grow
                value += c * proj
                if front and proj > best_size:
                    best_size = proj
                if scen_terr and (lk == FARM or t & g.river_row) and s + grow >= 3:
                    value += 10.0 * w.grow_w * grow
            value += exp_cows * (best_size if best_size else 2.0)
        sc = state.score_seat(seat)
        value += sc.resources + sc.partners + sc.scenario
        value += w.pipe_res_w * p_res
        # Specialists (face up) times the matching symbols still to come.
        if partner_bb:
            part = state.partners[seat]
            for x in bits(partner_bb):
                kind, cowboy = divmod(part[x], 2)
                if cowboy:
                    continue
                if kind == DIGGER:
                    value += p_gold + share * ctx.unseen_gold
                elif kind == TRAPPER:
                    value += p_beaver + share * ctx.unseen_beaver
                elif kind == FARMER:
                    value += p_corn + share * ctx.unseen_corn
        if ctx.tokens:
            value += w.circle_w * p_circles
        value -= w.skull_w * p_skulls
        value -= w.waste_w * odd
        value -= w.theft_w * frac * risk
        return value

    # ------------------------------------------------------------------ relative
    def values(self, state: GameState, ctx: Context) -> list[float]:
        return [self.seat_value(state, s, ctx) for s in range(ctx.n)]


def rel_from_values(vals: list[float], seat: int, opp_w: float = 1.0) -> float:
    others = [v for i, v in enumerate(vals) if i != seat]
    if len(others) == 1:
        return vals[seat] - opp_w * others[0]
    return vals[seat] - opp_w * 0.5 * (max(others) + sum(others) / len(others))


def final_margin(state: GameState, seat: int) -> float:
    """Score margin of ``seat`` at the end (2 players: minus the opponent; else minus the best
    other), plus 0.5 for the tie-break keys."""
    scores = state.scores()
    mine = scores[seat]
    best = max(s.rank_key for i, s in enumerate(scores) if i != seat)
    margin = float(mine.total - best[0])
    if margin == 0:
        key = mine.rank_key
        margin = 0.5 if key > best else (-0.5 if key < best else 0.0)
    return margin


# ====================================================================== rule-based choices
def territory_cells(state: GameState, seat: int, cell: int) -> int:
    g = state.grid
    k = state.kinds[seat][cell]
    if k < 0:
        return 0
    return g.flood(1 << cell, state.land_bb[seat][state.kind_table.land[k]])


def cow_territories(state: GameState, seat: int) -> list[tuple[int, int]]:
    """``(size, cells)`` of the seat's territories where cows may stand, biggest first."""
    g = state.grid
    land_bb = state.land_bb[seat]
    out = [
        (popcount(t), t)
        for lk in (DESERT, CANYON, MEADOW, FOREST, FARM)
        for t in g.components(land_bb[lk])
    ]
    out.sort(key=lambda x: -x[0])
    return out


def plan_cowboy(state: GameState, seat: int, moves: int) -> tuple[float, int]:
    """The best single-cow Cowboy plan within ``moves`` steps: ``(net gain, first move)``
    with the move as its ``cowboy_move`` action id (``-1`` if nothing gains).

    A cow is worth the size of its territory where it stands alone on a plot, nothing as a
    second cow on a plot (overpopulation); a move's gain is the best reachable free plot's
    value minus what the cow is worth where it stands. Paths go over own non-cornfield plots
    (bitboard breadth-first search)."""
    cow_bb = state.cow_bb[seat]
    if not cow_bb or moves <= 0:
        return 0.0, -1
    g = state.grid
    step = g.step
    neighbours = g.neighbours
    terrs = cow_territories(state, seat)
    walk = state.occ[seat] & ~state.land_bb[seat][CORN]
    cows = state.cows[seat]
    free = ~cow_bb
    move_ids = state.layout.by_name["cowboy_move"].ids  # [cell][direction]
    best_gain, best = 0.5, -1
    for src in bit_indices(cow_bb):
        loss = 0
        if cows[src] == 1:
            bit = 1 << src
            for size, t in terrs:
                if t & bit:
                    loss = size
                    break
        for d in range(4):
            y = step[d][src]
            if y < 0 or not (walk >> y) & 1:
                continue
            reach = 1 << y
            for _ in range(moves - 1):
                reach |= neighbours(reach) & walk
            avail = reach & free
            for size, t in terrs:
                if size - loss <= best_gain:
                    break
                if t & avail:
                    best_gain, best = size - loss, move_ids[src][d]
                    break
    return best_gain, best


def cowboy_choice(state: GameState) -> int:
    """The first move of the best Cowboy plan (:func:`plan_cowboy`), or stop."""
    _, a = plan_cowboy(state, state.seat, state.cowboy_moves)
    if a >= 0 and state.is_legal(a):
        return a
    return state.layout.by_name["cowboy_stop"].ids


def steal_value(state: GameState, a: int, leader_bonus: bool = True) -> float:
    """Victim's loss plus the thief's gain of a steal action (rough, in points)."""
    n = state.config.num_players
    t, cell = state.layout.located[a][1]  # thief_steal: (target, cell)
    seat = state.seat
    victim = target_seat(seat, t, n)
    loss: float = (
        popcount(territory_cells(state, victim, cell)) if state.cows[victim][cell] == 1 else 1
    )
    eff = state.effect_cell
    gain = popcount(territory_cells(state, seat, eff)) if state.cows[seat][eff] == 0 else 1
    if n > 2 and leader_bonus:
        totals = [state.score_seat(s).total for s in range(n)]
        if totals[victim] == max(totals[s] for s in range(n) if s != seat):
            loss *= 1.5
    return loss + gain


def thief_choice(state: GameState) -> int:
    legal = state.legal_action_list()
    best, best_v = legal[-1], 0.0
    for a in legal[:-1]:
        v = steal_value(state, a)
        if v > best_v:
            best, best_v = a, v
    return best


def skull_choice(state: GameState) -> int:
    """Take the cow from the plot holding the most cows (an extra cow is lost anyway)."""
    cows = state.cows[state.seat]
    located = state.layout.located  # skull: (cell,)
    return max(state.legal_action_list(), key=lambda a: (cows[located[a][1][0]], -a))


def bonus_choice(state: GameState) -> int:
    """Put the bonus tile where it joins the biggest territory with cows."""
    g = state.grid
    located = state.layout.located
    kt = state.kind_table
    seat = state.seat
    best, best_v = -1, -1.0
    for a in state.legal_action_list():
        segment, index = located[a]
        if segment == "bonus_remove":
            v = -0.5
        else:
            tile, side, cell = index
            lk = kt.land[kt.num_plot_kinds + 2 * tile + side]  # the tile side's kind
            t = g.flood(1 << cell, state.land_bb[seat][lk] | (1 << cell))
            v = popcount(t) * (1 + popcount(t & state.cow_bb[seat]))
        if v > best_v:
            best, best_v = a, v
    return best


def plot_symbol_value(state: GameState, k: int) -> float:
    kt = state.kind_table
    return (
        kt.gold[k]
        + kt.beaver[k]
        + kt.corn[k]
        + 3 * kt.cows[k]
        + 2 * kt.circle[k]
        - 1.5 * kt.skull[k]
    )


def discard_choice(state: GameState) -> int:
    """Discard the pair of held plots with the least symbol value."""
    held = state.held[state.seat]
    lay = state.layout
    best, best_v = -1, float("inf")
    for a in state.legal_action_list():
        i, j = lay.pairs[lay.located[a][1][0]]  # discard: (pair,)
        v = plot_symbol_value(state, held[i]) + plot_symbol_value(state, held[j])
        if v < best_v:
            best, best_v = a, v
    return best


def desperado_choice(state: GameState) -> int:
    """Swap the own plot of least symbol value for the opponent's plot of most, if better."""
    located = state.layout.located
    n = state.config.num_players
    seat = state.seat
    best, best_v = state.layout.by_name["desperado_skip"].ids, 1.0
    for a in state.legal_action_list():
        segment, index = located[a]
        if segment != "desperado_swap":
            continue
        own, t, theirs = index
        other = target_seat(seat, t, n)
        v = plot_symbol_value(state, state.held[other][theirs]) - plot_symbol_value(
            state, state.held[seat][own]
        )
        if v > best_v:
            best, best_v = a, v
    return best


def recruit_option_values(state: GameState, ctx: Context) -> dict[int, float]:
    """Rough value of every recruit action (specialist points to come, a thief's best steal,
    a Cowboy's best moves); the token protects its territory whichever it is."""
    located = state.layout.located
    kt = state.kind_table
    seat = state.seat
    share = ctx.share
    gold = beaver = corn = 0
    for k in state.kinds[seat]:
        if 0 <= k < kt.num_plot_kinds:
            gold += kt.gold[k]
            beaver += kt.beaver[k]
            corn += kt.corn[k]
    for k in pipeline(state, seat):
        gold += kt.gold[k]
        beaver += kt.beaver[k]
        corn += kt.corn[k]
    gold_f = gold + share * ctx.unseen_gold
    beaver_f = beaver + share * ctx.unseen_beaver
    corn_f = corn + share * ctx.unseen_corn
    cowboy_v: dict[int, float] = {}
    out: dict[int, float] = {}
    for a in state.legal_action_list():
        circle, slot, side = located[a][1]  # recruit: (circle, slot, side)
        token = state.saloon[slot]
        cell = state.piece[circle]
        if side:
            v = cowboy_v.get(0)
            if v is None:
                v = cowboy_v[0] = plan_cowboy(state, seat, 3)[0]
        elif token == DIGGER:
            v = gold_f
        elif token == TRAPPER:
            v = beaver_f
        elif token == FARMER:
            v = corn_f
        elif token == THIEF:
            v = 0.0
            if kt.land[state.kinds[seat][cell]] != CORN:
                v = _best_steal_estimate(state, seat, cell)
        else:  # Desperado
            v = 0.5
        out[a] = v - 0.01 * circle
    return out


def _best_steal_estimate(state: GameState, seat: int, cell: int) -> float:
    n = state.config.num_players
    my_t = territory_cells(state, seat, cell)
    gain = popcount(my_t) if state.cows[seat][cell] == 0 else 1
    best = 0.0
    for t in range(1, n):
        victim = (seat + t) % n
        unprot = unprotected_cows(state, victim)
        for x in bits(unprot):
            loss = popcount(territory_cells(state, victim, x)) if state.cows[victim][x] == 1 else 1
            best = max(best, loss)
    return best + gain if best else 0.0


def recruit_choice(state: GameState, ctx: Context) -> int:
    vals = recruit_option_values(state, ctx)
    return max(vals, key=lambda a: (vals[a], -a))


def effect_choice(state: GameState, ctx: Context) -> int:
    """The rule-based choice for an effect phase (skull, recruit, Cowboy, Desperado, thief,
    bonus tile) or a forced discard."""
    ph = state.phase
    if ph == Phase.COWBOY:
        return cowboy_choice(state)
    if ph == Phase.RECRUIT:
        return recruit_choice(state, ctx)
    if ph == Phase.SKULL:
        return skull_choice(state)
    if ph == Phase.THIEF:
        return thief_choice(state)
    if ph == Phase.DESPERADO:
        return desperado_choice(state)
    if ph == Phase.BONUS:
        return bonus_choice(state)
    if ph == Phase.DISCARD:
        return discard_choice(state)
    raise ValueError(f"no rule-based choice for phase {ph.name}")


def complete_effects(state: GameState, seat: int, ctx: Context, limit: int = 40) -> None:
    """Play ``seat``'s pending effect decisions (and forced discards) with the rule-based
    choices, so that an evaluation sees a placement's symbols resolved."""
    for _ in range(limit):
        if state.seat != seat or (
            state.phase not in RESOLVE_PHASES and state.phase != Phase.DISCARD
        ):
            return
        legal = state.legal_action_list()
        state.apply(legal[0] if len(legal) == 1 else effect_choice(state, ctx))
