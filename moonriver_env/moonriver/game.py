"""Moon River's one entry in the game registry (:mod:`moonriver_env.games`): importing this
module registers the game. Everything a generic layer needs of Moon River is read from here."""

from __future__ import annotations

from typing import Any

from moonriver_env.family.contract import DEFAULT_MODE
from moonriver_env.games import GameEntry, GameSpec, register_game
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules.config import MODES, PLAYER_COUNTS, SCENARIOS, GameConfig

__all__ = ["BENCH_MC_AGENT", "BENCH_MODES", "ENTRY"]

BENCH_MODES = tuple(f"{n}p_{m}" for m in MODES for n in PLAYER_COUNTS)
"""The modes ``python -m moonriver_env.bench`` times by default (its ``bench_modes`` hook):
every player count and mode, ``"2p_base"`` ... ``"4p_legends"``."""
BENCH_MC_AGENT = "mc:sims=64"
"""The agent whose decisions ``python -m moonriver_env.bench_vector`` times with native and
with Python simulations (its ``bench_mc_agent`` hook)."""


def _observation_size(config: GameConfig) -> int:
    return ObservationEncoder(config).flat_size


def _config(spec: GameSpec, **overrides: Any) -> GameConfig:
    return GameConfig(
        num_players=spec.num_players,
        mode=spec.mode,
        scenario=spec.scenario,
        auto_resolve=spec.auto_resolve,
        **overrides,
    )


def _check_settings(spec: GameSpec) -> None:
    if spec.scenario is not None and spec.scenario not in (*SCENARIOS, "random"):
        raise ValueError(
            f"scenario: expected one of {SCENARIOS}, 'random' or None, got {spec.scenario!r}"
        )
    if spec.scenario is not None and spec.mode == DEFAULT_MODE:
        raise ValueError(f"scenario: the base game has no scenario (got {spec.scenario!r})")


ENTRY = register_game(
    GameEntry(
        name="moonriver",
        title="Moon River",
        config_class=GameConfig,
        player_counts=PLAYER_COUNTS,
        modes=MODES,
        settings=("scenario", "auto_resolve"),
        check_settings=_check_settings,
        make_config=_config,
        observation_size=_observation_size,
        env_entry_point="moonriver_env.moonriver.env:raw_env",
        gymnasium_id="MoonRiver-v0",
        single_agent_entry_point="moonriver_env.single_agent:SingleAgentEnv",
        hooks={
            "new_game": "moonriver_env.moonriver.rules:new_game",
            "native_state": "moonriver_env.moonriver.vector.search:NativeState",
            "bench_modes": "moonriver_env.moonriver.game:BENCH_MODES",
            "bench_mc_agent": "moonriver_env.moonriver.game:BENCH_MC_AGENT",
            "vector_game": "moonriver_env.moonriver.vector.game:VectorGame",
            "openspiel": "moonriver_env.moonriver.openspiel:GAME_NAME",
            "records": "moonriver_env.moonriver.records:RECORDS",
            "play": "moonriver_env.moonriver.play:SCREEN",
            "replay": "moonriver_env.moonriver.replay:REPLAY",
            "render": "moonriver_env.moonriver.render:render_rgb",
            "board": "moonriver_env.moonriver.board:BOARD",
            "encoder": "moonriver_env.moonriver.encoding:ObservationEncoder",
            "agents": "moonriver_env.moonriver.agents:AGENTS",
            "strongest": "moonriver_env.moonriver.agents:STRONGEST",
            "az_teacher": "moonriver_env.moonriver.agents.heuristic:core_teacher",
            "scenarios": "moonriver_env.moonriver.rules.config:SCENARIOS",
        },
    )
)
