"""The generic layers driven with a third game of the family (Mini Draft, :mod:`minidraft`,
registered by this folder's conftest and known to no module of the package): the state
contract, the registry, PettingZoo's API and seed tests on its ``GameAECEnv``, the vector
dispatch, the benchmarks, the OpenSpiel game through ``openspiel_base``, a tournament with
saved games and its resume, a replay page, and a short MaskablePPO run on the single-agent
env."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import minidraft
import numpy as np
import pyspiel
import pytest
from pettingzoo.test import api_test, seed_test
from sb3_contrib import MaskablePPO

from agents.move_list import MoveList
from agents.replay import build_replay, replay_html
from agents.tournament import run_tournament
from moonriver_env import bench, bench_env, bench_vector
from moonriver_env.aec_base import wrap
from moonriver_env.family.contract import GameStateLike
from moonriver_env.games import GameSpec, parse_game
from moonriver_env.single_agent import SingleAgentEnv
from moonriver_env.vector import NoVectorGame, vector_game

GAME = "minidraft_2p_base"
GAME_NAME = "minidraft"


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
        api_test(wrap(minidraft.raw_env()), num_cycles=40)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: wrap(minidraft.raw_env()), num_cycles=40)


def test_vector_game_refuses_a_game_without_a_batched_form(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(NoVectorGame, match="^game: Mini Draft has no batched game"):
        vector_game(GAME, num_games=4)
    with pytest.raises(SystemExit) as exit_:
        bench_vector.main(["--game", "minidraft", "--runs", "1"])
    assert exit_.value.code == 2 and "Mini Draft has no batched game" in capsys.readouterr().err


@pytest.fixture
def keep_cpus() -> Iterator[None]:
    """The benchmarks pin the process to one CPU: give the tests' process its CPUs back."""
    cpus = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, cpus)


@pytest.mark.usefixtures("keep_cpus")
def test_the_benchmarks_time_any_registered_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench.main(["--game", "minidraft", "--games", "3", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "Mini Draft engine benchmark" in out
    row = next(line for line in out.splitlines() if line.startswith("minidraft_2p_base"))
    assert row.split()[-1] == "18.0"  # decisions per game
    assert bench_env.main(["--game", "minidraft", "--steps", "200", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert "Mini Draft env benchmark" in out and "minidraft_v0 2p base" in out


def test_openspiel_game_through_openspiel_base() -> None:
    name = parse_game(GAME).entry.hook("openspiel")  # importing it registers the game
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    state = game.new_initial_state()
    assert state.is_chance_node() and sum(p for _, p in state.chance_outcomes()) == 1.0
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, odds = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=odds)))
        else:
            assert state.legal_actions() == list(state.engine.legal_action_list())
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == 0 and len(state.observation_tensor(0)) == 84


def _tournament(out: Path, games: int, **kwargs: object) -> str:
    """The one tournament runner on the test game; its files saved in ``out``."""
    result = run_tournament(["random", "random"], 2, games, 7, game=GAME_NAME, out=out, **kwargs)  # type: ignore[arg-type]
    result.save(out, plot=False)
    return result.format_table()


def test_a_tournament_saves_its_games_and_resumes(tmp_path: Path) -> None:
    part, whole = tmp_path / "part", tmp_path / "whole"
    _tournament(part, 2, save_games=4)
    table = _tournament(part, 4, save_games=4, resume=True)
    _tournament(whole, 4, save_games=4)
    assert "Mini Draft" in table or "minidraft" in table
    assert (part / "games.csv").read_text() == (whole / "games.csv").read_text()
    rows = (part / "games.csv").read_text().splitlines()
    assert len(rows) == 1 + 2 * 4  # 4 games of the one pair, a row per seat
    summary = json.loads((part / "summary.json").read_text())
    assert summary and (part / "summary.csv").exists()
    saved = sorted(p.name for p in (part / "moves").iterdir())
    assert saved == [f"game-{g}.json" for g in range(4)]
    moves = json.loads((part / "moves" / "game-3.json").read_text())
    assert moves["game"] == GAME_NAME and len(moves["actions"]) == 18
    with pytest.raises(ValueError, match="^resume"):
        run_tournament(["random"], 2, 4, 7, game=GAME_NAME, out=part, resume=True)


def test_a_replay_page_of_a_saved_game() -> None:
    env = parse_game(GAME).make_env()
    env.reset(seed=11)
    state, actions = env.state, []
    while not state.is_terminal:
        legal = state.legal_actions()
        actions.append(int(legal[len(actions) % legal.size]))
        env.step(actions[-1])
    moves = MoveList(
        players=2,
        mode="base",
        scenario=None,
        seed=11,
        seats=("first", "second"),
        actions=tuple(actions),
        final_scores=tuple(state.points()),
        game="minidraft",
    )
    replay = build_replay(MoveList.from_json(moves.to_json()))
    assert replay.title == "Mini Draft: first vs second" and len(replay.frames) == 19
    assert replay.frames[1].move == "first: take 0 to a1" and replay.finished
    assert [f.total for f in replay.final] == state.points()
    page = replay_html(moves)
    assert page.startswith("<!DOCTYPE html>") and "Mini Draft" in page


class MiniDraftSingleAgentEnv(SingleAgentEnv):
    aec_class = minidraft.raw_env


def test_maskable_ppo_trains_on_the_single_agent_env() -> None:
    env = MiniDraftSingleAgentEnv(opponents=None, learner_seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=64)
    after = list(model.policy.parameters())
    assert model.num_timesteps == 64
    assert any(not (a == b).all() for a, b in zip(after, before, strict=True))
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
    assert info["action_mask"][int(action)]
