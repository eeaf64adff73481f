"""The component data, the Legends boards and the game configuration (rulings R7-R9), and
illegal actions: rejected with a message, the state unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from positions import act, legal_of, position
from rule_cases import C4, begin_turn, custom_components, last_turn, legends, rule_table, snapshot

from moonriver_env.rules import GameConfig, IllegalActionError, PartnerKind, Phase, new_game

RULES, rule = rule_table()


# =============================================================================== R7 - R9


@rule("R7-engine-reads-the-component-data")
def _() -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["boards"]["camp"]["bridges"] = [1]

    st = position(GameConfig(num_players=4, components=custom_components(edit)), held=[1, 23])
    # The only bridge b1 has 3 neighbours (a1, c1, b2): 3 + 3 = 6 placements.
    assert len(legal_of(st, "place")) == 6


@rule("R8-partner-tokens-counted-5-5-3-5-2")
def _() -> None:
    st = new_game(C4, seed=9)
    tokens = sorted([t for t in st.saloon if t >= 0] + list(st.stack))
    assert (
        tokens
        == [PartnerKind.DESPERADO] * 5
        + [PartnerKind.CATTLE_THIEF] * 5
        + [PartnerKind.GOLD_DIGGER] * 3
        + [PartnerKind.TRAPPER] * 5
        + [PartnerKind.FARMER] * 2
    )
    assert -1 not in st.saloon  # 5 revealed


@pytest.mark.parametrize(
    ("board", "bridges", "slots"),
    [
        pytest.param("camp", ["a1", "c1", "e1"], 3, id="R9-camp"),
        pytest.param("mary", ["c1"], 4, id="R9-mary"),
        pytest.param("wesley", ["b1", "d1"], 3, id="R9-wesley"),
        pytest.param("calamity", ["a1", "e1"], 3, id="R9-calamity"),
        pytest.param("big_jo", ["a1", "c1", "e1"], 2, id="R9-big-jo"),
    ],
)
def test_r9_boards(board: str, bridges: list[str], slots: int) -> None:
    if board == "camp":
        cfg = turn_cfg = GameConfig(num_players=2)
    else:
        other = next(b for b in ("mary", "wesley", "calamity", "big_jo") if b != board)
        cfg = legends(board, other)  # seat 0 has the board
        turn_cfg = legends(other, board)  # seat 1 has the board (begin_turn plays seat 1)
    # Bridges: on an empty ranch, "place X N" from a river-row cell is legal iff it is a bridge.
    st = position(cfg, held=[1, 23])
    found = [f"{c}1" for c in "abcde" if st.is_legal(st.string_to_action(f"place 0+1 {c}1 N"))]
    assert found == bridges
    # Slots: a reserve of slots - 1 plus the collected plot fits; one more overflows.
    st = begin_turn(turn_cfg, reserve=[1] * (slots - 1), collected=23)
    assert st.phase == Phase.EXPAND
    st = begin_turn(turn_cfg, reserve=[1] * slots, collected=23)
    assert st.phase == Phase.MUST_EXPAND


# =============================================================================== config errors


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        pytest.param({"num_players": 5}, "num_players", id="config-5-players"),
        pytest.param({"num_players": 1}, "num_players", id="config-1-player"),
        pytest.param({"mode": "expert"}, "mode", id="config-unknown-mode"),
        pytest.param(
            {"mode": "legends", "scenario": "wild_west"}, "scenario", id="config-unknown-scenario"
        ),
        pytest.param({"scenario": "gold_rush"}, "scenario", id="config-scenario-in-base-mode"),
        pytest.param({"boards": ("mary",) * 4}, "boards", id="config-boards-in-base-mode"),
        pytest.param(
            {"mode": "legends", "boards": ("mary", "wesley", "mary", "big_jo")},
            "boards",
            id="config-legends-board-twice",
        ),
        pytest.param(
            {"num_players": 3, "mode": "legends", "boards": ("mary", "wesley")},
            "boards",
            id="config-wrong-number-of-boards",
        ),
        pytest.param(
            {"mode": "legends", "boards": ("mary", "wesley", "calamity", "camp")},
            "boards",
            id="config-camp-is-not-a-legends-board",
        ),
    ],
)
def test_config_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError) as info:
        GameConfig(**kwargs)
    assert str(info.value).startswith(field), str(info.value)


# =============================================================================== illegal actions


@pytest.mark.parametrize(
    ("phase", "text"),
    [
        pytest.param(Phase.EXPAND, "place 0+1 b3 N", id="illegal-placement-away-from-bridges"),
        pytest.param(Phase.EXPAND, "discard 0+1", id="illegal-discard-when-optional"),
        pytest.param(Phase.MUST_EXPAND, "stop", id="illegal-stop-on-overflow"),
        pytest.param(Phase.SELECT, "stop", id="illegal-stop-in-select"),
        pytest.param(Phase.SELECT, "recruit c0 s0 specialist", id="illegal-recruit-in-select"),
    ],
)
def test_illegal_action(phase: Phase, text: str) -> None:
    st = position(held=[1, 12, 23, 19] if phase == Phase.MUST_EXPAND else [1, 23], phase=phase)
    before = snapshot(st)
    before_json = st.to_json()
    action = st.string_to_action(text)
    with pytest.raises(IllegalActionError) as info:
        st.apply(action)
    message = str(info.value)
    assert text in message and phase.name in message, message
    assert snapshot(st) == before
    assert st.to_json() == before_json


@rule("illegal-action-out-of-range")
def _() -> None:
    st = position(held=[1, 23])
    before = snapshot(st)
    with pytest.raises(IllegalActionError):
        st.apply(C4.num_actions)
    with pytest.raises(IllegalActionError):
        st.apply(-1)
    assert snapshot(st) == before


@rule("illegal-action-after-game-over")
def _() -> None:
    st = last_turn(
        held=[1, 23],
        phase=Phase.FINAL_EXPAND,
        final_round=True,
    )
    act(st, "place 0+1 a1 N")
    assert st.phase == Phase.GAME_OVER
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as info:
        act(st, "stop")
    message = str(info.value)
    assert "stop" in message and ("GAME_OVER" in message or "game is over" in message), message
    assert snapshot(st) == before


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
