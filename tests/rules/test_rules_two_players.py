"""Rule cases of the 2-player game (RULES.md section 6): the 5 x 10 grid, two rancheros,
the bonus tiles; rulings R2, R10, R19."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from positions import act, cell, legal_of, legal_texts, position
from rule_cases import C2, C4, NK, QUIET_SALOON, rule_table

from moonriver_env.rules import PartnerKind, Phase, new_game

RULES, rule = rule_table()


# =============================================================================== section 6


@rule("s6-two-players-grid-5x10")
def _() -> None:
    assert C2.rows == 10
    st = new_game(C2, seed=1)
    assert st.grid.cells == 50
    assert st.action_to_string(st.string_to_action("place 0+1 e10 S")) == "place 0+1 e10 S"
    with pytest.raises(ValueError):
        new_game(C4, seed=1).string_to_action("place 0+1 e6 S")


@rule("s6-two-rancheros-setup-order-1-2-1")
def _() -> None:
    for seed in range(4):
        st = new_game(C2, seed=seed)
        first = st.seat
        seen = []
        for pos in range(4):
            seen.append(st.seat)
            act(st, f"claim {pos}")
        assert seen == [first, 1 - first, 1 - first, first]
        assert sorted(st.cur_claim) == [0, 0, 1, 1]


@rule("s6-two-turns-per-column")
def _() -> None:
    st = new_game(C2, seed=2)
    act(st, "claim 0", "claim 1", "claim 2", "claim 3")
    seats = []
    for _ in range(4):
        seats.append(st.seat)
        while st.phase != Phase.SELECT:
            act(st, "stop")
        act(st, legal_texts(st)[0])
    assert sorted(seats) == [0, 0, 1, 1] and st.round == 2


# Farms a1 .. a9 (canyon b1-e1: the river row is full); a10 empty.
FAR_RANCH = "\n".join([". . . . ."] + ["23 . . . ."] * 8 + ["23 6 6 6 6"])


@rule("s6-bonus-tile-on-reaching-the-far-row")
def _() -> None:
    st = position(C2, ranch=FAR_RANCH, held=[19, 23], saloon=QUIET_SALOON)
    act(st, "place 0+1 b10 W")  # forest b10, farm a10: reaches row 10
    assert st.phase == Phase.BONUS
    # A0 meadow: no meadow, no free bridge -> nowhere. A1 forest: next to the forest b10:
    # c10, b9. B0 desert: nowhere. B1 canyon: next to b1..e1: b2, c2, d2, e2. Both fit: no
    # removal offered.
    assert sorted(legal_texts(st)) == sorted(
        ["bonus A1 c10", "bonus A1 b9", "bonus B1 b2", "bonus B1 c2", "bonus B1 d2", "bonus B1 e2"]
    )
    act(st, "bonus A1 c10")
    assert st.kinds[0][cell("c10")] == NK + 1  # tile A, forest side
    assert st.tiles == [False, True] and st.bonus_done == [True, False]
    assert st.phase == Phase.RECRUIT  # its circle
    act(st, "recruit c0 s0 specialist")
    assert st.partners[0][cell("c10")] == 2 * PartnerKind.GOLD_DIGGER
    assert st.phase == Phase.SELECT


@rule("R10-bonus-tile-sides")
def _() -> None:
    # A meadow on b9 and a desert on c9: tile A's meadow side and tile B's desert side fit
    # next to them (no forest, no canyon, no free bridge).
    ranch = "\n".join([". . . . .", "23 12 1 . ."] + ["23 . . . ."] * 7 + ["23 23 23 23 23"])
    st = position(C2, ranch=ranch, held=[23, 23], saloon=QUIET_SALOON)
    act(st, "place 0+1 a10 E")  # farm a10, farm b10
    assert st.phase == Phase.BONUS
    # meadow b9: empty neighbours b8 (b10 now taken) -> A0 b8; desert c9: c10, d9, c8 -> B0
    assert sorted(legal_texts(st)) == sorted(
        ["bonus A0 b8", "bonus B0 c10", "bonus B0 d9", "bonus B0 c8"]
    )
    act(st, "bonus B0 d9")
    assert st.kinds[0][cell("d9")] == NK + 2  # tile B, desert side
    s = st.scores()[0]
    assert s.largest_territory == 15  # farms a1-e1, a2-a9, a10, b10: 5 + 8 + 2; desert c9-d9: 2


@rule("R10-placed-tile-is-its-landscape")
def _() -> None:
    # Tile A, meadow side up, on c5 (a hand-made 2-player ranch; river row full of farms).
    # A meadow (0) + forest (1) domino connects by the meadow next to the tile; its cows
    # count in the tile's meadow territory.
    ranch = "\n".join(
        [". . . . ."] * 5 + [". . A0 . .", ". . 23 . ."] + ["23 . 23 . ."] * 2 + ["23 23 23 23 23"]
    )
    st = position(C2, ranch=ranch, held=[14, 19])
    assert st.is_legal(st.string_to_action("place 0+1 c6 N"))  # meadow c6 next to the tile
    assert not st.is_legal(st.string_to_action("place 0+1 b6 N"))  # b6 touches no meadow
    act(st, "place 0+1 c6 N")
    s = st.scores()[0]
    assert s.territories == 2 * 2  # meadow tile c5 + meadow c6: 2 plots x 2 cows


@rule("R19-second-domino-of-a-turn-triggers")
def _() -> None:
    ranch = "\n".join([". . . . ."] + ["23 . . . ."] * 8 + ["23 6 . 6 6"])
    st = position(C2, ranch=ranch, held=[1, 6, 19, 23], phase=Phase.MUST_EXPAND)
    act(st, "place 0+1 c1 N")  # desert c1, canyon c2: first domino, row 2
    assert st.phase == Phase.EXPAND
    act(st, "place 0+1 b10 W")  # forest b10, farm a10: the turn's second domino
    assert st.phase == Phase.BONUS


@rule("R19-forced-final-placement-triggers")
def _() -> None:
    st = position(C2, ranch=FAR_RANCH, held=[19, 23], phase=Phase.FINAL_EXPAND, final_round=True)
    act(st, "place 0+1 b10 W")
    assert st.phase == Phase.BONUS


@rule("R19-each-player-at-most-one-tile")
def _() -> None:
    st = position(C2, ranch=FAR_RANCH, held=[19, 23])
    st.bonus_done = [True, False]
    st.tiles = [False, True]
    act(st, "place 0+1 b10 W")
    assert st.phase == Phase.SELECT and st.tiles == [False, True]


@rule("R19-second-player-takes-the-other-tile")
def _() -> None:
    st = position(C2, ranch=FAR_RANCH, seat=1, held=[19, 23])
    st.bonus_done = [True, False]
    st.tiles = [False, True]
    act(st, "place 0+1 b10 W")
    assert st.phase == Phase.BONUS
    # only tile B: canyon next to b1..e1
    assert sorted(legal_texts(st)) == sorted(
        ["bonus B1 b2", "bonus B1 c2", "bonus B1 d2", "bonus B1 e2"]
    )


@rule("R19-tile-removed-when-it-fits-nowhere")
def _() -> None:
    # Only farms and a forest: tile B (desert/canyon) fits nowhere (no free bridge).
    ranch = "\n".join([". . . . ."] + ["23 . . . ."] * 8 + ["23 23 23 23 23"])
    st = position(C2, ranch=ranch, seat=1, held=[19, 23])
    st.bonus_done = [True, False]  # seat 0 took tile A before
    st.tiles = [False, True]
    act(st, "place 0+1 b10 W")
    if st.phase == Phase.BONUS:  # the removal may be offered as a decision
        assert legal_texts(st) == ["bonus B remove"]
        act(st, "bonus B remove")
    assert st.tiles == [False, False] and st.bonus_done == [True, True]
    assert st.phase == Phase.SELECT
    assert all(k < NK for k in st.kinds[1])


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("c5", "c6", id="R2-center-cells-open"),
        pytest.param("a10", "b10", id="R2-far-row-corner"),
        pytest.param("e9", "e10", id="R2-far-row-edge"),
        pytest.param("b4", "c4", id="R2-middle"),
    ],
)
def test_r2_all_fifty_cells_open(a: str, b: str) -> None:
    # Fill all 50 cells with farms but a and b: a farm + farm domino fits there and only
    # there, in both orientations.
    rows = []
    for row in reversed(range(10)):
        rows.append(" ".join("." if f"{c}{row + 1}" in (a, b) else "23" for c in "abcde"))
    st = position(C2, ranch="\n".join(rows), held=[23, 23])
    d = "N" if a[0] == b[0] else "E"
    back = {"N": "S", "E": "W"}[d]
    assert sorted(legal_of(st, "place")) == sorted([f"place 0+1 {a} {d}", f"place 0+1 {b} {back}"])


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
