"""The flat action layout itself (moonriver_env/moonriver/rules/actions.py): segment order and sizes per
config, the env's action space, and the round trips id -> index/action/text -> id."""

from __future__ import annotations

import pytest

from moonriver_env import moonriver_v0
from moonriver_env.moonriver.rules.actions import SEGMENTS, ActionLayout
from moonriver_env.rules import GameConfig

COMMON = (
    "claim",
    "place",
    "stop",
    "discard",
    "skull",
    "recruit",
    "cowboy_move",
    "cowboy_stop",
    "desperado_swap",
    "desperado_skip",
    "thief_steal",
    "thief_skip",
)
TWO_PLAYER = (*COMMON, "bonus_place", "bonus_remove")


def _sizes(names: tuple[str, ...], *sizes: int) -> dict[str, int]:
    return dict(zip(names, sizes, strict=True))


# (players, mode) -> segment sizes in id order; written out by hand from the layout's shapes
# (C cells, H held positions, P pairs, n players), so a change of the numbering fails here.
SIZES: dict[tuple[int, str], dict[str, int]] = {
    # C=50 H=4 P=6
    (2, "base"): _sizes(TWO_PLAYER, 4, 1200, 1, 6, 50, 20, 200, 1, 12, 1, 50, 1, 200, 2),
    # C=50 H=5 P=10
    (2, "legends"): _sizes(TWO_PLAYER, 4, 2000, 1, 10, 50, 20, 200, 1, 20, 1, 50, 1, 200, 2),
    # C=25 H=4 P=6
    (3, "base"): _sizes(COMMON, 4, 600, 1, 6, 25, 20, 100, 1, 24, 1, 50, 1),
    (3, "legends"): _sizes(COMMON, 4, 1000, 1, 10, 25, 20, 100, 1, 40, 1, 50, 1),
    (4, "base"): _sizes(COMMON, 4, 600, 1, 6, 25, 20, 100, 1, 36, 1, 75, 1),
    (4, "legends"): _sizes(COMMON, 4, 1000, 1, 10, 25, 20, 100, 1, 60, 1, 75, 1),
}
TOTALS = {
    (2, "base"): 1748,
    (2, "legends"): 2560,
    (3, "base"): 833,
    (3, "legends"): 1253,
    (4, "base"): 870,
    (4, "legends"): 1298,
}
CONFIGS = sorted(SIZES)


def layout_of(key: tuple[int, str]) -> ActionLayout:
    return GameConfig(num_players=key[0], mode=key[1]).layout


@pytest.mark.parametrize("key", CONFIGS, ids=lambda k: f"{k[0]}p-{k[1]}")
def test_segments_order_sizes_and_total(key: tuple[int, str]) -> None:
    lay = layout_of(key)
    want = SIZES[key]
    assert [seg.name for seg in lay.segment_list] == list(want)
    assert {seg.name: seg.size for seg in lay.segment_list} == want
    start = 0
    for seg in lay.segment_list:  # consecutive, no gap, no overlap
        assert seg.start == start, seg.name
        assert lay.segments[seg.name] == (seg.start, seg.size)
        start = seg.stop
    assert lay.num_actions == start == sum(want.values()) == TOTALS[key]
    assert len(lay.located) == lay.num_actions
    env = moonriver_v0.env(num_players=key[0], mode=key[1])
    assert env.action_space("player_0").n == lay.num_actions == env.unwrapped.config.num_actions


@pytest.mark.parametrize("key", CONFIGS, ids=lambda k: f"{k[0]}p-{k[1]}")
def test_every_id_round_trips(key: tuple[int, str]) -> None:
    lay = layout_of(key)
    for a in range(lay.num_actions):
        name, index = lay.locate(a)
        seg = lay.by_name[name]
        assert seg.start <= a < seg.stop
        assert seg.index(a) == index
        assert seg.id(*index) == a
        assert all(0 <= i < n for i, n in zip(index, seg.shape, strict=True))
        assert lay.encode(lay.decode(a)) == a
        assert lay.from_text(lay.to_text(a)) == a


@pytest.mark.parametrize("key", CONFIGS, ids=lambda k: f"{k[0]}p-{k[1]}")
def test_id_tables_match_the_index(key: tuple[int, str]) -> None:
    lay = layout_of(key)
    for seg in lay.segment_list:
        ids = seg.ids
        for a in range(seg.start, seg.stop):
            looked_up = ids
            for i in seg.index(a):
                looked_up = looked_up[i]
            assert looked_up == a, (seg.name, a)


def test_declared_segments_and_axis_sizes() -> None:
    """The declaration names every segment once; 2-player games alone have the bonus tiles."""
    names = [name for name, _ in SEGMENTS]
    assert names == list(TWO_PLAYER)
    lay = layout_of((2, "base"))
    place = lay.by_name["place"]
    assert place.axes == ("pair", "cell", "direction")
    assert place.shape == (len(lay.pairs), lay.cells, 4)
    assert place.strides == (lay.cells * 4, 4, 1)
    assert lay.by_name["stop"].shape == () and lay.by_name["stop"].ids == 1204
    assert "bonus_place" not in layout_of((3, "base")).by_name


# Spot ids with their text forms, fixed when the layout was declared (4 players, base game).
SPOTS_4P_BASE = {
    0: "claim 0",
    4: "place 0+1 a1 N",
    603: "place 2+3 e5 W",
    604: "stop",
    610: "discard 2+3",
    611: "skull a1",
    655: "recruit c1 s4 cowboy",
    755: "move e5 W",
    756: "cowboy stop",
    792: "swap 3 +3 2",
    793: "desperado skip",
    868: "steal +3 e5",
    869: "thief skip",
}


def test_spot_ids_keep_their_text() -> None:
    lay = layout_of((4, "base"))
    assert {a: lay.to_text(a) for a in SPOTS_4P_BASE} == SPOTS_4P_BASE
    two = layout_of((2, "legends"))
    assert two.to_text(2358) == "bonus A0 a1" and two.to_text(2559) == "bonus B remove"


def test_bad_indices_name_the_axis() -> None:
    lay = layout_of((4, "base"))
    with pytest.raises(ValueError, match="cell must be in 0..24"):
        lay.by_name["skull"].id(25)
    with pytest.raises(ValueError, match="takes 3 indices"):
        lay.by_name["place"].id(0, 0)
    with pytest.raises(ValueError, match="outside 0..869"):
        lay.locate(870)


def test_every_segment_has_an_engine_handler() -> None:
    from moonriver_env.moonriver.rules.state import _APPLY

    assert list(_APPLY) == [name for name, _ in SEGMENTS]


def test_text_parse_errors_name_the_expected_form() -> None:
    lay = layout_of((4, "base"))
    assert lay.from_text("  PLACE 0+1   B1 n ") == lay.from_text("place 0+1 b1 N")
    with pytest.raises(ValueError, match="unknown action word 'plaec'"):
        lay.from_text("plaec 0+1 a1 N")
    with pytest.raises(ValueError, match=r"expected 'place \{pair\} \{cell\} \{direction\}'"):
        lay.from_text("place 0+1 e6 S")  # row 6 is off a 5-row ranch
    with pytest.raises(ValueError, match="no bonus_place or bonus_remove actions"):
        lay.from_text("bonus A0 c1")
    with pytest.raises(ValueError, match="empty action text"):
        lay.from_text("   ")
