"""The native single-state API equals the Python engine (issue 21, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from moonriver_env.rules import GameConfig, IllegalActionError, new_game
from moonriver_env.vector.search import NativeState

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
