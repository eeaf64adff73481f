"""Finding C of issue 32: the environments answer bad input with a named error (the
project's error classes, or a ValueError naming the argument), and a rejected call changes
nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moonriver_env import kingdomino_v0, moonriver_v0

MAKERS: dict[str, Callable[..., Any]] = {
    "moonriver env": moonriver_v0.env,
    "moonriver raw_env": moonriver_v0.raw_env,
    "kingdomino env": kingdomino_v0.env,
    "kingdomino raw_env": kingdomino_v0.raw_env,
}


def _snapshot(env: Any) -> tuple[Any, ...]:
    raw = env.unwrapped
    return (
        raw.state.to_json(),
        raw.agent_selection,
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
    )


@pytest.mark.parametrize("make", MAKERS.values(), ids=list(MAKERS))
def test_bad_input_gets_a_named_error_and_changes_nothing(make: Callable[..., Any]) -> None:
    env = make(num_players=2)
    env.reset(seed=3)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    before = _snapshot(env)
    for agent in ("nobody", ["player_0"]):
        with pytest.raises(ValueError, match=r"^agent: expected one of player_0, player_1"):
            env.observe(agent)
    with pytest.raises(ValueError, match=r"^agent: "):
        env.unwrapped.action_mask("nobody")
    for action in (True, np.bool_(True), 2**70, -(2**70), np.array([legal]), [legal], 1.5):
        with pytest.raises(ValueError, match=r"action"):
            env.step(action)
        assert _snapshot(env) == before, action
    env.step(legal)  # the env still plays
    assert _snapshot(env) != before


@pytest.mark.parametrize("players", [2**63, -1, 3])
def test_a_saved_games_player_count_that_disagrees_is_named(tmp_path: Path, players: int) -> None:
    """Found by tests/hardening/fuzz_count.py: a huge ``players`` gave OverflowError."""
    import json

    from agents.saved_game import SavedGame
    from moonriver_env.rules import GameConfig, new_game

    path = tmp_path / "saved.json"
    SavedGame(
        players=2,
        mode="base",
        scenario=None,
        seed=0,
        agents={1: "random"},
        humans=(0,),
        decisions=0,
        state=new_game(GameConfig(num_players=2), seed=0),
    ).save(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**raw, "players": players}), encoding="utf-8")
    with pytest.raises(ValueError, match="seats: the saved game seats"):
        SavedGame.load(path)


def test_the_fuzz_count_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    """The robustness count (tests/hardening/fuzz_count.py) on a few inputs per class: every
    class answered, no crash."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from fuzz_count import main as fuzz_count

    assert fuzz_count(["--n", "8"]) == 0, capsys.readouterr().out
    table = capsys.readouterr().out
    for name in (
        "state JSON",
        "saved game",
        "replay move list",
        "games.csv",
        "model files",
        "native",
    ):
        assert name in table
