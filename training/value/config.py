"""Configuration of a value-learning run: a TOML file over ``configs/default.toml`` (every key's
default), every key validated.

``training/value/configs/value_2p_base.toml`` documents every key. Errors are
:class:`training.common.config.ConfigError` naming the dotted key, as for the PPO configs.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from moonriver_env.games import MOONRIVER
from training.common.config import (
    Config,
    ConfigError,
    Schema,
    _bool,
    _choice,
    _float,
    _int,
    _int_list,
    dumps,
    read_toml,
)

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
    "run": {"seed": _int(0), "workers": _int(1, 2), "torch_threads": _int(0)},
    "env": {"num_players": _choice(*MOONRIVER.player_counts), "mode": _choice(*MOONRIVER.modes)},
    "collect": {
        "labels": _choice("rollout", "outcome"),
        "states": _int(1),
        "games": _int(1),
        "minutes": _float(0.0),
        "k": _int(2),
        "rounds": _int(1),
        "depth": _int(0),
        "explore": _float(0.0, 1.0),
    },
    "model": {"hidden": _int_list(1), "dropout": _float(0.0, 0.9)},
    "train": {
        "epochs": _int(1),
        "batch_size": _int(1),
        "learning_rate": _float(0.0, open_lo=True),
        "weight_decay": _float(0.0),
        "holdout_fraction": _float(0.0, 0.5),
        "max_minutes": _float(0.0),
        "target_scale": _float(0.0, open_lo=True),
    },
    "search": {
        "k": _int(1),
        "rounds": _int(0),
        "depth": _int(0),
        "prior_weight": _float(),
        "tune_prior_weight": _bool,
        "leader_weight": _float(),
        "win_scale": _float(0.0),
    },
    "eval": {"games": _int(0), "opponent": _choice("heuristic", "greedy", "random")},
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
