"""The native single-state API equals the Python engine (issue 21, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.vector.search import NativeState
from moonriver_env.rules import GameConfig, IllegalActionError, new_game

CONFIGS = [
    GameConfig(num_players=2),
    GameConfig(num_players=3, mode="legends", scenario="outlaws"),
    GameConfig(num_players=4, mode="legends", boards="random"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=["2p", "3p-legends", "4p-legends"])
def test_rollouts_clones_and_redetermine_match_the_engine(config: GameConfig) -> None:
    for seed in range(3):
        py = new_game(config, seed=seed)
        nat = NativeState(config, seed)
        assert nat.to_state().to_json() == py.to_json()
        # A few decisions by hand, then a clone that must stay independent.
        rng = np.random.default_rng(seed)
        for _ in range(30):
            legal = py.legal_action_list()
            assert nat.legal_action_list() == legal
            a = legal[int(rng.integers(len(legal)))]
            py.apply(a)
            nat.apply(a)
        twin = nat.clone()
        py.redetermine(np.random.default_rng(99))
        nat.redetermine(99)
        assert nat.to_state().to_json() == py.to_json()
        # The native random rollout is the Python loop with the same generator.
        played = nat.rollout(seed=7, depth=0)
        gen = np.random.default_rng(7)
        count = 0
        while not py.is_terminal:
            legal = py.legal_action_list()
            py.apply(legal[int(gen.integers(len(legal)))])
            count += 1
        assert played == count and nat.is_terminal
        assert nat.scores() == py.scores() and nat.winners() == py.winners()
        assert nat.to_state().to_json() == py.to_json()
        assert not twin.is_terminal  # untouched by the rollout of the original
        back = NativeState.from_state(twin.to_state())
        assert back.to_state().to_json() == twin.to_state().to_json()


def test_illegal_actions_are_refused() -> None:
    nat = NativeState(GameConfig(num_players=2), 0)
    before = nat.to_state().to_json()
    for bad in (-1, 10**6, 2**70, "1", True):
        with pytest.raises(IllegalActionError):
            nat.apply(bad)  # type: ignore[arg-type]
    assert nat.to_state().to_json() == before
    with pytest.raises(ValueError, match="seed"):
        NativeState(GameConfig(num_players=2), -1)


@pytest.mark.parametrize(
    ("config", "spec"),
    [
        (GameConfig(num_players=2), "mc:sims=24"),
        (GameConfig(num_players=3, mode="legends", scenario="timber_rafting"), "mc:sims=12,k=3"),
        (GameConfig(num_players=4, mode="legends"), "mc:sims=8,rollout=random,depth=0,value=win"),
    ],
    ids=["2p", "3p-legends", "4p-random-rollouts"],
)
def test_mc_simulates_natively_with_the_same_decisions(config: GameConfig, spec: str) -> None:
    """The mc agent's simulations in the core give the Python values to the last bit."""
    from agents.registry import make_agent

    native, python = make_agent(spec, seed=3), make_agent(spec, seed=3)
    python.native = False  # type: ignore[attr-defined]
    state = new_game(config, seed=8)
    searched = 0
    for _ in range(30):
        if state.is_terminal:
            break
        a = native.choose(state)
        assert python.choose(state) == a
        assert native.last_values == python.last_values  # type: ignore[attr-defined]
        searched += bool(native.last_values)  # type: ignore[attr-defined]
        state.apply(a)
    assert searched > 5


def test_the_core_reads_the_weights_in_their_declared_order() -> None:
    from moonriver_env.moonriver.agents.evaluation import Weights

    # agent.c's struct weights, field for field
    assert Weights.names() == (
        "grow_w",
        "pipe_cow_w",
        "unseen_cow_w",
        "pipe_res_w",
        "circle_w",
        "skull_w",
        "waste_w",
        "theft_w",
        "spread_w",
        "order_w",
        "opp_w",
    )


@pytest.mark.parametrize("config", CONFIGS, ids=["2p", "3p-legends", "4p-legends"])
def test_observation_is_the_encoders(config: GameConfig) -> None:
    """A native state's observation, for every seat and every decision of a game, is the
    Python encoder's of the same state; a bad seat is refused."""
    num_players = config.num_players
    enc = ObservationEncoder(config)
    state = new_game(config, seed=3)
    rng = np.random.default_rng(3)
    while not state.is_terminal:
        native = NativeState.from_state(state)
        for seat in range(num_players):
            assert np.array_equal(native.observation(seat), enc.encode_flat(state, seat))
        state.apply(int(rng.choice(state.legal_action_list())))
    with pytest.raises(ValueError, match="seat"):
        NativeState.from_state(state).observation(num_players)
