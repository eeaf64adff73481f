"""Configuration of an az run: ``training/configs/az_default.toml`` (the one home of the
defaults, every key documented there) <- a config file <- ``--set section.key=value``;
validated by the shared machinery of :mod:`training.common.config` (the :data:`AZ` schema), so an
unknown key or a bad value is a :class:`~training.common.config.ConfigError` naming the dotted key.
A key the pipeline no longer has (:data:`RETIRED_KEYS`) is read past at the one value it now
always takes (a run's ``config.toml`` written before lists every key) and refused by name at
any other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.az.search import BOUNDS, INTEGER_SETTINGS, RETIRED, SearchSettings
from moonriver_env.games import BUILTIN_GAMES, GameSpec, parse_game
from training.common import config as checks
from training.common.config import (
    Check,
    Config,
    ConfigError,
    Schema,
    check_agent_specs,
    parse_override,
    read_toml,
)

from .selfplay import PlaySettings

# The az configs live in training/configs/ (the command names
# training/configs/az_2p.toml); the other pipelines keep theirs in training/<pipeline>/configs/.
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"
DEFAULT_FILE = CONFIG_DIR / "az_default.toml"


def _search_check(name: str) -> Check:
    """The config check of the search setting ``name``: its range from ``agents.az.search``."""
    lo, hi, open_lo = BOUNDS[name]
    if name in INTEGER_SETTINGS:
        return checks.integer(int(lo), int(hi))
    return checks.number(lo, hi, open_lo=open_lo)


MAX_GAMES = 100_000
"""The most games a config's phase may ask for (the shipped configs: 20,000): a phase's
positions stay in memory (about 100 a game, 2 KB each: 20 GB at this bound); the budget
(``run.max_minutes``) holds within a phase (``training.az.run.SELFPLAY_PART_GAMES``)."""
MAX_WINDOW = 4_000_000
"""The most positions the replay window keeps (10 times the default; about 3 KB each)."""
MAX_BATCH = 65_536
"""The largest training batch (128 times the default)."""

SCHEMA: dict[str, dict[str, Check]] = {
    "env": {
        "game": checks.choice(*BUILTIN_GAMES),
        "num_players": checks.integer(2, 4),
        "mode": checks.string,
        "tables": checks.string_list,
    },
    "net": {
        "hidden1": checks.integer(1, 512),
        "hidden2": checks.integer(1, 256),
        "features": checks.flag,
    },
    "search": {name: _search_check(name) for name in BOUNDS},
    "selfplay": {
        "games": checks.integer(1, MAX_GAMES),
        "threads": checks.integer(1, 64),
        **{name: _search_check(name) for name in ("k", "r", "depth")},
        "explore": checks.integer(0),
        "lam": checks.number(0.0, 1.0),
        "keep": checks.number(0.0, 1.0, open_lo=True),
        "afterstates": checks.number(0.0, 1.0),
    },
    "warmstart": {
        "games": checks.integer(0, MAX_GAMES),
        "keep": checks.number(0.0, 1.0, open_lo=True),
        "afterstates": checks.number(0.0, 1.0),
        "teacher_temp": checks.number(0.0, 1000.0),
        "epochs": checks.number(0.0),
        "save_every": checks.integer(0),
        "init": checks.string,
    },
    "replay": {
        "window": checks.integer(1, MAX_WINDOW),
        "teacher_fraction": checks.number(0.0, 1.0),
    },
    "train": {
        "batch_size": checks.integer(1, MAX_BATCH),
        "learning_rate": checks.number(0.0, open_lo=True),
        "final_learning_rate": checks.number(0.0),
        "final_share": checks.number(0.0, 1.0, open_lo=True),
        "weight_decay": checks.number(0.0),
        "sample_reuse": checks.number(0.0, open_lo=True),
        "value_weight": checks.number(0.0),
        "outcome_mix": checks.number(0.0, 1.0),
        "afterstate_weight": checks.number(0.0),
        "overlap": checks.flag,
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
        "games": checks.integer(1, MAX_GAMES),
        "opponents": checks.agent_list,
        "sims": checks.integer(-1, 32),
        "seed": checks.integer(0),
        "final": checks.flag,
    },
}


def game_spec(cfg: Config) -> GameSpec:
    """The game a config trains (``ConfigError`` naming ``env`` for one the game refuses)."""
    env = cfg["env"]
    try:
        spec = GameSpec(game=env["game"], num_players=env["num_players"], mode=env["mode"])
        spec.config()
    except ValueError as exc:
        raise ConfigError(f"env: {exc}") from None
    if spec.entry.hook("native_state") is None:
        raise ConfigError(
            f"env.game: {spec.entry.title} has no native core, and az searches and plays its "
            "games in the core; train it with the reference PPO (python -m training.ppo.ppo "
            f"--game {spec.text})"
        )
    return spec


def table_specs(cfg: Config) -> list[GameSpec]:
    """The tables a run plays: ``env.tables`` (a network of every table of the game), or the
    one table of ``[env]``. ``ConfigError`` naming ``env.tables`` for a table of another game,
    one the game refuses, or one named twice."""
    spec = game_spec(cfg)
    names = cfg["env"]["tables"]
    if not names:
        return [spec]
    out = []
    for name in names:
        try:
            table = parse_game(name)
            table.config()
        except ValueError as exc:
            raise ConfigError(f"env.tables: {name!r}: {exc}") from None
        if table.game != spec.game:
            raise ConfigError(
                f"env.tables: {name!r} is a table of {table.entry.title}; the run's game is "
                f"{spec.entry.title} (env.game)"
            )
        if table in out:
            raise ConfigError(f"env.tables: {name!r} is named twice")
        out.append(table)
    return out


def _cross_check(cfg: Config) -> None:
    """Keys that constrain each other."""
    if cfg["run"]["iterations"] == 0 and cfg["run"]["max_minutes"] == 0:
        raise ConfigError(
            "run.iterations: 0 (no limit) needs a run.max_minutes budget; set one of them"
        )
    table_specs(cfg)
    try:
        search_settings(cfg)
        selfplay_settings(cfg)
    except ValueError as exc:
        raise ConfigError(f"search: {exc}") from None
    if not cfg["eval"]["opponents"] and (cfg["eval"]["every"] or cfg["eval"]["final"]):
        raise ConfigError(
            "eval.opponents: expected at least one opponent (or eval.every = 0 and "
            "eval.final = false)"
        )
    check_agent_specs("eval.opponents", cfg["eval"]["opponents"])


RETIRED_KEYS: dict[str, Any] = {
    **{f"search.{name}": value for name, value in RETIRED.items()},
    "selfplay.search_share": 1.0,
    "train.policy_weight": 0.0,
    "train.symmetries": 1,
}
"""Keys the pipeline no longer has, each with the one value it now always takes: the policy
head (``search.policy``, ``train.policy_weight``), the symmetric views (``search.symmetries``,
``search.move_symmetries``, ``train.symmetries``) and the playout cap
(``selfplay.search_share``). docs/az-experiments.md keeps what each measured."""


def _retired(dotted: str, value: Any, source: str) -> bool:
    """Whether ``dotted`` is a :data:`RETIRED_KEYS` key at the value it now always takes (so
    read past); ``ConfigError`` naming it at another value."""
    if dotted not in RETIRED_KEYS:
        return False
    kept = RETIRED_KEYS[dotted]
    if value == kept and not isinstance(value, bool):
        return True
    raise ConfigError(
        f"{dotted}: removed from the az pipeline (it now always plays {dotted} = {kept!r}; "
        f"docs/az-experiments.md has what it measured); {source} sets {value!r}: drop the key"
    )


def read_az_toml(path: Path) -> Config:
    """An az config file (:func:`~training.common.config.read_toml`) without its
    :data:`RETIRED_KEYS` (``ConfigError`` naming one set to another value)."""
    doc = read_toml(path)
    for section, values in doc.items():
        if isinstance(values, dict):
            for key in [k for k in values if _retired(f"{section}.{k}", values[k], str(path))]:
                del values[key]
    return doc


AZ = Schema(SCHEMA, DEFAULT_FILE, _cross_check, fixed_on_resume=("env", "net"), read=read_az_toml)
"""The az pipeline's configs (``python -m training.az``)."""


def load_az_config(path: str | Path | None = None, overrides: Iterable[str] = ()) -> Config:
    """Defaults <- the file at ``path`` <- ``overrides``, validated (``ConfigError`` naming
    the key)."""
    return AZ.load(path, retired_overrides(overrides))


def retired_overrides(overrides: Iterable[str]) -> list[str]:
    """``--set`` overrides without those of :data:`RETIRED_KEYS` at the value they now always
    take (``ConfigError`` naming one at another value)."""
    kept = []
    for item in overrides:
        section, key, value = parse_override(item)
        if not _retired(f"{section}.{key}", value, "--set"):
            kept.append(item)
    return kept


def search_settings(cfg: Config) -> SearchSettings:
    """The model's play settings (the config's ``[search]``)."""
    return SearchSettings(**cfg["search"])


def selfplay_settings(cfg: Config) -> SearchSettings:
    """The self-play search: ``[search]`` with ``[selfplay]``'s k, r and depth."""
    s = cfg["selfplay"]
    return SearchSettings(**{**cfg["search"], "k": s["k"], "r": s["r"], "depth": s["depth"]})


def settings_dict(settings: SearchSettings) -> dict[str, Any]:
    """The settings a model file stores."""
    return asdict(settings)


def selfplay_play_settings(cfg: Config) -> PlaySettings:
    """How a config's self-play games are played (``[selfplay]``, its search from
    :func:`selfplay_settings`)."""
    sp = cfg["selfplay"]
    return PlaySettings(
        selfplay_settings(cfg).as_tuple(), sp["explore"], sp["lam"], sp["keep"], sp["afterstates"]
    )
