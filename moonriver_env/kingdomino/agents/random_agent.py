"""Uniformly random legal Kingdomino actions (the paper's "true random")."""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.kingdomino import KingdominoState

from .common import KingdominoAgent


class RandomKingdominoAgent(KingdominoAgent):
    """Uniformly random legal actions (the paper's "true random")."""

    name = "random"

    def act(self, observation: dict[str, Any], env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(legal.size)])

    def choose(self, state: KingdominoState) -> int:
        return self._pick_uniform(state.legal_action_list())
