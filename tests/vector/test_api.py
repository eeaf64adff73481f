"""The VectorGame API: arrays, resets, auto reset, bad input (issue 21, "Bad input")."""

from __future__ import annotations

import numpy as np
import pytest

from moonriver_env import moonriver_v0
from moonriver_env.rules import GameConfig, IllegalActionError, new_game
from moonriver_env.vector import VectorGame


def _random_actions(vg: VectorGame, rng: np.random.Generator) -> np.ndarray:
    pick = (rng.random(vg.num_games) * vg.num_legal).astype(np.int64)
    return vg.legal_ids[np.arange(vg.num_games), pick].astype(np.int64)


def test_arrays_have_the_issue_shapes() -> None:
    vg = VectorGame(num_games=5, num_players=3, mode="legends", seed=0)
    n, a = 3, vg.num_actions
    assert vg.observation is not None
    assert vg.observation.shape == (5, vg.observation_size)
    assert vg.observation.dtype == np.float32
    assert vg.action_mask.shape == (5, a) and vg.action_mask.dtype == np.int8
    assert vg.current_seat.shape == (5,)
    assert vg.rewards.shape == (5, n)
    assert vg.terminated.shape == (5,) and vg.terminated.dtype == np.bool_
    assert vg.scores.shape == (5, n, 7)
    assert (vg.action_mask.sum(axis=1) == vg.num_legal).all()
    with pytest.raises(ValueError):
        vg.action_mask[0, 0] = 1  # read-only views


def test_reset_with_a_seed_replays_and_without_moves_on() -> None:
    vg = VectorGame(num_games=3, num_players=2, seed=4)
    first = [vg.get_state(i).to_json() for i in range(3)]
    vg.reset()
    assert [vg.get_state(i).to_json() for i in range(3)] != first
    vg.reset(seed=4)
    assert [vg.get_state(i).to_json() for i in range(3)] == first
    env = moonriver_v0.raw_env(num_players=2)
    env.reset(seed=5)
    assert env.state is not None and env.state.to_json() == first[1]


def test_auto_reset_plays_the_envs_next_game_and_scores_once() -> None:
    vg = VectorGame(num_games=2, num_players=2, seed=9, observe=False)
    assert vg.observation is None
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(2000):
        vg.step(_random_actions(vg, rng))
        for i in np.flatnonzero(vg.terminated):
            ended += 1
            assert vg.scores[i].any()
            assert vg.get_state(int(i)).round == 0  # the next game, at its set-up
        assert not vg.scores[~vg.terminated].any()
        if ended >= 2:
            break
    assert ended >= 2


def test_without_auto_reset_a_finished_game_waits() -> None:
    vg = VectorGame(num_games=2, num_players=3, seed=1, auto_reset=False)
    rng = np.random.default_rng(1)
    for _ in range(3000):
        if (vg.current_seat < 0).all():
            break
        vg.step(_random_actions(vg, rng))
    assert (vg.current_seat == -1).all() and vg.terminated.all()
    assert (vg.num_legal == 0).all()
    before = vg.scores.copy()
    vg.step(np.zeros(2, dtype=np.int64))  # ignored
    assert (vg.scores == before).all() and (vg.rewards == 0).all()


def test_bad_actions_are_named_and_change_nothing() -> None:
    vg = VectorGame(num_games=3, num_players=4, seed=2)
    before = [vg.get_state(i).to_json() for i in range(3)]
    legal = vg.legal_ids[:, 0].astype(np.int64)
    with pytest.raises(ValueError, match="shape"):
        vg.step(legal[:2])
    with pytest.raises(ValueError, match="integer"):
        vg.step(legal.astype(np.float64))
    for bad in (-1, 10**9, int(np.flatnonzero(vg.action_mask[1] == 0)[0])):
        actions = legal.copy()
        actions[1] = bad
        with pytest.raises(IllegalActionError, match=r"game 1: action .* phase SETUP_CLAIM"):
            vg.step(actions)
    assert [vg.get_state(i).to_json() for i in range(3)] == before
    vg.step(legal)  # still playable


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_players": 5}, ValueError, "num_players"),
        ({"mode": "chess"}, ValueError, "mode"),
        ({"reward": "money"}, ValueError, "reward"),
        ({"dense_reward": float("nan")}, ValueError, "dense_reward"),
        ({"num_games": 0}, ValueError, "num_games"),
        ({"seed": -1}, ValueError, "seed"),
        ({"observe": 1}, TypeError, "observe"),
        ({"backend": "gpu"}, ValueError, "backend"),
    ],
)
def test_bad_constructor_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        VectorGame(**{"num_games": 2, **kwargs})


def test_set_state_checks_and_round_trips() -> None:
    config = GameConfig(num_players=2, mode="legends", scenario="gold_rush")
    vg = VectorGame(num_games=2, config=config, seed=0)
    state = new_game(config, seed=123)
    rng = np.random.default_rng(3)
    for _ in range(60):
        state.apply(int(rng.choice(state.legal_actions())))
    vg.set_state(1, state)
    assert vg.get_state(1).to_json() == state.to_json()
    assert vg.num_legal[1] == len(state.legal_action_list())
    with pytest.raises(ValueError, match="config"):
        vg.set_state(0, new_game(GameConfig(num_players=3), seed=1))
    with pytest.raises(TypeError):
        vg.set_state(0, "state")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="i"):
        vg.get_state(2)


def test_the_core_refuses_bad_records_and_specs() -> None:
    """Raw records and specs from outside are checked by the core itself (no crash)."""
    from moonriver_env import _native
    from moonriver_env.moonriver.vector import _spec
    from moonriver_env.moonriver.vector._backend import native_config

    config = GameConfig(num_players=3)
    vg = VectorGame(num_games=1, config=config, seed=0)
    batch = vg._backend._batch
    good = batch.get_record(0)
    rng = np.random.default_rng(0)
    refused = 0
    for _ in range(300):
        raw = bytearray(good)
        for _ in range(4):
            raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        try:
            batch.set_record(0, bytes(raw))
        except ValueError:
            refused += 1
            continue
        for _ in range(5):  # an accepted record plays legal actions without harm
            if vg.num_legal[0] == 0:
                break
            vg.step(vg.legal_ids[:, 0].astype(np.int64))
    assert refused > 0
    with pytest.raises(ValueError, match="bytes"):
        batch.set_record(0, b"short")
    spec = _spec.build_spec(_native, config)
    native_config(config)  # the good spec loads
    for k in range(0, len(spec), 7):
        bad = spec.copy()
        bad[k] = 10**7
        with pytest.raises(ValueError, match="spec"):
            _native.Config(bad)
    offsets, at = {}, 0
    for name, size in _native.spec_keys():
        offsets[name] = at
        at += size
    for name, index, value in (
        ("seg_start", 3, 1),  # a segment that does not follow the one before
        ("seg_stride", 3, 7),  # a stride that is not the layout's
        ("num_players", 0, 5),
        ("land", 0, 6),
        ("pair_j", 0, 0),  # a pair (0, 0)
        ("board_slots", 0, 9),
        ("features", 1, 0),  # a feature slice over the one before it (in range, out of order)
    ):
        bad = spec.copy()
        bad[offsets[name] + index] = value
        with pytest.raises(ValueError, match=name.split("_")[0]):
            _native.Config(bad)


def test_only_the_active_games_play() -> None:
    vg = VectorGame(num_games=4, num_players=2, seed=3)
    rng = np.random.default_rng(2)
    for _ in range(5):
        vg.step(_random_actions(vg, rng))
    before = [vg.get_state(i).to_json() for i in range(4)]
    masks = vg.action_mask.copy()
    obs = None if vg.observation is None else vg.observation.copy()
    active = np.array([True, False, True, False])
    actions = _random_actions(vg, rng)
    actions[1] = -7  # not read: game 1 does not play
    vg.step(actions, active)
    after = [vg.get_state(i).to_json() for i in range(4)]
    assert after[1] == before[1] and after[3] == before[3]
    assert after[0] != before[0] and after[2] != before[2]
    assert (vg.action_mask[[1, 3]] == masks[[1, 3]]).all()
    assert obs is not None and vg.observation is not None
    assert (vg.observation[[1, 3]] == obs[[1, 3]]).all()
    with pytest.raises(ValueError, match="active"):
        vg.step(actions, np.ones(4, dtype=np.int64))


@pytest.mark.parametrize("backend", ["native", "python"])
def test_reset_game_starts_one_slot_afresh(backend: str) -> None:
    vg = VectorGame(num_games=3, num_players=3, seed=0, backend=backend)
    others = [vg.get_state(i).to_json() for i in (0, 2)]
    vg.reset_game(1, seed=40)
    env = moonriver_v0.raw_env(num_players=3)
    env.reset(seed=40)
    assert env.state is not None and vg.get_state(1).to_json() == env.state.to_json()
    assert [vg.get_state(i).to_json() for i in (0, 2)] == others
    vg.reset_game(1)  # the env's next game after a seedless reset
    env.reset()
    assert vg.get_state(1).to_json() == env.state.to_json()
    with pytest.raises(ValueError, match="seed"):
        vg.reset_game(1, seed=-3)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_observe_any_seat_equals_the_encoder(backend: str) -> None:
    from moonriver_env.moonriver.encoding import ObservationEncoder

    vg = VectorGame(num_games=2, num_players=4, mode="legends", seed=5, backend=backend)
    rng = np.random.default_rng(5)
    for _ in range(40):
        vg.step(_random_actions(vg, rng))
    enc = ObservationEncoder(vg.config)
    for seat in range(4):
        assert np.array_equal(vg.observation_of(1, seat), enc.encode_flat(vg.get_state(1), seat))
    with pytest.raises(ValueError, match="seat"):
        vg.observation_of(0, 4)


def test_numpy_integers_are_indices_too() -> None:
    """NumPy integers (what indexing an array gives) name a game and a seat like ints; bools
    and floats are still refused."""
    vg = VectorGame(num_games=2, num_players=2, seed=0)
    assert vg.get_state(np.int64(1)).to_json() == vg.get_state(1).to_json()
    np.testing.assert_array_equal(vg.observation_of(np.int32(1), np.int64(0)),
                                  vg.observation_of(1, 0))
    vg.reset_game(np.int64(1), seed=np.uint64(5))
    for bad in (np.bool_(True), True, 1.0, np.float64(1.0)):
        with pytest.raises(ValueError, match="i: expected an integer"):
            vg.get_state(bad)  # type: ignore[arg-type]
