"""The project's own rulings R21-R25 (RULES.md section 11), one test each or more.

The published rules do not reach these points (how the engine turns the table into decisions);
RULES.md states each ruling in its section and lists these tests under it.
"""

from __future__ import annotations

import pytest
from positions import act, cell, legal_of, legal_texts, position

from moonriver_env.rules import GameConfig, Phase, new_game

C2 = GameConfig(num_players=2)
C4 = GameConfig(num_players=4)
FARM, FOREST, MEADOW_CIRCLE, FARM_COW = 23, 19, 13, 16  # kind numbers of RULES.md section 9


def test_r21_claim_either_tile_and_remove_one_that_fits_nowhere() -> None:
    # Seat 0's ranch: farms everywhere reachable and a forest; tile A (meadow/forest) fits
    # next to the forest, tile B (desert/canyon) fits nowhere (no free bridge, no desert or
    # canyon). The player may place A or claim B and remove it; A then stays available.
    ranch = "\n".join([". . . . ."] + ["23 . . . ."] * 7 + ["23 19 . . .", "23 23 23 23 23"])
    st = position(C2, ranch=ranch, held=[FOREST, FARM])
    act(st, "place 0+1 b10 W")  # forest b10, farm a10: reaches the far row
    assert st.phase == Phase.BONUS
    options = legal_texts(st)
    assert "bonus B remove" in options
    assert any(t.startswith("bonus A1 ") for t in options)  # forest side next to a forest
    assert "bonus A remove" not in options  # a tile that fits must be placed
    act(st, "bonus B remove")
    assert st.tiles == [True, False] and st.bonus_done == [True, False]


def test_r22_final_turn_has_no_stop_and_discards_leftovers() -> None:
    ranch = "\n".join([". . . . ."] * 4 + ["23 23 23 23 23"])
    st = position(
        C4, ranch=ranch, held=[FARM, FARM, FOREST], phase=Phase.FINAL_EXPAND, final_round=True
    )
    assert "stop" not in legal_texts(st)
    discarded = len(st.discarded)
    act(st, "place 1+2 a2 N")  # held by kind: forest 0, farms 1, 2; the forest stays alone
    # The forest is discarded at once (the game then runs on through the other seats).
    assert st.held[0] == [] and st.discarded[discarded] == FOREST - 1


def test_r22_final_turn_has_no_two_domino_limit() -> None:
    ranch = "\n".join([". . . . ."] * 4 + ["23 23 23 23 23"])
    st = position(
        C4,
        ranch=ranch,
        held=[FARM, FARM, FARM, FARM],
        phase=Phase.FINAL_EXPAND,
        final_round=True,
        dominoes=2,
    )
    assert legal_of(st, "place")
    act(st, "place 0+1 a2 N")
    assert st.phase == Phase.FINAL_EXPAND and legal_of(st, "place")


def test_r23_optional_expansion_with_nothing_placeable_passes() -> None:
    # After the mandatory domino, two forests remain and no cell pair is free: no EXPAND
    # decision with "stop" alone is offered, the turn moves on to Select.
    rows = ["23 23 23 . .", "23 23 23 23 23", "23 23 23 23 23", "23 23 23 23 23", "23 23 23 23 23"]
    st = position(
        C4, ranch="\n".join(rows), held=[FARM, FARM, FOREST, FOREST], phase=Phase.MUST_EXPAND
    )
    act(st, "place 2+3 d5 E")  # held sorted by kind: forests 0, 1; farms 2, 3
    assert st.phase == Phase.SELECT and len(st.held[0]) == 2


@pytest.mark.parametrize("opponent_holds", [False, True])
def test_r23_desperado_without_a_possible_swap_passes(opponent_holds: bool) -> None:
    helds = {1: [FARM]} if opponent_holds else {}
    st = position(
        C4,
        held=[MEADOW_CIRCLE, FARM],
        helds=helds,
        saloon=["desperado", "trapper", "trapper", "farmer", "gold_digger"],
    )
    act(st, "place 0+1 a1 N")  # meadow with circle on the bridge a1, farm a2
    assert st.phase == Phase.RECRUIT
    act(st, "recruit c0 s0 specialist")
    # The acting seat holds nothing after its domino: no swap is possible either way.
    assert st.phase != Phase.DESPERADO
    assert st.partners[0][cell("a1")] == 0  # Desperado, specialist side up


def test_r23_single_action_decisions_are_offered_unless_auto_resolve() -> None:
    st = new_game(C4, seed=3)
    for _ in range(3):
        act(st, legal_texts(st)[0])
    assert st.phase == Phase.SETUP_CLAIM and len(st.legal_action_list()) == 1
    auto = new_game(GameConfig(num_players=4, auto_resolve=True), seed=3)
    for _ in range(3):
        auto.apply(auto.legal_action_list()[0])
    assert auto.phase != Phase.SETUP_CLAIM


def test_r24_cowboy_may_stop_at_once_and_moves_only_between_plots() -> None:
    ranch = "\n".join([". . . . ."] * 3 + [". 23 . . .", ". 16c1 21 . ."])
    st = position(C4, ranch=ranch, held=[MEADOW_CIRCLE, FARM], saloon=["trapper"] * 5)
    act(st, "place 0+1 a1 N")
    act(st, "recruit c0 s0 cowboy")
    assert st.phase == Phase.COWBOY
    moves = legal_of(st, "move")
    assert "cowboy stop" in legal_texts(st)
    # b1 (forest, 1 cow) -> a1 meadow or b2 farm; never c1 (cornfield) nor empty cells.
    assert sorted(moves) == ["move b1 N", "move b1 W"]
    act(st, "cowboy stop")
    assert st.phase != Phase.COWBOY and st.cows[0][cell("b1")] == 1


def test_r24_thief_may_target_a_player_who_holds_nothing() -> None:
    st = position(
        C4,
        held=[MEADOW_CIRCLE, FARM],
        ranches={1: "\n".join([". . . . ."] * 4 + ["23c1 . . . ."])},
        saloon=["cattle_thief"] * 5,
    )
    assert st.held[1] == []
    act(st, "place 0+1 a1 N")
    act(st, "recruit c0 s0 specialist")
    assert st.phase == Phase.THIEF
    assert legal_of(st, "steal") == ["steal +1 a1"]


def test_r25_two_player_setup_order_and_random_draws() -> None:
    firsts = set()
    for seed in range(12):
        st = new_game(C2, seed=seed)
        first = st.setup_order[0]
        firsts.add(first)
        assert st.setup_order == [first, 1 - first, 1 - first, first]
        seen = []
        while st.phase == Phase.SETUP_CLAIM:
            seen.append(st.current_seat)
            st.apply(st.legal_action_list()[0])
        assert seen == st.setup_order
    assert firsts == {0, 1}
    legends = GameConfig(num_players=3, mode="legends")
    scenarios = {new_game(legends, seed=s).scenario for s in range(40)}
    assert scenarios == {"timber_rafting", "gold_rush", "outlaws", "moon_river_city"}
    assert new_game(legends, seed=5).scenario == new_game(legends, seed=5).scenario
    assert new_game(legends, seed=5).boards == ("mary", "wesley", "calamity")


def test_r23_cowboy_with_no_cow_to_move_passes() -> None:
    # A Cowboy recruited onto a ranch without cows has nothing to move: no COWBOY decision
    # (not even a lone "cowboy stop"); the turn goes on.
    st = position(C4, held=[MEADOW_CIRCLE, FARM], saloon=["trapper"] * 5)
    act(st, "place 0+1 a1 N", "recruit c0 s0 cowboy")
    assert st.partners[0][cell("a1")] == 2 * 3 + 1  # a Trapper token, Cowboy side up
    assert st.phase != Phase.COWBOY and not legal_of(st, "move")
    assert "cowboy stop" not in legal_texts(st)


def test_r24_thief_may_steal_from_a_player_who_has_finished() -> None:
    # The final round: seat 1 played its final turn first (position 0, now empty); seat 0
    # plays its own final turn and recruits a Cattle Thief, which may still rob seat 1.
    st = position(
        C4,
        held=[MEADOW_CIRCLE, FARM],
        ranches={1: "\n".join([". . . . ."] * 4 + ["23c1 23 . . ."])},
        claims=[1, 0, 2, 3],
        turn_pos=1,
        final_round=True,
        phase=Phase.FINAL_EXPAND,
        saloon=["cattle_thief"] * 5,
    )
    assert st.final_turn and st.held[1] == [] and 1 not in st.cur_claim[2:]
    act(st, "place 0+1 a1 N", "recruit c0 s0 specialist")
    assert st.phase == Phase.THIEF
    assert legal_of(st, "steal") == ["steal +1 a1"]
    act(st, "steal +1 a1")
    assert st.cows[1][cell("a1")] == 0 and st.cows[0][cell("a1")] == 1
