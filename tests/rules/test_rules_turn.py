"""Rule cases of a turn (RULES.md sections 2-3): columns, claims, collecting, placement and
the connection rules, the saloon; rulings R3, R11-R14."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import pytest
from positions import act, cell, kinds_of, legal_of, legal_texts, position, render_ranch
from rule_cases import C4, QUIET_SALOON, begin_turn, legends, round_end, rule_table

from moonriver_env.rules import (
    GameConfig,
    GameState,
    IllegalActionError,
    PartnerKind,
    Phase,
    new_game,
)

RULES, rule = rule_table()


# =============================================================================== sections 2-3


@rule("s2-column-sorted-by-back-ties-in-draw-order")
def _() -> None:
    # Round end: the next column is drawn from the pile (next drawn last): 23 (back 1),
    # 25 (back 5), 1 (back 1), 14 (back 6). Sorted by back, the tie 23/1 keeps draw order.
    st = round_end(
        next_column=[1, 6, 12, 23],
        pile=[19, 19, 19, 19, 14, 1, 25, 23],
    )
    act(st, "claim 3")
    assert st.next_col == kinds_of([23]) + kinds_of([1]) + kinds_of([25]) + kinds_of([14])
    assert st.pile == kinds_of([19] * 4)


@rule("s2-first-column-sorted")
def _() -> None:
    for seed in range(5):
        st = new_game(C4, seed=seed)
        backs = [st.config.components.plots[k].back for k in st.cur_col]
        assert backs == sorted(backs)


@rule("s3-turn-order-by-column-position")
def _() -> None:
    st = new_game(C4, seed=3)
    order = list(st.setup_order)
    for i in range(4):  # the i-th ranchero claims position 3 - i
        assert st.phase == Phase.SETUP_CLAIM and st.seat == order[i]
        act(st, f"claim {3 - i}")
    # Round 1: position 0 first -> the claimants of positions 0..3 = order reversed.
    seen = []
    for _ in range(4):
        assert st.round == 1 and st.phase == Phase.SELECT
        seen.append(st.seat)
        act(st, legal_texts(st)[-1])  # each selects the highest free position
    assert seen == [order[3], order[2], order[1], order[0]]
    # Round 2: order[0] selected position 0 last, order[3] position 3 first.
    seen = []
    for _ in range(4):
        assert st.round == 2
        seen.append(st.seat)
        if st.phase == Phase.EXPAND:
            act(st, "stop")
        assert st.phase == Phase.SELECT
        act(st, legal_texts(st)[0])
    assert seen == [order[0], order[1], order[2], order[3]]


@rule("s3-collect-into-reserve")
def _() -> None:
    st = new_game(C4, seed=5)
    col = list(st.cur_col)
    order = list(st.setup_order)
    act(st, "claim 0", "claim 1", "claim 2", "claim 3")
    assert st.seat == order[0]
    assert st.held[order[0]] == [col[0]]  # taken into the reserve
    assert st.cur_col == [-1, *col[1:]]
    assert all(st.held[s] == [] for s in order[1:])  # nobody else has collected yet
    act(st, "claim 0")
    assert st.seat == order[1] and st.held[order[1]] == [col[1]] and st.cur_col[1] == -1


@rule("s3-overflow-forces-expansion")
def _() -> None:
    # Camp: 3 slots; reserve 3 + the collected farm = 4 held -> must expand, no stop.
    st = begin_turn(reserve=[1, 12, 19], collected=23)
    assert st.phase == Phase.MUST_EXPAND
    assert st.held[1] == kinds_of([1, 12, 19, 23])
    texts = legal_texts(st)
    assert "stop" not in texts and all(t.startswith("place") for t in texts)
    assert len(texts) == 6 * 14  # empty ranch: 14 per pair (perft/01), C(4, 2) pairs
    act(st, "place 0+1 a1 N")  # desert + meadow, no symbols to resolve
    # No overflow any more: the second domino is optional.
    assert st.phase == Phase.EXPAND and st.dominoes == 1 and legal_texts(st)[-1] == "stop"
    act(st, "place 0+1 e1 N")
    assert st.phase == Phase.SELECT and st.dominoes == 2 and st.held[1] == []


@rule("s3-R3-two-dominoes-per-turn-mary")
def _() -> None:
    # Mary (4 slots), one domino placed already, 4 held: after the second domino 2 plots
    # remain and fit (desert/meadow next to the new desert/meadow), yet the turn goes on to
    # Select: the limit is 2 dominoes for every board.
    mary = legends("mary", "wesley", "calamity", "big_jo")
    st = position(mary, held=[1, 1, 12, 12], dominoes=1)
    act(st, "place 0+2 c1 N")  # desert c1 (Mary's bridge), meadow c2
    assert st.held[0] == kinds_of([1, 12]) and st.dominoes == 2
    assert not legal_of(st, "place")


@rule("s3-R3-mary-control-first-domino")
def _() -> None:
    # The same move as the first domino of the turn: the second is still allowed.
    mary = legends("mary", "wesley", "calamity", "big_jo")
    st = position(mary, held=[1, 1, 12, 12], dominoes=0)
    act(st, "place 0+2 c1 N")
    assert st.phase == Phase.EXPAND and "stop" in legal_texts(st)
    assert legal_of(st, "place")  # e.g. desert on b1 next to the desert on c1


def _recruit_after_domino(dominoes: int) -> GameState:
    """Camp: a domino (meadow circle c1 + farm c2) was just placed; its circle is pending."""
    st = position(
        ranch="""
        . . . . .
        . . . . .
        . . . . .
        . . 23 . .
        . . 13 . .
        """,
        held=[1, 6],
        phase=Phase.RECRUIT,
        dominoes=dominoes,
        saloon=QUIET_SALOON,
    )
    st.piece = [cell("c1"), cell("c2")]
    st.circles = [0]
    return st


@rule("s3-R3-two-dominoes-per-turn-camp")
def _() -> None:
    st = _recruit_after_domino(dominoes=2)
    act(st, "recruit c0 s0 specialist")  # a Gold Digger: no immediate effect
    assert not legal_of(st, "place")  # 2 held plots that fit (a1, e1 free), but 2 dominoes done


@rule("s3-R3-camp-control-one-domino")
def _() -> None:
    st = _recruit_after_domino(dominoes=1)
    act(st, "recruit c0 s0 specialist")
    assert st.phase == Phase.EXPAND


@rule("s3-forced-discard-when-nothing-fits")
def _() -> None:
    # Canyon fills the river row: no bridge, and no canyon among the held plots.
    st = begin_turn(ranch="6 6 6 6 6", reserve=[1, 12, 19], collected=23)
    assert st.phase == Phase.DISCARD
    # any pair of the four held plots (0..3) may be discarded
    assert legal_texts(st) == [f"discard {a}+{b}" for a, b in combinations(range(4), 2)]
    before = len(st.discarded)
    act(st, "discard 0+3")  # held positions: 0 desert(1), 1 meadow(12), 2 forest(19), 3 farm(23)
    assert sorted(st.discarded[before:]) == kinds_of([1, 23])
    assert st.held[1] == kinds_of([12, 19])
    # the reserve fits now; the rest fits nowhere: no placement, no further discard
    assert not legal_of(st, "place") and not legal_of(st, "discard")


@rule("s3-unplaceable-domino-never-formed-voluntarily")
def _() -> None:
    # No overflow (3 held <= 3 slots) and nothing fits: no discard, no expansion -> Select.
    st = begin_turn(ranch="6 6 6 6 6", reserve=[1, 12], collected=19)
    assert st.phase not in (Phase.MUST_EXPAND, Phase.DISCARD)
    assert st.held[1] == kinds_of([1, 12, 19])
    assert not legal_of(st, "discard") and not legal_of(st, "place")


@rule("s3-unplaceable-pair-not-offered")
def _() -> None:
    # River row full; farm on a2. Held: meadow (0), forest (1), farm (2). Only pairs with the
    # farm fit (b2 or a3, as perft/06): 0+2 and 1+2 have 4 placements each, 0+1 none.
    st = position(
        ranch="""
        23 . . . .
        1 1 6 6 6
        """,
        held=[12, 19, 23],
    )
    places = legal_of(st, "place")
    assert len(places) == 8
    assert {t.split()[1] for t in places} == {"0+2", "1+2"}
    assert not legal_of(st, "discard")
    with pytest.raises(IllegalActionError):
        act(st, "place 0+1 c3 N")


@rule("s3-select-claims-next-column")
def _() -> None:
    st = position(phase=Phase.SELECT, next_column=[1, 6, 12, 23])
    assert legal_texts(st) == ["claim 0", "claim 1", "claim 2", "claim 3"]
    act(st, "claim 2")
    assert st.next_claim[2] == 0
    assert st.seat == 1 and st.phase == Phase.SELECT  # seat 1 collected 1 plot: no expansion
    assert legal_texts(st) == ["claim 0", "claim 1", "claim 3"]


@rule("s3-select-mandatory-no-stop")
def _() -> None:
    st = position(phase=Phase.SELECT)
    assert all(t.startswith("claim") for t in legal_texts(st))


@rule("s3-R12-three-players-unclaimed-plot-removed")
def _() -> None:
    st = new_game(GameConfig(num_players=3), seed=11)
    col = list(st.cur_col)
    act(st, "claim 0", "claim 1")
    assert st.removed == []  # the last ranchero has not claimed yet
    act(st, "claim 3")
    assert st.removed == [col[2]]
    assert st.cur_col[2] == -1
    nxt = list(st.next_col)
    act(st, "claim 3", "claim 0")  # round 1: positions 0 and 1 select
    assert st.removed == [col[2]]
    act(st, "claim 1")  # the last ranchero selects: position 2 of that column leaves the game
    assert st.removed == [col[2], nxt[2]]
    assert st.round == 2 and st.cur_col[2] == -1


@rule("s3-R12-four-players-nothing-removed")
def _() -> None:
    st = new_game(C4, seed=11)
    act(st, "claim 0", "claim 1", "claim 3", "claim 2")
    assert st.removed == []
    assert st.cur_col[1:] != [-1, -1, -1]


@rule("s3-R13-collected-plot-counts-in-pairs")
def _() -> None:
    st = begin_turn(reserve=[1, 12, 19], collected=23)
    # pairs with the collected farm (held position 3) are offered
    assert legal_of(st, "place 0+3") and legal_of(st, "place 2+3")


@rule("s3-R13-desperado-swaps-the-collected-plot")
def _() -> None:
    st = begin_turn(
        reserve=[23, 24], collected=1, helds={2: [6]}, saloon=["desperado", *QUIET_SALOON[1:]]
    )
    # seat 1 holds 0 desert (collected), 1 farm, 2 farm with circle
    assert st.phase == Phase.EXPAND
    act(st, "place 1+2 a1 N")  # farm a1, farm+circle a2
    assert st.phase == Phase.RECRUIT
    act(st, "recruit c1 s0 specialist")
    assert st.phase == Phase.DESPERADO
    # seat 2 (+1) holds one plot; seats 3 (+2) and 0 (+3) hold none
    assert legal_texts(st) == ["swap 0 +1 0", "desperado skip"]
    act(st, "swap 0 +1 0")
    assert st.held[1] == kinds_of([6]) and st.held[2] == kinds_of([1])
    assert st.phase == Phase.SELECT


@rule("s3-R14-short-stack-fills-what-it-can")
def _() -> None:
    st = round_end(
        saloon=["-", "-", "-", "farmer", "trapper"],
        stack=["desperado", "thief"],
    )
    act(st, "claim 3")  # last ranchero of the round: round end, saloon refill
    assert st.round == 2
    assert sorted(t for t in st.saloon if t >= 0) == sorted(
        [PartnerKind.FARMER, PartnerKind.TRAPPER, PartnerKind.DESPERADO, PartnerKind.CATTLE_THIEF]
    )
    assert st.saloon.count(-1) == 1 and st.stack == []


@rule("s3-saloon-refilled-to-five-at-round-end")
def _() -> None:
    st = round_end(
        saloon=["-", "farmer", "-", "trapper", "trapper"],
        stack=["desperado", "thief", "thief", "farmer"],
    )
    act(st, "claim 3")
    assert -1 not in st.saloon and len(st.stack) == 2


@rule("s3-connection-first-domino-touches-a-bridge")
def _() -> None:
    st = position(held=[1, 23])
    bridges = {cell("a1"), cell("c1"), cell("e1")}
    step = {"N": 5, "E": 1, "S": -5, "W": -1}
    places = legal_of(st, "place")
    assert len(places) == 14
    for t in places:
        _, _, at, d = t.split()
        assert {cell(at), cell(at) + step[d]} & bridges, t
    with pytest.raises(IllegalActionError):
        act(st, "place 0+1 b2 N")


# River row all desert (no bridge free), farm on a2, canyon on e2. Held: canyon (0), farm (1).
MATCH_RANCH = """
23 . . . 6
1 1 1 1 1
"""


@pytest.mark.parametrize(
    ("text", "legal"),
    [
        pytest.param("place 0+1 e3 N", True, id="s3-connection-first-plot-matches"),
        pytest.param("place 0+1 c2 W", True, id="s3-connection-second-plot-matches"),
        pytest.param("place 0+1 b3 W", True, id="s3-connection-second-plot-matches-above"),
        pytest.param("place 0+1 c3 N", False, id="s3-connection-nothing-matches"),
        pytest.param("place 0+1 d3 E", False, id="s3-connection-wrong-landscape-matches"),
        pytest.param("place 0+1 d3 N", False, id="s3-connection-diagonal-does-not-count"),
        pytest.param("place 0+1 a3 N", False, id="s3-connection-plot-must-match-own-landscape"),
    ],
)
def test_connection_rules(text: str, legal: bool) -> None:
    # a3 N: canyon on a3 (next to the farm a2, wrong landscape), farm on a4 (not next to a2).
    st = position(ranch=MATCH_RANCH, held=[6, 23])
    assert st.is_legal(st.string_to_action(text)) is legal, render_ranch(st, 0)


@rule("s3-no-single-plot")
def _() -> None:
    st = begin_turn(reserve=[], collected=23)  # one held plot: nothing to place
    assert not legal_of(st, "place")
    assert st.held[1] == kinds_of([23])


@rule("R11-any-two-plots-join-in-all-four-directions")
def _() -> None:
    # A cornfield and a farm (any two plots) on the empty Camp ranch; the bridge c1.
    st = position(held=[21, 23])
    for text in ("place 0+1 c1 N", "place 0+1 c1 E", "place 0+1 c1 W", "place 0+1 c2 S"):
        assert st.is_legal(st.string_to_action(text)), text
    dirs = {t.split()[3] for t in legal_of(st, "place")}
    assert dirs == {"N", "E", "S", "W"}


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
