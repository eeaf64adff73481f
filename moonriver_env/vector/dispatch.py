"""``vector_game(spec, ...)``: the batched game of a :class:`~moonriver_env.games.GameSpec`
(or its text, ``"kingdomino_4p_harmony+must_place"``): the class its game registers as its
``vector_game`` hook."""

from __future__ import annotations

from typing import Any

from moonriver_env.games import GameSpec, parse_game

__all__ = ["NoVectorGame", "vector_game"]


class NoVectorGame(ValueError):
    """The game registers no batched form (no ``vector_game`` hook: a game without a native
    core); a ``ValueError`` whose message starts with ``game``."""


def vector_game(spec: GameSpec | str, num_games: int = 1024, **kwargs: Any) -> Any:
    """The spec's game, ``num_games`` of it; ``kwargs``: the class's other arguments
    (``seed``, ``observe``, ``auto_reset``, ``reward``, ...). :class:`NoVectorGame` for a game
    with no batched form."""
    if isinstance(spec, str):
        spec = parse_game(spec)
    if not isinstance(spec, GameSpec):
        raise TypeError(f"spec: expected a GameSpec or its text, got {type(spec).__name__}")
    factory = spec.entry.hook("vector_game")
    if factory is None:
        raise NoVectorGame(f"game: {spec.entry.title} has no batched game (no native core)")
    settings = {name: getattr(spec, name) for name in spec.entry.settings}
    return factory(num_games, num_players=spec.num_players, mode=spec.mode, **settings, **kwargs)
