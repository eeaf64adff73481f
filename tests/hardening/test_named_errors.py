"""Finding C of issue 32: the environments answer bad input with a named error (the
project's error classes, or a ValueError naming the argument), and a rejected call changes
nothing."""

from __future__ import annotations

from collections.abc import Callable
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
