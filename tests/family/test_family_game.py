"""The generic layers driven with a third game of the family (Mini Draft, :mod:`minidraft`,
registered by this folder's conftest and known to no module of the package): the state
contract, the registry, PettingZoo's API and seed tests on its ``GameAECEnv``, the vector
dispatch, the OpenSpiel game through ``openspiel_base``, a tournament with saved games and its
resume, a replay page, and a short MaskablePPO run on the single-agent env."""

from __future__ import annotations

import warnings

import minidraft
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from moonriver_env.family.contract import GameStateLike
from moonriver_env.games import GameSpec, parse_game
from moonriver_env.vector import NoVectorGame, vector_game

GAME = "minidraft_2p_base"


def test_the_state_keeps_the_contract() -> None:
    state = minidraft.new_game(minidraft.MiniDraftConfig(), seed=3)
    assert isinstance(state, GameStateLike)
    state.apply(4)  # seat 0: slot 0 to its centre
    state.apply(state.string_to_action("take 1 to b2"))  # seat 1: slot 1 to its centre
    assert state.action_to_string(13) == "take 1 to b2" and state.current_seat == 0
    before = state.to_json()
    for action in (4, 13, 18, -1):  # seat 0's centre is taken; no such action
        with pytest.raises(minidraft.IllegalActionError):
            state.apply(action)
        assert state.to_json() == before
    copy = state.clone()
    copy.apply(int(copy.legal_actions()[0]))
    assert (
        state.to_json() == before and minidraft.MiniDraftState.from_json(before).to_json() == before
    )
    encoder = minidraft.MiniDraftEncoder(state.config)
    seen = encoder.encode_flat(state, 0)
    piles = set()
    for k in range(5):
        state.redetermine(np.random.default_rng(k))
        piles.add(tuple(state.pile))
        assert np.array_equal(encoder.encode_flat(state, 0), seen)  # the pile's order is hidden
    assert len(piles) > 1
    while not state.is_terminal:
        state.apply(int(state.legal_actions()[-1]))
    assert state.current_seat is None and not state.legal_action_mask().any()
    points = [s.total for s in state.scores()]
    assert state.winners() == [s for s in (0, 1) if points[s] == max(points)]


def test_the_registry_builds_and_spells_the_game() -> None:
    spec = parse_game(GAME)
    assert spec == GameSpec(game="minidraft") and spec.text == GAME
    assert GameSpec.from_config(spec.config()) == spec
    assert (spec.num_actions, spec.observation_size) == (18, 84)
    assert GameSpec.from_num_actions(18, 84) == spec
    env = spec.make_env()
    env.reset(seed=1)
    assert env.observe("player_0")["observation"].shape == (84,)
    with pytest.raises(ValueError, match="^num_players"):
        GameSpec(game="minidraft", num_players=3)


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(minidraft.env(), num_cycles=40)


def test_pettingzoo_seed_test() -> None:
    seed_test(minidraft.env, num_cycles=40)


def test_vector_game_refuses_a_game_without_a_batched_form() -> None:
    with pytest.raises(NoVectorGame, match="^game: Mini Draft has no batched game"):
        vector_game(GAME, num_games=4)
