"""The OpenSpiel game ``python_moonriver`` (moonriver_env/moonriver/openspiel.py; the openspiel extra).

OpenSpiel's own consistency test for every player count and mode; the game's declared facts;
engine games replayed through pyspiel from the same draws give the same observations and
returns; the length bounds hold (the chance bound is reached); serialization round trips at
chance and decision nodes; OpenSpiel's MCTSBot plays whole games (agent ``openspiel_mcts``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from agents import make_agent  # noqa: E402
from moonriver_env.moonriver.agents.openspiel_mcts import OpenSpielMCTSAgent  # noqa: E402
from moonriver_env.moonriver.encoding import ObservationEncoder  # noqa: E402
from moonriver_env.moonriver.env import win_rewards  # noqa: E402
from moonriver_env.moonriver.openspiel import (  # noqa: E402
    GAME_NAME,
    config_for,
    max_chance_nodes,
    openspiel_state,
)
from moonriver_env.moonriver.rules.chance import seeded_draws  # noqa: E402
from moonriver_env.rules import GameConfig, new_game  # noqa: E402

PARAMS = [(n, m) for n in (2, 3, 4) for m in ("base", "legends")]
IDS = [f"{n}p-{m}" for n, m in PARAMS]


def load(n: int, mode: str) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, {"players": n, "mode": mode})


def sample(state: pyspiel.State, rng: random.Random) -> int:
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return rng.choices(outcomes, weights=probs)[0]


@pytest.mark.parametrize(("n", "mode"), PARAMS, ids=IDS)
def test_openspiel_random_sim_test(n: int, mode: str) -> None:
    pyspiel.random_sim_test(load(n, mode), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("n", "mode"), PARAMS, ids=IDS)
def test_game_facts(n: int, mode: str) -> None:
    game = load(n, mode)
    config = GameConfig(num_players=n, mode=mode)
    enc = ObservationEncoder(config)
    size = enc.plane_high.size + enc.feature_high.size
    assert game.num_players() == n
    assert game.num_distinct_actions() == config.num_actions
    assert game.max_chance_outcomes() == 25  # the plot kinds
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.observation_tensor_size() == game.information_state_tensor_size() == size
    # The bounds derived in max_decisions / max_chance_nodes, pinned.
    assert game.max_game_length() == {2: 330, 3: 268, 4: 328}[n]
    assert game.max_chance_nodes_in_history() == (mode == "legends") + (1 if n == 2 else n) + 96 + 20  # fmt: skip
    gtype = game.get_type()
    assert gtype.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert str(game) == f"{GAME_NAME}(mode={mode},players={n})"
    with pytest.raises(ValueError, match="num_players"):
        pyspiel.load_game(GAME_NAME, {"players": 5})
    with pytest.raises(ValueError, match="mode"):
        pyspiel.load_game(GAME_NAME, {"mode": "wild"})


@pytest.mark.parametrize(("n", "mode"), PARAMS, ids=IDS)
def test_engine_games_replay_through_openspiel(n: int, mode: str) -> None:
    game = load(n, mode)
    enc = ObservationEncoder(GameConfig(num_players=n, mode=mode))
    rng = random.Random(n)
    seeded = new_game(config_for(n, mode), seed=11 * n)
    draws = seeded_draws(seeded)
    state = game.new_initial_state()
    while True:
        while state.is_chance_node():
            state.apply_action(draws.outcome_for(state.engine))
        if seeded.is_terminal:
            break
        assert state.current_player() == seeded.current_seat
        assert state.legal_actions() == seeded.legal_action_list()
        for p in range(n):
            want = enc.encode_flat(seeded, p)
            np.testing.assert_array_equal(state.observation_tensor(p), want)
            np.testing.assert_array_equal(state.information_state_tensor(p), want)
        action = rng.choice(seeded.legal_action_list())
        seeded.apply(action)
        state.apply_action(action)
    assert state.is_terminal()
    assert state.returns() == win_rewards(seeded.scores())
    for p in range(n):
        np.testing.assert_array_equal(state.observation_tensor(p), enc.encode_flat(seeded, p))


def test_length_bounds_hold_and_the_chance_bound_is_reached() -> None:
    game = load(4, "legends")
    rng = random.Random(0)
    chances_seen = []
    for _ in range(2):
        state = game.new_initial_state()
        decisions = chances = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample(state, rng))
                chances += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        assert decisions <= game.max_game_length()
        assert len(state.history()) <= game.max_history_length()
        chances_seen.append(chances)
    assert max(chances_seen) == game.max_chance_nodes_in_history()
    assert game.max_chance_nodes_in_history() == max_chance_nodes(config_for(4, "legends"))


def test_serialization_and_string_round_trips() -> None:
    game = load(3, "legends")
    rng = random.Random(5)
    state = game.new_initial_state()
    checked = {True: 0, False: 0}
    step = 0
    while not state.is_terminal():
        if step % 23 == 0 or step < 3:
            text = pyspiel.serialize_game_and_state(game, state)
            game2, state2 = pyspiel.deserialize_game_and_state(text)
            for copy in (state2, game.deserialize_state(state.serialize()), state.clone()):
                assert str(copy) == str(state)
                assert copy.history() == state.history()
                assert copy.is_chance_node() == state.is_chance_node()
                if not state.is_chance_node():
                    assert copy.observation_tensor() == state.observation_tensor()
                    assert copy.legal_actions() == state.legal_actions()
            checked[state.is_chance_node()] += 1
        if state.is_chance_node():
            state.apply_action(sample(state, rng))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        step += 1
    assert checked[True] and checked[False]
    assert state.observation_string(0) == str(state)
    assert "phase=GAME_OVER" in str(state)


def test_mcts_agent_plays_whole_games_from_the_registry() -> None:
    agent = make_agent("openspiel_mcts:sims=2,c=1.5", seed=3)
    assert isinstance(agent, OpenSpielMCTSAgent)
    assert (agent.sims, agent.c, agent.rollouts) == (2, 1.5, 1)
    other = make_agent("random", seed=4)
    state = new_game(GameConfig(num_players=2), seed=2)
    while not state.is_terminal:
        player = agent if state.current_seat == 0 else other
        action = player.choose(state)
        assert state.is_legal(action)
        state.apply(action)
    assert sum(win_rewards(state.scores())) == 0


def test_openspiel_state_of_an_engine_state_plays_on_with_mcts() -> None:
    from open_spiel.python.algorithms import mcts

    game = load(4, "base")
    seeded = new_game(config_for(4, "base"), seed=9)
    rng = random.Random(9)
    while seeded.round < 20:
        seeded.apply(rng.choice(seeded.legal_action_list()))
    state = openspiel_state(game, seeded)
    assert state.current_player() == seeded.current_seat
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 4, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample(state, rng))
        else:
            state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="players and mode"):
        openspiel_state(load(2, "base"), seeded)
