"""OpenSpiel's MCTS (``open_spiel.python.algorithms.mcts.MCTSBot`` with random rollouts) on
the ``python_moonriver`` game (:mod:`moonriver_env.moonriver.openspiel`; the ``openspiel`` extra).

The search starts from the table as it stands with the undrawn plots and tokens as chance
nodes (:func:`moonriver_env.moonriver.rules.chance.chance_view`): it never sees the order of the pile
or the stack, and it needs no determinization. OpenSpiel and pyspiel are imported on the
first decision, so the registry lists this agent without the extra installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from moonriver_env.moonriver.rules import GameState


class OpenSpielMCTSAgent(Agent):
    """UCT with ``sims`` simulations per decision, each ending in ``rollouts`` uniformly
    random playouts to the end of the game (OpenSpiel's ``RandomRolloutEvaluator``).

    A playout through pyspiel costs about 15-20 ms, so the default ``sims=2`` plays a game
    in seconds; strength needs far more (e.g. ``openspiel_mcts:sims=200``)."""

    name = "openspiel_mcts"

    def __init__(
        self, seed: int | None = None, sims: int = 2, c: float = 2.0, rollouts: int = 1
    ) -> None:
        super().__init__(seed)
        if sims < 2 or rollouts < 1:
            raise ValueError(
                f"sims, rollouts: expected >= 2 (the first only expands the root) and >= 1, got {sims}, {rollouts}"
            )
        self.sims = sims
        self.c = c
        self.rollouts = rollouts
        self._games: dict[tuple[int, str], Any] = {}

    def choose(self, state: GameState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        import pyspiel
        from open_spiel.python.algorithms import mcts

        from moonriver_env.moonriver.openspiel import GAME_NAME, openspiel_state

        key = (state.config.num_players, state.config.mode)
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = pyspiel.load_game(
                GAME_NAME, {"players": key[0], "mode": key[1]}
            )
        rs = np.random.RandomState(int(self.rng.integers(2**31)))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, rs)
        bot = mcts.MCTSBot(game, self.c, self.sims, evaluator, random_state=rs)
        return int(bot.step(openspiel_state(game, state)))
