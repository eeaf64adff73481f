"""Kingdomino as an OpenSpiel game: ``import moonriver_env.kingdomino.openspiel`` registers
``"python_kingdomino"`` with pyspiel (the ``openspiel`` extra)::

    import pyspiel
    import moonriver_env.kingdomino.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_kingdomino", {"players": 4, "variants": "must_place+harmony"})
    state = game.new_initial_state()

Parameters: ``players`` (2-4, default 2, the project's default) and ``variants`` (joined with ``+``, e.g.
``"must_place+harmony+middle_kingdom"``, default none: OpenSpiel's game strings split
parameters at commas).

The king order of the set-up and every domino of every line are explicit chance nodes
(:mod:`.kingdomino.chance`) with exact probabilities; the undrawn dominoes are an unordered
pool, so the game has perfect information with chance. Observation and information-state
tensors are the environment's encoding (:mod:`.encoding`) from the player's seat.
``current_player`` follows the engine: a seat places, then picks. Returns come at the end:
the env's ``"win"`` rewards (:func:`.kingdomino_v0.rank_rewards`, in ``[-1, 1]``, summing to
0). Player actions are the engine's action ids; chance outcomes are seats (the set-up order)
or domino indices (number - 1).
"""

from __future__ import annotations

from typing import Any

import pyspiel

from moonriver_env.kingdomino import KingdominoConfig
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.render import render_text
from moonriver_env.kingdomino.rules.chance import SEAT, ChanceKingdominoState, new_chance_game
from moonriver_env.kingdomino.rules.components import NUM_DOMINOES
from moonriver_env.kingdomino.rules.state import DOMINOES
from moonriver_env.kingdomino_v0 import rank_rewards
from moonriver_env.openspiel_base import EngineObserver, EngineSpielState, game_info, game_type

__all__ = ["GAME_NAME", "KingdominoGame", "KingdominoSpielState"]

GAME_NAME = "python_kingdomino"
_DEFAULTS: dict[str, Any] = {"players": 2, "variants": ""}

_GAME_TYPE = game_type(GAME_NAME, "Python Kingdomino", _DEFAULTS)


class KingdominoGame(pyspiel.Game):
    """The pyspiel game; ``pyspiel.load_game("python_kingdomino", {...})`` makes one."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        # "+" joins the variants (OpenSpiel's game strings split parameters at commas)
        self.config = KingdominoConfig(int(p["players"]), str(p["variants"]).replace("+", ","))
        self.encoder = KingdominoEncoder(self.config)
        info = game_info(self.config, NUM_DOMINOES, self.config.max_game_length)
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> KingdominoSpielState:
        """The game before its first chance event."""
        return KingdominoSpielState(self)

    def max_chance_nodes_in_history(self) -> int:
        cfg = self.config
        seats = 1 if cfg.num_players == 2 else cfg.num_players
        return (seats + cfg.dominoes_in_play) * cfg.num_games

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> EngineObserver:
        """Perfect information: every observation type is the table from a seat."""
        return EngineObserver(self.encoder, params)


class KingdominoSpielState(EngineSpielState):
    """A pyspiel state around a :class:`~.kingdomino.chance.ChanceKingdominoState`."""

    def __init__(self, game: KingdominoGame, engine: ChanceKingdominoState | None = None) -> None:
        super().__init__(game, new_chance_game(game.config) if engine is None else engine)

    def _chance_text(self, outcome: int) -> str:
        s = self.engine
        if s.pending and s.pending[0] == SEAT:
            return f"seat {outcome}"
        return f"draw {DOMINOES[outcome].text()}" if 0 <= outcome < NUM_DOMINOES else str(outcome)

    def _final_returns(self, engine: ChanceKingdominoState) -> list[float]:
        return rank_rewards(engine.rank_keys())

    def _text(self, engine: ChanceKingdominoState) -> str:
        return state_text(engine)

    def __deepcopy__(self, memo: dict[int, Any]) -> KingdominoSpielState:
        return KingdominoSpielState(self.get_game(), self.engine.clone())


def state_text(state: ChanceKingdominoState) -> str:
    """The whole table as text, with the pending chance events."""
    return f"pending={state.pending}\n" + render_text(state)


pyspiel.register_game(_GAME_TYPE, KingdominoGame)
