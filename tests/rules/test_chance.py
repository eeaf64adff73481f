"""The chance API (moonriver_env/moonriver/rules/chance.py): every draw as an explicit chance node.

A chance game fed the draws of a seeded game is that game (every field, legal action and
score); outcomes and their exact probabilities; refusals; clone, JSON and pickle round trips
mid-draw; and the view of a seeded state with its pile and stack as unordered pools.
"""

from __future__ import annotations

import math
import pickle
import random

import pytest

from moonriver_env.moonriver.rules.chance import (
    ChanceState,
    DrawKind,
    chance_view,
    new_chance_game,
    outcome_text,
    seeded_draws,
)
from moonriver_env.moonriver.rules.core import StateCore
from moonriver_env.moonriver.rules.invariants import check_invariants
from moonriver_env.rules import GameConfig, IllegalActionError, new_game

CONFIGS = [
    GameConfig(num_players=2),
    GameConfig(num_players=3),
    GameConfig(num_players=4),
    GameConfig(num_players=2, mode="legends", boards="random"),
    GameConfig(num_players=3, mode="legends"),
    GameConfig(num_players=4, mode="legends", boards="random", auto_resolve=True),
]
IDS = [f"{c.num_players}p-{c.mode}-{c.boards}-{'auto' if c.auto_resolve else 'manual'}" for c in CONFIGS]  # fmt: skip
# Fields that differ by design: the generator (unused by a chance game), caches and stamps.
_SKIP = ("_st", "rng", "_legal", "ranch_stamp")


def assert_same_game(seeded: object, chance: ChanceState) -> None:
    """Every field equal; the pile and the stack as multisets (a chance game has no order)."""
    for name in StateCore.__slots__:
        if name in _SKIP:
            continue
        a, b = getattr(seeded, name), getattr(chance, name)
        if name in ("pile", "stack"):
            a = sorted(a)
        assert a == b, f"{name}: seeded {a} != chance {b}"


def random_outcome(state: ChanceState, rng: random.Random) -> int:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return rng.choices(outcomes, weights=probs)[0]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_chance_game_fed_the_seeded_draws_is_the_seeded_game(config: GameConfig) -> None:
    for seed in range(2):
        seeded = new_game(config, seed=seed)
        draws = seeded_draws(seeded)
        chance = new_chance_game(config)
        rng = random.Random(seed)
        while True:
            while chance.is_chance_node():
                assert chance.legal_action_list() == []
                chance.apply_chance(draws.outcome_for(chance))
            assert_same_game(seeded, chance)
            assert chance.legal_action_list() == seeded.legal_action_list()
            if seeded.is_terminal:
                break
            action = rng.choice(seeded.legal_action_list())
            seeded.apply(action)
            chance.apply(action)
        assert chance.is_terminal
        assert chance.scores() == seeded.scores()
        assert chance.winners() == seeded.winners()


def test_outcomes_are_the_pieces_left_with_exact_probabilities() -> None:
    state = new_chance_game(GameConfig(num_players=3))
    comps = state.config.components
    # Set-up order: the saloon first (tokens), then the first column, then the seats.
    assert [k for k, _ in state.pending_draws()] == [DrawKind.TOKEN] * 5 + [DrawKind.PLOT] * 4 + [DrawKind.SEAT] * 3  # fmt: skip
    assert state.chance_outcomes() == [
        (k, c / comps.num_partners) for k, c in enumerate(comps.partner_counts)
    ]
    for token in (0, 0, 1, 2, 4):
        state.apply_chance(token)
    assert state.saloon == [0, 0, 1, 2, 4]
    plots = state.chance_outcomes()
    assert plots == [(p.index, p.count / comps.num_plots) for p in comps.plots]
    assert math.isclose(math.fsum(p for _, p in plots), 1.0, abs_tol=1e-12)
    assert outcome_text(DrawKind.PLOT, 22) == "plot 23"
    assert outcome_text(DrawKind.TOKEN, 1) == "token cattle_thief"
    # The column is sorted by the backs once its last plot is drawn: kinds 23 (back 1),
    # 14 (back 6), 2 (back 2), 1 (back 1) -> 23 and 1 in draw order, then 2, then 14.
    for kind in (22, 13, 1, 0):
        state.apply_chance(kind)
    assert state.cur_col == [22, 0, 1, 13]
    assert state.pile.count(22) == comps.plots[22].count - 1
    assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    state.apply_chance(2)
    assert state.chance_outcomes() == [(0, 1 / 2), (1, 1 / 2)]
    state.apply_chance(0)
    state.apply_chance(1)
    assert not state.is_chance_node()
    assert (state.setup_order, state.current_seat) == ([2, 0, 1], 2)


def test_two_players_draw_only_the_first_seat() -> None:
    state = new_chance_game(GameConfig(num_players=2))
    while state.draw_kind() != DrawKind.SEAT:
        state.apply_chance(state.chance_outcomes()[0][0])
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    state.apply_chance(1)
    assert state.setup_order == [1, 0, 0, 1] and state.current_seat == 1


def test_refusals_leave_the_state_unchanged() -> None:
    state = new_chance_game(GameConfig(num_players=4, mode="legends"))
    assert state.draw_kind() == DrawKind.SCENARIO
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="impossible"):
        state.apply_chance(4)  # 4 scenarios: 0..3
    with pytest.raises(IllegalActionError, match="SCENARIO draw is pending"):
        state.apply(0)
    assert state.to_json() == before
    state.apply_chance(1)
    assert state.scenario == "gold_rush"
    state.apply_chance(4)
    state.apply_chance(4)  # both farmer tokens are out now
    with pytest.raises(IllegalActionError, match="impossible"):
        state.apply_chance(4)
    done = new_chance_game(GameConfig(num_players=2))
    while done.is_chance_node():
        done.apply_chance(done.chance_outcomes()[-1][0])
    with pytest.raises(ValueError, match="not a chance node"):
        done.chance_outcomes()


@pytest.mark.parametrize("config", CONFIGS[3:], ids=IDS[3:])
def test_clone_json_and_pickle_round_trip_at_every_node(config: GameConfig) -> None:
    rng = random.Random(7)
    state = new_chance_game(config)
    step = 0
    while not state.is_terminal:
        if step % 17 == 0:
            for copy in (
                state.clone(),
                ChanceState.from_json(state.to_json()),
                pickle.loads(pickle.dumps(state)),
            ):
                assert type(copy) is ChanceState
                assert copy.to_json() == state.to_json()
                assert_same_game(state, copy)
                assert copy.pending_draws() == state.pending_draws()
        if state.is_chance_node():
            state.apply_chance(random_outcome(state, rng))
        else:
            check_invariants(state)
            state.apply(rng.choice(state.legal_action_list()))
        step += 1
    check_invariants(state)
    clone = state.clone()
    clone.history.append(0)
    assert len(clone.history) == len(state.history) + 1


def test_chance_view_of_a_seeded_state_hides_only_the_order() -> None:
    seeded = new_game(GameConfig(num_players=2, mode="legends"), seed=3)
    rng = random.Random(3)
    for _ in range(60):
        seeded.apply(rng.choice(seeded.legal_action_list()))
    view = chance_view(seeded)
    assert not view.is_chance_node()
    assert_same_game(seeded, view)
    assert view.pile == sorted(seeded.pile) and view.pile is not seeded.pile
    # It plays on with explicit draws; the seeded state is untouched.
    before = seeded.to_json()
    while not view.is_terminal:
        if view.is_chance_node():
            view.apply_chance(random_outcome(view, rng))
        else:
            view.apply(rng.choice(view.legal_action_list()))
    assert seeded.to_json() == before
    again = ChanceState.from_json(view.to_json())  # replays from the viewed state
    assert again.scores() == view.scores()


def test_seeded_draws_needs_a_fresh_seeded_game() -> None:
    state = new_game(GameConfig(num_players=2), seed=0)
    state.apply(state.legal_action_list()[0])
    with pytest.raises(ValueError, match="fresh"):
        seeded_draws(state)
    with pytest.raises(ValueError, match="fresh"):
        seeded_draws(new_chance_game())
