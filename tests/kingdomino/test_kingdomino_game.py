"""The game: set-up, turn order, rounds, the end, the variants, bad input (RULES.md section
13, K2-K8; rulings KR4, KR5, KR7)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from moonriver_env.kingdomino import (
    IllegalActionError,
    KingdominoConfig,
    KingdominoState,
    Phase,
    StateFormatError,
    check_state,
    new_game,
)
from moonriver_env.kingdomino.rules.state import DOMINOES, NO_KING


def play_random(state: KingdominoState, seed: int, until=None) -> KingdominoState:
    rng = random.Random(seed)
    while not state.is_terminal and (until is None or not until(state)):
        state.apply(rng.choice(state.legal_action_list()))
    return state


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_line_and_king_order(n: int) -> None:
    """Seed lines 59-75: the box, the first line sorted, the random king order (A B B A)."""
    orders = set()
    for seed in range(30):
        s = new_game(KingdominoConfig(n), seed)
        assert s.phase == Phase.SETUP_PICK
        assert len(s.box) == {2: 24, 3: 12, 4: 0}[n]
        assert len(s.cur_line) == (3 if n == 3 else 4)
        assert s.cur_line == sorted(s.cur_line)  # numbers ascending, the top first
        assert s.next_line == []
        if n == 2:
            a = s.setup_order[0]
            assert s.setup_order == [a, 1 - a, 1 - a, a]
        else:
            assert sorted(s.setup_order) == list(range(n))
        orders.add(tuple(s.setup_order))
    assert len(orders) >= {2: 2, 3: 6, 4: 15}[n]  # the order is drawn, not fixed


def test_setup_picks_then_the_lowest_number_plays_first() -> None:
    """Seed lines 73, 79, 89: after the picks the next line is drawn and the king on the
    lowest number places first, then picks from the next line (line 96)."""
    s = new_game(KingdominoConfig(4), 3)
    for seat in s.setup_order:
        assert s.seat == seat
        legal = s.legal_action_list()
        assert legal == [s.layout.pick(p) for p, k in enumerate(s.cur_kings) if k == NO_KING]
        s.apply(legal[-1])  # take the bottom free domino
    assert s.phase == Phase.PLACE
    assert len(s.next_line) == 4 and s.next_line == sorted(s.next_line)
    assert s.turn_pos == 0 and s.seat == s.cur_kings[0]
    first = s.seat
    s.apply(s.legal_action_list()[0])
    assert s.phase == Phase.PICK and s.seat == first
    s.apply(s.layout.pick(2))
    assert s.next_kings[2] == first and s.cur_kings[0] == NO_KING
    assert s.phase == Phase.PLACE and s.seat == s.cur_kings[1]


def test_two_players_play_twice_a_round() -> None:
    """Seed line 100: with two players each king plays, so each seat plays twice."""
    s = new_game(KingdominoConfig(2), 5)
    for _ in range(4):
        s.apply(s.legal_action_list()[0])
    seats = []
    pile = len(s.pile)
    while len(s.pile) == pile:  # until the round ends and a new line is drawn
        if s.phase == Phase.PLACE:
            seats.append(s.seat)
        s.apply(s.legal_action_list()[0])
    assert sorted(seats) == [0, 0, 1, 1]


@pytest.mark.parametrize(
    "config",
    [
        KingdominoConfig(2),
        KingdominoConfig(3),
        KingdominoConfig(4),
        KingdominoConfig(2, ("mighty_duel",)),
    ],
    ids=["2p", "3p", "4p", "duel"],
)
def test_the_last_round_has_no_picks_and_every_seat_gets_its_dominoes(config) -> None:
    """Seed lines 87, 116, 120, 146: 12 dominoes each (24 in the Mighty Duel), the last
    line placed without picks."""
    s = new_game(config, 11)
    play_random(s, 11, until=lambda st: st.final_round and st.phase == Phase.PLACE)
    assert not s.next_line and not s.pile
    while not s.is_terminal:
        assert s.phase == Phase.PLACE
        s.apply(s.legal_action_list()[-1])
    got = [len(p) for p in s.placed]
    total = sum(got) + len(s.discarded)
    assert total == config.dominoes_in_play
    per_seat = config.dominoes_in_play // config.num_players
    assert all(g <= per_seat for g in got)


def test_kr4_the_discard_is_always_offered_unless_must_place() -> None:
    """Seed line 95 (the placement may be forgone); the author's variant, line 139."""
    free = new_game(KingdominoConfig(4), 2)
    strict = new_game(KingdominoConfig(4, ("must_place",)), 2)
    for s in (free, strict):
        play_random(s, 2, until=lambda st: st.phase == Phase.PLACE)
    assert free.layout.discard in free.legal_action_list()
    assert len(free.legal_action_list()) > 1
    assert strict.layout.discard not in strict.legal_action_list()


def test_kr4_a_forced_discard_under_must_place() -> None:
    """Seed line 112: a domino that fits nowhere goes back to the box."""
    for seed in range(200):
        s = new_game(KingdominoConfig(4, ("must_place",)), seed)
        rng = random.Random(seed)
        while not s.is_terminal:
            legal = s.legal_action_list()
            if s.phase == Phase.PLACE and legal == [s.layout.discard]:
                d = s.cur_line[s.turn_pos]
                s.apply(legal[0])
                assert s.discarded[-1] == d
                return
            s.apply(rng.choice(legal))
    pytest.fail("no forced discard in 200 random games")


def test_kr5_dynasty_plays_three_games_and_adds_the_totals() -> None:
    cfg = KingdominoConfig(3, ("dynasty",))
    s = new_game(cfg, 4)
    games_seen = []
    rng = random.Random(4)
    while not s.is_terminal:
        if not games_seen or games_seen[-1] != s.game:
            games_seen.append(s.game)
            assert s.phase == Phase.SETUP_PICK and all(k.num_squares == 1 for k in s.kingdoms)
        s.apply(rng.choice(s.legal_action_list()))
    assert games_seen == [0, 1, 2]
    assert len(s.results) == 2
    now = [sc.total for sc in s.scores()]
    assert s.points() == [now[i] + s.results[0][2 * i] + s.results[1][2 * i] for i in range(3)]
    largest = [
        max(s.scores()[i].largest_territory, s.results[0][2 * i + 1], s.results[1][2 * i + 1])
        for i in range(3)
    ]
    assert s.rank_keys() == list(zip(s.points(), largest, strict=True))


@pytest.mark.parametrize("config", [KingdominoConfig(2), KingdominoConfig(4, ("dynasty",))])
def test_kr7_every_game_has_exactly_max_game_length_decisions(config) -> None:
    """Single-option decisions (the last free domino, a forced discard) are still played."""
    for seed in range(3):
        s = new_game(config, seed)
        n = 0
        rng = random.Random(seed)
        while not s.is_terminal:
            s.apply(rng.choice(s.legal_action_list()))
            n += 1
        assert n == config.max_game_length


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    s = new_game(KingdominoConfig(4), 1)
    play_random(s, 1, until=lambda st: st.phase == Phase.PLACE)
    before = s.to_json()
    legal = set(s.legal_action_list())
    bad = next(a for a in range(s.config.num_actions) if a not in legal)
    for action in (bad, -1, 10**6, "pick 1", "place z9 Q", 3.5, True, None):
        with pytest.raises(IllegalActionError):
            s.apply(action)  # type: ignore[arg-type]
        assert s.to_json() == before
    over = play_random(new_game(KingdominoConfig(2), 0), 0)
    with pytest.raises(IllegalActionError, match="game is over"):
        over.apply(0)


def test_text_actions_round_trip() -> None:
    s = new_game(KingdominoConfig(2), 9)
    for a in range(s.config.num_actions):
        assert s.string_to_action(s.action_to_string(a)) == a
    s.apply("pick 2")
    assert s.cur_kings[1] == s.setup_order[0]
    with pytest.raises(ValueError, match="not an action"):
        s.string_to_action("pick 9")


def test_same_seed_same_game_and_clones_are_independent() -> None:
    cfg = KingdominoConfig(4, ("harmony",))
    a = play_random(new_game(cfg, 21), 5)
    b = play_random(new_game(cfg, 21), 5)
    assert a.to_json() == b.to_json()
    s = play_random(new_game(cfg, 8), 8, until=lambda st: st.phase == Phase.PICK)
    c = s.clone()
    snapshot = s.to_json()
    play_random(c, 3)
    assert s.to_json() == snapshot and c.is_terminal


def test_redetermine_only_reshuffles_the_unseen() -> None:
    s = play_random(new_game(KingdominoConfig(3), 6), 6, until=lambda st: st.phase == Phase.PICK)
    public = (s.cur_line, s.next_line, [k.to_text() for k in s.kingdoms], s.unseen())
    piles = set()
    for i in range(5):
        c = s.clone()
        c.redetermine(np.random.default_rng(i))
        assert (c.cur_line, c.next_line, [k.to_text() for k in c.kingdoms], c.unseen()) == public
        assert len(c.pile) == len(s.pile) and len(c.box) == len(s.box)
        check_state(c)
        piles.add(tuple(c.pile))
    assert len(piles) > 1


def test_json_round_trip_mid_game_and_at_the_end() -> None:
    for cfg in (
        KingdominoConfig(4, ("must_place",)),
        KingdominoConfig(2, ("mighty_duel", "dynasty")),
    ):
        s = play_random(
            new_game(cfg, 13),
            13,
            until=lambda st: len(st.discarded) + sum(map(len, st.placed)) > 10,
        )
        t = KingdominoState.from_json(s.to_json())
        assert t.to_json() == s.to_json()
        play_random(s, 1)
        play_random(t, 1)
        assert t.to_json() == s.to_json()


def _corrupt(edit) -> str:
    s = play_random(new_game(KingdominoConfig(4), 2), 2, until=lambda st: st.phase == Phase.PICK)
    data = json.loads(s.to_json())
    edit(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(schema=9), "schema"),
        (lambda d: d.pop("pile"), "pile: missing"),
        (lambda d: d["pile"].append(d["pile"][0]), "dominoes: each of the 48"),
        (lambda d: d.update(phase="DANCE"), "phase"),
        (lambda d: d["kingdoms"].__setitem__(0, "CC X9"), r"kingdoms\[0\]"),
        (lambda d: d["kingdoms"].__setitem__(0, "CC W0 W0"), r"kingdoms\[0\]"),
        (lambda d: d["cur_kings"].__setitem__(0, 7), r"cur_kings\[0\]"),
        (lambda d: d.update(config={"num_players": 3, "variants": ["mighty_duel"]}), "config"),
        (lambda d: d.update(turn_pos=3), "turn_pos"),
    ],
)
def test_a_malformed_saved_state_is_a_named_error(edit, message: str) -> None:
    with pytest.raises(StateFormatError, match=message):
        KingdominoState.from_json(_corrupt(edit))
    with pytest.raises(StateFormatError, match="<root>: invalid JSON: "):
        KingdominoState.from_json("{")


@pytest.mark.parametrize("schema", [1.0, True, "1"])
def test_the_schema_version_is_an_integer_as_in_moon_river(schema) -> None:
    """1.0 and true equal 1 in Python; a saved state's version is the integer (issue 50)."""
    with pytest.raises(StateFormatError, match="schema: expected a Kingdomino state"):
        KingdominoState.from_json(_corrupt(lambda d: d.update(schema=schema)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "<root>: invalid JSON: lists or objects nested too deeply"),
        ('{"a": 1, "a": 2}', "<root>: invalid JSON: duplicate key 'a' in an object"),
        ('{"a": NaN}', "<root>: invalid JSON: NaN is not a number"),
        (" " * (2**20 + 1), "<root>: too large: "),
    ],
)
def test_saved_text_is_read_as_moon_river_reads_it(text: str, message: str) -> None:
    """Deep nesting, a key twice, NaN and an oversized text: the same named errors as Moon
    River's saved states (one strict reader: family.validation.read_json_text)."""
    with pytest.raises(StateFormatError, match=message):
        KingdominoState.from_json(text)


def test_dominoes_are_the_table() -> None:
    assert len(DOMINOES) == 48
