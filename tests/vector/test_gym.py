"""The Gymnasium VectorEnv on the native core: the learner's rewards and episodes."""

from __future__ import annotations

import numpy as np
import pytest

from moonriver_env.moonriver.env import win_rewards
from moonriver_env.moonriver.vector.gym import MoonRiverVectorEnv
from moonriver_env.rules import ScoreBreakdown


@pytest.mark.parametrize("players", [2, 3])
def test_random_learner_against_random_opponents(players: int) -> None:
    env = MoonRiverVectorEnv(num_envs=6, num_players=players, seed=1)
    obs, infos = env.reset(seed=1)
    assert obs.shape == (6, env.single_observation_space.shape[0])
    assert env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(3000):
        masks = env.action_masks()
        # every game waits for its learner, who has a legal action
        assert (env.vg.current_seat == infos["learner_seat"]).all()
        assert masks.any(axis=1).all()
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        seats = infos["learner_seat"].copy()
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert not truncated.any()
        for i in np.flatnonzero(terminated):
            episodes += 1
            table = infos["scores"][i]
            expected = win_rewards([ScoreBreakdown(*row) for row in table.tolist()])
            assert rewards[i] == expected[seats[i]]  # the learner's own win reward
        assert (rewards[~terminated] == 0.0).all()  # win rewards come only at the end
        if episodes >= 8:
            break
    assert episodes >= 8


def test_a_heuristic_opponent_and_a_fixed_seat() -> None:
    env = MoonRiverVectorEnv(num_envs=2, num_players=2, opponents="greedy", learner_seat=1, seed=0)
    _, infos = env.reset(seed=0)
    assert (infos["learner_seat"] == 1).all()
    assert (env.vg.current_seat == 1).all()
    for _ in range(20):
        env.step([int(np.flatnonzero(m)[0]) for m in env.action_masks()])
    with pytest.raises(ValueError, match="learner_seat"):
        MoonRiverVectorEnv(num_envs=2, num_players=2, learner_seat=2)
