"""In-process self-play on the native core: :class:`NativeSelfPlayGames` is
:class:`~training.ppo.selfplay_vec.SelfPlayGames` with its games in one
:class:`~moonriver_env.vector.VectorGame` (``run.vec_env = "selfplay"`` uses it when the core
is built). The seats, seeds, rewards, samples and infos are those of ``SelfPlayGames`` (the
same games from the same seeds: ``tests/vector/test_selfplay_native.py``); the rules, masks and
observations run in C, baseline opponents read each game as a ``GameState``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.moonriver.rules import ScoreBreakdown
from moonriver_env.moonriver.vector.slot import SlotEnv
from moonriver_env.vector import VectorGame

from .selfplay_vec import SelfPlayGames

__all__ = ["NativeSelfPlayGames"]


class NativeSelfPlayGames(SelfPlayGames):
    """``SelfPlayGames`` whose ``n_games`` games live in the native core."""

    def __init__(self, n_games: int, *args: Any, **kwargs: Any) -> None:
        """The arguments of :class:`SelfPlayGames`; its games then move into the core."""
        super().__init__(n_games, *args, **kwargs)
        names = self.games[0].aec.possible_agents
        self.vector = VectorGame(num_games=n_games, seed=0, backend="native", **self.env_kwargs)
        for g, game in enumerate(self.games):
            game.aec = SlotEnv(self.vector, g, names)  # type: ignore[assignment]

    # -- the games, read from the core's arrays ----------------------------------------------
    def acting_seat(self, g: int) -> int:
        return int(self.vector.current_seat[g])

    def observation(self, g: int, seat: int | None = None) -> np.ndarray:
        if seat is None or seat == self.acting_seat(g):
            assert self.vector.observation is not None
            return self.vector.observation[g].copy()
        return self.vector.observation_of(g, seat)

    def legal_actions(self, g: int) -> list[int]:
        return self.vector.legal_ids[g, : self.vector.num_legal[g]].tolist()

    def _ended(self, g: int) -> bool:
        """Read from the core, which has already dealt the slot's next game (``_new_game``
        then seeds it as ``SelfPlayGames`` does)."""
        return bool(self.vector.terminated[g])

    def _finished_scores(self, g: int) -> list[ScoreBreakdown]:
        return [ScoreBreakdown(*row) for row in self.vector.scores[g].tolist()]
