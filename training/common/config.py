"""Training configuration machinery shared by the pipelines: TOML files (``tomllib``) layered
over a pipeline's defaults file, ``--set`` overrides, validation whose errors name the key.

A config is a two-level dict ``{section: {key: value}}``. A pipeline describes its family of
configs with a :class:`Schema` (the checks of its keys, the TOML file that is the one home of
its defaults and documents every key, its cross-key checks, the sections a resumed run cannot
change) and reads them with its methods::

    RLLIB = Schema(KEYS, CONFIG_DIR / "default.toml", cross_check)   # training/rllib/config.py
    cfg = RLLIB.load("training/rllib/configs/smoke.toml", ["ppo.learning_rate=1e-3"])

A partial config file sets only its keys, the rest come from the defaults file
(:meth:`Schema.diff` lists what differs). Any key not in the schema is an error, so a typo never
silently falls back to a default. Errors are :class:`ConfigError` (a ``ValueError``) whose
message starts with the dotted key, e.g. ``ppo.batch_size: expected an integer >= 2, got 0``.

The pipelines' schemas: ``training.rllib.config.RLLIB``, ``training.az.config.AZ``;
``training.value.config`` uses the checks and :func:`dumps` (the reference PPO,
``training.ppo.ppo``, takes flags). The sections shared across pipelines live here:
:data:`ENV_KEYS` (the Moon River env of the RLlib pipeline) and :data:`EVAL_KEYS` (the ladder
evaluation, :mod:`training.common.ladder`).
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import parse_spec
from moonriver_env.family.validation import Checker, Wording

Config = dict[str, dict[str, Any]]


class ConfigError(ValueError):
    """A bad config value; the message starts with the dotted key."""


# -- validators: (value, dotted key) -> normalised value, raising ConfigError ----------------
Check = Callable[[Any, str], Any]
_CHECK = Checker(ConfigError, Wording(typed=False, range_in_expected=True))


def integer(lo: int | None = None, hi: int | None = None) -> Check:
    return lambda v, path: _CHECK.integer(v, path, lo, hi)


def number(lo: float | None = None, hi: float | None = None, open_lo: bool = False) -> Check:
    """A finite number in the bounds (nan / inf never make sense in a training config)."""
    return lambda v, path: _CHECK.number(v, path, lo, hi, open_lo=open_lo, finite=True)


def minutes_or_zero(least: float) -> Check:
    """0 (no limit) or a finite number of minutes of at least ``least``."""

    def check(v: Any, path: str) -> float:
        x = _CHECK.number(v, path, 0.0, finite=True)
        if 0 < x < least:
            _CHECK.fail(path, f"expected 0 (no limit) or at least {least} minutes, got {v!r}")
        return x

    return check


def flag(v: Any, path: str) -> bool:
    return _CHECK.flag(v, path)


def choice(*options: Any) -> Check:
    return lambda v, path: _CHECK.choice(v, path, options)


def int_list(min_len: int = 0) -> Check:
    def check(v: Any, path: str) -> list[int]:
        if not isinstance(v, list) or len(v) < min_len:
            _CHECK.fail(path, f"expected a list of at least {min_len} positive integers, got {v!r}")
        return [_CHECK.integer(x, f"{path}[{i}]", 1) for i, x in enumerate(v)]

    return check


def string(v: Any, path: str) -> str:
    return _CHECK.string(v, path)


def string_list(v: Any, path: str) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        _CHECK.fail(path, f"expected a list of names, got {v!r}")
    return list(v)


def agent_list(v: Any, path: str) -> list[str]:
    if isinstance(v, str):
        v = [s.strip() for s in v.split(",") if s.strip()]
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        _CHECK.fail(path, f"expected a list of agent names, got {v!r}")
    return list(v)


# -- sections shared by pipelines ----------------------------------------------------------------
ENV_KEYS: dict[str, Check] = {
    "num_players": integer(2, 4),
    "mode": choice("base", "legends"),
    "scenario": choice("random", "timber_rafting", "gold_rush", "outlaws", "moon_river_city"),
    "reward": choice("win", "score", "score_diff"),
    "dense_reward": number(0.0),
    "auto_resolve": flag,
    "illegal_penalty": number(),
}
"""``[env]``: the Moon River game and its rewards, as the RLlib pipeline reads them."""

EVAL_KEYS: dict[str, Check] = {
    "every": integer(0),
    "opponents": agent_list,
    "games": integer(1),
    "deterministic": flag,
    "seed": integer(0),
    "final_games": integer(0),
    "final_opponents": agent_list,
    "best_opponent": string,
}
"""``[eval]``: the periodic and final ladder evaluations (:mod:`training.common.ladder`)."""


def check_eval(ev: Mapping[str, Any]) -> None:
    """The cross-key checks of an ``[eval]`` section (the keys it has of :data:`EVAL_KEYS`)."""
    if not ev["opponents"]:
        raise ConfigError("eval.opponents: expected at least one opponent")
    check_agent_specs("eval.opponents", ev["opponents"])
    check_agent_specs("eval.final_opponents", ev.get("final_opponents", ()))
    best = ev.get("best_opponent", "")
    if best and best not in ev["opponents"]:
        raise ConfigError(
            f"eval.best_opponent: {best!r} is not one of eval.opponents "
            f"{ev['opponents']} ('' = no best model)"
        )


def check_scenario(cfg: Config) -> None:
    """``env.scenario`` only with the Legends mode."""
    if cfg["env"]["mode"] == "base" and cfg["env"]["scenario"] != "random":
        raise ConfigError("env.scenario: only the Legends mode has scenarios")


def check_agent_specs(key: str, specs: Iterable[str]) -> None:
    """Every spec of ``specs`` parses (``agents.make_agent`` syntax), else an error naming ``key``."""
    for spec in specs:
        try:
            parse_spec(spec)
        except ValueError as e:
            raise ConfigError(f"{key}: {e}") from None


MAX_CONFIG_BYTES = 1 << 20
"""The most bytes a config file is read from (the largest shipped one is a few kilobytes)."""


def read_toml(path: Path) -> Config:
    """A TOML file; a missing, unreadable (a folder, say), oversized or malformed one (not
    UTF-8, nested too deeply) is a :class:`ConfigError` naming it."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"config: no file {str(path)!r}") from None
    except OSError as e:  # a folder, no permission
        raise ConfigError(f"config: {str(path)!r} cannot be read ({e.strerror or e})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"config: {path} is over {MAX_CONFIG_BYTES:,} bytes; not a config")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"config: {path} is not UTF-8 text ({e.reason} at byte {e.start})"
        ) from None
    except RecursionError:
        raise ConfigError(f"config: {path}: arrays or tables nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config: {path}: {e}") from None


# -- a family of configs -------------------------------------------------------------------------
@dataclass(frozen=True)
class Schema:
    """A family of configs: the checks of its keys, the file that is the one home of its
    defaults (documenting every key), its cross-key checks and the sections a resumed run
    cannot change; its methods read, check and compare configs of the family."""

    keys: Mapping[str, Mapping[str, Check]]
    default_file: Path
    cross_check: Callable[[Config], None]
    fixed_on_resume: tuple[str, ...] = ()
    read: Callable[[Path], Config] = read_toml
    """How a file of the family is read (:func:`read_toml`; a pipeline may also rename old
    sections)."""

    def defaults(self) -> Config:
        """The defaults file, read fresh (a copy to change)."""
        return self.read(self.default_file)

    def merge(self, base: Config, update: Mapping[str, Any], source: str = "config") -> Config:
        """``base`` updated section by section with ``update``; unknown sections/keys raise."""
        keys = self.keys
        out = copy.deepcopy(base)
        for section, values in update.items():
            if section not in keys:
                raise ConfigError(f"{section}: unknown section in {source} (known: {sorted(keys)})")
            if not isinstance(values, Mapping):
                raise ConfigError(
                    f"{section}: expected a table of keys in {source}, got {values!r}"
                )
            for key, value in values.items():
                if key not in keys[section]:
                    raise ConfigError(
                        f"{section}.{key}: unknown key in {source} (known: {sorted(keys[section])})"
                    )
                out[section][key] = value
        return out

    def validate(self, cfg: Config) -> Config:
        """Check every key (and the cross-key constraints); returns the normalised config."""
        out: Config = {}
        for section, checks in self.keys.items():
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
        extra_sections = set(cfg) - set(self.keys)
        if extra_sections:
            raise ConfigError(
                f"{sorted(extra_sections)[0]}: unknown section (known: {sorted(self.keys)})"
            )
        self.cross_check(out)
        return out

    def load(
        self,
        path: str | Path | None = None,
        overrides: Iterable[str] = (),
        base: Config | None = None,
    ) -> Config:
        """The defaults (or ``base``) <- the TOML file at ``path`` (a partial file sets only
        its keys) <- ``overrides`` (``"a.b=v"``), validated."""
        cfg = self.defaults() if base is None else copy.deepcopy(base)
        if path is not None:
            p = Path(path)
            cfg = self.merge(cfg, self.read(p), source=str(p))
        for item in overrides:
            section, key, value = parse_override(item)
            cfg = self.merge(cfg, {section: {key: value}}, source="--set")
        return self.validate(cfg)

    def diff(self, cfg: Config, base: Config | None = None) -> list[tuple[str, Any, Any]]:
        """``(dotted key, base value, cfg value)`` of every key where ``cfg`` differs from
        ``base`` (default: the defaults file), in schema order."""
        ref = self.validate(self.defaults()) if base is None else base
        return [
            (f"{section}.{key}", ref[section][key], cfg[section][key])
            for section, checks in self.keys.items()
            for key in checks
            if ref[section][key] != cfg[section][key]
        ]

    def describe_diff(
        self, cfg: Config, base: Config | None = None, base_name: str | None = None
    ) -> str:
        """The lines a run prints at its start: what differs from ``base_name`` (default:
        the defaults file's name)."""
        name = self.default_file.name if base_name is None else base_name
        changes = self.diff(cfg, base)
        if not changes:
            return f"config: {name} unchanged"
        lines = [f"config: {name} with"]
        lines += [
            f"  {key} = {_toml_value(new)}  (was {_toml_value(old)})" for key, old, new in changes
        ]
        return "\n".join(lines)

    def check_resume(self, saved: Config, cfg: Config) -> None:
        """Refuse (:class:`ConfigError`) a resumed config that changes a key of the sections
        :attr:`fixed_on_resume` (those fixing the game or the network) of the saved run."""
        for key, old, new in self.diff(cfg, saved):
            if key.split(".")[0] in self.fixed_on_resume:
                raise ConfigError(
                    f"{key}: cannot change on --resume (the run's checkpoints are for "
                    f"{_toml_value(old)}, asked {_toml_value(new)}); start a new --run-dir"
                )


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
        doc = tomllib.loads(f"v = {raw}")
    except RecursionError:
        raise ConfigError(f"{dotted}: arrays nested too deeply") from None
    except tomllib.TOMLDecodeError:
        doc = {"v": raw}
        if "\n" in raw or "\r" in raw:
            doc["more"] = True
    if list(doc) != ["v"]:  # "1\n[x]\ny=2" read as TOML sets more than the key
        raise ConfigError(f"{dotted}: expected one value, got {raw!r} (more after a line break)")
    return parts[0], parts[1], doc["v"]


def dumps(cfg: Config) -> str:
    """TOML text of a (validated) config; ``Schema.load`` reads it back unchanged."""
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
