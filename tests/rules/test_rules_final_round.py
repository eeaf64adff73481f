"""Rule cases of the end of the game (RULES.md section 5): the final round, leftover
plots, overpopulation; rulings R6, R17."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from positions import act, cell, kinds_of, legal_texts, position
from rule_cases import C2, C4, last_turn, round_end, rule_table

from moonriver_env.rules import GameState, Phase

RULES, rule = rule_table()


# =============================================================================== section 5


def _final_round_2p() -> GameState:
    # 2 players, final round: the column is claimed [0, 1, 1, 0]. Seat 0 (position 0) is in
    # its first turn (not final: it plays position 3 too).
    return position(
        C2,
        held=[1, 23],
        helds={1: [6]},
        column=[0, 23, 1, 19],
        final_round=True,
    )


@rule("s5-final-round-no-select")
def _() -> None:
    st = _final_round_2p()
    assert st.phase == Phase.EXPAND and st.final_turn is False
    act(st, "stop")
    assert st.seat == 1 and st.phase != Phase.SELECT


@rule("R17-two-players-final-turn-is-the-second")
def _() -> None:
    st = _final_round_2p()
    act(st, "stop")
    # seat 1, first turn of the final round (position 1): optional expansion
    assert st.seat == 1 and st.phase == Phase.EXPAND and "stop" in legal_texts(st)
    assert st.held[1] == kinds_of([6, 23])
    act(st, "stop")
    # seat 1 again (position 2): its final turn -> forced placements, no stop
    assert st.seat == 1 and st.phase == Phase.FINAL_EXPAND
    assert st.held[1] == kinds_of([1, 6, 23]) and "stop" not in legal_texts(st)


@rule("s5-final-turn-places-until-nothing-fits-then-discards")
def _() -> None:
    st = _final_round_2p()
    act(st, "stop", "stop")
    before = len(st.discarded)
    act(st, "place 0+1 a1 N")  # desert a1, canyon a2; the farm is left alone
    assert st.discarded[before:] == kinds_of([23]) and st.held[1] == []
    # seat 0's final turn (position 3): collects the forest, holds 3 -> forced expansion
    assert st.seat == 0 and st.phase == Phase.FINAL_EXPAND
    assert st.held[0] == kinds_of([1, 19, 23])


@rule("s5-final-turn-no-domino-limit")
def _() -> None:
    st = position(held=[1, 1, 12, 12], phase=Phase.FINAL_EXPAND, final_round=True, dominoes=2)
    act(st, "place 0+2 c1 N")  # third domino of the turn
    assert st.phase == Phase.FINAL_EXPAND and st.dominoes == 3  # the other pair fits (b1)
    act(st, "place 0+1 b1 N")
    assert st.held[0] == []
    # Seats 1-3 then collect one plot each: a single plot never fits, so each is discarded
    # and the final round, hence the game, ends.
    assert st.phase == Phase.GAME_OVER


@rule("s5-final-turn-discards-all-when-nothing-fits")
def _() -> None:
    # Seat 0 ends a (final-round) turn; seat 1 collects the forest onto desert + meadow; its
    # ranch (canyon river row) takes none of them: all three are discarded. Seat 2 then
    # collects a desert onto its farm and must place them.
    st = position(
        C4,
        seat=0,
        phase=Phase.EXPAND,
        ranches={1: "6 6 6 6 6"},
        helds={1: [1, 12], 2: [23]},
        column=[0, 19, 1, 1],
        final_round=True,
    )
    before = len(st.discarded)
    act(st, "stop")
    assert sorted(st.discarded[before:]) == kinds_of([1, 12, 19])
    assert st.held[1] == []
    assert st.seat == 2 and st.phase == Phase.FINAL_EXPAND and st.held[2] == kinds_of([1, 23])


@rule("R6-short-remainder-discarded-final-round-follows")
def _() -> None:
    st = round_end(
        next_column=[1, 6, 12, 23],
        helds={0: [23]},
        pile=[1, 6, 12],
    )
    before = len(st.discarded)
    act(st, "claim 3")
    assert st.final_round is True
    assert sorted(st.discarded[before:]) == kinds_of([1, 6, 12]) and st.pile == []
    assert st.next_col == [-1, -1, -1, -1]
    # seat 0 collected the desert onto its farm: final turn, forced placement, no select
    assert st.seat == 0 and st.phase == Phase.FINAL_EXPAND
    assert st.held[0] == kinds_of([1, 23])


@rule("s5-overpopulation-then-game-over")
def _() -> None:
    st = last_turn(
        ranch="14c2 14c2 . . .",
        ranches={0: "23c3 . . . ."},
        held=[1, 23],
        phase=Phase.FINAL_EXPAND,
        final_round=True,
    )
    assert st.supply == 32 - 7
    act(st, "place 0+1 c1 N")
    assert st.phase == Phase.GAME_OVER and st.current_seat is None
    assert st.legal_action_list() == []
    assert st.cows[3][cell("a1")] == 1 and st.cows[3][cell("b1")] == 1
    assert st.cows[0][cell("a1")] == 1
    assert st.supply == 32 - 3
    # meadow a1-b1: 2 plots x 2 cows = 4 (it would be 8 before overpopulation)
    assert st.scores()[3].total == 4 and st.scores()[0].total == 1
    assert st.winners() == [3]


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
