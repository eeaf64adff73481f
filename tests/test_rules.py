"""Rule-by-rule tests of the engine against RULES.md (sections 3-7, rulings R1-R20).

Table-driven: every row is one rule case and its id names the RULES.md section (``s3-...``)
or ruling (``R12-...``) it pins. The behavioural rows are functions registered with
:func:`rule` and run by ``test_rule``; scoring, scenarios, tie-breaks and config errors are
data tables. Every expected value is derived by hand from the rules (the comments say how),
never read back from the engine.

Positions come from ``tests/positions.py`` (grid text: river row last; kind numbers of
RULES.md section 9: 1 desert, 3 desert skull, 4 desert cow, 6 canyon, 8 canyon skull, 9 canyon
cow, 12 meadow gold, 13 meadow circle, 14 meadow 2 cows, 19 forest, 20 forest beaver,
21/22 cornfield 3/5 corn, 23 farm, 24 farm circle, 25 farm cow + circle).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from importlib import resources
from typing import Any

import pytest
from positions import act, cell, kinds_of, legal_of, legal_texts, position, render_ranch

from moonriver_env.rules import (
    GameConfig,
    GameState,
    IllegalActionError,
    PartnerKind,
    Phase,
    ScoreBreakdown,
    new_game,
)
from moonriver_env.rules.components import ComponentDataError, Components, parse_components
from moonriver_env.rules.scoring import rank_winners

C4 = GameConfig()
C2 = GameConfig(num_players=2)
DESPERADO, THIEF, DIGGER, TRAPPER, FARMER = (int(k) for k in PartnerKind)
QUIET_SALOON = ["gold_digger", "trapper", "farmer", "trapper", "gold_digger"]  # no effects
NK = 25  # plot kinds; bonus tile pseudo-kinds follow: A0 25, A1 26, B0 27, B1 28


def legends(*boards: str, scenario: str = "gold_rush") -> GameConfig:
    return GameConfig(num_players=len(boards), mode="legends", scenario=scenario, boards=boards)


def raw_components() -> dict[str, Any]:
    text = (resources.files("moonriver_env.rules") / "data" / "components.json").read_text()
    return json.loads(text)


def custom_components(edit: Callable[[dict[str, Any]], None]) -> Components:
    raw = copy.deepcopy(raw_components())
    edit(raw)
    return parse_components(raw, strict=False)


def begin_turn(
    config: GameConfig = C4,
    *,
    ranch: str = "",
    reserve: tuple[int, ...] | list[int] = (),
    collected: int = 1,
    helds: dict[int, list[int]] | None = None,
    ranches: dict[int, str] | None = None,
    **kw: Any,
) -> GameState:
    """Seat 0 (position 0) selects; seat 1's turn starts: it collects ``collected`` (a kind
    number, position 1 of the column) onto ``reserve``; seat 1's ranch is ``ranch``."""
    n = config.num_players
    column = [0, collected, 1, 1] if n != 3 else [0, collected, 1, 0]
    st = position(
        config,
        seat=0,
        phase=Phase.SELECT,
        ranches={1: ranch, **(ranches or {})},
        helds={1: list(reserve), **(helds or {})},
        column=column,
        **kw,
    )
    act(st, "claim 0")
    assert st.seat == 1
    return st


def snapshot(st: GameState) -> tuple[Any, ...]:
    return (
        st.phase,
        st.seat,
        [list(h) for h in st.held],
        [list(k) for k in st.kinds],
        [list(c) for c in st.cows],
        [list(p) for p in st.partners],
        st.supply,
        list(st.saloon),
        list(st.stack),
        list(st.pile),
        list(st.cur_col),
        list(st.cur_claim),
        list(st.next_col),
        list(st.next_claim),
        list(st.discarded),
        list(st.removed),
        st.dominoes,
        list(st.tiles),
        list(st.bonus_done),
        list(st.piece),
        list(st.skulls),
        list(st.circles),
        list(st.legal_action_list()),
    )


def try_json(st: GameState) -> str | None:
    try:
        return st.to_json()
    except (ImportError, AttributeError, NotImplementedError):
        return None  # serialization not available in this build


RULES: list[Any] = []


def rule(case_id: str) -> Callable[[Callable[[], None]], Callable[[], None]]:
    def register(fn: Callable[[], None]) -> Callable[[], None]:
        RULES.append(pytest.param(fn, id=case_id))
        return fn

    return register


# =============================================================================== sections 2-3


@rule("s2-column-sorted-by-back-ties-in-draw-order")
def _() -> None:
    # Round end: the next column is drawn from the pile (next drawn last): 23 (back 1),
    # 25 (back 5), 1 (back 1), 14 (back 6). Sorted by back, the tie 23/1 keeps draw order.
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
        next_claims=[0, 1, 2, -1],
        next_column=[1, 6, 12, 23],
        phase=Phase.SELECT,
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
    assert legal_texts(st) == [
        "discard 0+1",
        "discard 0+2",
        "discard 0+3",
        "discard 1+2",
        "discard 1+3",
        "discard 2+3",
    ]
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
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
        next_claims=[0, 1, 2, -1],
        phase=Phase.SELECT,
        saloon=["-", "-", "-", "farmer", "trapper"],
        stack=["desperado", "thief"],
    )
    act(st, "claim 3")  # last ranchero of the round: round end, saloon refill
    assert st.round == 2
    assert sorted(t for t in st.saloon if t >= 0) == sorted([FARMER, TRAPPER, DESPERADO, THIEF])
    assert st.saloon.count(-1) == 1 and st.stack == []


@rule("s3-saloon-refilled-to-five-at-round-end")
def _() -> None:
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
        next_claims=[0, 1, 2, -1],
        phase=Phase.SELECT,
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
    st = position(GameConfig(components=_one_cow_components()), held=[14, 23])
    assert st.supply == 1
    act(st, "place 0+1 a1 N")  # meadow with 2 cow symbols on a1, farm a2
    assert st.cows[0][cell("a1")] == 1 and st.supply == 0


@rule("R1-empty-supply-places-nothing")
def _() -> None:
    st = position(GameConfig(components=_one_cow_components()), held=[14, 9], supply=0)
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
    assert st.partners[0][cell("a2")] == 2 * FARMER
    assert st.saloon[2] == -1  # not refilled before the round ends
    assert st.phase == Phase.RECRUIT
    texts = legal_texts(st)
    assert len(texts) == 4 * 2 and {t.split()[1] for t in texts} == {"c0"}
    act(st, "recruit c0 s0 cowboy")  # Gold Digger token, Cowboy side up; no cow to move
    assert st.partners[0][cell("a1")] == 2 * DIGGER + 1
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
    assert st.partners[0][cell("c2")] == 2 * DESPERADO + 1
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
    cfg = GameConfig(components=_cornfield_circle_components())
    st = position(
        cfg, held=[21, 23], ranches={1: "23c1 . . . ."}, saloon=["thief", *QUIET_SALOON[1:]]
    )
    act(st, "place 0+1 a1 N", "recruit c0 s0 specialist")  # thief on the cornfield a1
    assert st.partners[0][cell("a1")] == 2 * THIEF
    assert not legal_of(st, "steal") and st.cows[1][cell("a1")] == 1


@rule("R4-control-thief-on-farm-steals")
def _() -> None:
    cfg = GameConfig(components=_cornfield_circle_components())
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
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
        next_claims=[0, 1, 2, -1],
        next_column=[1, 6, 12, 23],
        helds={0: [23]},
        phase=Phase.SELECT,
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
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
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
    assert st.partners[0][cell("c10")] == 2 * DIGGER
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


# =============================================================================== R7 - R9


@rule("R7-engine-reads-the-component-data")
def _() -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["boards"]["camp"]["bridges"] = [1]

    st = position(GameConfig(components=custom_components(edit)), held=[1, 23])
    # The only bridge b1 has 3 neighbours (a1, c1, b2): 3 + 3 = 6 placements.
    assert len(legal_of(st, "place")) == 6


@rule("R8-partner-tokens-counted-5-5-3-5-2")
def _() -> None:
    st = new_game(C4, seed=9)
    tokens = sorted([t for t in st.saloon if t >= 0] + list(st.stack))
    assert tokens == [DESPERADO] * 5 + [THIEF] * 5 + [DIGGER] * 3 + [TRAPPER] * 5 + [FARMER] * 2
    assert -1 not in st.saloon  # 5 revealed


@pytest.mark.parametrize(
    ("board", "bridges", "slots"),
    [
        pytest.param("camp", ["a1", "c1", "e1"], 3, id="R9-camp"),
        pytest.param("mary", ["c1"], 4, id="R9-mary"),
        pytest.param("wesley", ["b1", "d1"], 3, id="R9-wesley"),
        pytest.param("calamity", ["a1", "e1"], 3, id="R9-calamity"),
        pytest.param("big_jo", ["a1", "c1", "e1"], 2, id="R9-big-jo"),
    ],
)
def test_r9_boards(board: str, bridges: list[str], slots: int) -> None:
    if board == "camp":
        cfg = turn_cfg = GameConfig(num_players=2)
    else:
        other = next(b for b in ("mary", "wesley", "calamity", "big_jo") if b != board)
        cfg = legends(board, other)  # seat 0 has the board
        turn_cfg = legends(other, board)  # seat 1 has the board (begin_turn plays seat 1)
    # Bridges: on an empty ranch, "place X N" from a river-row cell is legal iff it is a bridge.
    st = position(cfg, held=[1, 23])
    found = [f"{c}1" for c in "abcde" if st.is_legal(st.string_to_action(f"place 0+1 {c}1 N"))]
    assert found == bridges
    # Slots: a reserve of slots - 1 plus the collected plot fits; one more overflows.
    st = begin_turn(turn_cfg, reserve=[1] * (slots - 1), collected=23)
    assert st.phase == Phase.EXPAND
    st = begin_turn(turn_cfg, reserve=[1] * slots, collected=23)
    assert st.phase == Phase.MUST_EXPAND


# =============================================================================== scoring


def bd(terr: int, res: int, part: int, scen: int, largest: int, cows: int) -> ScoreBreakdown:
    return ScoreBreakdown(terr, res, part, scen, terr + res + part + scen, largest, cows)


@pytest.mark.parametrize(
    ("ranch", "expected"),
    [
        pytest.param("23c1 23 23 . .", bd(3, 0, 0, 0, 3, 1), id="s5-territory-plots-times-cows"),
        pytest.param("23c1 . 23c1 23 .", bd(1 + 2, 0, 0, 0, 2, 2), id="s5-two-territories-apart"),
        pytest.param("14c2 14 . . .", bd(4, 0, 0, 0, 2, 2), id="s5-two-cows-on-one-plot"),
        pytest.param("21 22 . . .", bd(0, 8, 0, 0, 2, 0), id="s5-cornfields-score-only-corn"),
        pytest.param("23c1 9c1 . . .", bd(1 + 1, 0, 0, 0, 1, 2), id="s5-landscapes-do-not-merge"),
        pytest.param("12pGs 7 2 . .", bd(0, 3, 3, 0, 1, 0), id="s5-gold-digger-per-gold"),
        pytest.param("20pTs 15 . . .", bd(0, 2, 2, 0, 2, 0), id="s5-trapper-per-beaver"),
        pytest.param("24pFs 24pFs 21 22 .", bd(0, 8, 16, 0, 2, 0), id="s5-farmers-per-corn"),
        pytest.param("12pGc 7 . . .", bd(0, 2, 0, 0, 1, 0), id="s5-cowboy-side-scores-nothing"),
        pytest.param("24pDs 24pCs 12 . .", bd(0, 1, 0, 0, 2, 0), id="s5-bandits-score-nothing"),
        pytest.param(
            "21 21 22 22 23c1", bd(1, 16, 0, 0, 4, 1), id="R18-largest-includes-cornfields"
        ),
        pytest.param("", bd(0, 0, 0, 0, 0, 0), id="s5-empty-ranch"),
        # Unreachable (R5: no cow on a cornfield), but pins "cornfields score 0" in isolation.
        pytest.param("21c1 22c1 . . .", bd(0, 8, 0, 0, 2, 2), id="s5-cornfield-territory-scores-0"),
    ],
)
def test_scoring(ranch: str, expected: ScoreBreakdown) -> None:
    st = position(ranch=ranch)
    assert st.scores()[0] == expected, render_ranch(st, 0)


@pytest.mark.parametrize(
    ("scores", "winners"),
    [
        pytest.param([bd(50, 0, 0, 0, 5, 9), bd(60, 0, 0, 0, 3, 1)], [1], id="s5-highest-total"),
        pytest.param(
            [bd(50, 0, 0, 0, 5, 1), bd(45, 5, 0, 0, 7, 0)], [1], id="R18-tie-largest-territory"
        ),
        pytest.param(
            [bd(50, 0, 0, 0, 7, 3), bd(40, 0, 0, 10, 7, 4), bd(50, 0, 0, 0, 6, 9)],
            [1],
            id="R18-tie-then-most-cows",
        ),
        pytest.param(
            [bd(50, 0, 0, 0, 7, 3), bd(30, 20, 0, 0, 7, 3), bd(49, 0, 0, 0, 9, 9)],
            [0, 1],
            id="R18-shared-win",
        ),
        pytest.param([bd(10, 0, 0, 0, 2, 2)] * 4, [0, 1, 2, 3], id="R18-four-way-shared-win"),
    ],
)
def test_rank_winners(scores: list[ScoreBreakdown], winners: list[int]) -> None:
    assert rank_winners(scores) == winners


# =============================================================================== section 7


def _gold2_components() -> Components:
    def edit(raw: dict[str, Any]) -> None:
        raw["plots"][6]["gold"] = 2  # kind 7: canyon with 2 gold

    return custom_components(edit)


@pytest.mark.parametrize(
    ("scenario", "ranch", "points"),
    [
        # 1 Timber Rafting: forest territory >= 3 with a plot in row 1 (the river row)
        pytest.param("timber_rafting", "19 19 19 . .", 10, id="s7-timber-3"),
        pytest.param("timber_rafting", "19 . . . .\n19 19 19 . .", 20, id="s7-timber-4"),
        pytest.param(
            "timber_rafting", "19 19 19 . .\n. . . . .\n1 1 1 1 1", 0, id="s7-timber-needs-row-0"
        ),
        pytest.param("timber_rafting", "19 19 . . .", 0, id="s7-timber-2-too-small"),
        pytest.param(
            "timber_rafting", ". . . . 19\n. . . . 19\n19 19 19 . 19", 20, id="s7-timber-two-groups"
        ),
        pytest.param("timber_rafting", "19 19 19 . .\n19 19 19 . .", 40, id="s7-timber-maximal-6"),
        # 2 Gold Rush: connected plots each with gold (any landscape), sized by gold symbols
        pytest.param("gold_rush", "2 7 12 . .", 10, id="s7-gold-rush-3"),
        pytest.param("gold_rush", "2 7 . . .\n. . 12 . .", 0, id="s7-gold-rush-diagonal-breaks"),
        pytest.param("gold_rush", "2 7 1 12 2", 0, id="s7-gold-rush-plain-plot-breaks"),
        pytest.param("gold_rush", "2 7 12 2 7", 30, id="s7-gold-rush-maximal-5"),
        # 3 Outlaws: connected partner plots >= 3 with a specialist-side bandit
        pytest.param("outlaws", "24pDs 24pGs 13pTs . .", 10, id="s7-outlaws-3-desperado"),
        pytest.param("outlaws", "24pCs 13pGc 13pTs 17pFs .", 20, id="s7-outlaws-4-thief"),
        pytest.param("outlaws", "24pDc 24pCc 13pGs . .", 0, id="R20-outlaws-cowboy-side-bandits"),
        pytest.param("outlaws", "24pDs 24pGs . . .", 0, id="s7-outlaws-2-too-small"),
        pytest.param("outlaws", "24pGs 24pTs 13pFs . .", 0, id="s7-outlaws-no-bandit"),
        # 4 Moon River City: farm territory >= 3
        pytest.param("moon_river_city", "23 23 23 . .", 10, id="s7-city-3"),
        pytest.param("moon_river_city", "23 23 . . .", 0, id="s7-city-2-too-small"),
        pytest.param("moon_river_city", "23 23 23 23 23", 30, id="s7-city-5"),
        pytest.param(
            "moon_river_city", "23 . . . .\n23 23 . 23 23\n. . . 23 23", 30, id="s7-city-two-groups"
        ),
        pytest.param("moon_river_city", "23 23 23 . .\n23 23 23 . .", 40, id="s7-city-maximal-6"),
    ],
)
def test_scenarios(scenario: str, ranch: str, points: int) -> None:
    st = position(legends("mary", "wesley", "calamity", "big_jo", scenario=scenario), ranch=ranch)
    s = st.scores()[0]
    assert s.scenario == points, render_ranch(st, 0)
    assert s.total == s.territories + s.resources + s.partners + points


@rule("s7-gold-rush-counts-gold-symbols")
def _() -> None:
    # Kind 7 shows 2 gold in this data: 7 7 2 -> 3 plots, 2 + 2 + 1 = 5 gold: 10 + 10 * 2.
    cfg = GameConfig(
        num_players=4, mode="legends", scenario="gold_rush", components=_gold2_components()
    )
    st = position(cfg, ranch="7 7 2 . .")
    assert st.scores()[0].scenario == 30
    assert st.scores()[0].resources == 5


@rule("s7-base-game-has-no-scenario")
def _() -> None:
    st = position(ranch="23 23 23 23 23")
    assert st.scores()[0].scenario == 0


# =============================================================================== config errors


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        pytest.param({"num_players": 5}, "num_players", id="config-5-players"),
        pytest.param({"num_players": 1}, "num_players", id="config-1-player"),
        pytest.param({"mode": "expert"}, "mode", id="config-unknown-mode"),
        pytest.param(
            {"mode": "legends", "scenario": "wild_west"}, "scenario", id="config-unknown-scenario"
        ),
        pytest.param({"scenario": "gold_rush"}, "scenario", id="config-scenario-in-base-mode"),
        pytest.param({"boards": ("mary",) * 4}, "boards", id="config-boards-in-base-mode"),
        pytest.param(
            {"mode": "legends", "boards": ("mary", "wesley", "mary", "big_jo")},
            "boards",
            id="config-legends-board-twice",
        ),
        pytest.param(
            {"num_players": 3, "mode": "legends", "boards": ("mary", "wesley")},
            "boards",
            id="config-wrong-number-of-boards",
        ),
        pytest.param(
            {"mode": "legends", "boards": ("mary", "wesley", "calamity", "camp")},
            "boards",
            id="config-camp-is-not-a-legends-board",
        ),
    ],
)
def test_config_errors(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError) as info:
        GameConfig(**kwargs)
    assert str(info.value).startswith(field), str(info.value)


# =============================================================================== illegal actions


@pytest.mark.parametrize(
    ("phase", "text"),
    [
        pytest.param(Phase.EXPAND, "place 0+1 b3 N", id="illegal-placement-away-from-bridges"),
        pytest.param(Phase.EXPAND, "discard 0+1", id="illegal-discard-when-optional"),
        pytest.param(Phase.MUST_EXPAND, "stop", id="illegal-stop-on-overflow"),
        pytest.param(Phase.SELECT, "stop", id="illegal-stop-in-select"),
        pytest.param(Phase.SELECT, "recruit c0 s0 specialist", id="illegal-recruit-in-select"),
    ],
)
def test_illegal_action(phase: Phase, text: str) -> None:
    st = position(held=[1, 12, 23, 19] if phase == Phase.MUST_EXPAND else [1, 23], phase=phase)
    before = snapshot(st)
    before_json = try_json(st)
    action = st.string_to_action(text)
    with pytest.raises(IllegalActionError) as info:
        st.apply(action)
    message = str(info.value)
    assert text in message and phase.name in message, message
    assert snapshot(st) == before
    if before_json is not None:
        assert st.to_json() == before_json


@rule("illegal-action-out-of-range")
def _() -> None:
    st = position(held=[1, 23])
    before = snapshot(st)
    with pytest.raises(IllegalActionError):
        st.apply(C4.num_actions)
    with pytest.raises(IllegalActionError):
        st.apply(-1)
    assert snapshot(st) == before


@rule("illegal-action-after-game-over")
def _() -> None:
    st = position(
        seat=3,
        turn_pos=3,
        claims=[0, 1, 2, 3],
        held=[1, 23],
        phase=Phase.FINAL_EXPAND,
        final_round=True,
    )
    act(st, "place 0+1 a1 N")
    assert st.phase == Phase.GAME_OVER
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as info:
        act(st, "stop")
    message = str(info.value)
    assert "stop" in message and ("GAME_OVER" in message or "game is over" in message), message
    assert snapshot(st) == before


# =============================================================================== the rule table


@pytest.mark.parametrize("check", RULES)
def test_rule(check: Callable[[], None]) -> None:
    check()
