"""Shared helpers of the rule-by-rule tests ``tests/test_rules_*.py`` (not a test module).

The rule tests check the engine against RULES.md (sections 2-7, rulings R1-R20), one file
a concern.

Table-driven: every row is one rule case and its id names the RULES.md section (``s3-...``)
or ruling (``R12-...``) it pins. The behavioural rows are functions registered with
:func:`rule` and run by ``test_rule``; scoring, scenarios, tie-breaks and config errors are
data tables. Every expected value is derived by hand from the rules (the comments say how),
never read back from the engine.

Positions come from ``tests/positions.py`` (grid text: river row last; kind numbers of
RULES.md section 9: 1 desert, 3 desert skull, 4 desert cow, 6 canyon, 8 canyon skull, 9 canyon
cow, 12 meadow gold, 13 meadow circle, 14 meadow 2 cows, 19 forest, 20 forest beaver,
21/22 cornfield 3/5 corn, 23 farm, 24 farm circle, 25 farm cow + circle).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
from positions import act, position

from moonriver_env.moonriver.rules.components import Components, parse_components
from moonriver_env.rules import GameConfig, GameState, Phase

C4 = GameConfig(num_players=4)
C2 = GameConfig(num_players=2)
QUIET_SALOON = ["gold_digger", "trapper", "farmer", "trapper", "gold_digger"]  # no effects
NK = 25  # plot kinds; bonus tile pseudo-kinds follow: A0 25, A1 26, B0 27, B1 28


def legends(*boards: str, scenario: str = "gold_rush") -> GameConfig:
    return GameConfig(num_players=len(boards), mode="legends", scenario=scenario, boards=boards)


def raw_components() -> dict[str, Any]:
    text = (
        resources.files("moonriver_env.moonriver.rules") / "data" / "components.json"
    ).read_text()
    return json.loads(text)


def custom_components(edit: Callable[[dict[str, Any]], None]) -> Components:
    raw = copy.deepcopy(raw_components())
    edit(raw)
    return parse_components(raw, strict=False)


def begin_turn(
    config: GameConfig = C4,
    *,
    ranch: str = "",
    reserve: tuple[int, ...] | list[int] = (),
    collected: int = 1,
    helds: dict[int, list[int]] | None = None,
    ranches: dict[int, str] | None = None,
    **kw: Any,
) -> GameState:
    """Seat 0 (position 0) selects; seat 1's turn starts: it collects ``collected`` (a kind
    number, position 1 of the column) onto ``reserve``; seat 1's ranch is ``ranch``."""
    n = config.num_players
    column = [0, collected, 1, 1] if n != 3 else [0, collected, 1, 0]
    st = position(
        config,
        seat=0,
        phase=Phase.SELECT,
        ranches={1: ranch, **(ranches or {})},
        helds={1: list(reserve), **(helds or {})},
        column=column,
        **kw,
    )
    act(st, "claim 0")
    assert st.seat == 1
    return st


def last_turn(config: GameConfig = C4, **kw: Any) -> GameState:
    """A position where the last ranchero of the round acts: seat 3 at turn position 3, every
    position of the column claimed (seat i at position i)."""
    return position(config, seat=3, turn_pos=3, claims=[0, 1, 2, 3], **kw)


def round_end(config: GameConfig = C4, **kw: Any) -> GameState:
    """:func:`last_turn` at its Select: the next column is claimed but for position 3, so
    ``claim 3`` ends the round."""
    return last_turn(config, next_claims=[0, 1, 2, -1], phase=Phase.SELECT, **kw)


def snapshot(st: GameState) -> tuple[Any, ...]:
    return (
        st.phase,
        st.seat,
        [list(h) for h in st.held],
        [list(k) for k in st.kinds],
        [list(c) for c in st.cows],
        [list(p) for p in st.partners],
        st.supply,
        list(st.saloon),
        list(st.stack),
        list(st.pile),
        list(st.cur_col),
        list(st.cur_claim),
        list(st.next_col),
        list(st.next_claim),
        list(st.discarded),
        list(st.removed),
        st.dominoes,
        list(st.tiles),
        list(st.bonus_done),
        list(st.piece),
        list(st.skulls),
        list(st.circles),
        list(st.legal_action_list()),
    )


RuleCase = Callable[[], None]


def rule_table() -> tuple[list[Any], Callable[[str], Callable[[RuleCase], RuleCase]]]:
    """A test file's rule table and its decorator: ``@rule("s3-...")`` registers a rule case
    (a function that asserts) under that id; the file's ``test_rule`` runs the table."""
    cases: list[Any] = []

    def rule(case_id: str) -> Callable[[RuleCase], RuleCase]:
        def register(fn: RuleCase) -> RuleCase:
            cases.append(pytest.param(fn, id=case_id))
            return fn

        return register

    return cases, rule
