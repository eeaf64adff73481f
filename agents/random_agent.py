"""Uniformly random legal actions (every game)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Chooses uniformly among the legal actions with its own ``numpy`` Generator.

    ``act`` needs only the observation's action mask (``env`` may be ``None``)."""

    name = "random"

    def act(self, observation: dict[str, Any], env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(legal.size)])

    def choose(self, state: Any) -> int:
        legal = state.legal_actions()
        return int(legal[int(self.rng.integers(len(legal)))])
