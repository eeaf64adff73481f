"""Save/load of game states (moonriver_env/rules/serialization.py) and the consistency checker
(moonriver_env/rules/invariants.py).

Round trips at every point of seeded random games in every mode; identical continuations of a
loaded game and its original; the RNG continuing identically; non-default component data; and
a table of malformed saves, each rejected with :class:`StateFormatError` naming the exact JSON
path of the bad entry.
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from moonriver_env.rules import (
    GameConfig,
    GameState,
    Landscape,
    Phase,
    StateFormatError,
    default_components,
    new_game,
)
from moonriver_env.rules.components import parse_components
from moonriver_env.rules.invariants import check_invariants
from moonriver_env.rules.serialization import (
    SCHEMA_VERSION,
    components_to_raw,
    state_from_json,
    state_to_json,
)

CORN = int(Landscape.CORNFIELD)

CONFIGS: dict[str, GameConfig] = {
    "2p-base": GameConfig(num_players=2),
    "2p-legends-random-scenario-random-boards": GameConfig(
        num_players=2, mode="legends", scenario="random", boards="random"
    ),
    "3p-base": GameConfig(num_players=3),
    "3p-legends-outlaws-explicit-boards": GameConfig(
        num_players=3, mode="legends", scenario="outlaws", boards=("big_jo", "mary", "wesley")
    ),
    "3p-legends-random-scenario": GameConfig(num_players=3, mode="legends", scenario="random"),
    "4p-base": GameConfig(num_players=4),
    "4p-legends-default-scenario-random-boards": GameConfig(
        num_players=4, mode="legends", boards="random"
    ),
    "4p-base-auto-resolve": GameConfig(num_players=4, auto_resolve=True),
}


def _step(state: GameState, chooser: random.Random) -> int:
    legal = state.legal_action_list()
    action = legal[chooser.randrange(len(legal))]
    state.apply(action)
    return action


def _states(config: GameConfig, seed: int) -> list[GameState]:
    """Every state of one seeded random game (clones), the initial and terminal included."""
    state = new_game(config, seed=seed)
    chooser = random.Random(seed)
    out = [state.clone()]
    while not state.is_terminal:
        _step(state, chooser)
        out.append(state.clone())
    return out


# ------------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("name", list(CONFIGS))
def test_round_trip_at_every_point_of_a_game(name: str) -> None:
    config = CONFIGS[name]
    for seed in (11, 12):
        for state in _states(config, seed):
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
    states = _states(config, seed)
    for index in (0, len(states) // 3, 2 * len(states) // 3, len(states) - 2):
        original = states[index].clone()
        loaded = GameState.from_json(original.to_json())
        chooser = random.Random(1000 + index)
        while not original.is_terminal:
            legal = original.legal_action_list()
            assert loaded.legal_action_list() == legal
            action = legal[chooser.randrange(len(legal))]
            original.apply(action)
            loaded.apply(action)
            assert loaded.to_json() == original.to_json()
        assert loaded.is_terminal
        assert loaded.scores() == original.scores()
        assert loaded.winners() == original.winners()


@pytest.mark.parametrize("bit_generator", ["PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"])
def test_rng_continues_identically(bit_generator: str) -> None:
    state = new_game(GameConfig(num_players=3), seed=5)
    for _ in range(7):
        _step(state, random.Random(3))
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
    states = _states(config, 4)
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
    states = _states(config, 8)
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
            _step(state, chooser)
            check_invariants(state)


def test_invariants_detect_a_stale_bitboard() -> None:
    state = _position("3p-cows")
    seat = next(s for s in range(3) if state.occ[s])
    cell = (state.occ[seat] & -state.occ[seat]).bit_length() - 1
    state.occ[seat] &= ~(1 << cell)
    with pytest.raises(StateFormatError, match=rf"^seats\[{seat}\]\.kinds\[{cell}\]: the bitboard"):
        check_invariants(state)


# ------------------------------------------------------------------------------ malformed saves


def _find(config: GameConfig, pred: Callable[[GameState], bool], seed: int = 0) -> GameState:
    for game in range(seed, seed + 200):
        state = new_game(config, seed=game)
        chooser = random.Random(game)
        while True:
            if pred(state):
                return state
            if state.is_terminal:
                break
            _step(state, chooser)
    raise AssertionError("no such position")  # pragma: no cover


def _corn_and_cow(state: GameState) -> bool:
    """Some seat has a cornfield plot and a cow elsewhere; some partner somewhere; some seat
    holds 2 different plots; round >= 3."""
    if state.round < 3 or state.phase not in (Phase.EXPAND, Phase.SELECT):
        return False
    if not any(state.partner_bb) or not any(len(set(h)) >= 2 for h in state.held):
        return False
    return any(state.land_bb[s][CORN] and state.cow_bb[s] for s in range(state.config.num_players))


@functools.cache
def _position(name: str) -> GameState:
    if name == "2p-cows":
        return _find(CONFIGS["2p-base"], _corn_and_cow)
    if name == "3p-cows":
        return _find(CONFIGS["3p-base"], _corn_and_cow)
    if name == "3p-legends-outlaws":
        return _find(CONFIGS["3p-legends-outlaws-explicit-boards"], lambda s: s.round == 2)
    if name == "3p-legends-random-boards":
        config = GameConfig(num_players=3, mode="legends", scenario="random", boards="random")
        return _find(config, lambda s: s.round == 2)
    if name == "4p-recruit":
        return _find(CONFIGS["4p-base"], lambda s: s.phase is Phase.RECRUIT)
    if name == "4p-over":
        return _find(CONFIGS["4p-base"], lambda s: s.is_terminal)
    raise KeyError(name)


def _doc(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(_position(name).to_json())
    return result


def _corn_seat(doc: dict[str, Any]) -> tuple[int, int, int]:
    """(seat, a cornfield cell, a cell with a cow) of the first seat having both."""
    comps = default_components()
    for s, seat in enumerate(doc["seats"]):
        corn = [
            c
            for c, k in enumerate(seat["kinds"])
            if 0 <= k < 25 and comps.plots[k].landscape == CORN
        ]
        cows = [c for c, n in enumerate(seat["cows"]) if n]
        if corn and cows:
            return s, corn[0], cows[0]
    raise AssertionError("no seat with a cornfield and a cow")  # pragma: no cover


def _empty_cell(seat: dict[str, Any]) -> int:
    return int(seat["kinds"].index(-1))


def _occupied_plain_cell(seat: dict[str, Any]) -> int:
    return next(
        c
        for c, k in enumerate(seat["kinds"])
        if 0 <= k < 25 and not seat["cows"][c] and seat["partners"][c] < 0
    )


def _replace_text(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text
        return text.replace(old, new, 1)

    return edit


# --- mutations (each edits the decoded document in place and returns the expected prefix)


def m_cow_on_cornfield(d: dict[str, Any]) -> str:
    s, corn, cow = _corn_seat(d)
    d["seats"][s]["cows"][cow] -= 1
    d["seats"][s]["cows"][corn] += 1
    return f"seats[{s}].cows[{corn}]: a cow stands on a cornfield (ruling R5)"


def m_cow_on_empty_cell(d: dict[str, Any]) -> str:
    s, _, cow = _corn_seat(d)
    seat = d["seats"][s]
    cell = _empty_cell(seat)
    seat["cows"][cow] -= 1
    seat["cows"][cell] += 1
    return f"seats[{s}].cows[{cell}]: 1 cow(s) on an empty cell"


def m_partner_on_empty_cell(d: dict[str, Any]) -> str:
    s, seat = next((s, seat) for s, seat in enumerate(d["seats"]) if max(seat["partners"]) >= 0)
    src = next(c for c, p in enumerate(seat["partners"]) if p >= 0)
    cell = _empty_cell(seat)
    seat["partners"][cell], seat["partners"][src] = seat["partners"][src], -1
    return f"seats[{s}].partners[{cell}]: a partner stands on an empty cell"


def m_partner_on_plot_without_circle(d: dict[str, Any]) -> str:
    comps = default_components()
    s, seat = next((s, seat) for s, seat in enumerate(d["seats"]) if max(seat["partners"]) >= 0)
    src = next(c for c, p in enumerate(seat["partners"]) if p >= 0)
    cell = next(
        c
        for c, k in enumerate(seat["kinds"])
        if 0 <= k < 25 and not comps.plots[k].circle and seat["partners"][c] < 0
    )
    seat["partners"][cell], seat["partners"][src] = seat["partners"][src], -1
    return f"seats[{s}].partners[{cell}]: a partner stands on a plot without a circle"


def m_overpopulated_at_game_over(d: dict[str, Any]) -> str:
    s, seat = next((s, seat) for s, seat in enumerate(d["seats"]) if max(seat["cows"]) == 1)
    cell = seat["cows"].index(1)
    seat["cows"][cell] = 2
    d["supply"] -= 1
    return f"seats[{s}].cows[{cell}]: 2 cows on one plot after overpopulation"


def m_negative_cow(d: dict[str, Any]) -> str:
    d["seats"][1]["cows"][14] = -1
    return "seats[1].cows[14]: expected an int >= 0, got -1"


def m_extra_cow(d: dict[str, Any]) -> str:
    d["supply"] += 1
    return "supply: "


def m_plot_kind_out_of_range(d: dict[str, Any]) -> str:
    d["seats"][0]["kinds"][3] = 99
    return "seats[0].kinds[3]: expected an int in -1..24, got 99"


def m_bonus_pseudo_kind_with_3_players(d: dict[str, Any]) -> str:
    d["seats"][2]["kinds"][7] = 25
    return "seats[2].kinds[7]: expected an int in -1..24, got 25"


def m_held_kind_out_of_range(d: dict[str, Any]) -> str:
    d["seats"][0]["held"] = [-1]
    return "seats[0].held[0]: expected an int in 0..24, got -1"


def m_pile_kind_not_int(d: dict[str, Any]) -> str:
    d["pile"][2] = "3"
    return "pile[2]: expected an int in 0..24, got string '3'"


def m_extra_plot(d: dict[str, Any]) -> str:
    d["removed"].append(0)
    return "plots[0]: 8 copies in play (pile, columns, reserves, ranches, removed, discarded), expected 7"


def m_lost_plot(d: dict[str, Any]) -> str:
    kind = d["pile"].pop()
    expected = default_components().plots[kind].count
    return f"plots[{kind}]: {expected - 1} copies in play"


def m_extra_partner_token(d: dict[str, Any]) -> str:
    d["stack"].append(0)
    return "partners.desperado: 6 tokens (saloon, stack, ranches), expected 5"


def m_partner_code_out_of_range(d: dict[str, Any]) -> str:
    d["seats"][0]["partners"][0] = 10
    return "seats[0].partners[0]: expected an int in -1..9, got 10"


def m_ranch_list_too_short(d: dict[str, Any]) -> str:
    d["seats"][0]["kinds"].pop()
    return "seats[0].kinds: expected a list of 25 entries, got 24"


def m_column_too_long(d: dict[str, Any]) -> str:
    d["cur_col"].append(-1)
    return "cur_col: expected a list of 4 entries, got 5"


def m_saloon_too_short(d: dict[str, Any]) -> str:
    d["saloon"].pop()
    return "saloon: expected a list of 5 entries, got 4"


def m_seats_too_few(d: dict[str, Any]) -> str:
    d["seats"].pop()
    return "seats: expected a list of 3 entries, got 2"


def m_list_is_an_object(d: dict[str, Any]) -> str:
    d["removed"] = {}
    return "removed: expected a list, got an object"


def m_unknown_phase(d: dict[str, Any]) -> str:
    d["phase"] = "FOO"
    return "phase: unknown phase 'FOO'"


def m_phase_as_number(d: dict[str, Any]) -> str:
    d["phase"] = 1
    return "phase: expected a phase name, got 1"


def m_game_over_mid_game(d: dict[str, Any]) -> str:
    d["phase"] = "GAME_OVER"
    return "seat: the game is over, so no seat acts (-1)"


def m_seat_out_of_range(d: dict[str, Any]) -> str:
    d["seat"] = 3
    return "seat: expected an int in -1..2, got 3"


def m_wrong_acting_seat(d: dict[str, Any]) -> str:
    d["seat"] = (d["seat"] + 1) % 3
    return "seat: the ranchero at cur_claim["


def m_bool_as_int(d: dict[str, Any]) -> str:
    d["supply"] = True
    return "supply: expected an int in 0..32, got true"


def m_float_as_int(d: dict[str, Any]) -> str:
    d["round"] = 3.0
    return "round: expected an int >= 0, got number 3.0"


def m_int_as_bool(d: dict[str, Any]) -> str:
    d["final_round"] = 0
    return "final_round: expected true or false, got 0"


def m_held_unsorted(d: dict[str, Any]) -> str:
    s = next(s for s, seat in enumerate(d["seats"]) if len(set(seat["held"])) >= 2)
    d["seats"][s]["held"].reverse()
    return f"seats[{s}].held: expected plot kinds in ascending order"


def m_held_overflow(d: dict[str, Any]) -> str:
    s = (d["seat"] + 1) % len(d["seats"])
    seat = d["seats"][s]
    while len(seat["held"]) < 4:
        seat["held"].append(d["pile"].pop())
    seat["held"].sort()
    return f"seats[{s}].held: holds 4 plots; at most 3 fit (board 'camp', 3 slots)"


def m_held_too_many(d: dict[str, Any]) -> str:
    seat = d["seats"][0]
    while len(seat["held"]) < 5:
        seat["held"].append(d["pile"].pop())
    seat["held"].sort()
    return "seats[0].held: expected at most 4 entries, got 5"


def m_skull_phase_without_piece(d: dict[str, Any]) -> str:
    d["phase"] = "SKULL"
    d["piece"] = []
    d["skulls"] = []
    d["circles"] = []
    return "piece: phase SKULL resolves a piece, but none is pending"


def m_skull_not_in_piece(d: dict[str, Any]) -> str:
    d["piece"] = [0, 1]
    d["skulls"] = [2]
    return "skulls[0]: expected a distinct cell of piece [0, 1], got 2"


def m_circle_index_out_of_range(d: dict[str, Any]) -> str:
    d["piece"] = [0]
    d["circles"] = [1]
    return "circles[0]: expected an int in 0..0, got 1"


def m_cowboy_moves_out_of_range(d: dict[str, Any]) -> str:
    d["cowboy_moves"] = 4
    return "cowboy_moves: expected an int in 0..3, got 4"


def m_no_legal_action(d: dict[str, Any]) -> str:
    for i, tok in enumerate(d["saloon"]):
        if tok >= 0:
            d["stack"].append(tok)
            d["saloon"][i] = -1
    return "phase: RECRUIT: the game is not over but no action is legal"


def m_held_at_game_over(d: dict[str, Any]) -> str:
    seat = d["seats"][1]
    cell = _occupied_plain_cell(seat)
    seat["held"] = [seat["kinds"][cell]]
    seat["kinds"][cell] = -1
    return "seats[1].held: the game is over but the seat still holds plots"


def m_bonus_tile_placed_twice(d: dict[str, Any]) -> str:
    for seat in d["seats"]:
        seat["kinds"][_empty_cell(seat)] = 25  # tile 0, side 0
        seat["bonus_done"] = True
    d["tiles"] = [False, True]
    cell = d["seats"][1]["kinds"].index(25)
    return f"seats[1].kinds[{cell}]: bonus tile 0 is placed twice (also on seat 0)"


def m_bonus_tile_placed_and_available(d: dict[str, Any]) -> str:
    seat = d["seats"][0]
    cell = _empty_cell(seat)
    seat["kinds"][cell] = 28  # tile 1, side 1
    seat["bonus_done"] = True
    d["tiles"] = [True, True]
    return f"seats[0].kinds[{cell}]: bonus tile 1 is placed but also still available (tiles[1])"


def m_bonus_tiles_with_3_players(d: dict[str, Any]) -> str:
    d["tiles"] = [True, False]
    return "tiles: bonus tiles exist only with 2 players"


def m_tiles_wrong_length(d: dict[str, Any]) -> str:
    d["tiles"] = [False]
    return "tiles: expected a list of 2 entries, got 1"


def m_wrong_format_tag(d: dict[str, Any]) -> str:
    d["format"] = "chess-state"
    return "format: expected 'moonriver-state', got string 'chess-state'"


def m_future_version(d: dict[str, Any]) -> str:
    d["version"] = 2
    d["new_field_of_version_2"] = []
    return "version: unsupported version 2 (this engine reads version 1)"


def m_version_as_string(d: dict[str, Any]) -> str:
    d["version"] = "1"
    return "version: expected an int, got string '1'"


def m_unknown_key(d: dict[str, Any]) -> str:
    d["weather"] = "sunny"
    return "weather: unknown key"


def m_missing_key(d: dict[str, Any]) -> str:
    del d["supply"]
    return "supply: missing key"


def m_unknown_seat_key(d: dict[str, Any]) -> str:
    d["seats"][2]["hat"] = "stetson"
    return "seats[2].hat: unknown key"


def m_missing_seat_key(d: dict[str, Any]) -> str:
    del d["seats"][1]["bonus_done"]
    return "seats[1].bonus_done: missing key"


def m_unknown_config_key(d: dict[str, Any]) -> str:
    d["config"]["speed"] = 2
    return "config.speed: unknown key"


def m_missing_config_key(d: dict[str, Any]) -> str:
    del d["config"]["auto_resolve"]
    return "config.auto_resolve: missing key"


def m_config_five_players(d: dict[str, Any]) -> str:
    d["config"]["num_players"] = 5
    return "config.num_players: expected 2, 3 or 4, got 5"


def m_config_unknown_mode(d: dict[str, Any]) -> str:
    d["config"]["mode"] = "wild_west"
    return "config.mode: expected one of"


def m_config_auto_resolve_int(d: dict[str, Any]) -> str:
    d["config"]["auto_resolve"] = 0
    return "config.auto_resolve: expected a bool, got 0"


def m_config_scenario_in_base(d: dict[str, Any]) -> str:
    d["config"]["scenario"] = "gold_rush"
    return "config.scenario: the base game has no scenario"


def m_config_duplicate_board(d: dict[str, Any]) -> str:
    d["config"]["boards"] = ["mary", "mary", "wesley"]
    return "config.boards[1]: board 'mary' is used twice"


def m_config_unknown_board(d: dict[str, Any]) -> str:
    d["config"]["boards"] = ["big_jo", "mary", "camp"]
    return "config.boards[2]: unknown board 'camp'"


def m_config_bad_components(d: dict[str, Any]) -> str:
    raw = components_to_raw(default_components())
    raw["cows"] = -1
    d["config"]["components"] = raw
    return "config.components.cows: must be >= 0, got -1"


def m_config_components_not_an_object(d: dict[str, Any]) -> str:
    d["config"]["components"] = 5
    return "config.components: expected an object, got integer 5"


def m_seat_board_not_configured(d: dict[str, Any]) -> str:
    d["seats"][0]["board"] = "calamity"
    return "seats[0].board: expected 'big_jo' (config.boards), got 'calamity'"


def m_seat_board_duplicate(d: dict[str, Any]) -> str:
    d["seats"][2]["board"] = d["seats"][0]["board"]
    return f"seats[2].board: board {d['seats'][0]['board']!r} is used twice (also seats[0])"


def m_base_board_not_camp(d: dict[str, Any]) -> str:
    d["seats"][1]["board"] = "mary"
    return "seats[1].board: the base game uses the 'camp' side, got string 'mary'"


def m_scenario_in_base_state(d: dict[str, Any]) -> str:
    d["scenario"] = "outlaws"
    return "scenario: the base game has no scenario, expected null, got string 'outlaws'"


def m_scenario_not_configured(d: dict[str, Any]) -> str:
    d["scenario"] = "gold_rush"
    return "scenario: expected 'outlaws' (config.scenario), got 'gold_rush'"


def m_scenario_unknown(d: dict[str, Any]) -> str:
    d["scenario"] = "random"
    return "scenario: expected one of"


def m_rng_unknown_generator(d: dict[str, Any]) -> str:
    d["rng"]["bit_generator"] = "RANDU"
    return "rng.bit_generator: expected one of"


def m_rng_bad_state(d: dict[str, Any]) -> str:
    d["rng"]["state"] = {"bit_generator": "PCG64", "state": "zero"}
    return "rng.state: not a valid PCG64 state"


def m_rng_state_extra_entry(d: dict[str, Any]) -> str:
    d["rng"]["state"]["extra"] = 1
    return "rng.state: not a valid PCG64 state (it does not read back unchanged)"


def m_setup_order_wrong(d: dict[str, Any]) -> str:
    d["setup_order"] = [0, 0, 1]
    return "setup_order: expected each seat 0..2 1 time(s), got [0, 0, 1]"


Mutation = Callable[[dict[str, Any]], str]

# (test id, base position, mutation)
DOC_CASES: list[tuple[str, str, Mutation]] = [
    ("wrong-format-tag", "3p-cows", m_wrong_format_tag),
    ("future-version", "3p-cows", m_future_version),
    ("version-as-string", "3p-cows", m_version_as_string),
    ("unknown-key", "3p-cows", m_unknown_key),
    ("missing-key", "3p-cows", m_missing_key),
    ("unknown-seat-key", "3p-cows", m_unknown_seat_key),
    ("missing-seat-key", "3p-cows", m_missing_seat_key),
    ("unknown-config-key", "3p-cows", m_unknown_config_key),
    ("missing-config-key", "3p-cows", m_missing_config_key),
    ("negative-cow", "3p-cows", m_negative_cow),
    ("cow-on-cornfield", "3p-cows", m_cow_on_cornfield),
    ("cow-on-cornfield-2p", "2p-cows", m_cow_on_cornfield),
    ("cow-on-empty-cell", "3p-cows", m_cow_on_empty_cell),
    ("extra-cow-conservation", "3p-cows", m_extra_cow),
    ("partner-on-empty-cell", "3p-cows", m_partner_on_empty_cell),
    ("partner-on-plot-without-circle", "3p-cows", m_partner_on_plot_without_circle),
    ("overpopulated-at-game-over", "4p-over", m_overpopulated_at_game_over),
    ("partner-code-out-of-range", "3p-cows", m_partner_code_out_of_range),
    ("extra-partner-token-conservation", "3p-cows", m_extra_partner_token),
    ("plot-kind-out-of-range", "3p-cows", m_plot_kind_out_of_range),
    ("bonus-pseudo-kind-with-3-players", "3p-cows", m_bonus_pseudo_kind_with_3_players),
    ("held-kind-out-of-range", "3p-cows", m_held_kind_out_of_range),
    ("pile-kind-not-an-int", "3p-cows", m_pile_kind_not_int),
    ("extra-plot-conservation", "3p-cows", m_extra_plot),
    ("lost-plot-conservation", "3p-cows", m_lost_plot),
    ("ranch-list-too-short", "3p-cows", m_ranch_list_too_short),
    ("column-too-long", "3p-cows", m_column_too_long),
    ("saloon-too-short", "3p-cows", m_saloon_too_short),
    ("seats-too-few", "3p-cows", m_seats_too_few),
    ("list-is-an-object", "3p-cows", m_list_is_an_object),
    ("unknown-phase", "3p-cows", m_unknown_phase),
    ("phase-as-number", "3p-cows", m_phase_as_number),
    ("game-over-mid-game", "3p-cows", m_game_over_mid_game),
    ("seat-out-of-range", "3p-cows", m_seat_out_of_range),
    ("wrong-acting-seat", "3p-cows", m_wrong_acting_seat),
    ("bool-as-int", "3p-cows", m_bool_as_int),
    ("float-as-int", "3p-cows", m_float_as_int),
    ("int-as-bool", "3p-cows", m_int_as_bool),
    ("held-unsorted", "3p-cows", m_held_unsorted),
    ("held-overflow-non-acting-seat", "3p-cows", m_held_overflow),
    ("held-longer-than-any-reserve", "3p-cows", m_held_too_many),
    ("skull-phase-without-piece", "3p-cows", m_skull_phase_without_piece),
    ("skull-not-in-piece", "3p-cows", m_skull_not_in_piece),
    ("circle-index-out-of-range", "3p-cows", m_circle_index_out_of_range),
    ("cowboy-moves-out-of-range", "3p-cows", m_cowboy_moves_out_of_range),
    ("no-legal-action", "4p-recruit", m_no_legal_action),
    ("held-at-game-over", "4p-over", m_held_at_game_over),
    ("bonus-tile-placed-twice", "2p-cows", m_bonus_tile_placed_twice),
    ("bonus-tile-placed-and-available", "2p-cows", m_bonus_tile_placed_and_available),
    ("bonus-tiles-with-3-players", "3p-cows", m_bonus_tiles_with_3_players),
    ("tiles-wrong-length", "3p-cows", m_tiles_wrong_length),
    ("setup-order-wrong", "3p-cows", m_setup_order_wrong),
    ("config-num-players-5", "3p-cows", m_config_five_players),
    ("config-unknown-mode", "3p-cows", m_config_unknown_mode),
    ("config-auto-resolve-int", "3p-cows", m_config_auto_resolve_int),
    ("config-scenario-in-base", "3p-cows", m_config_scenario_in_base),
    ("config-duplicate-legends-board", "3p-legends-outlaws", m_config_duplicate_board),
    ("config-unknown-legends-board", "3p-legends-outlaws", m_config_unknown_board),
    ("config-bad-components", "3p-cows", m_config_bad_components),
    ("config-components-not-an-object", "3p-cows", m_config_components_not_an_object),
    ("seat-board-not-configured", "3p-legends-outlaws", m_seat_board_not_configured),
    ("seat-board-duplicate", "3p-legends-random-boards", m_seat_board_duplicate),
    ("base-board-not-camp", "3p-cows", m_base_board_not_camp),
    ("scenario-in-base-state", "3p-cows", m_scenario_in_base_state),
    ("scenario-not-configured", "3p-legends-outlaws", m_scenario_not_configured),
    ("scenario-unresolved", "3p-legends-random-boards", m_scenario_unknown),
    ("rng-unknown-generator", "3p-cows", m_rng_unknown_generator),
    ("rng-bad-state", "3p-cows", m_rng_bad_state),
    ("rng-state-extra-entry", "3p-cows", m_rng_state_extra_entry),
]


@pytest.mark.parametrize(
    ("base", "mutate"), [c[1:] for c in DOC_CASES], ids=[c[0] for c in DOC_CASES]
)
def test_malformed_document_is_rejected_naming_the_path(base: str, mutate: Mutation) -> None:
    doc = _doc(base)
    GameState.from_json(json.dumps(doc))  # the unmodified document loads
    expected = mutate(doc)
    text = json.dumps(doc)
    result: list[GameState] = []
    with pytest.raises(StateFormatError) as info:
        result.append(GameState.from_json(text))
    assert not result  # a rejected load returns nothing
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(expected), str(info.value)


# Text-level cases: (test id, base position or None for a literal text, edit, expected prefix)
TEXT_CASES: list[tuple[str, str | None, Callable[[str], str], str]] = [
    ("bad-json", None, lambda _: '{"format": "moonriver-state",', "<root>: invalid JSON: "),
    ("empty-text", None, lambda _: "", "<root>: invalid JSON: "),
    ("not-an-object", None, lambda _: "[1, 2, 3]", "<root>: expected a JSON object, got a list"),
    ("null", None, lambda _: "null", "<root>: expected a JSON object, got null"),
    (
        "duplicate-key",
        "3p-cows",
        _replace_text('"supply":', '"supply":0,"supply":'),
        "<root>: invalid JSON: duplicate key 'supply' in an object",
    ),
    (
        "nan-constant",
        "3p-cows",
        _replace_text('"round":', '"round":NaN,"x":'),
        "<root>: invalid JSON: NaN is not a number",
    ),
]


@pytest.mark.parametrize(
    ("base", "edit", "expected"), [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_malformed_text_is_rejected_naming_the_root(
    base: str | None, edit: Callable[[str], str], expected: str
) -> None:
    text = edit(_position(base).to_json() if base else "")
    with pytest.raises(StateFormatError) as info:
        state_from_json(text, GameState)
    assert str(info.value).startswith(expected), str(info.value)


def test_rejection_does_not_touch_the_input_or_shared_state() -> None:
    doc = _doc("3p-cows")
    before = copy.deepcopy(doc)
    m_extra_plot(doc)
    snapshot = copy.deepcopy(doc)
    with pytest.raises(StateFormatError):
        GameState.from_json(json.dumps(doc))
    assert doc == snapshot
    # a valid load right after still works and round-trips
    text = json.dumps(before, separators=(",", ":"))
    assert GameState.from_json(text).to_json() == _position("3p-cows").to_json()
