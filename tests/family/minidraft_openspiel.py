"""Mini Draft as an OpenSpiel game through :mod:`moonriver_env.openspiel_base` (its
``openspiel`` hook): ``import minidraft_openspiel`` registers ``"python_minidraft"``. The
refills are explicit chance nodes (the colour drawn, with the pile's odds)."""

from __future__ import annotations

from typing import Any

import minidraft
import pyspiel

from moonriver_env.openspiel_base import EngineObserver, EngineSpielState, game_info, game_type
from moonriver_env.seat_rewards import rank_rewards

GAME_NAME = "python_minidraft"
_GAME_TYPE = game_type(GAME_NAME, "Python Mini Draft", {"players": 2})


class MiniDraftGame(pyspiel.Game):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.config = minidraft.MiniDraftConfig(int((params or {}).get("players", 2)))
        self.encoder = minidraft.MiniDraftEncoder(self.config)
        info = game_info(self.config, minidraft.COLOURS, self.config.max_game_length)
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> MiniDraftSpielState:
        return MiniDraftSpielState(self, minidraft.new_game(self.config, 0, chance=True))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> EngineObserver:
        return EngineObserver(self.encoder, params, self.encoder.size)


class MiniDraftSpielState(EngineSpielState):
    def _chance_text(self, outcome: int) -> str:
        return f"draw {minidraft.COLOUR_NAMES[outcome]}"

    def _final_returns(self, engine: minidraft.MiniDraftState) -> list[float]:
        return rank_rewards(engine.points())

    def _text(self, engine: minidraft.MiniDraftState) -> str:
        return engine.to_json()

    def __deepcopy__(self, memo: dict[int, Any]) -> MiniDraftSpielState:
        return MiniDraftSpielState(self.get_game(), self.engine.clone())


pyspiel.register_game(_GAME_TYPE, MiniDraftGame)
