"""The environments learners see, driven with the family's third game (Mini Draft,
:mod:`minidraft`, registered by this folder's conftest and known to no module of the package)
by its registered name alone: the single-agent Gymnasium env (``SingleAgentEnv(game=...)``),
the RLlib env (``env_config["game"]``, on the Python engine: the game has no core) and
``python -m moonriver_env.play_random --game ...``. Rewards are checked against the game's own
points, so a seat credited wrongly or a game the env did not play fails."""

from __future__ import annotations

import warnings
from collections import defaultdict

import minidraft
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from moonriver_env import play_random
from moonriver_env.seat_rewards import rank_rewards
from moonriver_env.single_agent import SingleAgentEnv

GAME_NAME = "minidraft"


def _seat(agent: str) -> int:
    return int(agent.partition("@")[0].removeprefix("player_"))


def test_the_single_agent_env_plays_the_game_by_its_name() -> None:
    env = SingleAgentEnv(game=GAME_NAME, opponents="random", learner_seat="random")
    assert isinstance(env.aec, minidraft.raw_env)
    assert env.game_entry is not None and env.game_entry.title == "Mini Draft"
    assert env.action_space.n == 18 and env.observation_space.shape == (84,)
    rng = np.random.default_rng(0)
    seats = set()
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            assert env.observation_space.contains(obs)
            legal = np.flatnonzero(env.action_masks())
            assert env.aec.state.current_seat == info["learner_seat"]
            assert legal.tolist() == env.aec.state.legal_action_list()
            obs, reward, done, truncated, info = env.step(int(rng.choice(legal)))
            assert not truncated
            total += reward
        assert env.aec.state.is_terminal
        points = env.aec.state.points()
        assert total == rank_rewards(points)[info["learner_seat"]]
        seats.add(info["learner_seat"])
    assert seats == {0, 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's notes on the observation's bounds
        check_env(SingleAgentEnv(game=GAME_NAME), skip_render_check=True)


def test_the_single_agent_env_refuses_what_the_game_lacks_by_name() -> None:
    with pytest.raises(ValueError, match="^obs_type: Mini Draft's observation has no planes"):
        SingleAgentEnv(game=GAME_NAME, obs_type="planes")
    with pytest.raises(ValueError, match="^spec: unknown Mini Draft agent 'heuristic'"):
        SingleAgentEnv(game=GAME_NAME, opponents="heuristic")
    with pytest.raises(ValueError, match="^game: expected one of"):
        SingleAgentEnv(game="chess")

    class OwnEnv(SingleAgentEnv):
        aec_class = minidraft.raw_env

    assert isinstance(OwnEnv(game=GAME_NAME).aec, minidraft.raw_env)
    with pytest.raises(ValueError, match="^game: OwnEnv plays its own environment"):
        OwnEnv(game="kingdomino")


def test_the_rllib_env_plays_the_game_by_its_name() -> None:
    pytest.importorskip("ray")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from moonriver_env.rllib import LEARNER, GameMultiAgentEnv, rl_module_spec

    config = {"game": GAME_NAME, "opponents": {LEARNER: 1.0, "random": 1.0}, "seed": 0}
    env = GameMultiAgentEnv(config)
    assert env.backend == "python" and isinstance(env.aec, minidraft.raw_env)
    check_multiagent_environments(env)  # RLlib's own pre-check
    rng = np.random.default_rng(1)
    embedded = 0
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        embedded += len(env.agents) == 1
        paid: dict[str, float] = defaultdict(float)
        while True:
            ((agent, o),) = obs.items()
            assert env.observation_spaces[agent].contains(o)
            legal = np.flatnonzero(o["action_mask"])
            assert _seat(agent) == env.state.current_seat
            assert legal.tolist() == env.state.legal_action_list()
            obs, rewards, terms, _, infos = env.step({agent: int(rng.choice(legal))})
            for a, r in rewards.items():
                paid[a] += r
            if terms["__all__"]:
                break
        points, winners = env.state.points(), env.state.winners()
        for a in env.agents:
            seat = _seat(a)
            assert paid[a] == rank_rewards(points)[seat]
            assert infos[a]["score"] == points[seat]
            assert infos[a]["win_share"] == (1 / len(winners) if seat in winners else 0.0)
    assert 0 < embedded < 8  # both lineups: self-play and an embedded random opponent
    module = rl_module_spec(env, (16,)).rl_module_specs[LEARNER].build()
    assert module is not None
    with pytest.raises(ValueError, match="^backend: Mini Draft has no native core"):
        GameMultiAgentEnv({"game": GAME_NAME, "backend": "native"})
    with pytest.raises(ValueError, match="^spec: unknown Mini Draft agent 'greedy'"):
        GameMultiAgentEnv({"game": GAME_NAME, "opponents": {"greedy": 1.0}})


def test_play_random_plays_the_game_by_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert play_random.main(["--game", GAME_NAME, "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    state = minidraft.new_game(minidraft.MiniDraftConfig(), seed=3)
    rng = np.random.default_rng(4)  # the command's random player: seed + 1
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[int(rng.integers(len(legal)))])
    points = state.points()
    assert out[0] == "Mini Draft: 2 players, base, seed 3 (random player rng seed 4)"
    assert "Final scores after 18 decisions:" in out
    assert [f"  seat {s}: {p}" for s, p in enumerate(points)] == out[-3:-1]
    winners = ", ".join(f"seat {s}" for s in state.winners())
    assert out[-1].endswith(f": {winners}")
