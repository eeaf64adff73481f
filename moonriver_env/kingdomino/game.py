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

__all__ = ["BENCH_MODES", "BENCH_PLAYOUTS", "ENTRY"]

BENCH_MODES = (
    "kingdomino_2p_base",
    "kingdomino_3p_base",
    "kingdomino_4p_base",
    "kingdomino_4p_harmony+middle_kingdom+must_place",
    "kingdomino_2p_mighty_duel",
)
"""The modes ``python -m moonriver_env.bench --game kingdomino`` times (its ``bench_modes``
hook; the 4-player one: the CIG 2018 rules)."""
BENCH_PLAYOUTS = ("random", "greedy")
"""The native playout policies ``python -m moonriver_env.bench_vector --game kingdomino``
times from the set-up to the end (its ``bench_playouts`` hook: the ``mc`` agent's rollouts)."""


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
        single_agent_entry_point="moonriver_env.kingdomino.env:SingleAgentEnv",
        hooks={
            "new_game": "moonriver_env.kingdomino:new_game",
            "native_state": "moonriver_env.kingdomino.vector.search:NativeKingdominoState",
            "bench_modes": "moonriver_env.kingdomino.game:BENCH_MODES",
            "bench_playouts": "moonriver_env.kingdomino.game:BENCH_PLAYOUTS",
            "vector_game": "moonriver_env.kingdomino.vector.game:KingdominoVectorGame",
            "openspiel": "moonriver_env.kingdomino.openspiel:GAME_NAME",
            "records": "moonriver_env.kingdomino.records:RECORDS",
            "play": "moonriver_env.kingdomino.play:SCREEN",
            "replay": "moonriver_env.kingdomino.replay:REPLAY",
            "board": "moonriver_env.kingdomino.board:BOARD",
            "encoder": "moonriver_env.kingdomino.encoding:KingdominoEncoder",
            "az_teacher": "moonriver_env.kingdomino.agents.greedy:core_teacher",
            "agents": "moonriver_env.kingdomino.agents:AGENTS",
            "strongest": "moonriver_env.kingdomino.agents:STRONGEST",
        },
    )
)
