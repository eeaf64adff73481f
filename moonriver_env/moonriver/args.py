"""Moon River's environment arguments: its game arguments, their defaults, and the settings
of its environments built from them (:func:`env_settings`). What every game's environments
share (reward, observation and render modes, ``seed``, ``options``, seats) is checked by
:mod:`moonriver_env.env_checks`. Every rejection is a ``ValueError`` (a bad value) or
``TypeError`` (a bad type) whose message starts with the argument's name and says what is
allowed, raised before anything changes. No RL library is imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moonriver_env.env_checks import EnvSettings, check_env_modes
from moonriver_env.games import DEFAULT_MODE, DEFAULT_NUM_PLAYERS
from moonriver_env.moonriver.rules import GameConfig

__all__ = ["GAME_DEFAULTS", "env_settings"]

# The game arguments and their values when neither they nor ``config`` are given.
GAME_DEFAULTS: dict[str, Any] = {
    "num_players": DEFAULT_NUM_PLAYERS,
    "mode": DEFAULT_MODE,
    "scenario": None,
    "boards": None,
    "auto_resolve": False,
}


def env_settings(arguments: Mapping[str, Any]) -> EnvSettings:
    """Check the environment's arguments (``raw_env``'s keyword arguments by name; its
    signature holds their defaults) and build its
    :class:`~moonriver_env.env_checks.EnvSettings`.

    The game is given either by the game arguments (``num_players``, ``mode``, ``scenario``,
    ``boards``, ``auto_resolve``; ``None`` means the default of :data:`GAME_DEFAULTS`) or by
    ``config``; a game argument given together with a ``config`` that says otherwise raises
    ``ValueError`` naming both.
    """
    settings = check_env_modes(
        None,
        arguments["reward"],
        arguments["obs_type"],
        arguments["render_mode"],
        arguments["dense_reward"],
    )
    config = arguments["config"]
    given = {key: arguments[key] for key in GAME_DEFAULTS}
    if config is None:
        game: dict[str, Any] = {k: GAME_DEFAULTS[k] if v is None else v for k, v in given.items()}
        config = GameConfig(**game)
    elif not isinstance(config, GameConfig):
        raise TypeError(f"config: expected a GameConfig or None, got {type(config).__name__}")
    else:
        for key, value in given.items():
            if isinstance(value, list):
                value = tuple(value)
            if value is not None and value != getattr(config, key):
                raise ValueError(
                    f"{key}={value!r} contradicts config.{key}={getattr(config, key)!r}: "
                    f"give the game either by config or by {key}, not both"
                )
    return EnvSettings(
        config, settings.reward, settings.dense_reward, settings.obs_type, settings.render_mode
    )
