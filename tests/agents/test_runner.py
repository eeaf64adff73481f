"""The one game runner (agents/runner.py): its games are the engine's games for the seeds it
documents, and the evaluation it plays is the game the learner's SingleAgentEnv sees."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents import make_agent
from agents.jobs import run_jobs
from agents.runner import GameRunner, GameSetup
from agents.seeds import agent_seed, derive_seed, game_seed
from moonriver_env.moonriver.env import SCORE_COLUMNS, win_share
from moonriver_env.rules import new_game
from moonriver_env.single_agent import SingleAgentEnv


class _Actions:
    """A DecisionHook recording (seat, action) of every decision."""

    def __init__(self) -> None:
        self.played: list[tuple[int, int]] = []

    def before_step(self, env: Any, seat: int, action: int) -> int:
        self.played.append((seat, action))
        return action

    def after_step(self, env: Any) -> None:
        pass


def _engine_game(setup: GameSetup, specs: list[str], seed: int, index: int) -> tuple[list, str]:
    """The same game straight on the rules engine: the env's reset seed draws the game seed
    (``raw_env.reset``), each agent reset with its documented seed and asked ``choose``."""
    agents = [make_agent(spec, seed=0) for spec in specs]
    for s, ag in enumerate(agents):
        ag.reset(agent_seed(seed, index, s))
    engine_seed = int(np.random.default_rng(game_seed(seed, index)).integers(2**63 - 1))
    state = new_game(setup.game_config(), seed=engine_seed)
    played = []
    while not state.is_terminal:
        seat = state.current_seat
        assert seat is not None
        action = agents[seat].choose(state)
        played.append((seat, action))
        state.apply(action)
    return played, state.to_json()


@pytest.mark.parametrize(
    ("setup", "specs"),
    [
        (GameSetup(2), ["random", "greedy"]),
        (GameSetup(3, "legends"), ["heuristic", "random", "greedy"]),
        (GameSetup(4, auto_resolve=True), ["random", "random", "heuristic", "greedy"]),
    ],
)
def test_runner_games_are_the_engine_games(setup: GameSetup, specs: list[str]) -> None:
    runner = GameRunner(setup)
    agents = [make_agent(spec, seed=0) for spec in specs]
    for index in range(2):
        hook = _Actions()
        seeds = [agent_seed(7, index, s) for s in range(setup.num_players)]
        outcome = runner.play(agents, game_seed(7, index), seeds, hook=hook)
        played, final = _engine_game(setup, specs, 7, index)
        assert hook.played == played
        assert outcome.state.to_json() == final
        assert sum(outcome.decisions) == len(played)


def test_runner_names_an_illegal_action() -> None:
    class Stubborn:
        def reset(self, seed: int | None = None) -> None:
            pass

        def act(self, observation: dict[str, Any], env: Any) -> int:
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    runner = GameRunner(GameSetup(2))
    with pytest.raises(RuntimeError, match="'stubborn' in seat 0 chose illegal action"):
        runner.play([Stubborn(), make_agent("random")], 3, [None, 1], names=["stubborn", "r"])


def test_seeds_are_the_documented_seed_sequences() -> None:
    words = np.random.SeedSequence([5, 2, 3]).generate_state(1, np.uint64)[0]
    assert derive_seed(5, 2, 3) == int(words) >> 1
    assert agent_seed(5, 2, 2) == derive_seed(5, 2, 3)
    assert game_seed(5, 2) == derive_seed(5, 2)
    assert len({derive_seed(1, i) for i in range(50)}) == 50


def test_setup_from_the_env_section() -> None:
    cfg = {"num_players": 3, "mode": "legends", "reward": "score", "dense_reward": 0.5}
    setup = GameSetup.from_config(cfg)
    assert setup.env_kwargs(rewards=False) == {
        "num_players": 3,
        "mode": "legends",
        "auto_resolve": False,
        "scenario": "random",
    }
    assert setup.env_kwargs()["reward"] == "score"
    assert setup.env_kwargs()["dense_reward"] == 0.5
    assert GameSetup.from_config({}).env_kwargs(rewards=False) == {
        "num_players": 2,
        "mode": "base",
        "auto_resolve": False,
    }


def _square(offset: int, job: int) -> int:
    return offset + job * job


def test_run_jobs_keeps_job_order_across_workers() -> None:
    seen: list[int] = []
    one = run_jobs(range(6), int, (10,), _square, workers=1, on_result=seen.append)
    two = run_jobs(range(6), int, (10,), _square, workers=2)
    assert one == two == [10 + j * j for j in range(6)]
    assert sorted(seen) == one


def _first_legal(observation: dict[str, Any], env: Any) -> int:
    return int(np.flatnonzero(observation["action_mask"])[0])


def test_evaluation_plays_the_learners_single_agent_game() -> None:
    """The evaluation's games are those of a SingleAgentEnv reset with the game seed (the
    learner's own view in training), opponents in the seats after the learner's."""
    from training.common.ladder import play_games

    seed, n = 4, 3
    kwargs = {"num_players": n, "mode": "legends"}
    got = play_games(_first_legal, "greedy", range(4), seed=seed, env_kwargs=kwargs)
    for i, row in enumerate(got):
        opponents = [make_agent("greedy", seed=0) for _ in range(n - 1)]
        for k, opp in enumerate(opponents):
            opp.reset(derive_seed(seed, i, 1 + k))
        env = SingleAgentEnv(opponents=opponents, learner_seat=i % n, **kwargs)
        obs, info = env.reset(seed=game_seed(seed, i))
        done = False
        while not done:
            mask = env.action_masks().astype(np.int8)
            action = _first_legal({"observation": obs, "action_mask": mask}, env.aec)
            obs, _, done, _, info = env.step(action)
        totals = info["scores"][:, SCORE_COLUMNS.index("total")]
        assert row["seat"] == i % n
        assert row["score"] == totals[i % n]
        assert row["outcome"] == win_share(info["winners"], i % n)
