"""Tests of the component data (RULES.md section 1; the data and its evidence: section 9)."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from moonriver_env.moonriver.rules.components import (
    LEGENDS_BOARDS,
    BoardSpec,
    BonusTile,
    ComponentDataError,
    Components,
    default_components,
    load_components,
    parse_components,
)
from moonriver_env.rules import Landscape, PartnerKind

L = Landscape

# RULES.md section 9, plot kinds: (count, landscape, gold, beaver, corn, cows, skull, circle, back)
TABLE: list[tuple[int, Landscape, int, int, int, int, bool, bool, int]] = [
    (7, L.DESERT, 0, 0, 0, 0, False, False, 1),
    (6, L.DESERT, 1, 0, 0, 0, False, False, 2),
    (4, L.DESERT, 0, 0, 0, 0, True, False, 1),
    (2, L.DESERT, 0, 0, 0, 1, False, False, 4),
    (2, L.DESERT, 0, 0, 0, 0, False, True, 3),
    (6, L.CANYON, 0, 0, 0, 0, False, False, 1),
    (5, L.CANYON, 1, 0, 0, 0, False, False, 2),
    (4, L.CANYON, 0, 0, 0, 0, True, False, 1),
    (2, L.CANYON, 0, 0, 0, 1, False, False, 4),
    (1, L.CANYON, 1, 0, 0, 1, False, False, 5),
    (1, L.CANYON, 0, 0, 0, 0, False, True, 3),
    (3, L.MEADOW, 1, 0, 0, 0, False, False, 2),
    (4, L.MEADOW, 0, 0, 0, 0, False, True, 3),
    (4, L.MEADOW, 0, 0, 0, 2, False, False, 6),
    (2, L.FOREST, 0, 1, 0, 1, False, False, 5),
    (2, L.FOREST, 0, 0, 0, 1, False, False, 4),
    (2, L.FOREST, 0, 0, 0, 0, False, True, 3),
    (1, L.FOREST, 0, 0, 0, 2, False, False, 6),
    (4, L.FOREST, 0, 0, 0, 0, False, False, 1),
    (4, L.FOREST, 0, 1, 0, 0, False, False, 2),
    (6, L.CORNFIELD, 0, 0, 3, 0, False, False, 3),
    (4, L.CORNFIELD, 0, 0, 5, 0, False, False, 5),
    (9, L.FARM, 0, 0, 0, 0, False, False, 1),
    (6, L.FARM, 0, 0, 0, 0, False, True, 3),
    (5, L.FARM, 0, 0, 0, 1, False, True, 5),
]
COUNTS = [7, 6, 4, 2, 2, 6, 5, 4, 2, 1, 1, 3, 4, 4, 2, 2, 2, 1, 4, 4, 6, 4, 9, 6, 5]


def shipped_raw() -> dict[str, Any]:
    """A fresh copy of the shipped JSON document, to mutate."""
    text = (
        resources.files("moonriver_env.moonriver.rules") / "data" / "components.json"
    ).read_text(encoding="utf-8")
    raw: dict[str, Any] = json.loads(text)
    return raw


@pytest.fixture(scope="module")
def comps() -> Components:
    return load_components(strict=True)


def total(comps: Components, attr: str) -> int:
    return sum(getattr(kind, attr) * kind.count for kind in comps.plots)


# --- The shipped file ---------------------------------------------------------------------


def test_shipped_file_loads_strict(comps: Components) -> None:
    assert parse_components(shipped_raw(), strict=True) == comps
    assert default_components() == comps
    assert default_components() is default_components()


def test_shipped_file_has_version_and_source() -> None:
    raw = shipped_raw()
    assert raw["version"] == 1
    assert isinstance(raw["source"], str) and raw["source"]


def test_25_kinds_96_plots_in_published_order(comps: Components) -> None:
    assert len(comps.plots) == 25
    assert [kind.count for kind in comps.plots] == COUNTS
    assert comps.num_plots == 96 == sum(COUNTS)
    assert [kind.index for kind in comps.plots] == list(range(25))
    assert [kind.number for kind in comps.plots] == list(range(1, 26))


def test_plot_table_matches_components_md(comps: Components) -> None:
    got = [
        (k.count, k.landscape, k.gold, k.beaver, k.corn, k.cows, k.skull, k.circle, k.back)
        for k in comps.plots
    ]
    assert got == TABLE


def test_resources_only_on_allowed_landscapes(comps: Components) -> None:
    for kind in comps.plots:
        if kind.gold:
            assert kind.landscape in (L.DESERT, L.CANYON, L.MEADOW), kind
        if kind.beaver:
            assert kind.landscape is L.FOREST, kind
        if kind.corn:
            assert kind.landscape is L.CORNFIELD, kind


def test_no_cow_symbol_on_a_cornfield(comps: Components) -> None:
    """Ruling R5."""
    assert all(kind.cows == 0 for kind in comps.plots if kind.landscape is L.CORNFIELD)


def test_backs_within_1_to_6(comps: Components) -> None:
    assert all(1 <= kind.back <= 6 for kind in comps.plots)
    assert {kind.back for kind in comps.plots} == {1, 2, 3, 4, 5, 6}


def test_symbol_ranges_of_rules_section_1(comps: Components) -> None:
    for kind in comps.plots:
        assert 0 <= kind.cows <= 2
        assert isinstance(kind.skull, bool) and isinstance(kind.circle, bool)
        assert min(kind.gold, kind.beaver, kind.corn) >= 0


def test_totals_per_landscape(comps: Components) -> None:
    per_landscape: Counter[Landscape] = Counter()
    for kind in comps.plots:
        per_landscape[kind.landscape] += kind.count
    assert per_landscape == {
        L.DESERT: 21,
        L.CANYON: 19,
        L.MEADOW: 11,
        L.FOREST: 15,
        L.CORNFIELD: 10,
        L.FARM: 20,
    }


def test_symbol_totals(comps: Components) -> None:
    assert total(comps, "cows") == 24
    assert total(comps, "skull") == 8
    assert total(comps, "circle") == 20
    assert total(comps, "gold") == 15
    assert total(comps, "beaver") == 6
    assert total(comps, "corn") == 38


def test_plot_list(comps: Components) -> None:
    plots = comps.plot_list()
    assert len(plots) == 96
    assert plots == sorted(plots)
    assert Counter(plots) == {i: count for i, count in enumerate(COUNTS)}


def test_partners(comps: Components) -> None:
    assert comps.partner_counts == (5, 5, 3, 5, 2)
    assert comps.partner_counts[PartnerKind.GOLD_DIGGER] == 3
    assert comps.partner_counts[PartnerKind.FARMER] == 2
    assert comps.num_partners == 20
    tokens = comps.partner_list()
    assert len(tokens) == 20
    assert Counter(tokens) == {
        PartnerKind.DESPERADO: 5,
        PartnerKind.CATTLE_THIEF: 5,
        PartnerKind.GOLD_DIGGER: 3,
        PartnerKind.TRAPPER: 5,
        PartnerKind.FARMER: 2,
    }


def test_boards(comps: Components) -> None:
    assert comps.boards == {
        "camp": BoardSpec("camp", (0, 2, 4), 3),
        "mary": BoardSpec("mary", (2,), 4),
        "wesley": BoardSpec("wesley", (1, 3), 3),
        "calamity": BoardSpec("calamity", (0, 4), 3),
        "big_jo": BoardSpec("big_jo", (0, 2, 4), 2),
    }
    assert LEGENDS_BOARDS == ("mary", "wesley", "calamity", "big_jo")
    assert list(comps.boards) == ["camp", *LEGENDS_BOARDS]
    # RULES.md section 1: bridges / slots per Legends side
    assert [(len(comps.boards[n].bridges), comps.boards[n].slots) for n in LEGENDS_BOARDS] == [
        (1, 4),
        (2, 3),
        (2, 3),
        (3, 2),
    ]


def test_bonus_tiles_supply_and_sizes(comps: Components) -> None:
    assert comps.bonus_tiles == (
        BonusTile("A", (L.MEADOW, L.FOREST)),
        BonusTile("B", (L.DESERT, L.CANYON)),
    )
    assert comps.cows == 32
    assert comps.saloon_size == 5
    assert comps.column_size == 4


def test_components_are_immutable(comps: Components) -> None:
    with pytest.raises(AttributeError):
        comps.cows = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        comps.plots[0].count = 3  # type: ignore[misc]


# --- Invalid data: always rejected, the message names the JSON path ------------------------

Mutation = Callable[[dict[str, Any]], None]


def setitem(path: list[Any], value: Any) -> Mutation:
    def mutate(raw: dict[str, Any]) -> None:
        node: Any = raw
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value

    return mutate


def delitem(path: list[Any]) -> Mutation:
    def mutate(raw: dict[str, Any]) -> None:
        node: Any = raw
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]

    return mutate


# fmt: off
ALWAYS_INVALID: list[tuple[str, Mutation, str]] = [
    # plots
    ("unknown landscape", setitem(["plots", 21, "landscape"], "swamp"), "plots[21].landscape: unknown landscape 'swamp'"),
    ("landscape not a string", setitem(["plots", 0, "landscape"], 0), "plots[0].landscape: expected a string"),
    ("gold on forest", setitem(["plots", 18, "gold"], 1), "plots[18].gold: gold is only allowed on desert, canyon, meadow"),
    ("gold on farm", setitem(["plots", 22, "gold"], 2), "plots[22].gold:"),
    ("gold on cornfield", setitem(["plots", 20, "gold"], 1), "plots[20].gold:"),
    ("beaver on desert", setitem(["plots", 0, "beaver"], 1), "plots[0].beaver: beaver is only allowed on forest"),
    ("corn on meadow", setitem(["plots", 11, "corn"], 3), "plots[11].corn: corn is only allowed on cornfield"),
    ("cow on cornfield", setitem(["plots", 21, "cows"], 1), "plots[21].cows: a cornfield cannot show a cow symbol"),
    ("back 7", setitem(["plots", 4, "back"], 7), "plots[4].back: must be within 1..6, got 7"),
    ("back 0", setitem(["plots", 0, "back"], 0), "plots[0].back: must be within 1..6, got 0"),
    ("count 0", setitem(["plots", 9, "count"], 0), "plots[9].count: must be within 1..128, got 0"),
    ("negative gold", setitem(["plots", 1, "gold"], -1), "plots[1].gold: must be within 0..20, got -1"),
    ("negative cow symbols", setitem(["plots", 3, "cows"], -2), "plots[3].cows: must be within 0..100, got -2"),
    ("bool given as int (skull)", setitem(["plots", 2, "skull"], 1), "plots[2].skull: expected true or false, got integer 1"),
    ("bool given as int (circle)", setitem(["plots", 4, "circle"], 0), "plots[4].circle: expected true or false"),
    ("int given as bool (gold)", setitem(["plots", 1, "gold"], True), "plots[1].gold: expected an integer, got boolean true"),
    ("int given as bool (count)", setitem(["plots", 9, "count"], True), "plots[9].count: expected an integer"),
    ("float count", setitem(["plots", 0, "count"], 7.0), "plots[0].count: expected an integer, got number 7.0"),
    ("string back", setitem(["plots", 0, "back"], "1"), "plots[0].back: expected an integer, got string '1'"),
    ("null cows", setitem(["plots", 0, "cows"], None), "plots[0].cows: expected an integer, got null"),
    ("wrong kind number", setitem(["plots", 5, "kind"], 7), "plots[5].kind: expected 6"),
    ("missing back", delitem(["plots", 4, "back"]), "plots[4].back: missing required key"),
    ("extra plot key", setitem(["plots", 0, "colour"], "red"), "plots[0].colour: unknown key"),
    ("plot not an object", setitem(["plots", 3], [2, "desert"]), "plots[3]: expected an object"),
    ("plots not a list", setitem(["plots"], {"1": {}}), "plots: expected a list"),
    ("no plots", setitem(["plots"], []), "plots: expected at least one plot kind"),
    # partners
    ("missing partner", delitem(["partners", "farmer"]), "partners.farmer: missing required key"),
    ("unknown partner", setitem(["partners", "sheriff"], 2), "partners.sheriff: unknown key"),
    ("negative partner count", setitem(["partners", "trapper"], -1), "partners.trapper: must be within 0..32"),
    ("partner count as bool", setitem(["partners", "desperado"], True), "partners.desperado: expected an integer"),
    ("partners not an object", setitem(["partners"], [5, 5, 3, 5, 2]), "partners: expected an object"),
    # boards
    ("missing board", delitem(["boards", "big_jo"]), "boards.big_jo: missing required key"),
    ("extra board", setitem(["boards", "lucky_luke"], {"bridges": [0], "slots": 3}), "boards.lucky_luke: unknown key"),
    ("duplicate bridge", setitem(["boards", "camp", "bridges"], [0, 0, 4]), "boards.camp.bridges[1]: duplicate bridge column 0"),
    ("unsorted bridges", setitem(["boards", "wesley", "bridges"], [3, 1]), "boards.wesley.bridges[1]: bridge columns must be in ascending order"),
    ("bridge column 5", setitem(["boards", "mary", "bridges"], [5]), "boards.mary.bridges[0]: must be within 0..4, got 5"),
    ("negative bridge column", setitem(["boards", "calamity", "bridges"], [-1, 4]), "boards.calamity.bridges[0]: must be within 0..4"),
    ("no bridge", setitem(["boards", "mary", "bridges"], []), "boards.mary.bridges: a board needs at least one bridge"),
    ("bridges not a list", setitem(["boards", "mary", "bridges"], 2), "boards.mary.bridges: expected a list"),
    ("slots 0", setitem(["boards", "big_jo", "slots"], 0), "boards.big_jo.slots: must be within 1..7, got 0"),
    ("missing slots", delitem(["boards", "camp", "slots"]), "boards.camp.slots: missing required key"),
    ("extra board key", setitem(["boards", "camp", "side"], "base"), "boards.camp.side: unknown key"),
    # bonus tiles
    ("three bonus tiles", lambda raw: raw["bonus_tiles"].append({"name": "C", "sides": ["farm", "meadow"]}), "bonus_tiles: expected exactly 2 bonus tiles, got 3"),
    ("same landscape both sides", setitem(["bonus_tiles", 0, "sides"], ["meadow", "meadow"]), "bonus_tiles[0].sides: the two sides must show different landscapes"),
    ("unknown bonus landscape", setitem(["bonus_tiles", 1, "sides", 0], "lake"), "bonus_tiles[1].sides[0]: unknown landscape 'lake'"),
    ("one side only", setitem(["bonus_tiles", 1, "sides"], ["desert"]), "bonus_tiles[1].sides: expected exactly 2 sides, got 1"),
    ("duplicate tile name", setitem(["bonus_tiles", 1, "name"], "A"), "bonus_tiles[1].name: duplicate bonus tile name 'A'"),
    ("extra bonus key", setitem(["bonus_tiles", 0, "circles"], 1), "bonus_tiles[0].circles: unknown key"),
    # scalars and the root
    ("negative cows", setitem(["cows"], -1), "cows: must be within 0..127, got -1"),
    ("saloon_size 0", setitem(["saloon_size"], 0), "saloon_size: must be within 1..8, got 0"),
    ("column_size 1", setitem(["column_size"], 1), "column_size: must be within 2..8, got 1"),
    ("cows as bool", setitem(["cows"], False), "cows: expected an integer, got boolean false"),
    ("extra root key", setitem(["expansions"], []), "expansions: unknown key"),
    ("missing cows", delitem(["cows"]), "cows: missing required key"),
    ("missing version", delitem(["version"]), "version: missing required key"),
    ("future version", setitem(["version"], 2), "version: unsupported layout version 2"),
    ("source not a string", setitem(["source"], 1), "source: expected a string"),
    ("doc line not a string", setitem(["doc", 1], 3), "doc[1]: expected a string"),
]
# fmt: on


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(
    ("mutate", "message"),
    [pytest.param(m, msg, id=name) for name, m, msg in ALWAYS_INVALID],
)
def test_invalid_data_is_rejected(mutate: Mutation, message: str, strict: bool) -> None:
    raw = shipped_raw()
    mutate(raw)
    with pytest.raises(ComponentDataError) as info:
        parse_components(raw, strict=strict)
    assert message in str(info.value)
    assert str(info.value).startswith(message.split(":")[0] + ":")


def test_root_must_be_an_object() -> None:
    with pytest.raises(ComponentDataError, match=r"^<root>: expected an object, got a list"):
        parse_components([1, 2, 3])


def test_component_data_error_is_a_value_error() -> None:
    assert issubclass(ComponentDataError, ValueError)


# --- Departures from the published data: strict rejects, non-strict accepts ---------------

# fmt: off
STRICT_ONLY: list[tuple[str, Mutation, str]] = [
    ("wrong count", setitem(["plots", 3, "count"], 3), "plots[3].count: expected 2 (published data), got 3"),
    ("24 kinds", delitem(["plots", 24]), "plots: expected 25 kinds (published data), got 24"),
    ("gold digger count", setitem(["partners", "gold_digger"], 4), "partners.gold_digger: expected 3 (published data), got 4"),
    ("no farmers", setitem(["partners", "farmer"], 0), "partners.farmer: expected 2 (published data), got 0"),
    ("mary slots", setitem(["boards", "mary", "slots"], 3), "boards.mary.slots: expected 4 (published data), got 3"),
    ("camp bridges", setitem(["boards", "camp", "bridges"], [1, 3]), "boards.camp.bridges: expected [0, 2, 4] (published data), got [1, 3]"),
    ("cows 2", setitem(["cows"], 2), "cows: expected 32 (published data), got 2"),
    ("saloon 4", setitem(["saloon_size"], 4), "saloon_size: expected 5 (published data), got 4"),
    ("column 3", setitem(["column_size"], 3), "column_size: expected 4 (published data), got 3"),
]
# fmt: on


@pytest.mark.parametrize(
    ("mutate", "message"),
    [pytest.param(m, msg, id=name) for name, m, msg in STRICT_ONLY],
)
def test_published_data_is_enforced_only_when_strict(mutate: Mutation, message: str) -> None:
    raw = shipped_raw()
    mutate(raw)
    with pytest.raises(ComponentDataError) as info:
        parse_components(raw, strict=True)
    assert str(info.value).startswith(message)
    parse_components(raw, strict=False)  # accepted


def test_strict_is_the_default() -> None:
    raw = shipped_raw()
    raw["cows"] = 31
    with pytest.raises(ComponentDataError, match=r"^cows: expected 32"):
        parse_components(raw)


def test_non_strict_file_with_other_data_loads(tmp_path: Path) -> None:
    """A user's (or a test's) file: 2 cows, a cornfield with a circle, a smaller box."""
    raw = shipped_raw()
    raw["cows"] = 2
    raw["plots"][20]["circle"] = True  # a cornfield with a circle (ruling R4 territory)
    raw["plots"] = raw["plots"][:22]
    raw["plots"][0]["count"] = 1
    raw["partners"] = {
        "desperado": 0,
        "cattle_thief": 3,
        "gold_digger": 0,
        "trapper": 0,
        "farmer": 1,
    }
    raw["boards"]["mary"] = {"bridges": [0, 1, 2, 3, 4], "slots": 1}
    path = tmp_path / "corrected.json"
    path.write_text(json.dumps(raw), encoding="utf-8")

    comps = load_components(path, strict=False)
    assert comps.cows == 2
    assert comps.plots[20].landscape is L.CORNFIELD and comps.plots[20].circle
    assert len(comps.plots) == 22
    assert comps.num_plots == 96 - 9 - 6 - 5 - 6
    assert comps.partner_list() == [1, 1, 1, 4]
    assert comps.boards["mary"].bridges == (0, 1, 2, 3, 4)

    with pytest.raises(ComponentDataError) as info:
        load_components(str(path))  # strict by default
    assert str(path) in str(info.value)
    assert "plots: expected 25 kinds (published data), got 22" in str(info.value)


# --- Files ----------------------------------------------------------------------------------


def test_broken_json_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"version": 1, "plots": [', encoding="utf-8")
    with pytest.raises(ComponentDataError) as info:
        load_components(path)
    assert str(path) in str(info.value)
    assert "invalid JSON" in str(info.value)


def test_missing_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(ComponentDataError) as info:
        load_components(path, strict=False)
    assert str(path) in str(info.value)


def test_duplicate_json_key_is_rejected(tmp_path: Path) -> None:
    text = json.dumps(shipped_raw())
    text = text.replace('"cows": 32', '"cows": 32, "cows": 30', 1)
    path = tmp_path / "dup.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ComponentDataError) as info:
        load_components(path)
    assert str(path) in str(info.value)
    assert "duplicate key 'cows'" in str(info.value)


def test_invalid_data_in_a_file_names_file_and_path(tmp_path: Path) -> None:
    raw = copy.deepcopy(shipped_raw())
    raw["plots"][21]["landscape"] = "swamp"
    path = tmp_path / "swamp.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ComponentDataError) as info:
        load_components(path, strict=False)
    assert str(info.value).startswith(f"{path}: plots[21].landscape: unknown landscape 'swamp'")
