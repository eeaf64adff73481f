"""Scoring, tie-breaks and scenarios (RULES.md sections 5 and 7; rulings R18, R20) as data
tables of hand-scored ranches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from positions import position, render_ranch
from rule_cases import custom_components, legends, rule_table

from moonriver_env.moonriver.rules.components import Components
from moonriver_env.moonriver.rules.scoring import rank_winners
from moonriver_env.rules import GameConfig, ScoreBreakdown

RULES, rule = rule_table()


# =============================================================================== scoring


def bd(terr: int, res: int, part: int, scen: int, largest: int, cows: int) -> ScoreBreakdown:
    return ScoreBreakdown(terr, res, part, scen, terr + res + part + scen, largest, cows)


@pytest.mark.parametrize(
    ("ranch", "expected"),
    [
        pytest.param("23c1 23 23 . .", bd(3, 0, 0, 0, 3, 1), id="s5-territory-plots-times-cows"),
        pytest.param("23c1 . 23c1 23 .", bd(1 + 2, 0, 0, 0, 2, 2), id="s5-two-territories-apart"),
        pytest.param("14c2 14 . . .", bd(4, 0, 0, 0, 2, 2), id="s5-two-cows-on-one-plot"),
        pytest.param("21 22 . . .", bd(0, 8, 0, 0, 2, 0), id="s5-cornfields-score-only-corn"),
        pytest.param("23c1 9c1 . . .", bd(1 + 1, 0, 0, 0, 1, 2), id="s5-landscapes-do-not-merge"),
        pytest.param("12pGs 7 2 . .", bd(0, 3, 3, 0, 1, 0), id="s5-gold-digger-per-gold"),
        pytest.param("20pTs 15 . . .", bd(0, 2, 2, 0, 2, 0), id="s5-trapper-per-beaver"),
        pytest.param("24pFs 24pFs 21 22 .", bd(0, 8, 16, 0, 2, 0), id="s5-farmers-per-corn"),
        pytest.param("12pGc 7 . . .", bd(0, 2, 0, 0, 1, 0), id="s5-cowboy-side-scores-nothing"),
        pytest.param("24pDs 24pCs 12 . .", bd(0, 1, 0, 0, 2, 0), id="s5-bandits-score-nothing"),
        pytest.param(
            "21 21 22 22 23c1", bd(1, 16, 0, 0, 4, 1), id="R18-largest-includes-cornfields"
        ),
        pytest.param("", bd(0, 0, 0, 0, 0, 0), id="s5-empty-ranch"),
        # Unreachable (R5: no cow on a cornfield), but pins "cornfields score 0" in isolation.
        pytest.param("21c1 22c1 . . .", bd(0, 8, 0, 0, 2, 2), id="s5-cornfield-territory-scores-0"),
    ],
)
def test_scoring(ranch: str, expected: ScoreBreakdown) -> None:
    st = position(ranch=ranch)
    assert st.scores()[0] == expected, render_ranch(st, 0)


@pytest.mark.parametrize(
    ("scores", "winners"),
    [
        pytest.param([bd(50, 0, 0, 0, 5, 9), bd(60, 0, 0, 0, 3, 1)], [1], id="s5-highest-total"),
        pytest.param(
            [bd(50, 0, 0, 0, 5, 1), bd(45, 5, 0, 0, 7, 0)], [1], id="R18-tie-largest-territory"
        ),
        pytest.param(
            [bd(50, 0, 0, 0, 7, 3), bd(40, 0, 0, 10, 7, 4), bd(50, 0, 0, 0, 6, 9)],
            [1],
            id="R18-tie-then-most-cows",
        ),
        pytest.param(
            [bd(50, 0, 0, 0, 7, 3), bd(30, 20, 0, 0, 7, 3), bd(49, 0, 0, 0, 9, 9)],
            [0, 1],
            id="R18-shared-win",
        ),
        pytest.param([bd(10, 0, 0, 0, 2, 2)] * 4, [0, 1, 2, 3], id="R18-four-way-shared-win"),
    ],
)
def test_rank_winners(scores: list[ScoreBreakdown], winners: list[int]) -> None:
    assert rank_winners(scores) == winners


# =============================================================================== section 7


def _gold2_components() -> Components:
    def edit(raw: dict[str, Any]) -> None:
        raw["plots"][6]["gold"] = 2  # kind 7: canyon with 2 gold

    return custom_components(edit)


# (scenario, ranch rows with the river row first, scenario points, test id naming the rule)
SCENARIO_CASES: list[tuple[str, str, int, str]] = [
    # 1 Timber Rafting: forest territory >= 3 with a plot in row 1 (the river row)
    ("timber_rafting", "19 19 19 . .", 10, "s7-timber-3"),
    ("timber_rafting", "19 . . . .\n19 19 19 . .", 20, "s7-timber-4"),
    ("timber_rafting", "19 19 19 . .\n. . . . .\n1 1 1 1 1", 0, "s7-timber-needs-row-0"),
    ("timber_rafting", "19 19 . . .", 0, "s7-timber-2-too-small"),
    ("timber_rafting", ". . . . 19\n. . . . 19\n19 19 19 . 19", 20, "s7-timber-two-groups"),
    ("timber_rafting", "19 19 19 . .\n19 19 19 . .", 40, "s7-timber-maximal-6"),
    # 2 Gold Rush: connected plots each with gold (any landscape), sized by gold symbols
    ("gold_rush", "2 7 12 . .", 10, "s7-gold-rush-3"),
    ("gold_rush", "2 7 . . .\n. . 12 . .", 0, "s7-gold-rush-diagonal-breaks"),
    ("gold_rush", "2 7 1 12 2", 0, "s7-gold-rush-plain-plot-breaks"),
    ("gold_rush", "2 7 12 2 7", 30, "s7-gold-rush-maximal-5"),
    # 3 Outlaws: connected partner plots >= 3 with a specialist-side bandit
    ("outlaws", "24pDs 24pGs 13pTs . .", 10, "s7-outlaws-3-desperado"),
    ("outlaws", "24pCs 13pGc 13pTs 17pFs .", 20, "s7-outlaws-4-thief"),
    ("outlaws", "24pDc 24pCc 13pGs . .", 0, "R20-outlaws-cowboy-side-bandits"),
    ("outlaws", "24pDs 24pGs . . .", 0, "s7-outlaws-2-too-small"),
    ("outlaws", "24pGs 24pTs 13pFs . .", 0, "s7-outlaws-no-bandit"),
    # 4 Moon River City: farm territory >= 3
    ("moon_river_city", "23 23 23 . .", 10, "s7-city-3"),
    ("moon_river_city", "23 23 . . .", 0, "s7-city-2-too-small"),
    ("moon_river_city", "23 23 23 23 23", 30, "s7-city-5"),
    ("moon_river_city", "23 . . . .\n23 23 . 23 23\n. . . 23 23", 30, "s7-city-two-groups"),
    ("moon_river_city", "23 23 23 . .\n23 23 23 . .", 40, "s7-city-maximal-6"),
]


@pytest.mark.parametrize(
    ("scenario", "ranch", "points"),
    [c[:3] for c in SCENARIO_CASES],
    ids=[c[3] for c in SCENARIO_CASES],
)
def test_scenarios(scenario: str, ranch: str, points: int) -> None:
    st = position(legends("mary", "wesley", "calamity", "big_jo", scenario=scenario), ranch=ranch)
    s = st.scores()[0]
    assert s.scenario == points, render_ranch(st, 0)
    assert s.total == s.territories + s.resources + s.partners + points


@rule("s7-gold-rush-counts-gold-symbols")
def _() -> None:
    # Kind 7 shows 2 gold in this data: 7 7 2 -> 3 plots, 2 + 2 + 1 = 5 gold: 10 + 10 * 2.
    cfg = GameConfig(
        num_players=4, mode="legends", scenario="gold_rush", components=_gold2_components()
    )
    st = position(cfg, ranch="7 7 2 . .")
    assert st.scores()[0].scenario == 30
    assert st.scores()[0].resources == 5


@rule("s7-base-game-has-no-scenario")
def _() -> None:
    st = position(ranch="23 23 23 23 23")
    assert st.scores()[0].scenario == 0


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
