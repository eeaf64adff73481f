"""Training configuration: TOML files (``tomllib``) layered over ``training/ppo/configs/default.toml``,
``--set`` overrides, validation whose errors name the key.

A config is a two-level dict ``{section: {key: value}}``; the sections and keys are those of
:data:`SCHEMA` (types and ranges); their defaults live in one place, ``default.toml``, which
documents every key. A partial config file sets only its keys, the rest come from
``default.toml`` (:func:`diff` lists what differs). Any key not in the schema is an error, so a
typo never silently falls back to a default::

    cfg = load_config("training/ppo/configs/default.toml", ["ppo.learning_rate=1e-3"])
    cfg["ppo"]["learning_rate"]   # 0.001

Errors are :class:`ConfigError` (a ``ValueError``) whose message starts with the dotted key,
e.g. ``ppo.batch_size: expected an integer >= 2, got 0``.

Other trainers reuse this machinery with their own :class:`Schema` (keys, defaults file,
cross-key checks): ``load_config(path, overrides, schema=RLLIB)`` for the RLlib trainer
(:mod:`training.rllib.config`).
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.jobs import BACKENDS, BackendError
from agents.networks.hyperparameters import NETWORK, HyperParameter
from agents.ray_backend import check_installed
from agents.registry import parse_spec
from moonriver_env.env_checks import check_seat
from moonriver_env.family.validation import Checker, Wording

Config = dict[str, dict[str, Any]]

BASELINES = ("random", "greedy", "heuristic")

CONFIG_DIR = Path(__file__).resolve().parents[1] / "ppo" / "configs"  # the schema's defaults
DEFAULT_CONFIG = CONFIG_DIR / "default.toml"
"""The single home of the defaults: every config layers over it (the SCHEMA below keeps only
the types and ranges)."""

# A wall-time budget for the teacher games below this cannot start anything: the worker
# processes alone take seconds to come up.
MIN_COLLECT_MINUTES = 0.1

# Keys that fix the game or the network: a resumed run cannot change them (its checkpoints and
# snapshots were made for them).
FIXED_ON_RESUME = ("env", "policy")


class ConfigError(ValueError):
    """A bad config value; the message starts with the dotted key."""


# -- validators: (value, dotted key) -> normalised value, raising ConfigError ----------------
Check = Callable[[Any, str], Any]
_CHECK = Checker(ConfigError, Wording(typed=False, range_in_expected=True))


def _int(lo: int | None = None, hi: int | None = None) -> Check:
    return lambda v, path: _CHECK.integer(v, path, lo, hi)


def _float(lo: float | None = None, hi: float | None = None, open_lo: bool = False) -> Check:
    """A finite number in the bounds (nan / inf never make sense in a training config)."""
    return lambda v, path: _CHECK.number(v, path, lo, hi, open_lo=open_lo, finite=True)


def _minutes_or_zero(least: float) -> Check:
    """0 (no limit) or a finite number of minutes of at least ``least``."""

    def check(v: Any, path: str) -> float:
        x = _CHECK.number(v, path, 0.0, finite=True)
        if 0 < x < least:
            _CHECK.fail(path, f"expected 0 (no limit) or at least {least} minutes, got {v!r}")
        return x

    return check


def _bool(v: Any, path: str) -> bool:
    return _CHECK.flag(v, path)


def _choice(*options: Any) -> Check:
    return lambda v, path: _CHECK.choice(v, path, options)


def _int_list(min_len: int = 0) -> Check:
    def check(v: Any, path: str) -> list[int]:
        if not isinstance(v, list) or len(v) < min_len:
            _CHECK.fail(path, f"expected a list of at least {min_len} positive integers, got {v!r}")
        return [_CHECK.integer(x, f"{path}[{i}]", 1) for i, x in enumerate(v)]

    return check


def _network_check(parameter: HyperParameter) -> Check:
    """The check of one of the policy network's hyper-parameters (its kind and minimum)."""
    if parameter.kind == "ints":
        return _int_list(parameter.minimum)
    if parameter.kind == "int":
        return _int(parameter.minimum)
    return _bool


def _str(v: Any, path: str) -> str:
    return _CHECK.string(v, path)


def _opponent_list(v: Any, path: str) -> list[str]:
    if isinstance(v, str):
        v = [s.strip() for s in v.split(",") if s.strip()]
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        _CHECK.fail(path, f"expected a list of agent names, got {v!r}")
    return list(v)


def _seat(v: Any, path: str) -> int | str:
    return check_seat(path, v, error=ConfigError)


SCHEMA: dict[str, dict[str, Check]] = {
    "run": {
        "seed": _int(0),
        "total_timesteps": _int(1),
        "time_limit_minutes": _float(0.0),
        "n_envs": _int(1, 64),
        "vec_env": _choice("subproc", "dummy", "selfplay"),
        "torch_threads": _int(0, 64),
        "progress_bar": _bool,
        "verbose": _int(0, 2),
        "log_interval": _int(1),
    },
    "env": {
        "num_players": _int(2, 4),
        "mode": _choice("base", "legends"),
        "scenario": _choice("random", "timber_rafting", "gold_rush", "outlaws", "moon_river_city"),
        "reward": _choice("win", "score", "score_diff"),
        "dense_reward": _float(0.0),
        "auto_resolve": _bool,
        "learner_seat": _seat,
        "illegal_penalty": _float(),
    },
    "ppo": {
        "learning_rate": _float(0.0, open_lo=True),
        "lr_schedule": _choice("constant", "linear"),
        "lr_final_fraction": _float(0.0, 1.0),
        "n_steps": _int(2),
        "batch_size": _int(2),
        "n_epochs": _int(1),
        "gamma": _float(0.0, 1.0),
        "gae_lambda": _float(0.0, 1.0),
        "clip_range": _float(0.0, open_lo=True),
        "ent_coef": _float(0.0),
        "vf_coef": _float(0.0),
        "max_grad_norm": _float(0.0, open_lo=True),
        "target_kl": _float(0.0),
        "normalize_advantage": _bool,
    },
    "policy": {
        "head": _choice("spatial", "flat"),
        **{p.config_key: _network_check(p) for p in NETWORK},
        "cnn_out": _int(0),
        "share_ranch": _bool,
        "activation": _choice("relu", "tanh", "elu"),
        "ortho_init": _bool,
    },
    "opponents": {
        "learner": _float(0.0),
        "random": _float(0.0),
        "greedy": _float(0.0),
        "heuristic": _float(0.0),
        "snapshot": _float(0.0),
        "snapshot_deterministic": _bool,
        "snapshot_every": _int(1),
        "snapshot_keep": _int(1),
    },
    "pretrain": {
        "teacher": _str,
        "games": _int(1),
        "explore": _float(0.0, 1.0),
        "workers": _int(1, 64),
        "backend": _choice(*BACKENDS),
        "address": _str,
        "epochs": _int(0),
        "batch_size": _int(1),
        "learning_rate": _float(0.0, open_lo=True),
        "vf_coef": _float(0.0),
        "target": _choice("action", "tie_set"),
        "lr_schedule": _choice("constant", "cosine"),
        "value_to_trunk": _bool,
        "collect_minutes": _minutes_or_zero(MIN_COLLECT_MINUTES),
        "max_minutes": _float(0.0),
        "data": _str,
        "save_data": _bool,
        "init_model": _str,
    },
    "checkpoint": {
        "every": _int(1),
        "keep": _int(0),
    },
    "eval": {
        "every": _int(0),
        "opponents": _opponent_list,
        "games": _int(1),
        "deterministic": _bool,
        "seed": _int(0),
        "final_games": _int(0),
        "final_opponents": _opponent_list,
        "best_opponent": _str,
    },
}


@dataclass(frozen=True)
class Schema:
    """A family of configs: the checks of its keys, the file that is the one home of its
    defaults (documenting every key), its cross-key checks and the sections a resumed run
    cannot change. :data:`TRAIN` is the SB3 trainer's; ``training.rllib.config.RLLIB`` the
    RLlib trainer's. Every function below takes ``schema=`` (default :data:`TRAIN`)."""

    keys: Mapping[str, Mapping[str, Check]]
    default_file: Path
    cross_check: Callable[[Config], None]
    fixed_on_resume: tuple[str, ...] = ()


def _schema(schema: Schema | None) -> Schema:
    return TRAIN if schema is None else schema


def defaults(schema: Schema | None = None) -> Config:
    """The defaults (``training/ppo/configs/default.toml`` for :data:`TRAIN`), read fresh (a copy
    to change)."""
    return _read_toml(_schema(schema).default_file)


def _read_toml(path: Path) -> Config:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config: no file {str(path)!r}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config: {path}: {e}") from None


def merge(
    base: Config, update: Mapping[str, Any], source: str = "config", schema: Schema | None = None
) -> Config:
    """``base`` updated section by section with ``update``; unknown sections/keys raise."""
    keys = _schema(schema).keys
    out = copy.deepcopy(base)
    for section, values in update.items():
        if section not in keys:
            raise ConfigError(f"{section}: unknown section in {source} (known: {sorted(keys)})")
        if not isinstance(values, Mapping):
            raise ConfigError(f"{section}: expected a table of keys in {source}, got {values!r}")
        for key, value in values.items():
            if key not in keys[section]:
                raise ConfigError(
                    f"{section}.{key}: unknown key in {source} (known: {sorted(keys[section])})"
                )
            out[section][key] = value
    return out


def parse_override(item: str) -> tuple[str, str, Any]:
    """``"a.b=value"`` -> ``("a", "b", value)``; the value is read as a TOML value, or taken as a
    bare string when it is not one (``env.mode=legends``)."""
    if "=" not in item:
        raise ConfigError(f"{item}: expected section.key=value")
    dotted, raw = item.split("=", 1)
    dotted = dotted.strip()
    parts = dotted.split(".")
    if len(parts) != 2 or not all(parts):
        raise ConfigError(f"{dotted}: expected section.key (e.g. ppo.learning_rate)")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return parts[0], parts[1], value


def validate(cfg: Config, schema: Schema | None = None) -> Config:
    """Check every key (and the cross-key constraints); returns the normalised config."""
    family = _schema(schema)
    out: Config = {}
    for section, checks in family.keys.items():
        values = cfg.get(section, {})
        out[section] = {}
        for key, check in checks.items():
            if key not in values:
                raise ConfigError(f"{section}.{key}: missing")
            out[section][key] = check(values[key], f"{section}.{key}")
        extra = set(values) - set(checks)
        if extra:
            key = sorted(extra)[0]
            raise ConfigError(f"{section}.{key}: unknown key (known: {sorted(checks)})")
    extra_sections = set(cfg) - set(family.keys)
    if extra_sections:
        raise ConfigError(
            f"{sorted(extra_sections)[0]}: unknown section (known: {sorted(family.keys)})"
        )
    family.cross_check(out)
    return out


def _check_train(out: Config) -> None:
    """The SB3 trainer's cross-key constraints."""
    ppo, run, opp, ev = out["ppo"], out["run"], out["opponents"], out["eval"]
    rollout = ppo["n_steps"] * run["n_envs"]
    if ppo["batch_size"] > rollout:
        raise ConfigError(
            f"ppo.batch_size: {ppo['batch_size']} exceeds the rollout size "
            f"n_steps x n_envs = {rollout}"
        )
    selfplay = run["vec_env"] == "selfplay"
    if opp["learner"] > 0 and not selfplay:
        raise ConfigError(
            "opponents.learner: learner seats (self-play samples) need run.vec_env = 'selfplay'"
        )
    if sum(opp[k] for k in ("learner", *BASELINES, "snapshot")) <= 0:
        raise ConfigError(
            "opponents.random: the opponent weights (learner, random, greedy, heuristic, "
            "snapshot) are all zero"
        )
    if all(opp[k] == 0 for k in BASELINES) and not (selfplay and opp["learner"] > 0):
        raise ConfigError(
            "opponents.random: at least one baseline weight (random, greedy, heuristic) must be "
            "positive (the snapshot pool starts empty), or, with run.vec_env = 'selfplay', "
            "opponents.learner"
        )
    if not ev["opponents"]:
        raise ConfigError("eval.opponents: expected at least one opponent")
    for spec in ev["opponents"]:
        _check_agent_spec("eval.opponents", spec)
    for spec in ev["final_opponents"]:
        _check_agent_spec("eval.final_opponents", spec)
    if ev["best_opponent"] and ev["best_opponent"] not in ev["opponents"]:
        raise ConfigError(
            f"eval.best_opponent: {ev['best_opponent']!r} is not one of eval.opponents "
            f"{ev['opponents']} ('' = no best model)"
        )
    if out["pretrain"]["teacher"]:
        _check_agent_spec("pretrain.teacher", out["pretrain"]["teacher"])
    _check_backend(out["pretrain"])
    seat = out["env"]["learner_seat"]
    if seat != "random" and seat >= out["env"]["num_players"]:
        raise ConfigError(
            f"env.learner_seat: expected 'random' or 0..{out['env']['num_players'] - 1}, got {seat!r}"
        )
    check_scenario(out)


def check_scenario(cfg: Config) -> None:
    """``env.scenario`` only with the Legends mode."""
    if cfg["env"]["mode"] == "base" and cfg["env"]["scenario"] != "random":
        raise ConfigError("env.scenario: only the Legends mode has scenarios")


def check_agent_specs(key: str, specs: Iterable[str]) -> None:
    """Every spec of ``specs`` parses (``agents.make_agent`` syntax), else an error naming ``key``."""
    for spec in specs:
        _check_agent_spec(key, spec)


def _check_backend(pretrain: Mapping[str, Any]) -> None:
    """``pretrain.address`` only with the ray backend, and Ray installed for it."""
    if pretrain["address"] and pretrain["backend"] != "ray":
        raise ConfigError(
            "pretrain.address: only the ray backend connects to an address "
            '(set pretrain.backend = "ray")'
        )
    if pretrain["backend"] == "ray":
        try:
            check_installed()
        except BackendError as e:
            raise ConfigError(f"pretrain.backend: {e}") from None


def _check_agent_spec(key: str, spec: str) -> None:
    """``agents.make_agent`` spec syntax."""
    try:
        parse_spec(spec)
    except ValueError as e:
        raise ConfigError(f"{key}: {e}") from None


def load_config(
    path: str | Path | None = None,
    overrides: Iterable[str] = (),
    base: Config | None = None,
    schema: Schema | None = None,
) -> Config:
    """``default.toml`` (or ``base``) <- the TOML file at ``path`` (a partial file sets only
    its keys) <- ``overrides`` (``"a.b=v"``), validated."""
    cfg = defaults(schema) if base is None else copy.deepcopy(base)
    if path is not None:
        p = Path(path)
        cfg = merge(cfg, _read_toml(p), source=str(p), schema=schema)
    for item in overrides:
        section, key, value = parse_override(item)
        cfg = merge(cfg, {section: {key: value}}, source="--set", schema=schema)
    return validate(cfg, schema)


def diff(
    cfg: Config, base: Config | None = None, schema: Schema | None = None
) -> list[tuple[str, Any, Any]]:
    """``(dotted key, base value, cfg value)`` of every key where ``cfg`` differs from ``base``
    (default: ``default.toml``), in schema order."""
    ref = validate(defaults(schema), schema) if base is None else base
    return [
        (f"{section}.{key}", ref[section][key], cfg[section][key])
        for section, checks in _schema(schema).keys.items()
        for key in checks
        if ref[section][key] != cfg[section][key]
    ]


def describe_diff(
    cfg: Config,
    base: Config | None = None,
    base_name: str = "default.toml",
    schema: Schema | None = None,
) -> str:
    """The lines a run prints at its start: what differs from ``base_name``."""
    changes = diff(cfg, base, schema)
    if not changes:
        return f"config: {base_name} unchanged"
    lines = [f"config: {base_name} with"]
    lines += [
        f"  {key} = {_toml_value(new)}  (was {_toml_value(old)})" for key, old, new in changes
    ]
    return "\n".join(lines)


def check_resume(saved: Config, cfg: Config, schema: Schema | None = None) -> None:
    """Refuse (:class:`ConfigError`) a resumed config that changes a key fixing the game or
    the network (:data:`FIXED_ON_RESUME` sections for :data:`TRAIN`) of the saved run."""
    fixed = _schema(schema).fixed_on_resume
    for key, old, new in diff(cfg, saved, schema):
        if key.split(".")[0] in fixed:
            raise ConfigError(
                f"{key}: cannot change on --resume (the run's checkpoints are for "
                f"{_toml_value(old)}, asked {_toml_value(new)}); start a new --run-dir"
            )


TRAIN = Schema(SCHEMA, DEFAULT_CONFIG, _check_train, FIXED_ON_RESUME)
"""The SB3 trainer's configs (``python -m training.train``)."""


def dumps(cfg: Config) -> str:
    """TOML text of a (validated) config; ``load_config`` reads it back unchanged."""
    lines: list[str] = []
    for section, values in cfg.items():
        lines.append(f"[{section}]")
        for key, value in values.items():
            lines.append(f"{key} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")
