"""``vector_game(spec, ...)``: the batched game of a :class:`~moonriver_env.games.GameSpec`
(or its text, ``"kingdomino_4p_harmony+must_place"``): a :class:`~.game.VectorGame` for
Moon River, a :class:`~.kingdomino.KingdominoVectorGame` for Kingdomino."""

from __future__ import annotations

from typing import Any

from ..games import GameSpec, parse_game
from .game import VectorGame
from .kingdomino import KingdominoVectorGame

__all__ = ["vector_game"]


def vector_game(
    spec: GameSpec | str, num_games: int = 1024, **kwargs: Any
) -> VectorGame | KingdominoVectorGame:
    """The spec's game, ``num_games`` of it; ``kwargs``: the class's other arguments
    (``seed``, ``observe``, ``auto_reset``, ``reward``, ...)."""
    if isinstance(spec, str):
        spec = parse_game(spec)
    if not isinstance(spec, GameSpec):
        raise TypeError(f"spec: expected a GameSpec or its text, got {type(spec).__name__}")
    if spec.game == "kingdomino":
        return KingdominoVectorGame(
            num_games, num_players=spec.num_players, mode=spec.mode, **kwargs
        )
    settings = {name: getattr(spec, name) for name in spec.entry.settings}
    return VectorGame(num_games, num_players=spec.num_players, mode=spec.mode, **settings, **kwargs)
