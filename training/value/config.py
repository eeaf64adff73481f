"""Configuration of a value-learning run: TOML over built-in defaults, every key validated.

``training/configs/value_2p_base.toml`` documents every key. Errors are
:class:`training.config.ConfigError` naming the dotted key, as for the PPO configs.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

from training.config import (
    Config,
    ConfigError,
    _bool,
    _choice,
    _float,
    _int,
    _int_list,
    dumps,
    parse_override,
)

DEFAULTS: Config = {
    "run": {"seed": 0, "workers": 2, "torch_threads": 1},
    "game": {"num_players": 2, "mode": "base"},
    "collect": {
        "labels": "rollout",
        "states": 48,
        "games": 400,
        "minutes": 0.0,
        "k": 6,
        "rounds": 6,
        "depth": 16,
        "explore": 0.1,
    },
    "model": {"hidden": [256, 256], "dropout": 0.0},
    "train": {
        "epochs": 8,
        "batch_size": 256,
        "learning_rate": 1e-3,
        "weight_decay": 1e-4,
        "holdout_fraction": 0.1,
        "max_minutes": 30.0,
        "target_scale": 20.0,
    },
    "search": {
        "k": 6,
        "rounds": 0,
        "depth": 8,
        "prior_weight": 0.0,
        "tune_prior_weight": True,
        "leader_weight": 0.0,
        "win_scale": 0.0,
    },
    "eval": {"games": 100, "opponent": "heuristic"},
}

SCHEMA: dict[str, dict[str, Any]] = {
    "run": {"seed": _int(0), "workers": _int(1, 2), "torch_threads": _int(0)},
    "game": {"num_players": _choice(2, 3, 4), "mode": _choice("base", "legends")},
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

__all__ = ["DEFAULTS", "SCHEMA", "ConfigError", "dumps", "load_value_config"]


def load_value_config(path: str | Path | None = None, overrides: tuple[str, ...] = ()) -> Config:
    """Defaults <- the TOML file <- ``section.key=value`` overrides, every key checked."""
    cfg = copy.deepcopy(DEFAULTS)
    updates: list[tuple[str, str, Any, str]] = []
    if path is not None:
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text())
        except FileNotFoundError:
            raise ConfigError(f"config: no file {str(p)!r}") from None
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"config: {p}: {e}") from None
        for section, values in data.items():
            if section not in SCHEMA or not isinstance(values, dict):
                raise ConfigError(f"{section}: unknown section in {p} (known: {sorted(SCHEMA)})")
            updates += [(section, k, v, str(p)) for k, v in values.items()]
    updates += [(*parse_override(item), "--set") for item in overrides]
    for section, key, value, source in updates:
        if section not in SCHEMA:
            raise ConfigError(f"{section}: unknown section in {source} (known: {sorted(SCHEMA)})")
        if key not in SCHEMA[section]:
            known = sorted(SCHEMA[section])
            raise ConfigError(f"{section}.{key}: unknown key in {source} (known: {known})")
        cfg[section][key] = value
    for section, checks in SCHEMA.items():
        for key, check in checks.items():
            cfg[section][key] = check(cfg[section][key], f"{section}.{key}")
    if cfg["search"]["k"] > cfg["collect"]["k"]:
        raise ConfigError(
            f"search.k: expected at most collect.k ({cfg['collect']['k']}), got {cfg['search']['k']}"
        )
    return cfg
