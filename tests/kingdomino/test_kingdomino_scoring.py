"""Scoring written in the kingdom text form (RULES.md section 13, K6 and K8; rulings KR1-KR3).

The rulebook's own example (seed line 135, "Beispielhafte Prestigepunktberechnung") survives
only as its heading: its picture was lost with the text extraction. ``WORKED_EXAMPLE`` is a
complete kingdom built to exercise every line of the scoring rules (seed lines 124-127):
territories of every landscape, two separate wheat territories, one without crowns.
"""

from __future__ import annotations

import random

import pytest
from kingdomino_cases import all_configs, config_id

from moonriver_env.kingdomino import Kingdom, KingdominoConfig, Landscape, new_game, score_kingdom
from moonriver_env.kingdomino.rules.scoring import (
    is_centred,
    kingdom_points,
    largest_territory,
    rank_winners,
)

WORKED_EXAMPLE = """
W1 W0 F0 F1 F0
W0 W0 L1 L0 F0
S2 S0 CC L0 L2
G0 G1 M2 M0 W0
G0 G0 M0 W0 W0
"""


def test_worked_example_step_by_step() -> None:
    score = score_kingdom(Kingdom.from_text(WORKED_EXAMPLE))
    by_land = {}
    for t in score.territories:
        by_land.setdefault(t.landscape, []).append((t.squares, t.crowns, t.points))
    assert sorted(by_land[Landscape.WHEAT]) == [(3, 0, 0), (4, 1, 4)]  # scored apart; no crown: 0
    assert by_land[Landscape.FOREST] == [(4, 1, 4)]
    assert by_land[Landscape.LAKE] == [(4, 3, 12)]
    assert by_land[Landscape.SWAMP] == [(2, 2, 4)]
    assert by_land[Landscape.GRASSLAND] == [(4, 1, 4)]
    assert by_land[Landscape.MINE] == [(3, 2, 6)]
    assert score.territory_points == score.total == 34
    assert score.largest_territory == 4
    assert score.crowns == 10
    both = score_kingdom(Kingdom.from_text(WORKED_EXAMPLE), ("harmony", "middle_kingdom"))
    assert (both.harmony, both.middle_kingdom, both.bonuses, both.total) == (5, 10, 15, 49)


@pytest.mark.parametrize(
    ("name", "text", "variants", "total", "largest"),
    [
        # line 124: the castle belongs to no landscape, it does not join the two wheat squares
        ("castle-joins-nothing", "W1 CC W1", (), 2, 1),
        # line 126: separate territories of one landscape are scored one by one
        ("separate-territories", "W1 W0 CC W1 W0", (), 4, 2),
        # line 124: only orthogonal neighbours connect
        ("diagonal-is-apart", "W1 ..\nCC W1", (), 2, 1),
        # line 127: no crown, no points (the largest territory still counts for ties)
        ("no-crowns", "F0 F0 CC", (), 0, 2),
        # line 125: squares x crowns
        ("squares-times-crowns", "M2 M3\nM0 CC", (), 15, 3),
        # KR3: an incomplete kingdom within two squares of its castle keeps the centre
        ("middle-incomplete", "CC W0", ("middle_kingdom",), 10, 1),
        ("middle-two-each-side", "W0 W0 CC W1 W0", ("middle_kingdom",), 12, 2),
        ("middle-lost-three-away", "CC W0 W0 W1", ("middle_kingdom",), 3, 3),
        ("middle-lost-vertically", "W0\nW0\nW1\nCC", ("middle_kingdom",), 3, 3),
        # KR2: Harmony needs a complete kingdom (an incomplete one had a discard)
        ("harmony-incomplete", "CC W1", ("harmony",), 1, 1),
    ],
)
def test_scoring_cases(name: str, text: str, variants, total: int, largest: int) -> None:
    kingdom = Kingdom.from_text(text)
    score = score_kingdom(kingdom, variants)
    assert (score.total, score.largest_territory) == (total, largest), name
    assert kingdom_points(kingdom, "harmony" in variants, "middle_kingdom" in variants) == total


def test_kr3_middle_kingdom_in_the_seven_by_seven_frame() -> None:
    wide = Kingdom.from_text("W0 W0 W0 CC W0 W0 W0", size=7)
    assert is_centred(wide)
    assert score_kingdom(wide, ("middle_kingdom",)).middle_kingdom == 10
    assert not is_centred(Kingdom.from_text("W0 W0 W0 W0 CC W0 W0", size=7))
    # the same kingdom in a 5 x 5 frame would not fit; three squares out is off-centre in 7 x 7
    assert is_centred(Kingdom.from_text("W0 W0 W0 CC", size=7))
    assert not is_centred(Kingdom.from_text("W0 W0 W0 CC", size=5))


def test_kr1_ties_go_to_the_largest_territory_then_are_shared() -> None:
    """Seed line 131; the English edition's "most crowns" step is not played (KR1)."""
    a = score_kingdom(Kingdom.from_text("W1 W0 W0 CC"))  # 3 points, largest 3, 1 crown
    b = score_kingdom(Kingdom.from_text("M3 CC"))  # 3 points, largest 1, 3 crowns
    c = score_kingdom(Kingdom.from_text("CC S1 S0 S0"))  # 3 points, largest 3, 1 crown
    d = score_kingdom(Kingdom.from_text("CC F1 F0 F0\n.. M0 .. .."))  # same, 1 crown
    e = score_kingdom(Kingdom.from_text("M1 CC L1 L0 L0\n.. .. .. .. M1"))  # 5 points
    assert (a.total, b.total, c.total, d.total) == (3, 3, 3, 3)
    assert rank_winners([a.rank_key, b.rank_key]) == [0]  # larger territory beats more crowns
    assert rank_winners([a.rank_key, c.rank_key, d.rank_key]) == [0, 1, 2]  # shared
    assert (b.crowns, c.crowns) == (3, 1)  # more crowns would have broken this tie: no
    assert rank_winners([b.rank_key, c.rank_key]) == [1]
    assert rank_winners([a.rank_key, e.rank_key]) == [1]  # points first


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        score_kingdom(Kingdom.from_text("CC"), ("harmonie",))


@pytest.mark.parametrize("config", all_configs(), ids=config_id)
def test_rank_keys_and_largest_territory_agree_with_the_breakdown(config: KingdominoConfig) -> None:
    """The fast paths (kept in each kingdom's memo) against the full breakdown, at every
    decision of a random game: the largest territory of each kingdom, and each seat's rank
    key (in a Dynasty with the finished games' totals and largest territories)."""
    state = new_game(config, seed=3)
    rng = random.Random(3)
    checked = 0
    while True:
        scores = state.scores()
        for kingdom, sc in zip(state.kingdoms, scores, strict=True):
            assert largest_territory(kingdom) == sc.largest_territory
        keys = []
        for s, sc in enumerate(scores):
            total, largest = sc.total, sc.largest_territory
            for game in state.results:
                total += game[2 * s]
                largest = max(largest, game[2 * s + 1])
            keys.append((total, largest))
        assert state.rank_keys() == keys
        assert state.points() == [k[0] for k in keys]
        checked += 1
        if state.is_terminal:
            break
        state.apply(rng.choice(state.legal_action_list()))
    assert checked == config.max_game_length + 1
