"""Determinism: a seed fixes the whole game; chance is drawn only from the game's generator.

- the same seed and the same choices give the identical game (every legal action list, every
  chosen action, the final scores and winners), for several configs, also in fresh
  interpreters with different ``PYTHONHASHSEED`` values;
- different seeds give different games;
- ``scenario="random"`` and ``boards="random"`` are drawn from the seed;
- ``auto_resolve=True`` games never stop at a decision with exactly one legal action, end, and
  are the same games as without it when the forced actions are played by hand.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from fresh_python import ROOT, run_python

from moonriver_env.rules import LEGENDS_BOARDS, SCENARIOS, GameConfig, GameState, new_game

MAX_DECISIONS = 2_000

CONFIGS = {
    "2p-base": GameConfig(num_players=2, mode="base"),
    "3p-base": GameConfig(num_players=3, mode="base"),
    "4p-base": GameConfig(num_players=4, mode="base"),
    "2p-legends-random": GameConfig(
        num_players=2, mode="legends", scenario="random", boards="random"
    ),
    "3p-legends-outlaws": GameConfig(num_players=3, mode="legends", scenario="outlaws"),
    "4p-legends-random": GameConfig(num_players=4, mode="legends", scenario=None, boards="random"),
}


def trace(config: GameConfig, seed: int, chooser_seed: int) -> dict[str, Any]:
    """Play a game with random choices; return everything observable about it."""
    state = new_game(config, seed=seed)
    chooser = random.Random(chooser_seed)
    setup = {
        "scenario": state.scenario,
        "boards": state.boards,
        "pile": list(state.pile),
        "stack": list(state.stack),
        "saloon": list(state.saloon),
        "cur_col": list(state.cur_col),
    }
    legal_lists: list[list[int]] = []
    actions: list[int] = []
    while not state.is_terminal:
        assert len(actions) < MAX_DECISIONS
        legal = list(state.legal_action_list())
        a = legal[chooser.randrange(len(legal))]
        legal_lists.append(legal)
        actions.append(a)
        state.apply(a)
    return {
        "setup": setup,
        "legal": legal_lists,
        "actions": actions,
        "scores": [tuple(vars_of(s)) for s in state.scores()],
        "winners": state.winners(),
    }


def vars_of(score: Any) -> list[int]:
    return [
        score.territories,
        score.resources,
        score.partners,
        score.scenario,
        score.total,
        score.largest_territory,
        score.cows,
    ]


def digest(t: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(t, sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_same_seed_same_game(name: str) -> None:
    config = CONFIGS[name]
    for seed in (0, 1, 12345):
        first = trace(config, seed, chooser_seed=seed + 1)
        again = trace(config, seed, chooser_seed=seed + 1)
        assert first == again, f"{name} seed {seed}: two runs differ"
        # A fresh but equal config gives the same game too (no state kept per config object).
        fresh = GameConfig(
            num_players=config.num_players,
            mode=config.mode,
            scenario=config.scenario,
            boards=config.boards,
        )
        assert trace(fresh, seed, chooser_seed=seed + 1) == first


@pytest.mark.parametrize("name", list(CONFIGS))
def test_different_seeds_different_games(name: str) -> None:
    config = CONFIGS[name]
    traces = [trace(config, seed, chooser_seed=99) for seed in range(6)]
    for a, b in itertools.combinations(traces, 2):
        assert a["setup"]["pile"] != b["setup"]["pile"]
        assert a["legal"] != b["legal"] or a["actions"] != b["actions"]


def test_same_seed_other_choices_same_setup() -> None:
    """The random player's generator is separate: the game seed alone fixes the setup."""
    config = CONFIGS["4p-legends-random"]
    a = trace(config, 5, chooser_seed=1)
    b = trace(config, 5, chooser_seed=2)
    assert a["setup"] == b["setup"]
    assert a["actions"] != b["actions"]


def test_random_scenario_drawn_from_seed() -> None:
    for scenario in ("random", None):
        config = GameConfig(num_players=3, mode="legends", scenario=scenario)
        drawn = []
        for seed in range(80):
            s1 = new_game(config, seed=seed)
            s2 = new_game(config, seed=seed)
            assert s1.scenario == s2.scenario and s1.scenario in SCENARIOS
            drawn.append(s1.scenario)
        assert set(drawn) == set(SCENARIOS), f"scenario={scenario!r}: drew only {set(drawn)}"
    for scenario in SCENARIOS:
        config = GameConfig(num_players=3, mode="legends", scenario=scenario)
        assert {new_game(config, seed=seed).scenario for seed in range(10)} == {scenario}
    assert new_game(GameConfig(num_players=4, mode="base"), seed=3).scenario is None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_boards_drawn_from_seed(players: int) -> None:
    config = GameConfig(num_players=players, mode="legends", boards="random")
    deals = []
    for seed in range(120):
        b1 = new_game(config, seed=seed).boards
        b2 = new_game(config, seed=seed).boards
        assert b1 == b2
        assert len(b1) == players and len(set(b1)) == players and set(b1) <= set(LEGENDS_BOARDS)
        deals.append(b1)
    assert len(set(deals)) >= 8, f"only {len(set(deals))} distinct deals in 120 seeds"
    assert {b for deal in deals for b in deal} == set(LEGENDS_BOARDS)
    for seat in range(players):
        assert len({deal[seat] for deal in deals}) == len(LEGENDS_BOARDS)
    # Default and explicit boards do not depend on the seed.
    by_seat = GameConfig(num_players=players, mode="legends")
    assert {new_game(by_seat, seed=s).boards for s in range(10)} == {LEGENDS_BOARDS[:players]}
    explicit = tuple(reversed(LEGENDS_BOARDS))[:players]
    config = GameConfig(num_players=players, mode="legends", boards=explicit)
    assert {new_game(config, seed=s).boards for s in range(10)} == {explicit}


_SUBPROCESS_CODE = """
import hashlib, json, random, sys
sys.path[:0] = [{here!r}, {tests!r}]
from test_determinism import CONFIGS, digest, trace
print(json.dumps({{name: digest(trace(cfg, 7, 8)) for name, cfg in CONFIGS.items()}}))
"""


def test_same_game_in_fresh_interpreters() -> None:
    """No hidden nondeterminism (hash randomisation, id-based ordering) across processes."""
    here = {name: digest(trace(cfg, 7, 8)) for name, cfg in CONFIGS.items()}
    code = _SUBPROCESS_CODE.format(
        here=str(Path(__file__).resolve().parent), tests=str(ROOT / "tests")
    )
    for hashseed in ("1", "2"):
        out = run_python(code, timeout=300, PYTHONHASHSEED=hashseed)
        assert json.loads(out.stdout) == here, f"PYTHONHASHSEED={hashseed} gives other games"


# --------------------------------------------------------------------------- auto_resolve

AUTO_CONFIGS = [
    GameConfig(num_players=n, mode=mode, auto_resolve=True)
    for n in (2, 3, 4)
    for mode in ("base", "legends")
]


@pytest.mark.parametrize("config", AUTO_CONFIGS, ids=lambda c: f"{c.num_players}p-{c.mode}")
def test_auto_resolve_never_offers_a_single_action(config: GameConfig) -> None:
    for seed in range(8):
        state = new_game(config, seed=seed)
        chooser = random.Random(seed)
        decisions = 0
        while True:
            legal = state.legal_action_list()
            if state.is_terminal:
                assert legal == [] and state.current_seat is None
                break
            assert len(legal) >= 2, f"seed {seed}: stopped at a forced decision {legal}"
            assert decisions < MAX_DECISIONS, f"seed {seed}: no end"
            state.apply(legal[chooser.randrange(len(legal))])
            decisions += 1
        assert all(not held for held in state.held)


def catch_up(state: GameState) -> None:
    """Play every forced decision (exactly one legal action) by hand."""
    while not state.is_terminal and len(state.legal_action_list()) == 1:
        state.apply(state.legal_action_list()[0])


@pytest.mark.parametrize("config", AUTO_CONFIGS, ids=lambda c: f"{c.num_players}p-{c.mode}")
def test_auto_resolve_plays_the_same_game(config: GameConfig) -> None:
    """Playing the forced decisions by hand reproduces the auto-resolved game exactly."""
    manual_config = GameConfig(
        num_players=config.num_players, mode=config.mode, scenario=config.scenario
    )
    for seed in range(4):
        auto = new_game(config, seed=seed)
        manual = new_game(manual_config, seed=seed)
        chooser = random.Random(seed)

        catch_up(manual)
        while not auto.is_terminal:
            legal = auto.legal_action_list()
            assert manual.legal_action_list() == legal
            a = legal[chooser.randrange(len(legal))]
            auto.apply(a)
            manual.apply(a)
            catch_up(manual)
        assert manual.is_terminal
        assert manual.scores() == auto.scores() and manual.winners() == auto.winners()
        assert manual.kinds == auto.kinds and manual.cows == auto.cows
