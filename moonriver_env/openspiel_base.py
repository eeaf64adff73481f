"""What the OpenSpiel games of the two games share (the ``openspiel`` extra): the game type
of a sequential zero-sum game with explicit chance and perfect information, its game info,
a pyspiel state around a game engine with explicit chance nodes (``.engine``) and the
observer that writes the project's encoding.

Moon River (:mod:`moonriver_env.moonriver.openspiel`) and Kingdomino
(:mod:`moonriver_env.kingdomino.openspiel`) subclass :class:`EngineSpielState` and say how a
chance outcome reads, what the returns are and the text of a state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

__all__ = ["EngineObserver", "EngineSpielState", "game_info", "game_type"]


def game_type(short_name: str, long_name: str, parameters: dict[str, Any]) -> pyspiel.GameType:
    """The game type of both games: sequential, explicit chance, perfect information,
    zero-sum, rewards at the end, 2-4 players, every observation kind provided."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
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
        parameter_specification=parameters,
    )


def game_info(config: Any, max_chance_outcomes: int, max_game_length: int) -> pyspiel.GameInfo:
    """The game info of a config (``num_actions``, ``num_players``): returns in ``[-1, 1]``
    summing to 0 (the envs' ``"win"`` rewards)."""
    return pyspiel.GameInfo(
        num_distinct_actions=config.num_actions,
        max_chance_outcomes=max_chance_outcomes,
        num_players=config.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=max_game_length,
    )


class EngineSpielState(pyspiel.State):
    """A pyspiel state around an engine state with explicit chance (``.engine``: ``pending``
    chance events, ``chance_outcomes()``, ``apply_chance()``, and the engine's decision API).
    ``engine`` is its only Python attribute: pyspiel clones it and serializes it through it.
    """

    def __init__(self, game: pyspiel.Game, engine: Any) -> None:
        super().__init__(game)
        self.engine = engine

    def current_player(self) -> int:
        s = self.engine
        if s.pending:
            return int(pyspiel.PlayerId.CHANCE)
        if s.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return int(s.current_seat)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.engine.legal_action_list()) if player == self.engine.current_seat else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes: list[tuple[int, float]] = self.engine.chance_outcomes()
        return outcomes

    def _apply_action(self, action: int) -> None:
        if self.engine.pending:
            self.engine.apply_chance(action)
        else:
            self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self._chance_text(action)
        text: str = self.engine.action_to_string(action)
        return text

    def is_terminal(self) -> bool:
        return bool(self.engine.is_terminal)

    def returns(self) -> list[float]:
        s = self.engine
        if not s.is_terminal:
            return [0.0] * s.config.num_players
        return self._final_returns(s)

    def __str__(self) -> str:
        return self._text(self.engine)

    # -- the game's part ---------------------------------------------------------------------
    def _chance_text(self, outcome: int) -> str:
        """The text of a chance outcome of the pending event."""
        raise NotImplementedError

    def _final_returns(self, engine: Any) -> list[float]:
        """The returns of the finished game (the env's ``"win"`` rewards)."""
        raise NotImplementedError

    def _text(self, engine: Any) -> str:
        """The whole state as text (observation and information-state strings)."""
        raise NotImplementedError


class EngineObserver:
    """OpenSpiel's PyObserver: ``tensor`` is the flat encoding from a seat; ``dict`` names
    its views (an encoder of planes and features, ``plane_high`` and ``feature_high``: the
    two; any other :class:`~moonriver_env.family.contract.EncoderLike` of ``size`` floats:
    ``"observation"``, the whole); the string is the state's text."""

    def __init__(self, encoder: Any, params: dict[str, Any] | None, size: int = 0) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.encoder = encoder
        if not hasattr(encoder, "plane_high"):  # one flat vector
            self.tensor = np.zeros(size, np.float32)
            self.dict = {"observation": self.tensor}
            return
        planes = encoder.plane_high.shape
        cut = int(np.prod(planes))
        self.tensor = np.zeros(cut + encoder.feature_high.size, np.float32)
        self.dict = {"planes": self.tensor[:cut].reshape(planes), "features": self.tensor[cut:]}

    def set_from(self, state: EngineSpielState, player: int) -> None:
        self.tensor[:] = self.encoder.encode_flat(state.engine, player)

    def string_from(self, state: EngineSpielState, player: int) -> str:
        return str(state)
