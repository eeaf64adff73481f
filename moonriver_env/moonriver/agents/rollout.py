"""Fast rollout policies for the search agents.

``"random"``: uniformly random legal actions. ``"heuristic"`` (the light heuristic): every
decision by a cheap rule, no copying of states:

* placements are scored on bitboards: same-landscape neighbours of both plots, +2 for a plot
  joining a territory that holds cows (+2 per cow symbol it brings there), a skull landing
  in such a territory -4, +1 for a one-landscape domino, -3 for every empty cell the
  placement cuts off (left without an empty neighbour); the best is played (small random
  noise breaks ties and varies the rollouts); an optional expansion stops when the best
  placement scores below 1;
* claims: the plot's symbols (cows count 3, resources 1, a circle 1.5), +2 when the ranch
  already has that landscape, a skull -1.5, +0.3 per earlier position, plus noise;
* effects (skulls, recruits, Cowboys, thieves, Desperados, bonus tiles, discards): the
  rule-based choices of :mod:`moonriver_env.moonriver.agents.evaluation`.
"""

from __future__ import annotations

import random

from moonriver_env.moonriver.rules import CLAIM_PHASES, PLACE_PHASES, GameState, Phase

from .evaluation import Context, bits, effect_choice, popcount

ROLLOUT_POLICIES = ("random", "heuristic")


def place_scores(state: GameState, legal: list[int], noise: random.Random | None) -> list[float]:
    """Light scores of the placement actions in ``legal`` (``stop`` excluded; ``noise``: add
    ``U(0, 0.5)`` to each)."""
    seat = state.seat
    held = state.held[seat]
    g = state.grid
    kt = state.kind_table
    lay = state.layout
    bb = state.land_bb[seat]
    cow_bb = state.cow_bb[seat]
    empty = g.full & ~state.occ[seat]
    herd = [0] * 6
    if cow_bb:
        for lk in range(6):
            seeds = cow_bb & bb[lk]
            if seeds:
                herd[lk] = g.flood(seeds, bb[lk])
    located = lay.located
    stop = lay.by_name["stop"].ids
    pairs = lay.pairs
    step = g.step
    neighbours = g.neighbours
    land, kcows, kskull = kt.land, kt.cows, kt.skull
    out: list[float] = []
    plot_cache: dict[tuple[int, int], float] = {}
    for a in legal:
        if a == stop:
            out.append(-1e9)
            continue
        pair, cell, d = located[a][1]  # place: (pair, cell, direction)
        i, j = pairs[pair]
        other = step[d][cell]
        ka, kb = held[i], held[j]
        v = 0.0
        for x, k in ((cell, ka), (other, kb)):
            key = (x, k)
            pv = plot_cache.get(key)
            if pv is None:
                lk = land[k]
                nb = neighbours(1 << x) & bb[lk]
                pv = float(popcount(nb))
                if nb & herd[lk]:
                    pv += 2.0 + 2.0 * kcows[k]
                    if kskull[k]:
                        pv -= 4.0
                elif kcows[k] and nb:
                    pv += kcows[k]
                plot_cache[key] = pv
            v += pv
        if land[ka] == land[kb]:
            v += 1.0
        after = empty & ~((1 << cell) | (1 << other))
        for z in bits(neighbours((1 << cell) | (1 << other)) & after):
            if not neighbours(1 << z) & after:
                v -= 3.0
        if noise is not None:
            v += noise.random() * 0.5
        out.append(v)
    return out


def light_place(state: GameState, legal: list[int], rnd: random.Random) -> int:
    stop = state.layout.by_name["stop"].ids
    scores = place_scores(state, legal, rnd)
    best_i = max(range(len(scores)), key=scores.__getitem__)
    if legal[-1] == stop and scores[best_i] < 1.0:
        return stop
    return legal[best_i]


def claim_scores(state: GameState, legal: list[int], noise: random.Random | None) -> list[float]:
    """Light scores of claim actions (``noise``: add ``U(0, 1)`` to each)."""
    kt = state.kind_table
    located = state.layout.located
    seat = state.seat
    bb = state.land_bb[seat]
    col = state.cur_col if state.phase == Phase.SETUP_CLAIM else state.next_col
    out: list[float] = []
    for a in legal:
        p = located[a][1][0]  # claim: (position,)
        k = col[p]
        v = (
            3.0 * kt.cows[k]
            + kt.gold[k]
            + kt.beaver[k]
            + kt.corn[k]
            + 1.5 * kt.circle[k]
            - 1.5 * kt.skull[k]
            + (2.0 if bb[kt.land[k]] else 0.0)
            - 0.3 * p
        )
        if noise is not None:
            v += noise.random()
        out.append(v)
    return out


def light_claim(state: GameState, legal: list[int], rnd: random.Random) -> int:
    scores = claim_scores(state, legal, rnd)
    return legal[max(range(len(scores)), key=scores.__getitem__)]


def light_candidates(state: GameState, ctx: Context, width: int) -> list[int]:
    """Up to ``width`` actions, best first by the light heuristic (effect phases: the single
    rule-based choice)."""
    legal = state.legal_action_list()
    if len(legal) == 1:
        return legal
    ph = state.phase
    if ph in PLACE_PHASES:
        stop = state.layout.by_name["stop"].ids
        has_stop = legal[-1] == stop
        places = legal[:-1] if has_stop else legal
        scores = place_scores(state, places, None)
        order = sorted(range(len(places)), key=lambda i: -scores[i])
        out = [places[i] for i in order[:width]]
        if has_stop:
            out = out[: max(1, width - 1)] + [stop]
        return out
    if ph in CLAIM_PHASES:
        scores = claim_scores(state, legal, None)
        order = sorted(range(len(legal)), key=lambda i: -scores[i])
        return [legal[i] for i in order[:width]]
    return [effect_choice(state, ctx)]


def light_action(state: GameState, ctx: Context, rnd: random.Random) -> int:
    """The light heuristic's action for the acting seat."""
    legal = state.legal_action_list()
    if len(legal) == 1:
        return legal[0]
    ph = state.phase
    if ph in PLACE_PHASES:
        return light_place(state, legal, rnd)
    if ph in CLAIM_PHASES:
        return light_claim(state, legal, rnd)
    return effect_choice(state, ctx)


def random_action(state: GameState, ctx: Context, rnd: random.Random) -> int:
    legal = state.legal_action_list()
    return legal[rnd.randrange(len(legal))]


def rollout(state: GameState, policy: str, ctx: Context, rnd: random.Random, depth: int = 0) -> int:
    """Play ``state`` forward in place with ``policy`` for ``depth`` decisions (0: to the
    end); return the number of decisions played."""
    choose = light_action if policy == "heuristic" else random_action
    n = 0
    while not state.is_terminal and (depth <= 0 or n < depth):
        state.apply(choose(state, ctx, rnd))
        n += 1
    return n
