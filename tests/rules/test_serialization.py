"""Malformed saves of game states (moonriver_env/moonriver/rules/serialization.py): a table of them,
each rejected with :class:`StateFormatError` naming the exact JSON path of the bad entry.

The round trips and the consistency checker are tested in
``tests/rules/test_serialization_round_trip.py``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from saved_states import corn_seat, empty_cell, occupied_plain_cell
from saved_states import replace_text as _replace_text
from saved_states import saved_doc as _doc
from saved_states import saved_position as _position

from moonriver_env.moonriver.rules.serialization import MAX_TEXT, components_to_raw, state_from_json
from moonriver_env.rules import GameState, StateFormatError, default_components

# --- mutations (each edits the decoded document in place and returns the expected prefix)


def m_cow_on_cornfield(d: dict[str, Any]) -> str:
    s, corn, cow = corn_seat(d)
    d["seats"][s]["cows"][cow] -= 1
    d["seats"][s]["cows"][corn] += 1
    return f"seats[{s}].cows[{corn}]: a cow stands on a cornfield (ruling R5)"


def m_cow_on_empty_cell(d: dict[str, Any]) -> str:
    s, _, cow = corn_seat(d)
    seat = d["seats"][s]
    cell = empty_cell(seat)
    seat["cows"][cow] -= 1
    seat["cows"][cell] += 1
    return f"seats[{s}].cows[{cell}]: 1 cow(s) on an empty cell"


def m_partner_on_empty_cell(d: dict[str, Any]) -> str:
    s, seat = next((s, seat) for s, seat in enumerate(d["seats"]) if max(seat["partners"]) >= 0)
    src = next(c for c, p in enumerate(seat["partners"]) if p >= 0)
    cell = empty_cell(seat)
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


def m_extra_cow(d: dict[str, Any]) -> str:
    d["supply"] += 1
    return "supply: "


def m_held_kind_out_of_range(d: dict[str, Any]) -> str:
    d["seats"][0]["held"] = [-1]
    return "seats[0].held[0]: expected an int in 0..24, got -1"


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


def m_game_over_mid_game(d: dict[str, Any]) -> str:
    d["phase"] = "GAME_OVER"
    return "seat: the game is over, so no seat acts (-1)"


def m_wrong_acting_seat(d: dict[str, Any]) -> str:
    d["seat"] = (d["seat"] + 1) % 3
    return "seat: the ranchero at cur_claim["


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


def m_no_legal_action(d: dict[str, Any]) -> str:
    for i, tok in enumerate(d["saloon"]):
        if tok >= 0:
            d["stack"].append(tok)
            d["saloon"][i] = -1
    return "phase: RECRUIT: the game is not over but no action is legal"


def m_held_at_game_over(d: dict[str, Any]) -> str:
    seat = d["seats"][1]
    cell = occupied_plain_cell(seat)
    seat["held"] = [seat["kinds"][cell]]
    seat["kinds"][cell] = -1
    return "seats[1].held: the game is over but the seat still holds plots"


def m_bonus_tile_placed_twice(d: dict[str, Any]) -> str:
    for seat in d["seats"]:
        seat["kinds"][empty_cell(seat)] = 25  # tile 0, side 0
        seat["bonus_done"] = True
    d["tiles"] = [False, True]
    cell = d["seats"][1]["kinds"].index(25)
    return f"seats[1].kinds[{cell}]: bonus tile 0 is placed twice (also on seat 0)"


def m_bonus_tile_placed_and_available(d: dict[str, Any]) -> str:
    seat = d["seats"][0]
    cell = empty_cell(seat)
    seat["kinds"][cell] = 28  # tile 1, side 1
    seat["bonus_done"] = True
    d["tiles"] = [True, True]
    return f"seats[0].kinds[{cell}]: bonus tile 1 is placed but also still available (tiles[1])"


def m_future_version(d: dict[str, Any]) -> str:
    d["version"] = 2
    d["new_field_of_version_2"] = []
    return "version: unsupported version 2 (this engine reads version 1)"


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
    return "config.components.cows: must be within 0..127, got -1"


def m_seat_board_duplicate(d: dict[str, Any]) -> str:
    d["seats"][2]["board"] = d["seats"][0]["board"]
    return f"seats[2].board: board {d['seats'][0]['board']!r} is used twice (also seats[0])"


def m_rng_state_extra_entry(d: dict[str, Any]) -> str:
    d["rng"]["state"]["extra"] = 1
    return "rng.state: not a valid PCG64 state (it does not read back unchanged)"


def m_rng_state_huge(d: dict[str, Any]) -> str:
    d["rng"]["state"]["state"]["state"] = 10**400
    return "rng.state: not a valid PCG64 state"


Mutation = Callable[[dict[str, Any]], str]

MISSING = "(missing)"
"""In :data:`ENTRY_CASES`' value column: delete the entry."""

# One entry set to a JSON value (or deleted): (base position, path of the entry as the error
# names it, the value as JSON text or MISSING, the error after "path: ").
ENTRY_CASES: list[tuple[str, str, str, str]] = [
    ("3p-cows", "seats[1].cows[14]", "-1", "expected an int in 0..32, got -1"),
    ("3p-cows", "seats[0].kinds[3]", "99", "expected an int in -1..24, got 99"),
    ("3p-cows", "seats[2].kinds[7]", "25", "expected an int in -1..24, got 25"),
    ("3p-cows", "pile[2]", '"3"', "expected an int in 0..24, got string '3'"),
    ("3p-cows", "seats[0].partners[0]", "10", "expected an int in -1..9, got 10"),
    ("3p-cows", "removed", "{}", "expected a list, got an object"),
    ("3p-cows", "phase", '"FOO"', "unknown phase 'FOO'"),
    ("3p-cows", "phase", "1", "expected a phase name, got 1"),
    ("3p-cows", "seat", "3", "expected an int in -1..2, got 3"),
    ("3p-cows", "supply", "true", "expected an int in 0..32, got true"),
    ("3p-cows", "round", "3.0", "expected an int in 0..96, got number 3.0"),
    ("3p-cows", "final_round", "0", "expected true or false, got 0"),
    ("3p-cows", "cowboy_moves", "4", "expected an int in 0..3, got 4"),
    ("3p-cows", "tiles", "[true, false]", "bonus tiles exist only with 2 players"),
    ("3p-cows", "tiles", "[false]", "expected a list of 2 entries, got 1"),
    ("3p-cows", "format", '"chess-state"', "expected 'moonriver-state', got string 'chess-state'"),
    ("3p-cows", "version", '"1"', "expected an int, got string '1'"),
    ("3p-cows", "weather", '"sunny"', "unknown key"),
    ("3p-cows", "supply", "(missing)", "missing key"),
    ("3p-cows", "seats[2].hat", '"stetson"', "unknown key"),
    ("3p-cows", "seats[1].bonus_done", "(missing)", "missing key"),
    ("3p-cows", "config.speed", "2", "unknown key"),
    ("3p-cows", "config.auto_resolve", "(missing)", "missing key"),
    ("3p-cows", "config.num_players", "5", "expected 2, 3 or 4, got 5"),
    ("3p-cows", "config.mode", '"wild_west"', "expected one of"),
    ("3p-cows", "config.auto_resolve", "0", "expected a bool, got 0"),
    ("3p-cows", "config.scenario", '"gold_rush"', "the base game has no scenario"),
    ("3p-cows", "config.components", "5", "expected an object, got integer 5"),
    ("3p-legends-outlaws", "seats[0].board", '"calamity"', "expected 'big_jo' (config.boards)"),
    ("3p-cows", "seats[1].board", '"mary"', "the base game uses the 'camp' side"),
    ("3p-cows", "scenario", '"outlaws"', "the base game has no scenario, expected null"),
    ("3p-legends-outlaws", "scenario", '"gold_rush"', "expected 'outlaws' (config.scenario)"),
    ("3p-legends-random-boards", "scenario", '"random"', "expected one of"),
    ("3p-cows", "rng.bit_generator", '"RANDU"', "expected one of"),
    ("3p-cows", "rng.state", '{"bit_generator": "PCG64", "state": "zero"}', "not a valid PCG64"),
    ("3p-cows", "setup_order", "[0, 0, 1]", "expected each seat 0..2 1 time(s), got [0, 0, 1]"),
]

# Huge integers (issue 12): every integer field has an upper bound, and the message shows the
# size of the number, not its 401 digits. (path of the entry set to 10**400, the error after
# "path: ")
HUGE_CASES: list[tuple[str, str]] = [
    ("round", "expected an int in 0..96, got <401 digits>"),
    ("dominoes", "expected an int in 0..25, got <401 digits>"),
    ("seats[1].cows[3]", "expected an int in 0..32, got <401 digits>"),
    ("version", "unsupported version <401 digits>"),
]


def _entry(doc: dict[str, Any], path: str) -> tuple[Any, str | int]:
    """The list or object holding the entry at ``path`` (``seats[1].cows[14]``), and its key."""
    keys: list[str | int] = [
        int(index) if index else name for name, index in re.findall(r"(\w+)|\[(\d+)\]", path)
    ]
    parent: Any = doc
    for key in keys[:-1]:
        parent = parent[key]
    return parent, keys[-1]


def m_entry(path: str, value: Any, rest: str) -> Mutation:
    """The mutation that sets the entry at ``path`` to ``value`` (deletes it: ``MISSING``)."""

    def mutate(d: dict[str, Any]) -> str:
        parent, key = _entry(d, path)
        if value == MISSING:
            del parent[key]
        else:
            parent[key] = copy.deepcopy(value)
        return f"{path}: {rest}"

    return mutate


# (test id, base position, mutation)
DOC_CASES: list[tuple[str, str, Mutation]] = [
    ("future-version", "3p-cows", m_future_version),
    ("cow-on-cornfield", "3p-cows", m_cow_on_cornfield),
    ("cow-on-cornfield-2p", "2p-cows", m_cow_on_cornfield),
    ("cow-on-empty-cell", "3p-cows", m_cow_on_empty_cell),
    ("extra-cow-conservation", "3p-cows", m_extra_cow),
    ("partner-on-empty-cell", "3p-cows", m_partner_on_empty_cell),
    ("partner-on-plot-without-circle", "3p-cows", m_partner_on_plot_without_circle),
    ("overpopulated-at-game-over", "4p-over", m_overpopulated_at_game_over),
    ("extra-partner-token-conservation", "3p-cows", m_extra_partner_token),
    ("held-kind-out-of-range", "3p-cows", m_held_kind_out_of_range),
    ("extra-plot-conservation", "3p-cows", m_extra_plot),
    ("lost-plot-conservation", "3p-cows", m_lost_plot),
    ("ranch-list-too-short", "3p-cows", m_ranch_list_too_short),
    ("column-too-long", "3p-cows", m_column_too_long),
    ("saloon-too-short", "3p-cows", m_saloon_too_short),
    ("seats-too-few", "3p-cows", m_seats_too_few),
    ("game-over-mid-game", "3p-cows", m_game_over_mid_game),
    ("wrong-acting-seat", "3p-cows", m_wrong_acting_seat),
    ("held-unsorted", "3p-cows", m_held_unsorted),
    ("held-overflow-non-acting-seat", "3p-cows", m_held_overflow),
    ("held-longer-than-any-reserve", "3p-cows", m_held_too_many),
    ("skull-phase-without-piece", "3p-cows", m_skull_phase_without_piece),
    ("skull-not-in-piece", "3p-cows", m_skull_not_in_piece),
    ("circle-index-out-of-range", "3p-cows", m_circle_index_out_of_range),
    ("no-legal-action", "4p-recruit", m_no_legal_action),
    ("held-at-game-over", "4p-over", m_held_at_game_over),
    ("bonus-tile-placed-twice", "2p-cows", m_bonus_tile_placed_twice),
    ("bonus-tile-placed-and-available", "2p-cows", m_bonus_tile_placed_and_available),
    ("config-duplicate-legends-board", "3p-legends-outlaws", m_config_duplicate_board),
    ("config-unknown-legends-board", "3p-legends-outlaws", m_config_unknown_board),
    ("config-bad-components", "3p-cows", m_config_bad_components),
    ("seat-board-duplicate", "3p-legends-random-boards", m_seat_board_duplicate),
    ("rng-state-extra-entry", "3p-cows", m_rng_state_extra_entry),
    ("rng-state-huge", "3p-cows", m_rng_state_huge),
]
DOC_CASES += [
    (
        f"{path}={value}",
        base,
        m_entry(path, MISSING if value == MISSING else json.loads(value), rest),
    )
    for base, path, value, rest in ENTRY_CASES
]
DOC_CASES += [
    (f"{path}-huge", "3p-cows", m_entry(path, 10**400, rest)) for path, rest in HUGE_CASES
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
    # size and nesting guards (issue 12): a named error, never RecursionError / MemoryError
    (
        "nested-lists",
        None,
        lambda _: "[" * 100_000,
        "<root>: invalid JSON: lists or objects nested",
    ),
    (
        "nested-objects",
        None,
        lambda _: '{"a":' * 100_000,
        "<root>: invalid JSON: lists or objects nested",
    ),
    ("too-many-digits", None, lambda _: "1" * 5000, "<root>: invalid JSON: Exceeds the limit"),
    ("too-large", None, lambda _: " " * (MAX_TEXT + 1), "<root>: too large: "),
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


def test_every_saved_integer_field_has_both_bounds() -> None:
    """Issue 12: no integer of a saved state is unbounded (``round = 10**400`` was accepted);
    the bounds are declared with the field (:data:`STATE_FIELDS`)."""
    from moonriver_env.family.validation import Int, Ints
    from moonriver_env.moonriver.rules.core import STATE_FIELDS

    checked = [f for f in STATE_FIELDS if isinstance(f.check, (Int, Ints))]
    assert len(checked) > 10
    for f in checked:
        assert f.check.lo is not None and f.check.hi is not None, f.name
