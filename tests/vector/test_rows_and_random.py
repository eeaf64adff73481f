"""The batched games' ``observe_rows`` (every game's observation for its acting seat, written
when asked) and Moon River's ``play_random`` (random opponents played inside the batched game),
on both engines, and the Gymnasium env that uses them."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pytest
import torch

from moonriver_env.family.batch import MAX_ROW_THREADS, random_stream
from moonriver_env.games import parse_game
from moonriver_env.vector.dispatch import vector_game
from moonriver_env.vector.gym_env import make_vector_env

GAMES = ["2p_base", "4p_legends", "kingdomino_2p_base", "kingdomino_4p_harmony+middle_kingdom"]
ENGINES = ["native", "python"]


def game(spec: str, n: int, observe: Any, backend: str = "native", seed: int = 3) -> Any:
    return vector_game(parse_game(spec), n, seed=seed, observe=observe, auto_reset=True,
                       backend=backend)


def random_moves(vg: Any, rng: np.random.Generator) -> np.ndarray:
    pick = (rng.random(vg.num_games) * vg.num_legal).astype(np.int64)
    return vg.legal_ids[np.arange(vg.num_games), pick].astype(np.int64)


@pytest.mark.parametrize("spec", GAMES)
@pytest.mark.parametrize("backend", ENGINES)
def test_the_rows_are_the_observations_a_dense_batch_writes(spec: str, backend: str) -> None:
    n = 7 if backend == "native" else 3
    dense = game(spec, n, True, backend)
    quiet = game(spec, n, False, backend)
    sparse = game(spec, n, "sparse", backend)
    assert quiet.observation is None
    rng = np.random.default_rng(0)
    out = np.full((n, dense.observation_size), np.nan, dtype=np.float32)
    for step in range(60 if backend == "native" else 25):
        threads = 1 + step % 4
        assert quiet.observe_rows(out, threads=threads) is out
        assert np.array_equal(out, dense.observation)
        assert np.array_equal(sparse.observe_rows(threads=threads), dense.observation)
        assert np.array_equal(dense.observe_rows(), dense.observation)
        actions = random_moves(dense, rng)
        for vg in (dense, quiet, sparse):
            vg.step(actions)
    if backend == "native":  # the sparse rows are not changed by the dense ones written
        twin = game(spec, n, "sparse", backend)
        rng = np.random.default_rng(0)
        for _ in range(60):
            twin.step(random_moves(twin, rng))
        assert np.array_equal(twin.obs_idx, sparse.obs_idx)
        assert np.array_equal(twin.obs_val, sparse.obs_val)


@pytest.mark.parametrize("spec", ["2p_base", "3p_legends", "4p_base"])
def test_the_rows_follow_whole_games_to_their_end_and_a_set_state(spec: str) -> None:
    # Moon River's rows without a dense batch come from its ranch lists: every phase of
    # whole games (skulls, partners, the finished game's seat 0), into arrays that held other
    # rows, and a game whose state was set (its lists rebuilt, not read stale).
    n = 5
    dense = vector_game(parse_game(spec), n, seed=11, observe=True, auto_reset=False)
    quiet = vector_game(parse_game(spec), n, seed=11, observe=False, auto_reset=False)
    rng = np.random.default_rng(2)
    ring = [np.full((n, dense.observation_size), v, np.float32) for v in (np.nan, 7.0)]
    step = 0
    while True:
        out = ring[step % 2]
        quiet.observe_rows(out, threads=1 + step % 2)
        assert np.array_equal(out, dense.observation), step
        if dense.terminated.all():
            break
        active = ~dense.terminated
        actions = np.where(active, random_moves(dense, rng), 0)
        dense.step(actions, active)
        quiet.step(actions, active)
        step += 1
    assert step > 100  # whole games were played
    other = vector_game(parse_game(spec), n, seed=12, observe=True, auto_reset=False)
    for _ in range(40):
        other.step(random_moves(other, rng))
    for i in range(n):
        quiet.set_state(i, other.get_state(i))
    assert np.array_equal(quiet.observe_rows(), other.observation)


@pytest.mark.parametrize("observe", [False, "sparse"])
def test_the_rows_after_several_moves_and_new_games(observe: Any) -> None:
    # As the Gymnasium env asks: after several moves (its own and play_random's), across games
    # that ended and began again in between, on a batch with and without the sparse rows.
    n = 4
    dense = vector_game(parse_game("2p_base"), n, seed=5, observe=True, auto_reset=True)
    quiet = vector_game(parse_game("2p_base"), n, seed=5, observe=observe, auto_reset=True)
    rng = np.random.default_rng(3)
    out = np.full((n, dense.observation_size), np.nan, np.float32)
    ended = 0
    for step in range(700):
        actions = random_moves(dense, rng)
        dense.step(actions)
        quiet.step(actions)
        ended += int(dense.terminated.sum())
        if step % 3 == 2 or rng.random() < 0.2:
            quiet.observe_rows(out, threads=2)
            assert np.array_equal(out, dense.observation), step
    assert ended >= n  # games ended and new ones began between calls


@pytest.mark.parametrize("spec", ["2p_base", "kingdomino_2p_base"])
def test_a_wrong_array_or_thread_count_is_refused(spec: str) -> None:
    vg = game(spec, 3, False)
    size = vg.observation_size
    for out, match in (
        (np.zeros((3, size), np.float64), "float32"),
        (np.zeros((2, size), np.float32), r"\(3, "),
        (np.zeros(3 * size, np.float32), r"\(3, "),
        (np.zeros((3, 2 * size), np.float32)[:, ::2], "C-contiguous"),
        ([[0.0] * size] * 3, "NumPy array"),
    ):
        with pytest.raises((ValueError, TypeError), match=match):
            vg.observe_rows(out)
    frozen = np.zeros((3, size), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        vg.observe_rows(frozen)
    for threads in (0, MAX_ROW_THREADS + 1, -1):
        with pytest.raises(ValueError, match="threads"):
            vg.observe_rows(threads=threads)


@pytest.mark.parametrize("spec", ["2p_base", "3p_legends", "4p_base"])
def test_random_opponents_play_the_same_on_both_engines(spec: str) -> None:
    a, b = game(spec, 6, "sparse", "native", 7), game(spec, 6, "sparse", "python", 7)
    n = a.num_players
    rng = np.random.default_rng(1)
    seats = rng.integers(n, size=6)
    ended_games = 0
    for t in range(200):
        got_a, ended_a = a.play_random(seats, 1000 + t)
        got_b, ended_b = b.play_random(seats, 1000 + t)
        assert np.array_equal(got_a, got_b) and np.array_equal(ended_a, ended_b)
        for name in ("legal_ids", "num_legal", "current_seat", "rewards", "terminated",
                     "scores", "action_mask", "obs_idx", "obs_val"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), (t, name)
        waiting = a.current_seat == seats
        assert (waiting | a.terminated).all()  # stopped at the seat, or at the game's end
        ended_games += int(ended_a.sum())
        seats = np.where(ended_a, rng.integers(n, size=6), seats)
        turn = a.current_seat == seats
        moves = random_moves(a, rng)
        a.step(moves, turn)
        b.step(moves, turn)
        if ended_games >= 2:
            break
    assert ended_games >= 2


def test_random_opponents_are_the_moves_their_stream_draws() -> None:
    """play_random plays, game by game, the legal id its stream draws, as step would."""
    vg, twin = game("3p_base", 5, True, seed=11), game("3p_base", 5, True, seed=11)
    rng = np.random.default_rng(2)
    games_ended = 0
    for t in range(40):
        seats = rng.integers(3, size=5)
        gained, ended = vg.play_random(seats, 77 + t)
        want = np.zeros(5)
        stopped = np.zeros(5, bool)
        for i in range(5):
            draws = random_stream(77 + t, i)
            next(draws)
            only = np.arange(5) == i
            while twin.current_seat[i] != seats[i]:
                k = draws.send(int(twin.num_legal[i]))
                moves = np.zeros(5, np.int64)
                moves[i] = twin.legal_ids[i, k]
                twin.step(moves, only)
                want[i] += twin.rewards[i, seats[i]]
                if twin.terminated[i]:
                    stopped[i] = True
                    break
        assert np.array_equal(gained, want) and np.array_equal(ended, stopped)
        games_ended += int(ended.sum())
        assert np.array_equal(vg.observation, twin.observation)
        assert np.array_equal(vg.legal_ids, twin.legal_ids)
        turn = vg.current_seat == seats
        moves = random_moves(vg, rng)
        vg.step(moves, turn)
        twin.step(moves, turn)
    assert games_ended > 0  # the stop at a game's end was played too


OUTPUTS = ("legal_ids", "num_legal", "current_seat", "rewards", "terminated", "scores",
           "action_mask", "observation")


def test_bad_seats_or_seed_change_nothing() -> None:
    vg = game("2p_base", 4, True)
    vg.step(random_moves(vg, np.random.default_rng(0)))
    batch = vg._backend._batch
    before = [batch.get_record(i) for i in range(4)]
    arrays = {name: getattr(vg, name).copy() for name in OUTPUTS}
    for seats in ([0, 1, 2, 0], [0, 0, 0], np.array([0.5, 0, 0, 0]), [[0, 1, 0, 1]]):
        with pytest.raises(ValueError, match="seats"):
            vg.play_random(seats, 1)
    for seed in (-1, 2**64, None, 1.5):
        with pytest.raises((ValueError, TypeError), match="seed"):
            vg.play_random([0, 0, 0, 0], seed)
    for bad in (-1, 2**64 + 5):  # the core itself refuses a seed no uint64 holds
        with pytest.raises(OverflowError):
            batch.play_random(np.zeros(4, np.int32), bad, np.zeros(4), np.zeros(4, np.bool_))
    assert [batch.get_record(i) for i in range(4)] == before
    for name, was in arrays.items():
        assert np.array_equal(getattr(vg, name), was), name


class StreamOpponents:
    """An agent (``choose_batch``) that plays each opponent's move as ``play_random`` draws
    it: game ``i``'s moves of an env step from the stream of the step's first ``play_random``
    call, and after the game ended on an opponent's move, from the next call's."""

    def __init__(self) -> None:
        self.seeds: list[int] = []

    def begin(self, seeds: list[int], n: int) -> None:
        self.seeds, self.call, self.moved = seeds, [0] * n, [False] * n
        self.streams = [self.stream(0, i) for i in range(n)]

    def stream(self, call: int, i: int) -> Any:
        draws = random_stream(self.seeds[call], i)
        next(draws)
        return draws

    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        actions = np.zeros(len(rows), np.int64)
        for k, i in enumerate(rows.tolist()):
            if vg.terminated[i] and self.moved[i]:  # its game ended on this agent's move
                self.call[i] += 1
                self.streams[i] = self.stream(self.call[i], i)
            actions[k] = vg.legal_ids[i, self.streams[i].send(int(vg.num_legal[i]))]
            self.moved[i] = True
        return actions


@pytest.mark.parametrize(
    ("spec", "seat", "kwargs"),
    [
        ("2p_base", "rotate", {"dense_reward": 0.1, "reward": "score_diff"}),
        ("3p_legends", "rotate", {"dense_reward": 0.05}),
        ("4p_base", 2, {"reward": "score"}),
    ],
)
def test_random_opponents_in_the_core_credit_as_the_loop_of_steps(
    spec: str, seat: Any, kwargs: dict[str, Any]
) -> None:
    """The env's random opponents played by ``play_random`` give the learner the rewards, the
    carried rewards, the scores and the episodes that the env's loop of single steps gives
    with the same moves (an agent drawing from the same streams)."""
    core = make_vector_env(spec, num_envs=6, seed=4, learner_seat=seat, **kwargs)
    loop = make_vector_env(spec, num_envs=6, seed=4, learner_seat=seat, **kwargs)
    seeds: list[int] = []
    play = core.vg.play_random

    def recorded(seats: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
        seeds.append(seed)
        return play(seats, seed)

    core.vg.play_random = recorded
    agent = StreamOpponents()
    loop._agent = agent  # the env's loop of steps, with an agent deciding
    first, _ = core.reset(seed=4)
    agent.begin(list(seeds), 6)
    assert np.array_equal(first, loop.reset(seed=4)[0])
    rng = np.random.default_rng(0)
    episodes = ended_on_opponents = 0
    for _ in range(300):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in core.action_masks()])
        seeds.clear()
        got = core.step(actions)
        agent.begin(list(seeds), 6)
        want = loop.step(actions)
        for x, y in zip(got[:4], want[:4], strict=True):
            assert np.array_equal(x, y)
        assert np.array_equal(got[4]["scores"], want[4]["scores"])
        assert np.array_equal(core._carry, loop._carry)
        episodes += int(got[2].sum())
        ended_on_opponents += len(seeds) > 1  # a second call: a game ended on their moves
    assert episodes >= 3 and ended_on_opponents >= 1


@pytest.mark.parametrize("spec", ["2p_base", "3p_legends"])
def test_the_vector_env_plays_the_same_on_both_engines(spec: str) -> None:
    envs = [make_vector_env(spec, num_envs=3, seed=4, backend=b, threads=1 + k)
            for k, b in enumerate(ENGINES)]
    assert envs[0].vg.observation is None  # random opponents: the rows written once a step
    outs = [env.reset(seed=4) for env in envs]
    assert np.array_equal(outs[0][0], outs[1][0])
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(120):
        masks = envs[0].action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        steps = [env.step(actions) for env in envs]
        for x, y in zip(steps[0][:4], steps[1][:4], strict=True):
            assert np.array_equal(x, y)
        assert np.array_equal(steps[0][4]["scores"], steps[1][4]["scores"])
        episodes += int(steps[0][2].sum())
    assert episodes > 0


def test_the_sb3_masks_follow_the_env_stepped_around_the_adapter() -> None:
    from moonriver_env.vector.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("2p_base", num_envs=4, seed=2)
    venv.reset()
    for direct in (False, True, False, True):
        masks = venv.env.action_masks()
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        if direct:  # the Gymnasium env under the adapter, stepped by another caller
            venv.env.step(actions)
        else:
            venv.step(actions)
        rows = np.stack(venv.env_method("action_masks"))
        assert np.array_equal(rows, venv.env.action_masks())
        assert np.array_equal(venv.action_masks(), rows)


def test_an_observation_the_caller_holds_is_never_rewritten() -> None:
    """The env reuses an observation array only once nothing references it: arrays, views and
    tensors kept by the caller stay as they were handed out; arrays let go are reused."""
    env = make_vector_env("2p_base", num_envs=3, seed=6)
    obs, _ = env.reset(seed=6)
    held: list[Any] = [obs]
    copies = [obs.copy()]
    earlier: list[Any] = []  # weak references to the arrays handed out
    reused = 0
    for t in range(30):
        actions = np.array([np.flatnonzero(m)[0] for m in env.action_masks()])
        obs = env.step(actions)[0]
        base = obs.base  # the env's own array under the view it hands out
        reused += any(ref() is base for ref in earlier)
        earlier.append(weakref.ref(base))
        del base
        if t % 4 == 0:  # keep the array, a view of it, a tensor of it or nothing
            held.append(obs)
            copies.append(obs.copy())
        elif t % 4 == 1:
            held.append(obs[1])
            copies.append(obs[1].copy())
        elif t % 4 == 2:
            held.append(torch.from_numpy(obs))
            copies.append(obs.copy())
        elif t % 8 == 3:  # an array let go after its flags and shape were changed
            obs.flags.writeable = False
            obs.shape = (-1,)
        del obs
    for kept, copy in zip(held, copies, strict=True):
        assert np.array_equal(np.asarray(kept), copy)
    assert reused > 0  # the ones let go were written again
