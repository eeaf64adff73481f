"""The Kingdomino environments' game arguments and win rewards, without any RL library: read by
the PettingZoo env (:mod:`moonriver_env.kingdomino_v0`), the OpenSpiel game and the native
core's batched game (:mod:`moonriver_env.kingdomino.vector.game`), which must not need gymnasium."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from moonriver_env.kingdomino import KingdominoConfig
from moonriver_env.seat_rewards import rank_rewards

__all__ = ["game_config", "rank_rewards"]


def game_config(
    num_players: Any, variants: Any, config: KingdominoConfig | None
) -> KingdominoConfig:
    """The game from the constructor's arguments: ``config``, or ``num_players`` (default 4)
    and ``variants``; a game argument that contradicts ``config`` raises ``ValueError``."""
    if config is None:
        return KingdominoConfig(2 if num_players is None else num_players, variants or ())
    if not isinstance(config, KingdominoConfig):
        raise TypeError(f"config: expected a KingdominoConfig or None, got {type(config).__name__}")
    if num_players is not None and num_players != config.num_players:
        raise ValueError(
            f"num_players={num_players!r} contradicts config.num_players={config.num_players}: "
            "give the game either by config or by num_players, not both"
        )
    if variants is not None and KingdominoConfig(config.num_players, variants) != config:
        raise ValueError(
            f"variants={variants!r} contradicts config.variants={config.variants!r}: "
            "give the game either by config or by variants, not both"
        )
    return config


def dense_gains(points: Sequence[int], before: Sequence[int]) -> list[int]:
    """Each seat's change of points since ``before``: what ``dense_reward`` weighs, in the env
    and the vector game alike."""
    return [int(p) - int(b) for p, b in zip(points, before, strict=True)]
