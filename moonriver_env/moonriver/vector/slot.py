"""One game of a :class:`~moonriver_env.vector.VectorGame` seen as a PettingZoo-like env.

:class:`SlotEnv` gives the parts of ``moonriver_v0.raw_env``'s surface that the agents and the
in-process self-play collector read (``state``, ``observe``, ``step``, ``rewards``,
``possible_agents``, ``reset``), over slot ``i`` of a VectorGame, so that code written for a
list of envs can run its games in the core. ``state`` is a fresh
:class:`~moonriver_env.moonriver.rules.GameState` copy at every read (agents decide on it); stepping goes
through the VectorGame (only this slot plays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.vector.game import VectorGame

__all__ = ["SlotEnv"]


class SlotEnv:
    """Slot ``index`` of ``games`` with agent names ``possible_agents`` (the env's)."""

    def __init__(self, games: VectorGame, index: int, possible_agents: list[str]) -> None:
        self.games = games
        self.index = index
        self.config = games.config
        self.possible_agents = list(possible_agents)
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._one = np.zeros(games.num_games, dtype=bool)
        self._one[index] = True
        self._actions = np.zeros(games.num_games, dtype=np.int64)
        self._encoder: ObservationEncoder | None = None

    @property
    def unwrapped(self) -> SlotEnv:
        return self

    @property
    def encoder(self) -> ObservationEncoder:
        """The env's encoder of this config (for code that encodes a ``state`` itself)."""
        if self._encoder is None:
            self._encoder = ObservationEncoder(self.config)
        return self._encoder

    @property
    def state(self) -> GameState:
        """The game as a :class:`GameState` (a copy)."""
        return self.games.get_state(self.index)

    @property
    def rewards(self) -> dict[str, float]:
        """Every agent's reward of this slot's last step."""
        row = self.games.rewards[self.index].tolist()
        return dict(zip(self.possible_agents, row, strict=True))

    @property
    def terminated(self) -> bool:
        """The game ended at this slot's last step (the slot already holds the next game)."""
        return bool(self.games.terminated[self.index])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        i = self.index
        mask = np.zeros(self.games.num_actions, dtype=np.int8)
        if int(self.games.current_seat[i]) == seat:
            mask[:] = self.games.action_mask[i]
        return {"observation": self.games.observation_of(i, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Play ``action`` for the seat to act (``IllegalActionError`` if it is not legal)."""
        self._actions[self.index] = int(action)
        self.games.step(self._actions, self._one)

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        """A new game in this slot (``seed``: the env's game after ``reset(seed=seed)``)."""
        self.games.reset_game(self.index, seed)
