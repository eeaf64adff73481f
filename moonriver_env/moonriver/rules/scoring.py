"""End-game scoring, scenarios and tie-breaks (RULES.md sections 5 and 7).

The functions work on one ranch given as flat per-cell lists, so tests can score hand-built
ranches (the rulebook's worked example) without playing a game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from moonriver_env.family.geometry import Grid, bit_indices
from moonriver_env.family.records import win_share  # noqa: F401 (ruling R18's shared win: 1/k)
from moonriver_env.moonriver.rules.components import Landscape, PartnerKind

CORN = int(Landscape.CORNFIELD)
FOREST = int(Landscape.FOREST)
FARM = int(Landscape.FARM)
DESERT = int(Landscape.DESERT)
CANYON = int(Landscape.CANYON)
MEADOW = int(Landscape.MEADOW)
_RES_BITS = 10  # at most 50 cells of at most 20 symbols of one resource (checked): < 2**10
_RES_MASK = (1 << _RES_BITS) - 1


@dataclass(frozen=True, slots=True)
class KindTable:
    """Per-kind symbol lookups for every cell content: plot kinds, then the bonus tile sides.

    Index ``num_plot_kinds + 2 * tile + side`` is bonus tile ``tile`` placed ``side`` up.
    """

    land: tuple[int, ...]
    gold: tuple[int, ...]
    beaver: tuple[int, ...]
    corn: tuple[int, ...]
    cows: tuple[int, ...]
    skull: tuple[bool, ...]
    circle: tuple[bool, ...]
    back: tuple[int, ...]
    num_plot_kinds: int
    # gold | beaver << 10 | corn << 20 per kind, then a 0 that index -1 (no plot) reads: one
    # C-level ``sum(map(...))`` over a ranch's kinds gives its three resource totals.
    resources_packed: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if max((*self.gold, *self.beaver, *self.corn), default=0) > _RES_MASK // 50:
            raise ValueError("components: at most 20 symbols of one resource per plot")
        packed = tuple(
            g | b << _RES_BITS | c << 2 * _RES_BITS
            for g, b, c in zip(self.gold, self.beaver, self.corn, strict=True)
        )
        object.__setattr__(self, "resources_packed", (*packed, 0))


def partner_code(kind: int, cowboy: bool) -> int:
    """Cell code of a partner token: ``2 * PartnerKind + (1 if Cowboy side up)``."""
    return 2 * kind + int(cowboy)


# Specialist-side codes of the scoring partners.
_DIGGER = partner_code(PartnerKind.GOLD_DIGGER, False)
_TRAPPER = partner_code(PartnerKind.TRAPPER, False)
_FARMER = partner_code(PartnerKind.FARMER, False)


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """One seat's score by category (RULES.md section 5) with the tie-break keys."""

    territories: int
    resources: int
    partners: int
    scenario: int
    total: int
    largest_territory: int
    cows: int

    @property
    def rank_key(self) -> tuple[int, int, int]:
        """What ranks the seats at the end: the total, then the largest territory, then the
        cows (RULES.md section 5, ruling R18); a higher key ranks first, equal keys share."""
        return (self.total, self.largest_territory, self.cows)


def _scenario_value(size: int) -> int:
    return 10 + 10 * (size - 3)


RanchView = tuple[
    Grid,
    KindTable,
    Sequence[int],
    int,
    int,
    Sequence[int],
    Sequence[int],
    Sequence[int],
    str | None,
]
"""One ranch as :func:`score_masks` takes it (and :func:`score_points`, unpacked): grid, symbol
table, landscape bitboards, cow and partner bitboards, per-cell kinds, cows, partner codes,
scenario."""


def score_ranch(
    grid: Grid,
    table: KindTable,
    kinds: Sequence[int],
    cows: Sequence[int],
    partners: Sequence[int],
    scenario: str | None,
) -> ScoreBreakdown:
    """Score one ranch given as per-cell lists.

    Args:
        grid: the ranch grid.
        table: symbol lookups per cell content.
        kinds: per cell, the content index (plot kind or bonus tile side), ``-1`` if empty.
        cows: per cell, the cows standing there.
        partners: per cell, :func:`partner_code` of the token there, or ``-1``.
        scenario: Legends scenario name, or ``None``.
    """
    land_bb = [0] * 6
    cow_bb = partner_bb = 0
    for c, k in enumerate(kinds):
        if k >= 0:
            land_bb[table.land[k]] |= 1 << c
        if cows[c]:
            cow_bb |= 1 << c
        if partners[c] >= 0:
            partner_bb |= 1 << c
    return score_masks((grid, table, land_bb, cow_bb, partner_bb, kinds, cows, partners, scenario))


def score_masks(view: RanchView) -> ScoreBreakdown:
    """Score one ranch from its bitboards and per-cell lists (:data:`RanchView`), with the
    tie-break keys (largest territory of any landscape, cows on the ranch)."""
    territories, resources, partners_pts, bonus = score_points(*view)
    grid, _, land_bb, cow_bb, _, _, cows, _, _ = view
    largest = max((g.bit_count() for mask in land_bb for g in grid.components(mask)), default=0)
    return ScoreBreakdown(
        territories=territories,
        resources=resources,
        partners=partners_pts,
        scenario=bonus,
        total=territories + resources + partners_pts + bonus,
        largest_territory=largest,
        cows=sum(cows[c] for c in bit_indices(cow_bb)),
    )


def score_points(
    grid: Grid,
    table: KindTable,
    land_bb: Sequence[int],
    cow_bb: int,
    partner_bb: int,
    kinds: Sequence[int],
    cows: Sequence[int],
    partners: Sequence[int],
    scenario: str | None,
) -> tuple[int, int, int, int]:
    """The points of one ranch: (territories, resources, partners, scenario).

    Only territories holding cows score, so they are found by flooding from cow cells; the
    other cells are never visited one by one.
    """
    territories = 0
    herds = cow_bb & ~land_bb[CORN]  # cornfields score 0 (and hold no cows, ruling R5)
    land_of = table.land
    while herds:  # one flood per territory holding cows, from its lowest cow cell
        low = herds & -herds
        group = grid.flood(low, land_bb[land_of[kinds[low.bit_length() - 1]]])
        in_group = group & herds
        herds ^= in_group
        herd = 0
        while in_group:
            bit = in_group & -in_group
            herd += cows[bit.bit_length() - 1]
            in_group ^= bit
        territories += group.bit_count() * herd
    packed = sum(map(table.resources_packed.__getitem__, kinds))
    gold = packed & _RES_MASK
    beaver = (packed >> _RES_BITS) & _RES_MASK
    corn = packed >> 2 * _RES_BITS
    diggers = trappers = farmers = 0
    bandit_bb = 0
    rest = partner_bb
    while rest:
        low = rest & -rest
        rest ^= low
        c = low.bit_length() - 1
        code = partners[c]
        if code == _DIGGER:
            diggers += 1
        elif code == _TRAPPER:
            trappers += 1
        elif code == _FARMER:
            farmers += 1
        elif not code & 1:  # Desperado or Cattle Thief, specialist side up (ruling R20)
            bandit_bb |= low
    resources = gold + beaver + corn
    partners_pts = diggers * gold + trappers * beaver + farmers * corn
    if scenario is None:
        return territories, resources, partners_pts, 0
    bonus = 0
    if scenario == "timber_rafting":  # forests of 3+ touching the river: flood from the river
        forest = land_bb[FOREST]
        seeds = forest & grid.river_row
        while seeds:
            g = grid.flood(seeds & -seeds, forest)
            seeds &= ~g
            if g.bit_count() >= 3:
                bonus += _scenario_value(g.bit_count())
    elif scenario == "moon_river_city":
        bonus = sum(
            _scenario_value(g.bit_count())
            for g in grid.components(land_bb[FARM])
            if g.bit_count() >= 3
        )
    elif scenario == "gold_rush":
        tgold = table.gold
        gold_bb = 0
        cand = (
            land_bb[DESERT] | land_bb[CANYON] | land_bb[MEADOW]
        )  # gold lies only there (validated)
        while cand:
            low = cand & -cand
            cand ^= low
            if tgold[kinds[low.bit_length() - 1]]:
                gold_bb |= low
        for g in grid.components(gold_bb):
            if g.bit_count() >= 3:
                bonus += _scenario_value(sum(tgold[kinds[c]] for c in bit_indices(g)))
    elif scenario == "outlaws":
        bonus = sum(
            _scenario_value(g.bit_count())
            for g in grid.components(partner_bb)
            if g.bit_count() >= 3 and g & bandit_bb
        )
    else:
        raise ValueError(f"scenario: unknown scenario {scenario!r}")
    return territories, resources, partners_pts, bonus


def rank_winners(scores: Sequence[ScoreBreakdown]) -> list[int]:
    """Seats that win: highest total, then largest territory, then most cows; else shared
    (RULES.md section 5, ruling R18)."""
    best = max(s.rank_key for s in scores)
    return [i for i, s in enumerate(scores) if s.rank_key == best]


