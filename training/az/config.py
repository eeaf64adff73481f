"""Configuration of an az run: ``training/configs/az_default.toml`` (the one home of the
defaults, every key documented there) <- a config file <- ``--set section.key=value``;
validated by the shared machinery of :mod:`training.common.config` (the :data:`AZ` schema), so an
unknown key or a bad value is a :class:`~training.common.config.ConfigError` naming the dotted key.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agents.registry import parse_spec
from training.common import config as checks
from training.common.config import Check, Config, ConfigError, Schema, check_agent_specs

from .selfplay import TEACHER_TARGETS, VALUE_TEACHERS

# The az configs live in training/configs/ (the command names
# training/configs/az_2p.toml); the other pipelines keep theirs in training/<pipeline>/configs/.
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
DEFAULT_FILE = CONFIG_DIR / "az_default.toml"

SCHEMA: dict[str, dict[str, Check]] = {
    "env": {"num_players": checks.integer(2, 4), "mode": checks.choice("base")},
    "net": {
        "channels": checks.integer(1, 512),
        "blocks": checks.integer(0, 32),
        "broadcast": checks.integer(1, 256),
        "global_dim": checks.integer(1, 2048),
        "query_hidden": checks.integer(1, 1024),
        "value_hidden": checks.integer(1, 2048),
    },
    "search": {
        "sims": checks.integer(1),
        "fast_sims": checks.integer(0),
        "full_fraction": checks.number(0.0, 1.0),
        "k": checks.integer(1),
        "gumbel_scale": checks.number(0.0),
        "c_visit": checks.number(0.0),
        "c_scale": checks.number(0.0),
        "margin_weight": checks.number(0.0),
        "rescale": checks.flag,
        "play_sims": checks.integer(0),
    },
    "selfplay": {
        "games": checks.integer(1),
        "batch": checks.integer(1),
        "workers": checks.integer(1, 64),
    },
    "warmstart": {
        "games": checks.integer(0),
        "teacher": checks.string,
        "explore": checks.number(0.0, 1.0),
        "epochs": checks.number(0.0),
        "reuse": checks.string,
        "target": checks.choice(*TEACHER_TARGETS),
        "temperature": checks.number(0.0, open_lo=True),
        "keep": checks.number(0.0, 1.0, open_lo=True),
        "save_every": checks.integer(0),
        "init": checks.string,
    },
    "replay": {"window": checks.integer(1), "teacher_fraction": checks.number(0.0, 1.0)},
    "train": {
        "batch_size": checks.integer(1),
        "learning_rate": checks.number(0.0, open_lo=True),
        "weight_decay": checks.number(0.0),
        "sample_reuse": checks.number(0.0, open_lo=True),
        "value_weight": checks.number(0.0),
        "margin_loss": checks.number(0.0),
    },
    "run": {
        "seed": checks.integer(0),
        "iterations": checks.integer(0),
        "max_minutes": checks.number(0.0),
        "torch_threads": checks.integer(1, 64),
        "device": checks.choice("cpu", "cuda", "auto"),
        "keep_every": checks.integer(0),
    },
    "eval": {
        "every": checks.integer(0),
        "games": checks.integer(1),
        "opponents": checks.agent_list,
        "sims": checks.integer(0),
        "seed": checks.integer(0),
    },
}


def _cross_check(cfg: Config) -> None:
    """Keys that constrain each other."""
    if cfg["run"]["iterations"] == 0 and cfg["run"]["max_minutes"] == 0:
        raise ConfigError(
            "run.iterations: 0 (no limit) needs a run.max_minutes budget; set one of them"
        )
    if cfg["search"]["fast_sims"] > cfg["search"]["sims"]:
        raise ConfigError(
            f"search.fast_sims: expected at most search.sims ({cfg['search']['sims']}), "
            f"got {cfg['search']['fast_sims']}"
        )
    if cfg["warmstart"]["games"] and not cfg["warmstart"]["teacher"]:
        raise ConfigError("warmstart.teacher: expected an agent spec for the teacher games")
    if cfg["warmstart"]["games"]:
        check_agent_specs("warmstart.teacher", [cfg["warmstart"]["teacher"]])
        teacher = cfg["warmstart"]["teacher"]
        if cfg["warmstart"]["target"] == "values" and parse_spec(teacher)[0] not in VALUE_TEACHERS:
            raise ConfigError(
                "warmstart.target: 'values' are the teacher's values; it needs a "
                f"warmstart.teacher of {VALUE_TEACHERS}, got {teacher!r}"
            )
    if not cfg["eval"]["opponents"] and cfg["eval"]["every"]:
        raise ConfigError("eval.opponents: expected at least one opponent (or eval.every = 0)")
    check_agent_specs("eval.opponents", cfg["eval"]["opponents"])


AZ = Schema(SCHEMA, DEFAULT_FILE, _cross_check, fixed_on_resume=("env", "net"))
"""The az pipeline's configs (``python -m training.az``)."""


def load_az_config(path: str | Path | None = None, overrides: Iterable[str] = ()) -> Config:
    """Defaults <- the file at ``path`` <- ``overrides``, validated (``ConfigError`` naming
    the key)."""
    return AZ.load(path, overrides)


def search_settings(cfg: Config, sims: int | None = None) -> dict[str, Any]:
    """The :class:`agents.az.SearchSettings` fields of the config's ``[search]`` section."""
    s = cfg["search"]
    return {
        "sims": s["sims"] if sims is None else sims,
        "k": s["k"],
        "gumbel_scale": s["gumbel_scale"],
        "c_visit": s["c_visit"],
        "c_scale": s["c_scale"],
        "margin_weight": s["margin_weight"],
        "rescale": s["rescale"],
    }
