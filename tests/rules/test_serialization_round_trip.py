"""Save/load round trips (moonriver_env/moonriver/rules/serialization.py) and the consistency checker
(moonriver_env/moonriver/rules/invariants.py).

Round trips at every point of seeded random games in every mode; identical continuations of a
loaded game and its original; the RNG continuing identically; non-default component data;
the invariants after every action. The malformed saves are in ``tests/rules/test_serialization.py``.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest
from saved_states import CONFIGS, saved_position, states_of_game, step_randomly

from moonriver_env.moonriver.rules.components import parse_components
from moonriver_env.moonriver.rules.invariants import check_invariants
from moonriver_env.moonriver.rules.serialization import (
    SCHEMA_VERSION,
    components_to_raw,
    state_from_json,
    state_to_json,
)
from moonriver_env.rules import (
    GameConfig,
    GameState,
    StateFormatError,
    default_components,
    new_game,
)

# ------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", list(CONFIGS))
def test_round_trip_at_every_point_of_a_game(name: str) -> None:
    config = CONFIGS[name]
    for seed in (11, 12):
        for state in states_of_game(config, seed):
            text = state.to_json()
            loaded = GameState.from_json(text)
            assert loaded.to_json() == text
            assert loaded.config == state.config
            assert loaded.legal_action_list() == state.legal_action_list()
            assert loaded.current_seat == state.current_seat
            assert loaded.phase is state.phase
            assert loaded.occ == state.occ and loaded.land_bb == state.land_bb
            assert loaded.cow_bb == state.cow_bb and loaded.partner_bb == state.partner_bb
            assert loaded.slots == state.slots and loaded.bridges == state.bridges


@pytest.mark.parametrize("name", list(CONFIGS))
def test_loaded_game_continues_identically_to_the_end(name: str) -> None:
    config = CONFIGS[name]
    seed = 21
    states = states_of_game(config, seed)
    for index in (0, len(states) // 3, 2 * len(states) // 3, len(states) - 2):
        original = states[index].clone()
        loaded = GameState.from_json(original.to_json())
        chooser = random.Random(1000 + index)
        while not original.is_terminal:
            legal = original.legal_action_list()
            assert loaded.legal_action_list() == legal
            action = chooser.choice(legal)
            for state in (original, loaded):
                state.apply(action)
            assert loaded.to_json() == original.to_json()
        assert loaded.is_terminal
        assert loaded.scores() == original.scores()
        assert loaded.winners() == original.winners()


@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
def test_rng_continues_identically(bit_generator: str) -> None:
    state = new_game(GameConfig(num_players=3), seed=5)
    for _ in range(7):
        step_randomly(state, random.Random(3))
    if bit_generator != "PCG64":
        state.rng = np.random.Generator(getattr(np.random, bit_generator)(77))
    state.rng.random(3)  # advance, including a buffered half-word where the generator has one
    state.rng.integers(1 << 20)
    loaded = GameState.from_json(state.to_json())
    assert json.loads(state.to_json())["rng"]["bit_generator"] == bit_generator
    assert type(loaded.rng.bit_generator).__name__ == bit_generator
    for _ in range(5):
        assert loaded.rng.random() == state.rng.random()
        assert loaded.rng.integers(1 << 40) == state.rng.integers(1 << 40)


def test_new_game_rng_state_is_saved_before_any_draw_after_setup() -> None:
    state = new_game(GameConfig(num_players=4, mode="legends", scenario="random"), seed=9)
    loaded = GameState.from_json(state.to_json())
    assert loaded.rng.random() == state.rng.random()


def test_output_is_deterministic_and_has_the_documented_layout() -> None:
    config = CONFIGS["3p-legends-outlaws-explicit-boards"]
    states = states_of_game(config, 4)
    state = states[len(states) // 2]
    text = state_to_json(state)
    assert text == state_to_json(state) == state.to_json()
    assert text == state_to_json(state.clone())
    doc = json.loads(text)
    assert doc["format"] == "moonriver-state"
    assert doc["version"] == SCHEMA_VERSION == 1
    assert doc["config"] == {
        "num_players": 3,
        "mode": "legends",
        "scenario": "outlaws",
        "boards": ["big_jo", "mary", "wesley"],
        "auto_resolve": False,
        "components": None,
    }
    assert doc["phase"] == state.phase.name
    assert [seat["board"] for seat in doc["seats"]] == ["big_jo", "mary", "wesley"]
    assert all(
        list(seat) == ["board", "held", "kinds", "cows", "partners", "bonus_done"]
        for seat in doc["seats"]
    )
    for derived in ("land_bb", "occ", "cow_bb", "partner_bb", "slots", "bridges", "_legal", "_st"):
        assert derived not in doc
    assert list(doc)[:4] == ["format", "version", "config", "rng"]


def test_config_boards_and_scenario_as_configured() -> None:
    doc = json.loads(
        new_game(CONFIGS["2p-legends-random-scenario-random-boards"], seed=1).to_json()
    )
    assert doc["config"]["boards"] == "random" and doc["config"]["scenario"] == "random"
    assert doc["scenario"] in ("timber_rafting", "gold_rush", "outlaws", "moon_river_city")
    doc = json.loads(new_game(CONFIGS["4p-base"], seed=1).to_json())
    assert doc["config"]["boards"] is None and doc["config"]["scenario"] is None
    assert doc["scenario"] is None


def test_state_from_json_accepts_bytes() -> None:
    state = new_game(CONFIGS["3p-base"], seed=2)
    assert state_from_json(state.to_json().encode(), GameState).to_json() == state.to_json()


def test_every_state_field_is_saved_or_recomputed() -> None:
    """Guards the schema: a new GameState field must be saved (or listed as derived here)."""
    fields = {name for cls in type(new_game()).__mro__ for name in getattr(cls, "__slots__", ())}
    doc = json.loads(new_game(CONFIGS["2p-base"], seed=0).to_json())
    seat_fields = {"board": "boards"}
    saved = {k for k in doc if k not in ("format", "version", "seats")}
    saved |= {seat_fields.get(k, k) for k in doc["seats"][0]}
    recomputed = {
        "_st",
        "_legal",
        "land_bb",
        "occ",
        "cow_bb",
        "partner_bb",
        "slots",
        "bridges",
        "ranch_stamp",
    }
    assert fields == saved | recomputed


# ------------------------------------------------------------------------------ components


def test_components_to_raw_reads_back_equal_and_strict() -> None:
    raw = components_to_raw(default_components())
    assert parse_components(raw) == default_components()  # strict: the published data
    assert json.loads(json.dumps(raw)) == raw


def _modified_components(**changes: Any) -> GameConfig:
    raw = components_to_raw(default_components())
    for key, value in changes.items():
        if key == "desperados":
            raw["partners"]["desperado"] = value
        else:
            raw[key] = value
    return GameConfig(num_players=3, components=parse_components(raw, strict=False))


@pytest.mark.parametrize(
    "changes",
    [{"cows": 2}, {"saloon_size": 3, "desperados": 7}],
    ids=["cows-2", "saloon-3-desperados-7"],
)
def test_non_default_components_round_trip(changes: dict[str, Any]) -> None:
    config = _modified_components(**changes)
    states = states_of_game(config, 8)
    for state in states[:: max(1, len(states) // 40)] + [states[-1]]:
        text = state.to_json()
        doc = json.loads(text)
        assert doc["config"]["components"] == components_to_raw(config.components)
        loaded = GameState.from_json(text)
        assert loaded.config.components == config.components
        assert loaded.to_json() == text
    if "cows" in changes:
        assert sum(map(sum, states[-1].cows)) + states[-1].supply == 2


def test_default_components_are_saved_as_null_even_if_equal_but_not_identical() -> None:
    comps = parse_components(components_to_raw(default_components()))
    assert comps is not default_components()
    state = new_game(GameConfig(num_players=2, components=comps), seed=0)
    assert json.loads(state.to_json())["config"]["components"] is None


# ------------------------------------------------------------------------------ invariants


@pytest.mark.parametrize("name", ["2p-base", "3p-legends-random-scenario", "4p-base"])
def test_invariants_hold_after_every_action(name: str) -> None:
    for seed in range(3):
        state = new_game(CONFIGS[name], seed=seed)
        chooser = random.Random(seed)
        check_invariants(state)
        while not state.is_terminal:
            step_randomly(state, chooser)
            check_invariants(state)


def test_invariants_detect_a_stale_bitboard() -> None:
    state = saved_position("3p-cows")
    seat = next(s for s in range(3) if state.occ[s])
    cell = (state.occ[seat] & -state.occ[seat]).bit_length() - 1
    state.occ[seat] &= ~(1 << cell)
    with pytest.raises(StateFormatError, match=rf"^seats\[{seat}\]\.kinds\[{cell}\]: the bitboard"):
        check_invariants(state)
