"""The games a replay can show, by name: one :class:`~agents.replay.model.ReplayGame` each
(a move list names its game)."""

from __future__ import annotations

from .kingdomino import KingdominoReplay
from .model import MoonRiverReplay, ReplayGame

GAMES: dict[str, ReplayGame] = {"moonriver": MoonRiverReplay(), "kingdomino": KingdominoReplay()}
