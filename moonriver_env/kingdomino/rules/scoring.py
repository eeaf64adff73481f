"""Scoring a kingdom and ranking the players (RULES.md section 13, K6, K7, K8).

A territory is a group of orthogonally connected squares of one landscape (the castle belongs
to none); it scores its squares times its crowns, so a territory without crowns scores 0
(seed lines 124-127). Harmony adds 5 for a complete kingdom, Middle Kingdom 10 for the castle
in the centre (seed lines 144-145; ruling KR3 says where the centre of an incomplete kingdom
is). Players rank by total, then by their largest single territory, crowns or not; equal
keys share the win (seed line 131; ruling KR1: no "most crowns" step).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from moonriver_env.kingdomino.rules.components import Domino, Landscape
from moonriver_env.kingdomino.rules.config import parse_variants
from moonriver_env.kingdomino.rules.kingdom import Kingdom

__all__ = [
    "HARMONY_BONUS",
    "MIDDLE_KINGDOM_BONUS",
    "KingdomScore",
    "Territory",
    "is_centred",
    "kingdom_points",
    "largest_territory",
    "placement_gain",
    "placement_gains",
    "rank_winners",
    "score_kingdom",
]

HARMONY_BONUS = 5
MIDDLE_KINGDOM_BONUS = 10


@dataclass(frozen=True, slots=True)
class Territory:
    """One territory: its landscape, squares, crowns and points (squares x crowns)."""

    landscape: Landscape
    squares: int
    crowns: int
    points: int


@dataclass(frozen=True, slots=True)
class KingdomScore:
    """A kingdom's score, by part, with the tie-break key."""

    territories: tuple[Territory, ...]
    territory_points: int
    harmony: int
    middle_kingdom: int
    total: int
    largest_territory: int
    crowns: int

    @property
    def bonuses(self) -> int:
        """The bonus points (Harmony + Middle Kingdom; the score pad's "Sonderpunkte")."""
        return self.harmony + self.middle_kingdom

    @property
    def rank_key(self) -> tuple[int, int]:
        """What ranks the players: total, then the largest single territory (seed line 131);
        a higher key ranks first, equal keys share the win."""
        return (self.total, self.largest_territory)


def is_centred(kingdom: Kingdom) -> bool:
    """Ruling KR3: the castle is in the centre when every square lies within
    ``(size - 1) / 2`` rows and columns of it, i.e. the frame centred on the castle holds the
    whole kingdom (for a complete kingdom: the castle is its middle square)."""
    return not kingdom.occupied & ~kingdom.board.centred


def _crowns_in(region: int, crowns: tuple[int, int, int]) -> int:
    c1, c2, c3 = crowns
    return (region & c1).bit_count() + (region & c2).bit_count() + (region & c3).bit_count()


def score_kingdom(kingdom: Kingdom, variants: Iterable[str] | str = ()) -> KingdomScore:
    """The :class:`KingdomScore` of a kingdom under ``variants`` (only ``harmony`` and
    ``middle_kingdom`` add points); ``ValueError`` for an unknown variant name."""
    played = parse_variants(variants if isinstance(variants, str) else tuple(variants))
    grid = kingdom.board.grid
    territories = []
    largest = 0
    for land, mask in enumerate(kingdom.land):
        for region in grid.components(mask):
            squares = region.bit_count()
            crowns = _crowns_in(region, kingdom.crowns)
            largest = max(largest, squares)
            territories.append(Territory(Landscape(land), squares, crowns, squares * crowns))
    points = sum(t.points for t in territories)
    harmony = HARMONY_BONUS if "harmony" in played and kingdom.is_complete else 0
    middle = MIDDLE_KINGDOM_BONUS if "middle_kingdom" in played and is_centred(kingdom) else 0
    return KingdomScore(
        territories=tuple(territories),
        territory_points=points,
        harmony=harmony,
        middle_kingdom=middle,
        total=points + harmony + middle,
        largest_territory=largest,
        crowns=kingdom.crowns[0].bit_count()
        + kingdom.crowns[1].bit_count()
        + kingdom.crowns[2].bit_count(),
    )


def kingdom_points(kingdom: Kingdom, harmony: bool = False, middle: bool = False) -> int:
    """The total of :func:`score_kingdom` without the breakdown (the agents' fast path):
    only territories that hold a crown are flooded."""
    grid = kingdom.board.grid
    crowns = kingdom.crowns
    c1 = crowns[0]
    total = 0
    for mask in kingdom.land:
        with_crown = mask & c1
        while with_crown:
            region = grid.flood(with_crown & -with_crown, mask)
            total += region.bit_count() * _crowns_in(region, crowns)
            with_crown &= ~region
    if harmony and kingdom.occupied.bit_count() == kingdom.board.size**2:
        total += HARMONY_BONUS
    if middle and not kingdom.occupied & ~kingdom.board.centred:
        total += MIDDLE_KINGDOM_BONUS
    return total


def largest_territory(kingdom: Kingdom) -> int:
    """The squares of the kingdom's largest single territory, crowns or not (the tie-break,
    seed line 131; :attr:`KingdomScore.largest_territory` without the breakdown)."""
    grid = kingdom.board.grid
    largest = 0
    for mask in kingdom.land:
        while mask.bit_count() > largest:
            region = grid.flood(mask & -mask, mask)
            largest = max(largest, region.bit_count())
            mask &= ~region
    return largest


def rank_winners(keys: Sequence[tuple[int, int]]) -> list[int]:
    """The seats whose rank key is the highest (several: a shared win)."""
    best = max(keys)
    return [s for s, k in enumerate(keys) if k == best]


def placement_gain(
    kingdom: Kingdom,
    domino: Domino,
    cell: int,
    direction: int,
    harmony: bool = False,
    middle: bool = False,
) -> int:
    """The points ``kingdom.place(domino, cell, direction)`` adds (the agents' fast path,
    equal to the difference of :func:`kingdom_points`): only the territories the two new
    squares join are flooded."""
    board = kingdom.board
    grid = board.grid
    a = 1 << cell
    b = 1 << (cell + grid.delta[direction])
    land = kingdom.land
    crowns = kingdom.crowns
    gain = 0
    l1, l2 = domino.land1, domino.land2
    parts: tuple[tuple[int, int, int], ...]
    if l1 == l2:
        parts = ((l1, a | b, domino.crowns1 + domino.crowns2),)
    else:
        parts = ((l1, a, domino.crowns1), (l2, b, domino.crowns2))
    for lnd, new, k in parts:
        mask = land[lnd]
        touching = grid.neighbours(new) & mask
        squares = new.bit_count()
        crown_sum = k
        old = 0
        while touching:
            region = grid.flood(touching & -touching, mask)
            sq = region.bit_count()
            cr = _crowns_in(region, crowns)
            squares += sq
            crown_sum += cr
            old += sq * cr
            touching &= ~region
        gain += squares * crown_sum - old
    if middle and not kingdom.occupied & ~board.centred and (a | b) & ~board.centred:
        gain -= MIDDLE_KINGDOM_BONUS
    if harmony and kingdom.occupied.bit_count() + 2 == board.size**2:
        gain += HARMONY_BONUS
    return gain


def _joined_gain(
    regions: Sequence[tuple[int, int, int]], touch: int, squares: int, crowns: int
) -> int:
    """The points new squares (``squares`` of them, ``crowns`` crowns, one landscape) add
    when they join the territories of ``regions`` (``(mask, squares, crowns)``) that
    ``touch`` meets: the joined territory's points minus those of the parts it absorbs."""
    absorbed = 0
    for mask, s, c in regions:
        if mask & touch:
            squares += s
            crowns += c
            absorbed += s * c
    return squares * crowns - absorbed


def placement_gains(
    kingdom: Kingdom,
    domino: Domino,
    ids: Sequence[int],
    harmony: bool = False,
    middle: bool = False,
) -> list[int]:
    """:func:`placement_gain` of every placement id in ``ids`` (``direction * cells +
    cell``), at once: the territories of the domino's landscapes are found once and each
    placement only looks up the ones its squares touch (the greedy agents' hot path)."""
    board = kingdom.board
    grid = board.grid
    cells = board.cells
    delta = grid.delta
    nbmask = board.neighbour_mask
    crowns = kingdom.crowns
    l1, l2 = domino.land1, domino.land2
    k1, k2 = domino.crowns1, domino.crowns2
    regions1 = [
        (r, r.bit_count(), _crowns_in(r, crowns)) for r in grid.components(kingdom.land[l1])
    ]
    regions2 = (
        regions1
        if l2 == l1
        else [(r, r.bit_count(), _crowns_in(r, crowns)) for r in grid.components(kingdom.land[l2])]
    )
    centred = board.centred
    keeps_centre = middle and not kingdom.occupied & ~centred
    completes = harmony and kingdom.occupied.bit_count() + 2 == board.size**2
    bonus = HARMONY_BONUS if completes else 0
    same = l1 == l2
    out = []
    for a in ids:
        cell = a % cells
        other = cell + delta[a // cells]
        if same:
            gain = _joined_gain(regions1, nbmask[cell] | nbmask[other], 2, k1 + k2)
        else:
            gain = _joined_gain(regions1, nbmask[cell], 1, k1)
            gain += _joined_gain(regions2, nbmask[other], 1, k2)
        if keeps_centre and ((1 << cell) | (1 << other)) & ~centred:
            gain -= MIDDLE_KINGDOM_BONUS
        out.append(gain + bonus)
    return out
