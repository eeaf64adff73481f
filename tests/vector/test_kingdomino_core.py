"""Kingdomino on the native core (moonriver_env/_core/kingdomino.c): every decision of random
and biased games equals the env's (legal ids, mask, seat, observation for every seat,
rewards, points), in 2/3/4 players and the variants; bad input is refused with a named error
and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from moonriver_env import kingdomino_v0
from moonriver_env.kingdomino import KingdominoConfig, new_game
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.rules.core import IllegalActionError, StateFormatError
from moonriver_env.kingdomino.vector.game import KingdominoVectorGame
from moonriver_env.vector import NATIVE

pytestmark = pytest.mark.skipif(not NATIVE, reason="the native core is not built")

CONFIGS = [
    (2, ()),
    (3, ()),
    (4, ()),
    (2, ("must_place",)),
    (3, ("harmony",)),
    (4, ("middle_kingdom",)),
    (4, ("must_place", "harmony", "middle_kingdom")),  # the study's combination
    (3, ("harmony", "middle_kingdom")),
    (2, ("mighty_duel",)),
    (2, ("must_place", "harmony", "middle_kingdom", "mighty_duel")),
    (3, ("dynasty",)),
    (2, ("harmony", "middle_kingdom", "dynasty")),
]


def _policy(kind: str, rng: np.random.Generator) -> Callable[[list[int]], int]:
    """random: uniform; discard_last: the highest id half the time (discards and late picks),
    so kingdoms with holes, discards and the frame's edge all come up."""

    def choose(legal: list[int]) -> int:
        if kind == "discard_last" and rng.random() < 0.5:
            return legal[-1]
        return legal[int(rng.integers(len(legal)))]

    return choose


class Mismatch(AssertionError):
    """The core and the env disagree."""


def compare(
    num_players: int,
    variants: tuple[str, ...],
    seed: int,
    games: int,
    kind: str,
    backend: str = "native",
    dense: float = 0.0,
) -> int:
    """Play ``games`` games on the core (or the Python backend) and in the env side by side;
    the decisions compared, and the state's JSON every few decisions."""
    vg = KingdominoVectorGame(
        num_games=games,
        num_players=num_players,
        variants=variants,
        seed=seed,
        auto_reset=False,
        backend=backend,
        dense_reward=dense,
    )
    envs = []
    for i in range(games):
        env = kingdomino_v0.env(num_players=num_players, variants=variants, obs_type="flat",
                                dense_reward=dense)  # fmt: skip
        env.reset(seed=seed + i)
        envs.append(env)
    rng = np.random.default_rng(seed)
    choose = _policy(kind, rng)
    done = np.zeros(games, dtype=bool)
    decisions = 0
    assert vg.observation is not None
    while not done.all():
        actions = np.zeros(games, dtype=np.int64)
        for i, env in enumerate(envs):
            if done[i]:
                continue
            state = env.unwrapped.state
            legal = state.legal_action_list()
            seat = state.seat
            got = vg.legal_ids[i, : vg.num_legal[i]].tolist()
            if got != legal or vg.current_seat[i] != seat:
                raise Mismatch(f"game {i}: legal/seat {got} {vg.current_seat[i]} vs {legal} {seat}")
            agent = env.agent_selection
            if not np.array_equal(vg.action_mask[i], env.unwrapped.action_mask(agent)):
                raise Mismatch(f"game {i}: mask")
            if not np.array_equal(vg.observation[i], env.observe(agent)):
                raise Mismatch(f"game {i}: observation of the acting seat")
            other = (seat + 1) % num_players
            mine = vg.observation_of(i, other)
            theirs = env.unwrapped.encoder.encode_flat(state, other)
            if not np.array_equal(mine, theirs):
                raise Mismatch(f"game {i}: observation of seat {other}")
            if decisions % 7 == i and vg.get_state(i).to_json() != state.to_json():
                raise Mismatch(f"game {i}: get_state")
            actions[i] = choose(legal)
        active = ~done
        vg.step(actions, active=active)
        for i, env in enumerate(envs):
            if done[i]:
                continue
            env.step(int(actions[i]))
            decisions += 1
            state = env.unwrapped.state
            want = [env.unwrapped.rewards[a] for a in env.possible_agents]
            if not np.allclose(vg.rewards[i], want, rtol=0, atol=1e-12):  # every step's
                raise Mismatch(f"game {i}: rewards {vg.rewards[i]} vs {want}")
            if state.is_terminal:
                done[i] = True
                if not vg.terminated[i]:
                    raise Mismatch(f"game {i}: the env ended, the core did not")
                want = [env.unwrapped.rewards[a] for a in env.possible_agents]
                if vg.rewards[i].tolist() != want:
                    raise Mismatch(f"game {i}: rewards {vg.rewards[i]} vs {want}")
                if [tuple(r) for r in vg.scores[i].tolist()] != state.rank_keys():
                    raise Mismatch(f"game {i}: points {vg.scores[i]} vs {state.rank_keys()}")
            elif vg.terminated[i]:
                raise Mismatch(f"game {i}: the core ended, the env did not")
            elif [p for p, _ in vg.points(i)] != state.points():
                raise Mismatch(f"game {i}: points during play")
    return decisions


@pytest.mark.parametrize(("num_players", "variants"), CONFIGS)
@pytest.mark.parametrize("kind", ["random", "discard_last"])
def test_core_equals_engine(num_players: int, variants: tuple[str, ...], kind: str) -> None:
    decisions = compare(num_players, variants, seed=11, games=3, kind=kind)
    assert decisions > 0


@pytest.mark.parametrize("backend", ["native", "python"])
def test_dense_rewards_equal_the_envs_at_every_step(backend: str) -> None:
    """``dense_reward``: every seat's change of points, weighted, at each step, then the final
    reward on top; the vector game gives exactly what the env gives."""
    assert compare(4, ("harmony", "middle_kingdom"), seed=5, games=2, kind="random",
                   backend=backend, dense=0.25) > 0  # fmt: skip
    vg = KingdominoVectorGame(num_games=2, num_players=2, seed=1, dense_reward=0.5)
    total = np.zeros((2, 2))
    while not vg.terminated.any():
        vg.step(vg.legal_ids[:, 0].astype(np.int64))
        total += vg.rewards
    from moonriver_env.kingdomino.args import rank_rewards

    for i in np.flatnonzero(vg.terminated).tolist():  # a whole game: its points, then its place
        keys = [tuple(int(v) for v in k) for k in vg.scores[i]]
        want = 0.5 * np.array([p for p, _ in keys]) + np.array(rank_rewards(keys))
        np.testing.assert_allclose(total[i], want, atol=1e-9)
    for bad in (float("nan"), float("inf"), "1"):
        with pytest.raises((ValueError, TypeError), match="dense_reward"):
            KingdominoVectorGame(num_games=1, dense_reward=bad)  # type: ignore[arg-type]
        with pytest.raises((ValueError, TypeError), match="dense_reward"):
            kingdomino_v0.env(dense_reward=bad)


@pytest.mark.parametrize(("num_players", "variants"), CONFIGS[::3])
def test_python_backend_equals_engine(num_players: int, variants: tuple[str, ...]) -> None:
    assert compare(num_players, variants, seed=12, games=1, kind="random", backend="python") > 0


@pytest.mark.parametrize("backend", ["native", "python"])
def test_set_state_plays_on_from_the_engines_state(backend: str) -> None:
    """A mid-game engine state put into slot 1 plays on as the engine does; a refused state
    (wrong type, another config, a broken rule) changes nothing."""
    config = KingdominoConfig(3, ("harmony",))
    vg = KingdominoVectorGame(num_games=2, config=config, seed=0, backend=backend)
    state = new_game(config, 9)
    rng = np.random.default_rng(1)
    for _ in range(20):
        legal = state.legal_action_list()
        state.apply(legal[int(rng.integers(len(legal)))])
    vg.set_state(1, state)
    assert vg.get_state(1).to_json() == state.to_json()
    assert vg.legal_ids[1, : vg.num_legal[1]].tolist() == state.legal_action_list()
    enc = KingdominoEncoder(config)
    assert vg.observation is not None
    assert np.array_equal(vg.observation[1], enc.encode_flat(state, state.seat))
    before = (vg.get_state(0).to_json(), vg.get_state(1).to_json(), vg.action_mask.copy())
    broken = state.clone()
    broken.pile = broken.pile[:-1]
    with pytest.raises(StateFormatError, match="dominoes"):
        vg.set_state(1, broken)
    with pytest.raises(ValueError, match="config"):
        vg.set_state(1, new_game(KingdominoConfig(2), 0))
    with pytest.raises(TypeError, match="KingdominoState"):
        vg.set_state(1, state.to_json())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="i"):
        vg.set_state(2, state)
    assert (vg.get_state(0).to_json(), vg.get_state(1).to_json()) == before[:2]
    assert np.array_equal(vg.action_mask, before[2])
    while not state.is_terminal:
        a = state.legal_action_list()[0]
        state.apply(a)
        vg.step(np.array([vg.legal_ids[0, 0], a], dtype=np.int64))
        if not state.is_terminal:
            assert vg.get_state(1).to_json() == state.to_json()
    assert vg.terminated[1] and vg.scores[1].tolist() == [list(k) for k in state.rank_keys()]


def test_no_core_falls_back_to_the_engine_with_one_warning() -> None:
    """Without the core (MOONRIVER_NATIVE=0) vector_game plays Kingdomino on the engine, with
    one warning, the same arrays."""
    import subprocess
    import sys

    code = (
        "import warnings, numpy as np\n"
        "warnings.simplefilter('always')\n"
        "from moonriver_env.vector import vector_game\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    a = vector_game('kingdomino_2p_base', num_games=2, seed=3, backend='native')\n"
        "    b = vector_game('kingdomino_3p_base', num_games=2, seed=3)\n"
        "print(a.backend, b.backend, len(w), repr(float(a.observation.sum())))\n"
    )
    env = {**__import__("os").environ, "MOONRIVER_NATIVE": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    backend_a, backend_b, warned, total = out.stdout.split()
    assert (backend_a, backend_b, warned) == ("python", "python", "1")
    vg = KingdominoVectorGame(num_games=2, num_players=2, seed=3, backend="native")
    assert vg.observation is not None and float(total) == float(vg.observation.sum())


def test_comparison_can_fail() -> None:
    """A core game of another seed is caught."""
    vg = KingdominoVectorGame(num_games=1, num_players=2, seed=5)
    env = kingdomino_v0.env(num_players=2, obs_type="flat")
    env.reset(seed=6)
    assert not np.array_equal(vg.observation[0], env.observe(env.agent_selection))  # type: ignore[index]


def test_auto_reset_plays_the_envs_next_game() -> None:
    vg = KingdominoVectorGame(num_games=1, num_players=2, seed=3, auto_reset=True)
    env = kingdomino_v0.env(num_players=2, obs_type="flat")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not vg.terminated[0]:
        a = int(rng.choice(vg.legal_ids[0, : vg.num_legal[0]]))
        vg.step(np.array([a]))
        env.step(a)
    env.reset()
    assert vg.observation is not None
    assert np.array_equal(vg.observation[0], env.observe(env.agent_selection))


@pytest.mark.parametrize("bad", [-1, 10**6, 2**40])
def test_illegal_action_names_the_game_and_changes_nothing(bad: int) -> None:
    vg = KingdominoVectorGame(num_games=3, num_players=4, seed=1)
    assert vg.observation is not None
    before = (vg.observation.copy(), vg.action_mask.copy(), vg.current_seat.copy())
    actions = vg.legal_ids[:, 0].astype(np.int64)
    actions[1] = bad
    with pytest.raises(IllegalActionError, match="game 1"):
        vg.step(actions)
    assert np.array_equal(before[0], vg.observation)
    assert np.array_equal(before[1], vg.action_mask)
    assert np.array_equal(before[2], vg.current_seat)
    vg.step(vg.legal_ids[:, 0].astype(np.int64))  # still playable


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="num_players"):
        KingdominoVectorGame(num_games=1, num_players=5)
    with pytest.raises(ValueError, match="variants"):
        KingdominoVectorGame(num_games=1, num_players=4, variants=("mighty_duel",))
    with pytest.raises(ValueError, match="reward"):
        KingdominoVectorGame(num_games=1, reward="gold")
    vg = KingdominoVectorGame(num_games=2, num_players=2, seed=0)
    with pytest.raises(ValueError, match="actions"):
        vg.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="actions"):
        vg.step(np.zeros(2, dtype=np.float32))
    with pytest.raises(ValueError, match="seat"):
        vg.observation_of(0, 2)
    with pytest.raises(ValueError, match="i"):
        vg.reset_game(2)


def test_core_refuses_bad_params_and_records() -> None:
    """The binding checks the parameters, the record and the buffers before touching a game."""
    from moonriver_env import _native  # type: ignore[attr-defined]

    vg = KingdominoVectorGame(num_games=2, num_players=2, seed=0)
    batch = vg._backend._batch
    good = batch.get_record(0)
    before = (batch.get_record(1), vg.action_mask.copy(), vg.legal_ids.copy())
    with pytest.raises(ValueError, match="params"):
        _native.KdConfig(np.zeros(5, dtype=np.int64).tobytes())
    with pytest.raises(ValueError, match="bytes"):
        batch.set_record(1, good[:-8])
    raw = bytearray(good)
    raw[-1] ^= 0xFF  # past the record's fields: ignored, rebuilt
    broken = np.frombuffer(good, dtype=np.uint8).copy()
    broken[:] = 0xFF
    with pytest.raises(ValueError):
        batch.set_record(1, broken.tobytes())
    with pytest.raises(IndexError):
        batch.set_record(2, good)
    with pytest.raises(ValueError, match="actions"):
        batch.step(np.zeros(3, dtype=np.int64), np.ones(2, dtype=np.bool_))
    assert (batch.get_record(1), vg.action_mask.tolist(), vg.legal_ids.tolist()) == (
        before[0],
        before[1].tolist(),
        before[2].tolist(),
    )
    batch.set_record(1, bytes(raw))  # game 0's position, now in slot 1
    assert np.array_equal(vg.action_mask[1], vg.action_mask[0])


def test_vector_game_dispatches_on_the_spec() -> None:
    from moonriver_env.games import GameSpec
    from moonriver_env.vector import VectorGame, vector_game

    kd = vector_game("kingdomino_3p_harmony+must_place", num_games=2, seed=4)
    assert isinstance(kd, KingdominoVectorGame)
    assert kd.config.num_players == 3 and kd.config.variants == ("must_place", "harmony")
    mr = vector_game(GameSpec(num_players=2), num_games=2, seed=4)
    assert isinstance(mr, VectorGame)
    assert vector_game("kingdomino_2p_dynasty", num_games=1).config.num_games == 3
