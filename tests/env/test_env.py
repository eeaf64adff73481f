"""The PettingZoo AEC environment and the Gymnasium single-agent wrapper (issue: RL interface).

PettingZoo's own conformance tests for every player count and mode, the mask against the
engine's legal set, rewards, errors, and the single-agent wrapper's checks and reward credit.
"""

from __future__ import annotations

import dataclasses
import random
import re
import warnings

import numpy as np
import pytest
from env_loops import play_to_end
from pettingzoo.test import api_test, performance_benchmark, seed_test

from moonriver_env import moonriver_v0
from moonriver_env.moonriver.env import PHASE_NAMES, SCORE_COLUMNS, win_rewards, win_share
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown
from moonriver_env.rules import IllegalActionError
from moonriver_env.single_agent import RandomPolicy, SingleAgentEnv

MODES = [
    pytest.param({"num_players": n, "mode": m}, id=f"{n}p-{m}")
    for n in (2, 3, 4)
    for m in ("base", "legends")
]
# The same with the flat observation (the mask in infos), which PettingZoo checks differently.
FLAT_MODES = [
    pytest.param({"num_players": n, "mode": m, "obs_type": "flat"}, id=f"{n}p-{m}-flat")
    for n in (2, 3, 4)
    for m in ("base", "legends")
]


@pytest.mark.parametrize("kwargs", MODES + FLAT_MODES)
def test_pettingzoo_api_test(kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns for every dict observation
        api_test(moonriver_v0.env(**kwargs), num_cycles=1000)


@pytest.mark.parametrize("kwargs", MODES + FLAT_MODES)
def test_pettingzoo_seed_test(kwargs: dict) -> None:
    seed_test(lambda: moonriver_v0.env(**kwargs), num_cycles=300)


def test_pettingzoo_performance_benchmark_smoke(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import time as time_module

    clock = iter(np.arange(0.0, 1e6, 0.002))  # a fake clock: the benchmark stops quickly
    monkeypatch.setattr(time_module, "time", lambda: float(next(clock)))
    performance_benchmark(moonriver_v0.env(num_players=4))
    out = capsys.readouterr().out
    # PettingZoo prints its counts; with the fake clock every step takes 2 ms, so the loop
    # ran its 5 s budget in steps of the game and reported positive rates.
    rates = {
        kind: float(x) for x, kind in re.findall(r"([0-9.e+-]+) (turns|cycles) per second", out)
    }
    assert set(rates) == {"turns", "cycles"} and min(rates.values()) > 0, out


@pytest.mark.parametrize("kwargs", MODES)
def test_mask_equals_engine_legal_set(kwargs: dict) -> None:
    """Over random games: the acting agent's mask is the engine's legal set, others all zero."""
    env = moonriver_v0.raw_env(**kwargs)
    rng = random.Random(0)
    games = 34  # x 6 modes > 200 games
    for g in range(games):
        env.reset(seed=g)
        while not env.state.is_terminal:
            legal = env.state.legal_action_list()
            for agent in env.agents:
                mask = env.observe(agent)["action_mask"]
                assert mask.dtype == np.int8
                if agent == env.agent_selection:
                    assert np.flatnonzero(mask).tolist() == legal
                else:
                    assert not mask.any()
            env.step(legal[rng.randrange(len(legal))])


def test_observation_spaces_are_cached_objects_and_contain_observations() -> None:
    env = moonriver_v0.raw_env(num_players=3)
    env.reset(seed=1)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.observation_space(agent).contains(env.observe(agent))
    assert env.action_space("player_0").n == env.config.num_actions


def test_raw_env_raises_precise_error_and_env_terminates_with_penalty() -> None:
    raw = moonriver_v0.raw_env(num_players=2)
    raw.reset(seed=3)
    illegal = int(np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)[0])
    before = raw.state.to_json()
    with pytest.raises(IllegalActionError, match=r"not legal in phase SETUP_CLAIM"):
        raw.step(illegal)
    assert raw.state.to_json() == before
    env = moonriver_v0.env(num_players=2)
    env.reset(seed=3)
    offender = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


def test_env_wrappers_are_pettingzoos_and_behave_like_them() -> None:
    """env() uses PettingZoo's three standard wrappers (subclassed for direct attribute reads):
    the order checks, the bounds check and the views of the raw env's attributes still hold."""
    from pettingzoo.utils import wrappers

    env = moonriver_v0.env(num_players=2)
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, wrappers.TerminateIllegalWrapper)
    assert str(env) == "moonriver_v0"
    for name in ("agent_selection", "agents", "rewards", "terminations", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(env, name)
    env.reset(seed=5)
    raw = env.unwrapped
    for layer in (env, env.env, env.env.env):
        for name in ("agent_selection", "agents", "rewards", "_cumulative_rewards", "infos"):
            assert getattr(layer, name) is getattr(raw, name)
    assert env.num_agents == 2 and env.max_num_agents == 2
    n = env.action_space(env.agent_selection).n
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(n)
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(-1)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.int64(legal[0]))  # NumPy integers take PettingZoo's own check
    assert env.agent_selection is raw.agent_selection
    assert raw.state.legal_action_list() is not None


@pytest.mark.parametrize(
    "field, kwargs",
    [
        ("reward", {"reward": "points"}),
        ("obs_type", {"obs_type": "image"}),
        ("render_mode", {"render_mode": "svg"}),
        ("num_players", {"num_players": 5}),
        ("scenario", {"mode": "legends", "scenario": "train_robbery"}),
        ("dense_reward", {"dense_reward": "yes"}),
    ],
)
def test_bad_env_arguments_name_the_field(field: str, kwargs: dict) -> None:
    with pytest.raises(ValueError, match=rf"^{field}:"):
        moonriver_v0.raw_env(**kwargs)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_win_rewards_sum_to_zero_and_rank(n: int) -> None:
    env = moonriver_v0.env(num_players=n)
    totals = play_to_end(env, seed=n)
    assert sum(totals.values()) == pytest.approx(0.0)
    scores = env.unwrapped.state.scores()
    keys = [(s.total, s.largest_territory, s.cows) for s in scores]
    best = max(keys)
    for seat, agent in enumerate(env.possible_agents):
        if keys[seat] == best and keys.count(best) == 1:
            assert totals[agent] == pytest.approx(1.0)


def test_win_rewards_table() -> None:
    def b(total: int, largest: int = 0, cows: int = 0) -> ScoreBreakdown:
        return ScoreBreakdown(0, 0, 0, 0, total, largest, cows)

    assert win_rewards([b(50), b(40)]) == [1.0, -1.0]
    assert win_rewards([b(50, 5), b(50, 6)]) == [-1.0, 1.0]  # tie-break: largest territory
    assert win_rewards([b(50, 5, 3), b(50, 5, 3)]) == [0.0, 0.0]  # shared win
    assert win_rewards([b(10), b(20), b(30)]) == [-1.0, 0.0, 1.0]
    assert win_rewards([b(30), b(30), b(10), b(20)]) == [2 / 3, 2 / 3, -1.0, -1 / 3]


@pytest.mark.parametrize("reward", ["score", "score_diff"])
def test_score_rewards(reward: str) -> None:
    env = moonriver_v0.env(num_players=3, reward=reward)
    totals = play_to_end(env, seed=7)
    finals = [s.total for s in env.unwrapped.state.scores()]
    for seat, agent in enumerate(env.possible_agents):
        expected = finals[seat]
        if reward == "score_diff":
            expected -= max(t for j, t in enumerate(finals) if j != seat)
        assert totals[agent] == pytest.approx(expected)


def test_dense_reward_telescopes_to_final_score() -> None:
    env = moonriver_v0.env(num_players=2, reward="score", dense_reward=0.5)
    totals = play_to_end(env, seed=4)
    finals = [s.total for s in env.unwrapped.state.scores()]
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(1.5 * finals[seat])


@pytest.mark.parametrize("kwargs", [MODES[0], MODES[5], FLAT_MODES[2]])
def test_infos_are_batchable_with_the_breakdown_at_the_end(kwargs: dict) -> None:
    """Every step, every agent: the same keys, every value a number or a numeric array of a
    fixed shape (what TorchRL and Tianshou stack); the phase is a code named by PHASE_NAMES;
    the breakdown and the winners are zero until the end and exact at the end."""
    env = moonriver_v0.env(**kwargs)
    env.reset(seed=2)
    n = env.unwrapped.config.num_players
    shapes = {"phase": (), "score": (7,), "scores": (n, 7), "winners": (n,)}
    if kwargs.get("obs_type") == "flat":
        shapes["action_mask"] = (env.unwrapped.config.num_actions,)
    rng = random.Random(2)
    steps = 0
    for _agent in env.agent_iter():
        for a in env.agents:
            info = env.infos[a]
            assert {k: np.shape(v) for k, v in info.items()} == shapes
            assert all(np.asarray(v).dtype.kind in "iu" for v in info.values())
            assert PHASE_NAMES[info["phase"]] == env.unwrapped.state.phase.name
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert not info["scores"].any() and not info["winners"].any()
        mask = info["action_mask"] if kwargs.get("obs_type") == "flat" else obs["action_mask"]
        env.step(rng.choice(np.flatnonzero(mask).tolist()))
        steps += 1
        if env.unwrapped.state.is_terminal:
            final = dict(env.infos)
    assert steps > 50
    scores = env.unwrapped.state.scores()
    winners = env.unwrapped.state.winners()
    for seat, agent in enumerate(env.possible_agents):
        info = final[agent]
        assert PHASE_NAMES[info["phase"]] == "GAME_OVER"
        assert dict(zip(SCORE_COLUMNS, info["score"].tolist(), strict=True)) == dataclasses.asdict(
            scores[seat]
        )
        assert info["scores"][:, SCORE_COLUMNS.index("total")].tolist() == [s.total for s in scores]
        assert np.flatnonzero(info["winners"]).tolist() == winners
        assert win_share(info["winners"], seat) == (1 / len(winners) if seat in winners else 0)


def test_flat_obs_type_puts_mask_in_info() -> None:
    env = moonriver_v0.raw_env(num_players=3, obs_type="flat")
    env.reset(seed=0)
    agent = env.agent_selection
    obs = env.observe(agent)
    assert isinstance(obs, np.ndarray) and env.observation_space(agent).contains(obs)
    mask = env.infos[agent]["action_mask"]
    assert np.flatnonzero(mask).tolist() == env.state.legal_action_list()
    for other in env.agents:
        if other != agent:
            assert not env.infos[other]["action_mask"].any()


def test_infos_a_caller_keeps_are_not_changed_by_later_steps() -> None:
    env = moonriver_v0.raw_env(num_players=2)
    env.reset(seed=6)
    kept = [env.infos["player_0"]]
    rng = random.Random(6)
    while not env.state.is_terminal:
        legal = env.state.legal_action_list()
        env.step(legal[rng.randrange(len(legal))])
        kept.append(env.infos["player_0"])
    assert kept[0]["phase"] == 0 and not kept[0]["scores"].any()
    assert kept[-1]["scores"].any() and kept[-1]["winners"].any()
    env.reset(seed=7)
    assert kept[-1]["scores"].any() and not env.infos["player_0"]["scores"].any()


# -- single-agent wrapper -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"obs_type": "planes"}, {"num_players": 3, "mode": "legends"}, {"learner_seat": 1}],
    ids=["2p-flat", "2p-planes", "3p-legends", "seat1"],
)
def test_single_agent_env_passes_both_checkers(kwargs: dict) -> None:
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check(SingleAgentEnv(**kwargs), skip_render_check=True)
        sb3_check(SingleAgentEnv(**kwargs))


def test_single_agent_obs_type_dict_is_the_older_name_of_planes() -> None:
    """``obs_type="dict"`` means the PettingZoo dict on ``raw_env``; the single-agent env calls
    its planes-and-features observation ``"planes"`` and reads ``"dict"`` with a warning."""
    with pytest.warns(DeprecationWarning, match='"planes"'):
        old = SingleAgentEnv(obs_type="dict")
    new = SingleAgentEnv(obs_type="planes")
    assert old.obs_type == new.obs_type == "planes"
    assert old.observation_space == new.observation_space
    assert set(old.reset(seed=1)[0]) == {"planes", "features"}
    with pytest.raises(ValueError, match="^obs_type"):
        SingleAgentEnv(obs_type="image")


@pytest.mark.parametrize("seat", [0, 1])
def test_single_agent_rewards_reach_the_learner_seat(seat: int) -> None:
    """The final reward goes to the learner whether the learner or the opponent moved last."""
    for episode in range(6):
        env = SingleAgentEnv(learner_seat=seat, reward="score")
        obs, info = env.reset(seed=episode)
        total = 0.0
        terminated = False
        rng = np.random.default_rng(episode)
        while not terminated:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += reward
        assert env.aec.state.scores()[seat].total == total


def test_single_agent_illegal_action_modes() -> None:
    env = SingleAgentEnv(learner_seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.aec.state.to_json()
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert env.aec.state.to_json() == before
    strict = SingleAgentEnv(learner_seat=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_single_agent_opponents_are_called_for_their_seats() -> None:
    calls: list[str] = []

    def opponent(observation: dict, env) -> int:
        calls.append(env.agent_selection)
        return RandomPolicy(0)(observation)

    env = SingleAgentEnv(opponents=[opponent, opponent], num_players=3, learner_seat=2)
    env.reset(seed=1)
    assert set(calls) <= {"player_0", "player_1"} and calls
    assert env.aec.agent_selection == "player_2"


def test_single_agent_trains_with_maskable_ppo_without_glue() -> None:
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128  # it stepped the env, its own loop, no glue code
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    action, _ = model.predict(obs, action_masks=mask, deterministic=True)
    assert mask[int(action)], f"the trained policy chose {int(action)}, illegal under the mask"


@pytest.mark.parametrize("n, size", [(2, 3282), (3, 2604), (4, 3376)])
def test_environment_card_sizes(n: int, size: int) -> None:
    """The observation sizes the environment card documents."""
    env = moonriver_v0.raw_env(num_players=n)
    assert env.observation_space("player_0")["observation"].shape == (size,)
    assert str(size) in moonriver_v0.__doc__


@pytest.mark.parametrize("kwargs", [MODES[0], MODES[5]])
def test_pettingzoo_render_test(kwargs: dict, capsys: pytest.CaptureFixture[str]) -> None:
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: moonriver_v0.env(render_mode=render_mode, **kwargs))
    assert "seat 0" in capsys.readouterr().out  # "human" headless prints the text view


def test_rgb_frames_change_as_the_game_advances() -> None:
    env = moonriver_v0.raw_env(num_players=4, render_mode="rgb_array")
    env.reset(seed=8)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 20  # not blank
    rng = random.Random(8)
    for _ in range(30):
        legal = env.state.legal_action_list()
        env.step(legal[rng.randrange(len(legal))])
    assert not np.array_equal(first, env.render())
