"""Bad use of the environments gets a named error and changes nothing (issue 12, env rows).

One test per row of the issue: stepping before ``reset`` or after the game, bad ``seed`` and
``options``, a non-finite ``dense_reward``, game arguments contradicting ``config``, and the
same checks on ``SingleAgentEnv``. Every rejection is checked to leave the state as it was.
"""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest

from moonriver_env import moonriver_v0
from moonriver_env.moonriver.env import ResetNeeded
from moonriver_env.rules import GameConfig
from moonriver_env.single_agent import SingleAgentEnv


def _finish(env, seed: int = 0) -> None:
    """Play ``env`` (raw or wrapped) with random legal moves to its end, dead steps included."""
    rng = random.Random(seed)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert env.agents == []


def test_raw_env_step_before_reset_says_reset_first() -> None:
    env = moonriver_v0.raw_env()
    with pytest.raises(ResetNeeded, match=r"^step: call reset\(\) first"):
        env.step(0)
    with pytest.raises(RuntimeError, match="reset"):  # ResetNeeded is a RuntimeError too
        env.observe("player_0")
    env.reset(seed=0)  # still usable
    assert env.agent_selection in env.agents


def test_raw_env_step_after_the_game_is_a_named_error_not_key_error() -> None:
    env = moonriver_v0.raw_env()
    env.reset(seed=1)
    _finish(env)
    before = env.state.to_json()
    for action in (0, None):
        with pytest.raises(ResetNeeded, match=r"^step: the game is over"):
            env.step(action)
    assert env.state.to_json() == before


def test_raw_env_dead_agents_take_only_none() -> None:
    """PettingZoo's documented behaviour while the finished game removes its agents."""
    env = moonriver_v0.raw_env()
    env.reset(seed=2)
    rng = random.Random(2)
    while not env.state.is_terminal:
        legal = env.state.legal_action_list()
        env.step(legal[rng.randrange(len(legal))])
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)
    assert len(env.agents) == 2


def test_env_step_with_an_action_after_the_game_is_not_ignored() -> None:
    env = moonriver_v0.env()
    env.reset(seed=3)
    _finish(env)
    with pytest.raises(ResetNeeded, match=r"^step: the game is over.*reset\(\)"):
        env.step(5)
    env.step(None)  # None: PettingZoo's behaviour (a logged warning, nothing happens)
    assert env.agents == []
    env.reset(seed=3)
    assert len(env.agents) == 2


@pytest.mark.parametrize(
    "seed, error, match",
    [
        (-1, ValueError, r"^seed: expected None or a non-negative integer, got -1"),
        ("abc", TypeError, r"^seed: expected None or a non-negative integer, got 'abc'"),
        (1.5, TypeError, r"^seed: "),
        (True, TypeError, r"^seed: "),
    ],
)
@pytest.mark.parametrize("make", [moonriver_v0.raw_env, moonriver_v0.env, SingleAgentEnv])
def test_bad_seed_names_seed_and_changes_nothing(make, seed, error, match) -> None:
    env = make()
    if make is SingleAgentEnv:
        env.reset(seed=4)
        before = env.aec.state.to_json()
    else:
        env.reset(seed=4)
        before = env.unwrapped.state.to_json()
    with pytest.raises(error, match=match):
        env.reset(seed=seed)
    state = env.aec.state if make is SingleAgentEnv else env.unwrapped.state
    assert state.to_json() == before


def test_numpy_integer_seeds_are_seeds() -> None:
    a, b = moonriver_v0.raw_env(), moonriver_v0.raw_env()
    a.reset(seed=np.int64(9))
    b.reset(seed=9)
    assert a.state.to_json() == b.state.to_json()


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"num_players": 3}, ValueError, r"^options: 'num_players' is an argument of the .*"),
        ("x", TypeError, r"^options: expected None or a dict \(allowed keys: none\)"),
        ([("mode", "legends")], TypeError, r"^options: "),
    ],
)
@pytest.mark.parametrize("make", [moonriver_v0.raw_env, moonriver_v0.env, SingleAgentEnv])
def test_bad_options_name_options_and_allowed_keys(make, options, error, match) -> None:
    env = make()
    env.reset(seed=5)
    state = env.aec.state if make is SingleAgentEnv else env.unwrapped.state
    before = state.to_json()
    with pytest.raises(error, match=match):
        env.reset(options=options)
    assert (env.aec.state if make is SingleAgentEnv else env.unwrapped.state) is state
    assert state.to_json() == before


def test_unknown_option_keys_warn_and_empty_options_are_fine() -> None:
    env = moonriver_v0.raw_env()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={})
        env.reset(seed=0, options=None)
    with pytest.warns(UserWarning, match=r"^options: unknown key\(s\) 'speed' ignored"):
        env.reset(seed=0, options={"speed": 2})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -math.inf, "0.1", True])
def test_dense_reward_must_be_finite(value) -> None:
    with pytest.raises(ValueError, match=r"^dense_reward: expected a finite number"):
        moonriver_v0.env(dense_reward=value)
    with pytest.raises(ValueError, match=r"^dense_reward: "):
        SingleAgentEnv(dense_reward=value)


@pytest.mark.parametrize("value", [np.float32(0.25), np.float64(0.25), np.int64(1), 1])
def test_dense_reward_takes_numpy_numbers(value) -> None:
    assert moonriver_v0.env(dense_reward=value).unwrapped.dense_reward == float(value)
    with pytest.raises(ValueError, match=r"^dense_reward: expected a finite number"):
        moonriver_v0.env(dense_reward=np.float32("nan"))
    with pytest.raises(ValueError, match=r"^dense_reward: expected a finite number"):
        moonriver_v0.env(dense_reward=np.bool_(True))


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"num_players": 3, "config": GameConfig(num_players=2)}, "num_players"),
        ({"num_players": 2, "config": GameConfig(num_players=3)}, "num_players"),
        ({"mode": "legends", "config": GameConfig(num_players=2)}, "mode"),
        ({"auto_resolve": True, "config": GameConfig(num_players=2)}, "auto_resolve"),
    ],
)
def test_game_arguments_contradicting_config_name_both(kwargs: dict, named: str) -> None:
    with pytest.raises(ValueError, match=rf"^{named}=.* contradicts config\.{named}="):
        moonriver_v0.raw_env(**kwargs)
    with pytest.raises(ValueError, match=rf"^{named}="):
        SingleAgentEnv(**kwargs)


def test_config_alone_or_agreeing_arguments_are_taken() -> None:
    cfg = GameConfig(num_players=3, mode="legends")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert moonriver_v0.raw_env(config=cfg).config is cfg
        assert moonriver_v0.raw_env(num_players=3, mode="legends", config=cfg).config is cfg
        assert SingleAgentEnv(config=cfg).aec.config is cfg
    assert moonriver_v0.raw_env().config.num_players == 2  # the documented default
    with pytest.raises(TypeError, match=r"^config: expected a GameConfig"):
        moonriver_v0.raw_env(config={"num_players": 2})


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"illegal_penalty": float("nan")}, "illegal_penalty"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"obs_type": "image"}, "obs_type"),
        ({"learner_seat": 2}, "learner_seat"),
        ({"opponents": [None]}, "opponents"),
        ({"opponents": "alphago"}, "spec"),
    ],
)
def test_single_agent_env_arguments_name_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=rf"^{field}:"):
        SingleAgentEnv(**kwargs)


def test_single_agent_env_step_before_reset_and_after_the_end() -> None:
    env = SingleAgentEnv(learner_seat=0)
    with pytest.raises(ResetNeeded, match=r"^step: call reset\(\) first"):
        env.step(0)
    env.reset(seed=0)
    terminated = False
    rng = np.random.default_rng(0)
    while not terminated:
        _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    with pytest.raises(ResetNeeded, match=r"^step: the episode is over"):
        env.step(0)
