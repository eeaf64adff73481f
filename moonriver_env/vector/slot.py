"""One game of a batched game (any game's ``vector_game``) seen as a PettingZoo-like env.

:class:`SlotEnv` gives the parts of a game's ``raw_env`` surface that the agents read
(``state``, ``observe``, ``step``, ``rewards``, ``possible_agents``, ``reset``, ``encoder``),
over slot ``i`` of a vector game, so that code written for an env can run its game in the core.
``state`` is a fresh copy of the engine's state at every read (agents decide on it); stepping
goes through the vector game (only this slot plays). The game's encoder is its registry entry's
``encoder`` hook.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.games import config_entry

__all__ = ["SlotEnv"]


class SlotEnv:
    """Slot ``index`` of ``games`` (a game's vector game) with agent names
    ``possible_agents`` (the env's)."""

    def __init__(self, games: Any, index: int, possible_agents: list[str]) -> None:
        self.games = games
        self.index = index
        self.config = games.config
        self.possible_agents = list(possible_agents)
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        self._one = np.zeros(games.num_games, dtype=bool)
        self._one[index] = True
        self._actions = np.zeros(games.num_games, dtype=np.int64)
        self._encoder: Any = None

    @property
    def unwrapped(self) -> SlotEnv:
        return self

    @property
    def encoder(self) -> Any:
        """The game's encoder of this config (its entry's ``encoder`` hook), for code that
        encodes a ``state`` itself."""
        if self._encoder is None:
            entry = config_entry(self.config)
            make = None if entry is None else entry.hook("encoder")
            if make is None:
                raise AttributeError(f"encoder: no registered encoder for {self.config!r}")
            self._encoder = make(self.config)
        return self._encoder

    @property
    def state(self) -> Any:
        """The game's engine state (a copy)."""
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
        """Play ``action`` for the seat to act (the game's ``IllegalActionError`` if it is
        not legal)."""
        self._actions[self.index] = int(action)
        self.games.step(self._actions, self._one)

    def reset(self, seed: int | None = None, options: Any = None) -> None:
        """A new game in this slot (``seed``: the env's game after ``reset(seed=seed)``)."""
        self.games.reset_game(self.index, seed)
