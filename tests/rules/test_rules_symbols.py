"""Rule cases of the symbols and partners (RULES.md section 4): cows, skulls, circles and
recruits, cowboys, desperados, cattle thieves; rulings R1, R4, R5, R15, R16."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from positions import act, cell, kinds_of, legal_of, legal_texts, position
from rule_cases import QUIET_SALOON, custom_components, rule_table

from moonriver_env.moonriver.rules.components import ComponentDataError, Components
from moonriver_env.rules import GameConfig, GameState, PartnerKind, Phase

RULES, rule = rule_table()


# =============================================================================== section 4


@rule("s4-cows-one-per-symbol")
def _() -> None:
    st = position(held=[9, 14])  # 0 canyon (1 cow), 1 meadow (2 cows)
    act(st, "place 0+1 a1 N")
    assert st.cows[0][cell("a1")] == 1 and st.cows[0][cell("a2")] == 2
    assert st.supply == 32 - 3
    assert st.phase == Phase.SELECT


def _one_cow_components() -> Components:
    def edit(raw: dict[str, Any]) -> None:
        raw["cows"] = 1

    return custom_components(edit)


@rule("R1-supply-runs-out-mid-plot")
def _() -> None:
    st = position(GameConfig(num_players=4, components=_one_cow_components()), held=[14, 23])
    assert st.supply == 1
    act(st, "place 0+1 a1 N")  # meadow with 2 cow symbols on a1, farm a2
    assert st.cows[0][cell("a1")] == 1 and st.supply == 0


@rule("R1-empty-supply-places-nothing")
def _() -> None:
    st = position(
        GameConfig(num_players=4, components=_one_cow_components()), held=[14, 9], supply=0
    )
    act(st, "place 0+1 a1 N")
    assert st.cows[0] == [0] * 25 and st.supply == 0


SKULL_RANCH = """
6c1 . . . 9c1
6c1 6 . 4c1 1
"""


@rule("s4-skull-choice-within-its-territory")
def _() -> None:
    # Canyon territory a1, b1, a2 (cows on a1, a2); a lone canyon e2 with a cow; a desert
    # cow on d1. Desert (0) on c2, canyon skull (1) on b2 joins a1-b1-a2.
    st = position(ranch=SKULL_RANCH, held=[1, 8])
    act(st, "place 0+1 c2 W")
    assert st.phase == Phase.SKULL
    assert sorted(legal_texts(st)) == ["skull a1", "skull a2"]  # not e2, not d1
    supply = st.supply
    act(st, "skull a2")
    assert st.cows[0][cell("a2")] == 0 and st.cows[0][cell("a1")] == 1
    assert st.cows[0][cell("e2")] == 1 and st.cows[0][cell("d1")] == 1
    assert st.supply == supply + 1
    assert st.phase == Phase.SELECT


@rule("s4-skull-without-cow-has-no-effect")
def _() -> None:
    st = position(ranch="6 . . . .", held=[1, 8])  # canyon a1 without cows
    act(st, "place 0+1 b2 S")  # desert b2, canyon skull b1 joins a1: no cow in it
    assert not legal_of(st, "skull") and st.supply == 32


@rule("R15-skull-acts-on-a-new-territory")
def _() -> None:
    # Desert skull (0) + desert cow (1) on an empty ranch: a new territory; the cow comes
    # first, then the skull removes it.
    st = position(held=[3, 4])
    act(st, "place 0+1 a1 N")
    assert st.cows[0][cell("a2")] == 1
    assert st.phase == Phase.SKULL and legal_texts(st) == ["skull a2"]
    act(st, "skull a2")
    assert st.cows[0] == [0] * 25 and st.supply == 32


@rule("R15-every-skull-on-the-domino-acts")
def _() -> None:
    # Desert skull (0) on a2 next to the desert cow a1; canyon skull (1) on b2 next to the
    # canyon cow b1. Both skulls act (in an order the rules leave open), each in its own
    # territory: one decision offers only a1, the other only b1.
    st = position(ranch="4c1 9c1 . . .", held=[3, 8])
    act(st, "place 0+1 a2 E")
    offered = []
    for _ in range(2):
        assert st.phase == Phase.SKULL
        texts = legal_texts(st)
        assert texts in (["skull a1"], ["skull b1"])
        offered.append(texts[0])
        act(st, texts[0])
    assert sorted(offered) == ["skull a1", "skull b1"]
    assert st.cows[0] == [0] * 25 and st.phase == Phase.SELECT


@rule("s4-order-cows-then-skulls-then-circles")
def _() -> None:
    # Desert skull (0) on a2 next to the desert cow a1; farm cow+circle (1) on b2.
    st = position(ranch="4c1 . . . .", held=[3, 25], saloon=QUIET_SALOON)
    act(st, "place 0+1 a2 E")
    assert st.cows[0][cell("b2")] == 1  # cows first
    assert st.phase == Phase.SKULL  # then the skull, before the circle
    act(st, "skull a1")
    assert st.phase == Phase.RECRUIT  # then the circle
    assert {t.split()[1] for t in legal_texts(st)} == {"c1"}


@rule("s4-two-circles-order-chosen")
def _() -> None:
    st = position(held=[13, 24], saloon=QUIET_SALOON)  # meadow circle (0), farm circle (1)
    act(st, "place 0+1 a1 N")
    assert st.phase == Phase.RECRUIT
    texts = legal_texts(st)
    assert len(texts) == 2 * 5 * 2  # either circle first, 5 tokens, 2 sides
    assert {t.split()[1] for t in texts} == {"c0", "c1"}
    act(st, "recruit c1 s2 specialist")  # the farm's circle first: the Farmer
    assert st.partners[0][cell("a2")] == 2 * PartnerKind.FARMER
    assert st.saloon[2] == -1  # not refilled before the round ends
    assert st.phase == Phase.RECRUIT
    texts = legal_texts(st)
    assert len(texts) == 4 * 2 and {t.split()[1] for t in texts} == {"c0"}
    act(st, "recruit c0 s0 cowboy")  # Gold Digger token, Cowboy side up; no cow to move
    assert st.partners[0][cell("a1")] == 2 * PartnerKind.GOLD_DIGGER + 1
    assert not legal_of(st, "recruit") and not legal_of(st, "move")


@rule("s4-recruit-mandatory-while-saloon-has-tokens")
def _() -> None:
    st = position(held=[13, 23], saloon=["-", "-", "trapper", "-", "-"])
    act(st, "place 0+1 a1 N")
    assert st.phase == Phase.RECRUIT
    assert legal_texts(st) == ["recruit c0 s2 specialist", "recruit c0 s2 cowboy"]


@rule("s4-second-circle-after-saloon-emptied")
def _() -> None:
    st = position(held=[13, 24], saloon=["-", "-", "trapper", "-", "-"])
    act(st, "place 0+1 a1 N", "recruit c0 s2 specialist")
    assert not legal_of(st, "recruit")  # the farm's circle finds an empty saloon
    assert st.partners[0][cell("a2")] == -1


@rule("s4-empty-saloon-skips-recruit")
def _() -> None:
    st = position(held=[13, 23], saloon=["-"] * 5)
    act(st, "place 0+1 a1 N")
    assert not legal_of(st, "recruit") and st.partners[0] == [-1] * 25


COWBOY_RANCH = """
14c1 21 . . .
23 23c1 . . .
"""


def _cowboy() -> GameState:
    # Meadow cow a2, cornfield b2, farms a1 and b1 (cow on b1). Farm (0) on c1, farm with
    # circle (1) on c2; the circle recruits a Cowboy.
    st = position(ranch=COWBOY_RANCH, held=[23, 24], saloon=QUIET_SALOON)
    act(st, "place 0+1 c1 N", "recruit c1 s0 cowboy")
    return st


@rule("s4-cowboy-moves-never-onto-cornfield")
def _() -> None:
    st = _cowboy()
    assert st.phase == Phase.COWBOY
    # a2: S onto a1 (farm); E is the cornfield b2; N is empty.  b1: W onto a1, E onto c1;
    # N is the cornfield b2.
    assert sorted(legal_texts(st)) == sorted(["move a2 S", "move b1 E", "move b1 W", "cowboy stop"])


@rule("s4-cowboy-three-moves-same-cow")
def _() -> None:
    st = _cowboy()
    act(st, "move b1 E", "move c1 N")  # the same cow twice: b1 -> c1 -> c2
    assert st.phase == Phase.COWBOY and st.cows[0][cell("c2")] == 1
    assert "move c2 S" in legal_texts(st) and "move c2 W" not in legal_texts(st)  # b2 cornfield
    act(st, "move c2 S")
    assert st.cows[0][cell("c1")] == 1 and st.cows[0][cell("b1")] == 0
    assert not legal_of(st, "move")  # 3 moves used


@rule("s4-cowboy-side-of-a-bandit-token-is-a-cowboy")
def _() -> None:
    # A Desperado token recruited Cowboy side up: Cowboy moves, no swap (seat 1 holds a plot).
    st = position(
        ranch=COWBOY_RANCH,
        held=[23, 24, 1],
        helds={1: [6]},
        saloon=["desperado", *QUIET_SALOON[1:]],
    )
    act(st, "place 1+2 c1 N", "recruit c1 s0 cowboy")
    assert st.partners[0][cell("c2")] == 2 * PartnerKind.DESPERADO + 1
    assert st.phase == Phase.COWBOY


@rule("s4-cowboy-moves-one-of-two-cows")
def _() -> None:
    st = position(ranch="14c2 14 . . .", held=[23, 24], saloon=QUIET_SALOON)
    act(st, "place 0+1 c1 N", "recruit c1 s0 cowboy", "move a1 E")
    assert st.cows[0][cell("a1")] == 1 and st.cows[0][cell("b1")] == 1


@rule("s4-cowboy-stop-any-time")
def _() -> None:
    st = _cowboy()
    cows = list(st.cows[0])
    act(st, "cowboy stop")
    assert st.phase == Phase.SELECT and st.cows[0] == cows


@rule("s4-desperado-swap-options")
def _() -> None:
    # Own held after the domino: 1 desert. Seat 1 holds 3, seat 2 none, seat 3 one.
    st = position(
        held=[23, 24, 1], helds={1: [6, 7, 12], 3: [19]}, saloon=["desperado", *QUIET_SALOON[1:]]
    )
    act(st, "place 1+2 a1 N", "recruit c1 s0 specialist")
    assert st.phase == Phase.DESPERADO
    assert legal_texts(st) == [
        "swap 0 +1 0",
        "swap 0 +1 1",
        "swap 0 +1 2",
        "swap 0 +3 0",
        "desperado skip",
    ]
    act(st, "swap 0 +3 0")
    assert st.held[0] == kinds_of([19]) and st.held[3] == kinds_of([1])


@rule("s4-desperado-needs-a-plot-on-both-sides")
def _() -> None:
    st = position(held=[23, 24], helds={1: [6]}, saloon=["desperado", *QUIET_SALOON[1:]])
    act(st, "place 0+1 a1 N", "recruit c1 s0 specialist")  # own reserve now empty
    assert not legal_of(st, "swap")
    st = position(held=[23, 24, 1], saloon=["desperado", *QUIET_SALOON[1:]])
    act(st, "place 1+2 a1 N", "recruit c1 s0 specialist")  # nobody else holds a plot
    assert not legal_of(st, "swap") and st.held[0] == kinds_of([1])


THIEF_VICTIMS = {
    # seat 1: meadow a2-b2 protected by a Gold Digger on its Cowboy side; farm a1-b1 (cow a1)
    # and canyons c1, e1 unprotected.
    1: """
    14c1 14c1pGc . . .
    23c1 23 9c1 . 6c1
    """,
    # seat 2: canyon a1-b1 protected by a Trapper (specialist side); desert e1 unprotected.
    2: "9c1pTs 9c1 . . 4c1",
}


@rule("s4-R16-thief-steals-only-unprotected-cows")
def _() -> None:
    st = position(held=[23, 24], ranches=THIEF_VICTIMS, saloon=["thief", *QUIET_SALOON[1:]])
    act(st, "place 0+1 c1 N", "recruit c1 s0 specialist")  # thief on c2
    assert st.phase == Phase.THIEF
    assert sorted(legal_texts(st)) == sorted(
        ["steal +1 a1", "steal +1 c1", "steal +1 e1", "steal +2 e1", "thief skip"]
    )
    act(st, "steal +2 e1")
    assert st.cows[2][cell("e1")] == 0 and st.cows[0][cell("c2")] == 1
    assert st.phase == Phase.SELECT


@rule("s4-thief-skip")
def _() -> None:
    st = position(held=[23, 24], ranches=THIEF_VICTIMS, saloon=["thief", *QUIET_SALOON[1:]])
    act(st, "place 0+1 c1 N", "recruit c1 s0 specialist", "thief skip")
    assert st.cows[0][cell("c2")] == 0 and st.cows[2][cell("e1")] == 1


@rule("s4-R16-no-unprotected-cow-no-theft")
def _() -> None:
    st = position(
        held=[23, 24], ranches={1: "9c1pDs 9c1 . . ."}, saloon=["thief", *QUIET_SALOON[1:]]
    )
    act(st, "place 0+1 c1 N", "recruit c1 s0 specialist")
    assert not legal_of(st, "steal")


@rule("R16-partner-protects-only-its-own-territory")
def _() -> None:
    # seat 1: the farm a1 (cow) and the farm c1 (Farmer) are not connected (b1 is a canyon):
    # a1 is unprotected. The canyon b1 (cow) touches the partner's plot c1, but c1 is a farm,
    # not part of b1's territory: unprotected. The meadow a2 (cow) has no partner: unprotected.
    victim = """
    14c1 . . . .
    23c1 9c1 23pFs . .
    """
    st = position(held=[23, 24], ranches={1: victim}, saloon=["thief", *QUIET_SALOON[1:]])
    act(st, "place 0+1 c1 N", "recruit c1 s0 specialist")
    assert sorted(legal_texts(st)) == sorted(
        ["steal +1 a1", "steal +1 b1", "steal +1 a2", "thief skip"]
    )


@rule("R16-protection-does-not-stop-skulls")
def _() -> None:
    # Canyon a1 (cow) with a Desperado: the skull on b1 still removes that cow.
    st = position(ranch="9c1pDs . . . .", held=[1, 8])
    act(st, "place 0+1 b2 S")  # desert b2, canyon skull b1
    assert st.phase == Phase.SKULL and legal_texts(st) == ["skull a1"]


@rule("R16-protection-does-not-stop-cowboys")
def _() -> None:
    st = position(ranch="9c1pDs 6 . . .", held=[23, 24], saloon=QUIET_SALOON)
    act(st, "place 0+1 c1 N", "recruit c1 s0 cowboy")
    assert st.phase == Phase.COWBOY and "move a1 E" in legal_texts(st)


def _cornfield_circle_components() -> Components:
    def edit(raw: dict[str, Any]) -> None:
        raw["plots"][20]["circle"] = True  # kind 21: cornfield, 3 corn, now with a circle

    return custom_components(edit)


@rule("R4-thief-on-cornfield-cannot-steal")
def _() -> None:
    cfg = GameConfig(num_players=4, components=_cornfield_circle_components())
    st = position(
        cfg, held=[21, 23], ranches={1: "23c1 . . . ."}, saloon=["thief", *QUIET_SALOON[1:]]
    )
    act(st, "place 0+1 a1 N", "recruit c0 s0 specialist")  # thief on the cornfield a1
    assert st.partners[0][cell("a1")] == 2 * PartnerKind.CATTLE_THIEF
    assert not legal_of(st, "steal") and st.cows[1][cell("a1")] == 1


@rule("R4-control-thief-on-farm-steals")
def _() -> None:
    cfg = GameConfig(num_players=4, components=_cornfield_circle_components())
    st = position(
        cfg, held=[23, 24], ranches={1: "23c1 . . . ."}, saloon=["thief", *QUIET_SALOON[1:]]
    )
    act(st, "place 0+1 a1 N", "recruit c1 s0 specialist")
    assert st.phase == Phase.THIEF and legal_texts(st) == ["steal +1 a1", "thief skip"]


@rule("R5-no-cow-symbol-on-a-cornfield-in-the-data")
def _() -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["plots"][21]["cows"] = 1

    with pytest.raises(ComponentDataError, match=r"^plots\[21\]\.cows"):
        custom_components(edit)


@rule("R5-cowboy-never-moves-a-cow-onto-a-cornfield")
def _() -> None:
    # Only neighbour plot of the cow on a1 is the cornfield b1: no move at all.
    st = position(ranch="23c1 21 . . .", held=[23, 24], saloon=QUIET_SALOON)
    act(st, "place 0+1 c1 N", "recruit c1 s0 cowboy")
    assert not legal_of(st, "move") and st.cows[0][cell("a1")] == 1


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
