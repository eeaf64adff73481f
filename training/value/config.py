"""Configuration of a value-learning run: a TOML file over ``configs/default.toml`` (every key's
default), every key validated.

``training/value/configs/value_2p_base.toml`` documents every key. Errors are
:class:`training.common.config.ConfigError` naming the dotted key, as for the PPO configs.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from moonriver_env.games import game_entry
from training.common import config as checks
from training.common.config import Config, ConfigError, Schema, dumps, read_toml

DEFAULTS_FILE = Path(__file__).resolve().parent / "configs" / "default.toml"
"""Every key's default value, documented (the project's rule: defaults live in TOML)."""
DEPRECATED_SECTIONS = {"game": "env"}
"""Older section names, read with a ``DeprecationWarning`` (models exported before the
pipelines shared the ``[env]`` section say ``[game]``)."""


def _read(path: Path) -> dict[str, Any]:
    data = read_toml(path)
    for old, new in DEPRECATED_SECTIONS.items():
        if old in data:
            if new in data:
                raise ConfigError(f"{old}: {path} has both [{old}] and [{new}]; keep [{new}]")
            warnings.warn(
                f"{path}: section [{old}] is now called [{new}]", DeprecationWarning, stacklevel=3
            )
            data[new] = data.pop(old)
    return data


SCHEMA: dict[str, dict[str, Any]] = {
    "run": {
        "seed": checks.integer(0),
        "workers": checks.integer(1, 2),
        "torch_threads": checks.integer(0),
    },
    "env": {
        "num_players": checks.choice(*game_entry("moonriver").player_counts),
        "mode": checks.choice(*game_entry("moonriver").modes),
    },
    "collect": {
        "labels": checks.choice("rollout", "outcome"),
        "states": checks.integer(1),
        "games": checks.integer(1),
        "minutes": checks.number(0.0),
        "k": checks.integer(2),
        "rounds": checks.integer(1),
        "depth": checks.integer(0),
        "explore": checks.number(0.0, 1.0),
    },
    "model": {"hidden": checks.int_list(1), "dropout": checks.number(0.0, 0.9)},
    "train": {
        "epochs": checks.integer(1),
        "batch_size": checks.integer(1),
        "learning_rate": checks.number(0.0, open_lo=True),
        "weight_decay": checks.number(0.0),
        "holdout_fraction": checks.number(0.0, 0.5),
        "max_minutes": checks.number(0.0),
        "target_scale": checks.number(0.0, open_lo=True),
    },
    "search": {
        "k": checks.integer(1),
        "rounds": checks.integer(0),
        "depth": checks.integer(0),
        "prior_weight": checks.number(),
        "tune_prior_weight": checks.flag,
        "leader_weight": checks.number(),
        "win_scale": checks.number(0.0),
    },
    "eval": {
        "games": checks.integer(0),
        "opponent": checks.choice("heuristic", "greedy", "random"),
    },
}

__all__ = ["DEFAULTS_FILE", "SCHEMA", "VALUE", "ConfigError", "dumps", "load_value_config"]


def _cross_check(cfg: Config) -> None:
    if cfg["search"]["k"] > cfg["collect"]["k"]:
        raise ConfigError(
            f"search.k: expected at most collect.k ({cfg['collect']['k']}), got {cfg['search']['k']}"
        )


VALUE = Schema(SCHEMA, DEFAULTS_FILE, _cross_check, read=_read)
"""The value pipeline's configs (``python -m training.value.train``)."""


def load_value_config(path: str | Path | None = None, overrides: tuple[str, ...] = ()) -> Config:
    """Defaults <- the TOML file <- ``section.key=value`` overrides, every key checked."""
    return VALUE.load(path, overrides)
