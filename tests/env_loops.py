"""Random play through a PettingZoo AEC env of either game (not a test module): every agent's
rewards summed over one game, with an optional check of each live agent's observation."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np


def play_to_end(
    env: Any, seed: int, check: Callable[[Any, dict[str, Any]], None] | None = None
) -> dict[str, float]:
    """Reset ``env`` with ``seed``, play uniformly random legal actions (chosen with
    ``random.Random(seed)``) to the end, and return each agent's summed rewards;
    ``check(env, observation)`` runs before every live agent's step."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        if check is not None:
            check(env, obs)
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    return totals
