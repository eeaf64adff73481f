"""The rulebook's worked scoring example (RULES.md section 5), on a hand-built ranch.

desert 5 plots x 1 cow = 5, canyon 7 x 3 = 21, meadow 3 x 2 = 6, farm 4 x 4 = 16, forest
without cows = 0 (territories 48); resources 4 gold + 1 beaver + 18 corn = 23; one Farmer
+18: total 89.

The layout (5 x 5, river row last; kind numbers of components.md)::

    row 5   7    7    6    6c1  9c1     canyon x5
    row 4   8c1  9    12   14c1 14c1    canyon x2 (a4, b4), meadow x3 (c4, d4, e4)
    row 3   2    1    1    1    4c1     desert x5
    row 2   25c1 25c1 24c1pFs 23c1 20  farm x4 (a2-d2), forest x1 (e2)
    row 1   22   22   22   21   .       cornfield x4, e1 empty

Checked by hand:
  canyon: a5-e5 and a4, b4 (a4 touches a5, b4 touches b5): one territory of 7; cows on d5,
      e5, a4 -> 3. Gold: a5 (7), b5 (7) -> 2.
  meadow: c4, d4, e4 in a row: 3 plots; cows on d4, e4 -> 2 (overpopulation left 1 each).
      Gold: c4 (12) -> 1. Meadow and canyon are different landscapes: no merge.
  desert: row 3, 5 plots; 1 cow (e3). Gold: a3 (2) -> 1.
  farm: a2-d2, 4 plots, 4 cows (one each); the Farmer, specialist side up, on c2 (kind 24
      shows a circle).
  forest: e2 alone (kind 20: 1 beaver), no cow.
  cornfields: a1, b1, c1 (22: 5 corn each) and d1 (21: 3 corn) -> 18 corn.
  gold 2 + 1 + 1 = 4.
  Territories 5*1 + 7*3 + 3*2 + 4*4 + 0 = 48; resources 4 + 1 + 18 = 23; partners: one
  Farmer x 18 corn = 18; total 89. Largest territory: the canyon, 7. Cows: 3+2+1+4 = 10.
"""

from __future__ import annotations

import pytest
from positions import parse_ranch, position

from moonriver_env.family.geometry import grid_for_rows
from moonriver_env.rules import GameConfig, ScoreBreakdown, score_ranch

EXAMPLE = """
7    7    6    6c1  9c1
8c1  9    12   14c1 14c1
2    1    1    1    4c1
25c1 25c1 24c1pFs 23c1 20
22   22   22   21   .
"""

EXPECTED = ScoreBreakdown(
    territories=48, resources=23, partners=18, scenario=0, total=89, largest_territory=7, cows=10
)


def test_layout_is_the_example():
    """The hand-built ranch really has the example's contents."""
    kinds, cows, partners = parse_ranch(EXAMPLE, 5, 25)
    by_kind = sorted(k + 1 for k in kinds if k >= 0)
    assert by_kind == sorted(
        [7, 7, 6, 6, 9, 8, 9, 12, 14, 14, 2, 1, 1, 1, 4, 25, 25, 24, 23, 20, 22, 22, 22, 21]
    )
    assert sum(cows) == 10
    assert [p for p in partners if p >= 0] == [2 * 4]  # one Farmer (PartnerKind 4), specialist side


@pytest.mark.parametrize("players", [4, 3], ids=["4p", "3p"])
def test_worked_example_scores_89(players: int) -> None:
    state = position(GameConfig(num_players=players), ranch=EXAMPLE)
    assert state.scores()[0] == EXPECTED


def test_worked_example_on_the_two_player_grid():
    """The same ranch in the lowest 5 rows of the 5 x 10 grid scores the same."""
    state = position(GameConfig(num_players=2), ranch=EXAMPLE)
    assert state.scores()[0] == EXPECTED


def test_worked_example_with_score_ranch():
    state = position(GameConfig(num_players=4), ranch=EXAMPLE)
    kinds, cows, partners = parse_ranch(EXAMPLE, 5, 25)
    got = score_ranch(grid_for_rows(5), state.kind_table, kinds, cows, partners, None)
    assert got == EXPECTED
    assert (got.territories, got.resources, got.partners, got.scenario, got.total) == (
        48,
        23,
        18,
        0,
        89,
    )


def test_farmer_on_cowboy_side_scores_nothing():
    """The same token turned to its Cowboy side is a Cowboy: no Farmer bonus (89 - 18)."""
    state = position(GameConfig(num_players=4), ranch=EXAMPLE.replace("pFs", "pFc"))
    s = state.scores()[0]
    assert (s.partners, s.total) == (0, 71)
