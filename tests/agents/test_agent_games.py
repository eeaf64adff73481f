"""Learned agents refuse a game they were not trained for, naming both games, before any move
(issue 12), and the ``ppo:`` spec reads policy snapshots (``.pt``) as evaluation does."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from agents import PolicyAgent, RandomAgent, make_agent
from agents.runner import GameRunner, GameSetup
from moonriver_env import moonriver_v0
from moonriver_env.games import parse_game
from moonriver_env.moonriver.agents import SHIPPED_PPO
from moonriver_env.moonriver.rules import GameConfig, new_game


@functools.cache
def _snapshot(tmp: Path, players: int, mode: str) -> Path:
    """A tiny untrained policy for a game, saved as a snapshot (``save_policy``)."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.networks.snapshots import save_policy

    env = moonriver_v0.raw_env(num_players=players, mode=mode, obs_type="flat")
    agent = env.possible_agents[0]
    policy = MaskableActorCriticPolicy(
        env.observation_space(agent), env.action_space(agent), lambda _: 1e-3, net_arch=[8]
    )
    path = tmp / f"snapshot_{players}_{mode}.pt"
    save_policy(policy, path)
    return path


def test_snapshot_spec_loads_and_plays(tmp_path: Path) -> None:
    agent = make_agent(f"ppo:{_snapshot(tmp_path, 3, 'base')}", seed=0)
    assert isinstance(agent, PolicyAgent)
    state = new_game(GameConfig(num_players=3), seed=1)
    agent.check_game(state.config)
    assert state.is_legal(agent.choose(state))
    bad = tmp_path / "not_a_snapshot.pt"
    bad.write_bytes(b"nonsense")
    with pytest.raises(ValueError, match=r"^path: .*not a policy snapshot"):
        make_agent(f"ppo:{bad}")


@pytest.mark.parametrize(("trained", "game"), [("3p_base", "2p_base"), ("2p_base", "2p_legends")])
def test_policy_refuses_another_game_naming_both(tmp_path: Path, trained: str, game: str) -> None:
    was, spec = parse_game(trained), parse_game(game)
    agent = make_agent(f"ppo:{_snapshot(tmp_path, was.num_players, was.mode)}", seed=0)
    with pytest.raises(ValueError, match=f"the game is {game}") as err:
        agent.check_game(spec.config())
    assert f"trained for {trained}" in str(err.value)
    # the runner asks before any move: the environment is never stepped
    n = spec.num_players
    runner = GameRunner(GameSetup(num_players=n, mode=spec.mode))
    seats = [agent] + [RandomAgent(s) for s in range(1, n)]
    with pytest.raises(ValueError, match=f"the game is {game}"):
        runner.play(seats, env_seed=0, agent_seeds=[0] * n)
    assert runner.env.state is None  # never reset: no game started


def test_shipped_ppo_refuses_three_players_and_legends() -> None:
    assert SHIPPED_PPO.exists()
    agent = make_agent("ppo", seed=0)
    agent.check_game(GameConfig(num_players=2))  # what it was trained for
    for config, text in [
        (GameConfig(num_players=3), "the game is 3p_base"),
        (GameConfig(num_players=2, mode="legends"), "the game is 2p_legends"),
    ]:
        with pytest.raises(ValueError, match=text) as err:
            agent.check_game(config)
        assert "trained for 2p_base" in str(err.value)


def test_a_policy_used_directly_refuses_another_game_before_any_move(tmp_path: Path) -> None:
    """``agent.act(obs, env)`` as the README shows it: the runner's named error, not torch's
    shape error, and the environment untouched."""

    agent = make_agent(f"ppo:{_snapshot(tmp_path, 2, 'base')}", seed=0)
    env = moonriver_v0.env(num_players=3)
    env.reset(seed=1)
    before = env.unwrapped.state.to_json()
    obs = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match=r"the game is 3p_base .* trained for 2p_base"):
        agent.act(obs, env)
    assert env.unwrapped.state.to_json() == before
    env2 = moonriver_v0.env(num_players=2)
    env2.reset(seed=1)
    assert env2.unwrapped.state.is_legal(agent.act(env2.observe(env2.agent_selection), env2))
