"""One answer for one input in the batched APIs (issue 50, finding 7: ``MoonRiverVectorEnv.step``
played 3.7 as 3 and ``True`` as 1, which ``VectorGame.step`` refused): every vector game and
every Gymnasium vector env refuses a float or a bool among the actions, in an array or in a list
of integers, with the same named ``ValueError``, and changes nothing; NumPy integers play as
ints do."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from moonriver_env.vector.dispatch import vector_game
from moonriver_env.vector.env_batch import EnvVectorGame
from moonriver_env.vector.gym_env import make_vector_env

GAMES = ["2p_base", "kingdomino_4p_base"]


def _vector(kind: str, game: str) -> Any:
    with warnings.catch_warnings():  # the engine's fallback warns once
        warnings.simplefilter("ignore")
        if kind == "core":
            return vector_game(game, num_games=2, seed=3)
        return EnvVectorGame(game, num_games=2, seed=3)


def _first_legal(vg: Any) -> list[int]:
    return [int(vg.legal_ids[i, 0]) for i in range(vg.num_games)]


def _bad_actions(legal: list[int]) -> list[tuple[Any, str]]:
    """Actions no game may play, each with the start of its refusal."""
    a, b = legal
    return [
        ([True, b], "actions: expected integers, got True at 0"),
        ((a, np.bool_(False)), "actions: expected integers, got np.False_ at 1"),
        (np.array([True, False]), "actions: expected an integer array, got dtype bool"),
        ([a + 0.7, b], "actions: expected an integer array, got dtype float64"),
        (
            np.array([a, b], dtype=np.float32),
            "actions: expected an integer array, got dtype float32",
        ),
        ([str(a), b], "actions: expected an integer array, got dtype <U"),
    ]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["core", "engine"])
def test_vector_games_refuse_floats_and_bools_and_take_numpy_integers(kind: str, game: str) -> None:
    vg = _vector(kind, game)
    legal = _first_legal(vg)
    before = [vg.get_state(i).to_json() for i in range(2)]
    for actions, message in _bad_actions(legal):
        with pytest.raises(ValueError, match=rf"^{message}"):
            vg.step(actions)
        assert [vg.get_state(i).to_json() for i in range(2)] == before, actions
    twin = _vector(kind, game)
    vg.step([np.int64(legal[0]), np.int32(legal[1])])
    twin.step(legal)
    assert [vg.get_state(i).to_json() for i in range(2)] == [
        twin.get_state(i).to_json() for i in range(2)
    ]


def _env(game: str) -> Any:
    env = make_vector_env(game, num_envs=2, seed=5, learner_seat=0)
    env.reset(seed=5)
    return env


def _snapshot(env: Any) -> list[str]:
    return [env.vg.get_state(i).to_json() for i in range(env.num_envs)]


def _legal(env: Any) -> list[int]:
    return [int(np.flatnonzero(row)[0]) for row in env.action_masks()]


@pytest.mark.parametrize("game", GAMES)
def test_the_gym_vector_env_answers_as_its_vector_game(game: str) -> None:
    """The env passes the actions on as given (no array made first, which read ``True`` in a
    list of ints as 1): the same refusals, nothing played; NumPy integers play."""
    env = _env(game)
    legal = _legal(env)
    before = _snapshot(env)
    for actions, message in _bad_actions(legal):
        with pytest.raises(ValueError, match=rf"^{message}"):
            env.step(actions)
        assert _snapshot(env) == before, actions
    twin = _env(game)
    rewards = env.step([np.int64(legal[0]), np.int16(legal[1])])[1]
    np.testing.assert_array_equal(rewards, twin.step(legal)[1])
    assert _snapshot(env) == _snapshot(twin)
