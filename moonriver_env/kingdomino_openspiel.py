"""Kingdomino as an OpenSpiel game: ``import moonriver_env.kingdomino_openspiel`` registers
``"python_kingdomino"`` with pyspiel (the ``openspiel`` extra)::

    import pyspiel
    import moonriver_env.kingdomino_openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_kingdomino", {"players": 4, "variants": "must_place+harmony"})
    state = game.new_initial_state()

Parameters: ``players`` (2-4, default 2, the project's default) and ``variants`` (joined with ``+``, e.g.
``"must_place+harmony+middle_kingdom"``, default none: OpenSpiel's game strings split
parameters at commas).

The king order of the set-up and every domino of every line are explicit chance nodes
(:mod:`.kingdomino.chance`) with exact probabilities; the undrawn dominoes are an unordered
pool, so the game has perfect information with chance. Observation and information-state
tensors are the environment's encoding (:mod:`.kingdomino_encoding`) from the player's seat.
``current_player`` follows the engine: a seat places, then picks. Returns come at the end:
the env's ``"win"`` rewards (:func:`.kingdomino_v0.rank_rewards`, in ``[-1, 1]``, summing to
0). Player actions are the engine's action ids; chance outcomes are seats (the set-up order)
or domino indices (number - 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from .kingdomino import KingdominoConfig
from .kingdomino.chance import SEAT, ChanceKingdominoState, new_chance_game
from .kingdomino.components import NUM_DOMINOES
from .kingdomino.state import DOMINOES
from .kingdomino_encoding import KingdominoEncoder
from .kingdomino_render import render_text
from .kingdomino_v0 import rank_rewards

__all__ = ["GAME_NAME", "KingdominoGame", "KingdominoSpielState"]

GAME_NAME = "python_kingdomino"
_DEFAULTS: dict[str, Any] = {"players": 2, "variants": ""}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Kingdomino",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


class KingdominoGame(pyspiel.Game):
    """The pyspiel game; ``pyspiel.load_game("python_kingdomino", {...})`` makes one."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        # "+" joins the variants (OpenSpiel's game strings split parameters at commas)
        self.config = KingdominoConfig(int(p["players"]), str(p["variants"]).replace("+", ","))
        self.encoder = KingdominoEncoder(self.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.config.num_actions,
            max_chance_outcomes=NUM_DOMINOES,
            num_players=self.config.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.config.max_game_length,
        )
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
    ) -> KingdominoObserver:
        """Perfect information: every observation type is the table from a seat."""
        return KingdominoObserver(self.encoder, params)


class KingdominoSpielState(pyspiel.State):
    """A pyspiel state around a :class:`~.kingdomino.chance.ChanceKingdominoState`."""

    def __init__(self, game: KingdominoGame, engine: ChanceKingdominoState | None = None) -> None:
        super().__init__(game)
        self.engine = new_chance_game(game.config) if engine is None else engine

    def current_player(self) -> int:
        s = self.engine
        if s.pending:
            return int(pyspiel.PlayerId.CHANCE)
        if s.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return s.seat

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.engine.legal_action_list()) if player == self.engine.seat else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.engine.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.engine.pending:
            self.engine.apply_chance(action)
        else:
            self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        s = self.engine
        if player == pyspiel.PlayerId.CHANCE:
            if s.pending and s.pending[0] == SEAT:
                return f"seat {action}"
            return f"draw {DOMINOES[action].text()}" if 0 <= action < NUM_DOMINOES else str(action)
        return s.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.engine.is_terminal

    def returns(self) -> list[float]:
        s = self.engine
        if not s.is_terminal:
            return [0.0] * s.config.num_players
        return rank_rewards(s.rank_keys())

    def __str__(self) -> str:
        return state_text(self.engine)

    def __deepcopy__(self, memo: dict[int, Any]) -> KingdominoSpielState:
        return KingdominoSpielState(self.get_game(), self.engine.clone())


def state_text(state: ChanceKingdominoState) -> str:
    """The whole table as text, with the pending chance events."""
    return f"pending={state.pending}\n" + render_text(state)


class KingdominoObserver:
    """OpenSpiel's PyObserver: ``tensor`` is the flat encoding from a seat."""

    def __init__(self, encoder: KingdominoEncoder, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        cut = encoder.plane_size
        self.dict = {
            "planes": self.tensor[:cut].reshape(encoder.plane_shape),
            "features": self.tensor[cut:],
        }

    def set_from(self, state: KingdominoSpielState, player: int) -> None:
        self.tensor[:] = self.encoder.encode_flat(state.engine, player)

    def string_from(self, state: KingdominoSpielState, player: int) -> str:
        return state_text(state.engine)


pyspiel.register_game(_GAME_TYPE, KingdominoGame)
