"""Kingdomino's one entry in the game registry (:mod:`moonriver_env.games`): importing this
module registers the game. Everything a generic layer needs of Kingdomino is read from here."""

from __future__ import annotations

from typing import Any

from moonriver_env.family.contract import DEFAULT_MODE
from moonriver_env.games import GameEntry, GameSpec, register_game
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.rules.config import (
    PLAYER_COUNTS,
    VARIANTS,
    KingdominoConfig,
    parse_variants,
)

__all__ = ["ENTRY"]


def _observation_size(config: KingdominoConfig) -> int:
    return KingdominoEncoder(config).size


def _mode(mode: str) -> str:
    """``"base"``, or the variants joined with ``+`` in sorted order (one game, one text);
    ``ValueError`` starting with ``"mode"`` for an unknown or repeated variant."""
    if mode == DEFAULT_MODE:
        return mode
    try:
        names = parse_variants(mode.replace("+", ","))
    except ValueError as exc:
        raise ValueError(f"mode: {exc}") from None
    if not names:
        raise ValueError(f"mode: expected 'base' or variants joined with '+', got {mode!r}")
    return "+".join(sorted(names))


def _config(spec: GameSpec, **overrides: Any) -> KingdominoConfig:
    variants = () if spec.mode == DEFAULT_MODE else tuple(spec.mode.split("+"))
    return KingdominoConfig(num_players=spec.num_players, variants=variants, **overrides)


ENTRY = register_game(
    GameEntry(
        name="kingdomino",
        title="Kingdomino",
        config_class=KingdominoConfig,
        player_counts=PLAYER_COUNTS,
        modes=(DEFAULT_MODE, *VARIANTS),
        check_mode=_mode,
        make_config=_config,
        observation_size=_observation_size,
        env_entry_point="moonriver_env.kingdomino.env:raw_env",
        gymnasium_id="Kingdomino-v0",
        hooks={
            "vector_game": "moonriver_env.kingdomino.vector.game:KingdominoVectorGame",
            "openspiel": "moonriver_env.kingdomino.openspiel:GAME_NAME",
            "encoder": "moonriver_env.kingdomino.encoding:KingdominoEncoder",
            "agents": "moonriver_env.kingdomino.agents:AGENTS",
        },
    )
)
