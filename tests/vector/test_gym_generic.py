"""The Gymnasium VectorEnv written once for every game with a batched form, and its SB3
adapter (moonriver_env/vector/gym_env.py, moonriver_env/vector/sb3.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from moonriver_env.vector.gym_env import GameVectorEnv, make_vector_env

GAMES = ("2p_base", "kingdomino_2p_base")


def first_legal(env: GameVectorEnv) -> np.ndarray:
    return np.asarray(env.vg.legal_ids[:, 0], dtype=np.int64)


def random_legal(env: GameVectorEnv, rng: np.random.Generator) -> np.ndarray:
    pick = (rng.random(env.num_envs) * env.vg.num_legal).astype(np.int64)
    return np.asarray(env.vg.legal_ids[np.arange(env.num_envs), pick], dtype=np.int64)


class SpyOpponent:
    """Records the seat it is asked to play and the learner's seat of each game it plays (at
    the moment of the call), and plays each game's first legal id."""

    def __init__(self, env: GameVectorEnv) -> None:
        self.env = env
        self.calls: list[tuple[np.ndarray, np.ndarray]] = []

    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        acting = np.asarray(vg.current_seat)[rows].copy()
        self.calls.append((acting, self.env._seats[rows].copy()))
        return np.asarray(vg.legal_ids[rows, 0], dtype=np.int64)


@pytest.mark.parametrize("game", GAMES)
def test_spaces_masks_and_the_learners_turn(game: str) -> None:
    env = make_vector_env(game, num_envs=5, seed=3)
    obs, infos = env.reset(seed=3)
    assert obs.dtype == np.float32
    assert obs.shape == (5, env.single_observation_space.shape[0])
    assert env.single_action_space.n == env.vg.num_actions
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        assert env.observation_space.contains(obs)
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (5, env.vg.num_actions)
        assert (infos["action_mask"] == masks).all()
        for i in range(5):  # the mask is the legal ids
            legal = np.sort(env.vg.legal_ids[i, : env.vg.num_legal[i]])
            assert (np.flatnonzero(masks[i]) == legal).all()
        assert (env.vg.current_seat == infos["learner_seat"]).all()
        obs, rewards, terminated, truncated, infos = env.step(random_legal(env, rng))
        assert rewards.shape == (5,) and rewards.dtype == np.float64
        assert not truncated.any()
        assert (rewards[~terminated] == 0.0).all()  # win rewards: only at the end
        assert set(np.unique(rewards[terminated])) <= {-1.0, 0.0, 1.0}
        ended += int(terminated.sum())
    assert ended >= 3


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_the_same_seed_plays_the_same_games(game: str, opponents: str) -> None:
    def play(seed: int) -> list[np.ndarray]:
        env = make_vector_env(game, num_envs=3, opponents=opponents, seed=seed)
        obs, infos = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        out = [obs, infos["learner_seat"]]
        for _ in range(30):
            obs, rewards, terminated, _, infos = env.step(random_legal(env, rng))
            out += [obs, rewards, terminated, infos["learner_seat"]]
        return out

    a, b, c = play(7), play(7), play(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.parametrize("game", GAMES)
def test_opponents_act_only_on_their_seats(game: str) -> None:
    env = make_vector_env(game, num_envs=4, learner_seat="rotate", seed=0)
    spy = SpyOpponent(env)
    env._agent = spy
    _, infos = env.reset(seed=0)
    assert infos["learner_seat"].tolist() == [0, 1, 0, 1]  # rotating: offset by the game
    episodes = np.zeros(4, dtype=int)
    for _ in range(150):
        assert (env.vg.current_seat == infos["learner_seat"]).all()
        _, _, terminated, _, infos = env.step(first_legal(env))
        episodes += terminated
        # the next episode's seat rotates
        assert (infos["learner_seat"] == (episodes + np.arange(4)) % 2).all()
    assert spy.calls
    for acting, learner in spy.calls:
        assert (acting != learner).all()


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_is_refused_and_changes_nothing(game: str) -> None:
    env = make_vector_env(game, num_envs=3, seed=5)
    twin = make_vector_env(game, num_envs=3, seed=5)
    env.reset(seed=5)
    twin.reset(seed=5)
    actions = first_legal(env)
    bad = actions.copy()
    bad[1] = int(np.flatnonzero(~env.action_masks()[1])[0])
    before = env.vg.observe_rows()
    legal = env.vg.legal_ids.copy()
    with pytest.raises(ValueError, match=rf"game 1\b.*{bad[1]}|{bad[1]}.*game 1\b"):
        env.step(bad)
    with pytest.raises(ValueError, match="actions"):
        env.step(actions[:2])
    assert (env.vg.observe_rows() == before).all()
    assert (env.vg.legal_ids == legal).all()
    got = env.step(actions)
    want = twin.step(actions)
    for x, y in zip(got[:4], want[:4], strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("game", GAMES)
def test_a_batched_policy_plays_the_opponents_from_their_own_views(game: str) -> None:
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    env: GameVectorEnv

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        rows = np.flatnonzero(env.vg.current_seat != env._seats)
        assert len(rows) == len(observations) == len(masks)
        for k, i in enumerate(rows.tolist()):
            seat = int(env.vg.current_seat[i])
            assert np.array_equal(observations[k], env.vg.observation_of(i, seat))
            assert (
                np.flatnonzero(masks[k]) == np.sort(env.vg.legal_ids[i, : env.vg.num_legal[i]])
            ).all()
        seen.append((observations, masks))
        return np.array([np.flatnonzero(m)[-1] for m in masks])

    env = make_vector_env(game, num_envs=3, opponents=policy, seed=0)
    env.reset(seed=0)
    for _ in range(20):
        env.step(first_legal(env))
    assert seen
    with pytest.raises(ValueError, match="opponents: the policy gave actions of shape"):
        make_vector_env(
            game, num_envs=3, opponents=lambda o, m: np.zeros((len(o), 2)), seed=0
        ).reset(seed=0)


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError, match="opponents"):
        make_vector_env("2p_base", num_envs=2, opponents=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="learner_seat"):
        make_vector_env("2p_base", num_envs=2, learner_seat=2)
    with pytest.raises(TypeError, match="observe"):
        make_vector_env("2p_base", num_envs=2, observe=False)
    with pytest.raises(RuntimeError, match="reset"):
        make_vector_env("2p_base", num_envs=2).step([0, 0])


@pytest.mark.parametrize("game", GAMES)
def test_maskable_ppo_learns_through_the_sb3_adapter(game: str) -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from moonriver_env.vector.sb3 import make_sb3_vec_env, policy_opponent

    venv = make_sb3_vec_env(game, num_envs=8, seed=0)
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (8, venv.observation_space.shape[0])
    masks = get_action_masks(venv)
    assert masks.shape == (8, venv.action_space.n)
    assert (masks == venv.env.action_masks()).all()
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    model.learn(256)
    assert model.num_timesteps >= 256
    # against a snapshot of itself: the model plays the opponents' seats
    selfplay = make_sb3_vec_env(game, num_envs=8, opponents=policy_opponent(model), seed=1)
    model.set_env(selfplay)
    model.learn(64, reset_num_timesteps=False)
    # episodes are reported as SB3's Monitor does
    venv.seed(0)
    venv.reset()
    done_infos: list[dict[str, Any]] = []
    for _ in range(200):
        acts = [int(np.flatnonzero(m)[0]) for m in get_action_masks(venv)]
        _, rewards, dones, infos = venv.step(np.array(acts))
        assert rewards.dtype == np.float32
        done_infos += [infos[i] for i in np.flatnonzero(dones)]
        if done_infos:
            break
    assert done_infos and {"r", "l", "t"} <= set(done_infos[0]["episode"])


def test_the_batched_heuristic_decides_as_the_agent_on_states() -> None:
    from moonriver_env.opponents import make_opponent

    env = make_vector_env("2p_base", num_envs=8, seed=2)
    env.reset(seed=2)
    batched = make_opponent("heuristic", seed=4, game="moonriver")
    one_by_one = make_opponent("heuristic", seed=4, game="moonriver")
    rng = np.random.default_rng(3)
    rows = np.arange(8)
    compared = 0
    for _ in range(40):
        got = batched.choose_batch(env.vg, rows)
        want = [one_by_one.choose(env.vg.get_state(i)) for i in rows.tolist()]
        assert got.tolist() == want
        compared += int((env.vg.num_legal > 1).sum())
        env.step(random_legal(env, rng))
    assert compared > 100


def _no_state_decisions(state: Any) -> int:
    raise AssertionError("a batched agent decided on a state copy")


@pytest.mark.parametrize("spec", ["2p_base", "3p_base", "4p_base", "2p_legends", "4p_legends"])
def test_the_batched_moonriver_greedy_decides_as_the_agent_on_states(spec: str) -> None:
    """Moon River's ``greedy`` on the core's keys (``NativeState.greedy_keys`` of
    ``vg.native_state(i)``) makes the decisions of ``choose`` on a state copy, every segment's
    tie-break included (ties drawn in the same order from the same generator)."""
    from moonriver_env.opponents import make_opponent

    env = make_vector_env(spec, num_envs=8, seed=5)
    env.reset(seed=5)
    batched = make_opponent("greedy", seed=4, game="moonriver")
    batched.choose = _no_state_decisions  # the core's keys, never the fallback on states
    one_by_one = make_opponent("greedy", seed=4, game="moonriver")
    layout = env.vg.config.layout
    rng = np.random.default_rng(3)
    rows = np.arange(8)
    segments: set[str] = set()
    for _ in range(250):
        got = batched.choose_batch(env.vg, rows)
        want = [one_by_one.choose(env.vg.get_state(i)) for i in rows.tolist()]
        assert got.tolist() == want
        for i in rows.tolist():
            if env.vg.num_legal[i] > 1:
                segments.add(layout.located[int(got[i])][0])
        env.step(random_legal(env, rng))
    assert {"claim", "place", "cowboy_move"} <= segments and len(segments) >= 6, segments


@pytest.mark.parametrize(
    "spec",
    ["kingdomino_2p_base", "kingdomino_3p_base", "kingdomino_4p_harmony+middle_kingdom+must_place",
     "kingdomino_2p_mighty_duel", "kingdomino_4p_dynasty"],
)  # fmt: skip
def test_the_batched_kingdomino_agents_decide_as_on_states(spec: str) -> None:
    """Kingdomino's ``greedy`` and ``heuristic`` on the core's values (``vg.best_moves``) make
    the decisions of ``choose`` on a state copy, ties drawn in the same order from the same
    generator; the random draft, the study's filters and the Python engine decide on states."""
    from moonriver_env.opponents import make_opponent

    env = make_vector_env(spec, num_envs=8, seed=2)
    env.reset(seed=2)
    assert env.vg.best_moves(0, "heuristic") is not None  # the core's, not the fallback
    agents = ["greedy", "heuristic", "greedy:draft=random", "greedy:study=true"]
    batched = [make_opponent(a, seed=4, game="kingdomino") for a in agents]
    for agent in batched[:2]:
        agent.choose = _no_state_decisions  # the core's values, never the fallback on states
    one_by_one = [make_opponent(a, seed=4, game="kingdomino") for a in agents]
    rng = np.random.default_rng(3)
    rows = np.arange(8)
    compared = 0
    ties = dict.fromkeys(("greedy", "heuristic"), 0)
    for _ in range(120):
        for b, o in zip(batched, one_by_one, strict=True):
            got = b.choose_batch(env.vg, rows)
            want = [o.choose(env.vg.get_state(i)) for i in rows.tolist()]
            assert got.tolist() == want
        for i in rows.tolist():
            if env.vg.num_legal[i] > 1:
                compared += 1
                for agent in ties:
                    ties[agent] += len(env.vg.best_moves(i, agent)) > 1
        env.step(random_legal(env, rng))
    assert compared > 400 and min(ties.values()) > 30, ties  # the tie-break's order too
    with pytest.raises(ValueError, match="agent: expected 'greedy' or 'heuristic'"):
        env.vg.best_moves(0, "mc")
    engine = make_vector_env(spec, num_envs=2, seed=2, backend="python")
    assert engine.vg.best_moves(0, "greedy") is None
    for name in ("greedy", "heuristic"):
        agent = make_opponent(name, seed=4, game="kingdomino")
        assert agent.choose_batch(engine.vg, np.arange(2)).shape == (2,)


def test_heuristic_opponents_play_the_same_on_the_core_and_the_engine() -> None:
    def play(backend: str) -> list[np.ndarray]:
        env = make_vector_env(
            "2p_base", num_envs=3, opponents="heuristic", learner_seat=0, seed=1, backend=backend
        )
        obs, _ = env.reset(seed=1)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(12):
            assert (env.vg.current_seat == 0).all()
            obs, rewards, terminated, _, _ = env.step(random_legal(env, rng))
            out += [obs, rewards, terminated]
        return out

    core, engine = play("native"), play("python")  # the engine: choose on GameState copies
    assert all(np.array_equal(x, y) for x, y in zip(core, engine, strict=True))


def test_gymnasium_make_vec_builds_it_for_every_game_with_a_batched_form() -> None:
    import gymnasium

    import moonriver_env

    assert set(moonriver_env.GYMNASIUM_VECTOR_ENTRY_POINTS) == {"MoonRiver-v0", "Kingdomino-v0"}
    env = gymnasium.make_vec("Kingdomino-v0", num_envs=3, num_players=3, opponents="greedy")
    assert isinstance(env, GameVectorEnv) and env.vg.num_players == 3
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3, env.single_observation_space.shape[0])
    env = gymnasium.make_vec("MoonRiver-v0", num_envs=2, learner_seat=1, seed=0)
    _, infos = env.reset(seed=0)
    assert isinstance(env, GameVectorEnv) and (infos["learner_seat"] == 1).all()
