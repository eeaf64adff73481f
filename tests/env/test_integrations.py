"""Moon River in other libraries without glue (issue 13): Gymnasium's registry, checker and
vector envs, MaskablePPO on the registered id, TorchRL, Tianshou and SuperSuit.

The examples of ``moonriver_env.examples`` run here on a tiny budget; a test is skipped only
when its library is not installed (the ``torchrl`` and ``tianshou`` extras, in ``all``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import moonriver_env
from moonriver_env import moonriver_v0
from moonriver_env.games import GAMES
from moonriver_env.moonriver.env import PHASE_NAMES

ROOT = Path(__file__).resolve().parents[2]


# -- Gymnasium -------------------------------------------------------------------------------
@pytest.mark.parametrize("order", ["moonriver_env first", "gymnasium first"])
def test_import_registers_the_gymnasium_id_in_either_order(order: str) -> None:
    """In a fresh interpreter: ``import moonriver_env`` alone loads no Gymnasium, and the id is
    registered once Gymnasium is imported, before or after."""
    first, second = ("moonriver_env", "gymnasium")
    if order == "gymnasium first":
        first, second = second, first
    code = (
        f"import sys, json; import {first}\n"
        "loaded = 'gymnasium' in sys.modules\n"
        f"import {second}; import gymnasium\n"
        "env = gymnasium.make('MoonRiver-v0', num_players=3)\n"
        "print(json.dumps([loaded, type(env.unwrapped).__name__, env.unwrapped.aec.config.num_players]))\n"
    )
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join((str(ROOT), os.environ.get("PYTHONPATH", "")))
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    loaded, name, players = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded == (order == "gymnasium first")
    assert (name, players) == ("SingleAgentEnv", 3)


def test_the_package_registers_the_gymnasium_id_of_every_registered_game() -> None:
    ids = [entry.gymnasium_id for entry in GAMES.values()]
    assert ids == list(moonriver_env.GYMNASIUM_ENTRY_POINTS)


def test_gymnasium_make_passes_keyword_arguments_and_the_checker() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    assert moonriver_env.GYMNASIUM_ID == "MoonRiver-v0"
    env = gymnasium.make("MoonRiver-v0", num_players=3, opponents="heuristic", learner_seat=1)
    inner = env.unwrapped
    assert inner.aec.config.num_players == 3 and inner.learner_seat_option == 1
    assert [type(o).__name__ for o in inner.opponents] == ["HeuristicAgent"] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(inner, skip_render_check=True)
        check_env(gymnasium.make("MoonRiver-v0", mode="legends").unwrapped, skip_render_check=True)
    # seeded resets are reproducible with agent-spec opponents too
    a = gymnasium.make("MoonRiver-v0", num_players=3, opponents="greedy")
    b = gymnasium.make("MoonRiver-v0", num_players=3, opponents="greedy")
    for env_ in (a, b):
        env_.reset(seed=11)
        for _ in range(5):
            env_.step(int(np.flatnonzero(env_.unwrapped.action_masks())[0]))
    assert a.unwrapped.aec.state.to_json() == b.unwrapped.aec.state.to_json()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_make_vec(mode: str) -> None:
    from moonriver_env.examples import gymnasium_vector

    assert gymnasium_vector.vector_steps(120, mode, num_envs=2) > 0


def test_make_vec_infos_are_stacked_arrays() -> None:
    import gymnasium

    envs = gymnasium.make_vec("MoonRiver-v0", num_envs=2, vectorization_mode="sync")
    _, info = envs.reset(seed=0)
    assert info["phase"].shape == (2,) and info["scores"].shape == (2, 2, 7)
    assert info["action_mask"].shape == (2, 1748) and info["action_mask"].any(axis=1).all()
    assert [PHASE_NAMES[p] for p in info["phase"]] == ["SETUP_CLAIM", "SETUP_CLAIM"]
    envs.close()


def test_maskable_ppo_trains_on_the_registered_id() -> None:
    from moonriver_env.examples import gymnasium_vector

    assert gymnasium_vector.train_maskable_ppo(256) > 0


def test_gymnasium_example_runs() -> None:
    from moonriver_env.examples import gymnasium_vector

    assert gymnasium_vector.main(["--steps", "64", "--runs", "1"]) == 0


# -- TorchRL ---------------------------------------------------------------------------------
def test_torchrl_pettingzoo_wrapper_plays_legal_games() -> None:
    pytest.importorskip("torchrl")
    from moonriver_env.examples import torchrl_rollout

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL names the PettingZoo version it tested
        rate, finished = torchrl_rollout.rollout(260)
    assert rate > 0
    assert finished >= 1  # a game reached GAME_OVER: random actions stayed within the mask


def test_torchrl_infos_are_tensors() -> None:
    pytest.importorskip("torchrl")
    from torchrl.envs import PettingZooWrapper

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = PettingZooWrapper(env=moonriver_v0.env(num_players=3), use_mask=True, seed=0)
    td = env.reset()
    info = td["player_0", "info"]
    assert info["scores"].shape[-2:] == (3, 7) and info["winners"].shape[-1] == 3
    assert td["player_0", "action_mask"].shape[-1] == env.unwrapped.config.num_actions
    env.close()


# -- Tianshou --------------------------------------------------------------------------------
def test_tianshou_multi_agent_collector_runs() -> None:
    pytest.importorskip("tianshou")
    from moonriver_env.examples import tianshou_collect

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rate, stats = tianshou_collect.collect_multi_agent(300)
    assert rate > 0 and stats.n_collected_steps == 300
    assert stats.n_collected_episodes >= 1


def test_tianshou_single_agent_route_credits_the_learner() -> None:
    pytest.importorskip("tianshou")
    from moonriver_env.examples import tianshou_collect

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rate, stats = tianshou_collect.collect_single_agent(300)
    assert rate > 0 and stats.n_collected_episodes >= 1
    # reward "win" with 2 players: every finished episode returns +1, -1 or 0 to the learner
    returns = np.asarray(stats.returns)
    assert set(returns.tolist()) <= {1.0, -1.0, 0.0} and np.abs(returns).sum() >= 1


def test_tianshou_example_runs() -> None:
    pytest.importorskip("tianshou")
    from moonriver_env.examples import tianshou_collect

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tianshou_collect.main(["--steps", "40", "--runs", "1"]) == 0


# -- PettingZoo conversions and SuperSuit ----------------------------------------------------
def test_turn_based_aec_to_parallel_plays_a_game() -> None:
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    env = turn_based_aec_to_parallel(moonriver_v0.env(num_players=2))
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rewards: dict[str, float] = {}
    while env.agents:
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) if o["action_mask"].any() else 0
            for a, o in obs.items()
        }
        obs, rewards, _, _, _ = env.step(actions)
    assert sorted(rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_pettingzoo_parallel_example_runs() -> None:
    from moonriver_env.examples import pettingzoo_parallel

    assert pettingzoo_parallel.parallel_steps(250) > 0


def test_supersuit_frame_stack_needs_the_flat_observation() -> None:
    ss = pytest.importorskip("supersuit")
    from moonriver_env.examples import pettingzoo_parallel

    with pytest.raises(AssertionError, match="only allowed for Box and Discrete"):
        ss.frame_stack_v2(moonriver_v0.env(), 4)
    env = ss.frame_stack_v2(moonriver_v0.env(obs_type="flat"), 4)
    env.reset(seed=0)
    (size,) = moonriver_v0.raw_env(obs_type="flat").observation_space("player_0").shape
    assert env.observe(env.agent_selection).shape == (4 * size,)
    assert pettingzoo_parallel.frame_stack_steps(250) > 0  # a game and a reset, all legal
