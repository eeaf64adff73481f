"""The PPO pipeline's configuration (``python -m training.train``): the
:class:`~training.common.config.Schema` :data:`TRAIN` over ``training/ppo/configs/default.toml``
(the one home of the defaults, documenting every key), read with the shared machinery of
:mod:`training.common.config`::

    cfg = load_config("training/ppo/configs/default.toml", ["ppo.learning_rate=1e-3"])
    cfg["ppo"]["learning_rate"]   # 0.001

Errors are :class:`~training.common.config.ConfigError` whose message starts with the dotted
key, e.g. ``ppo.batch_size: expected an integer >= 2, got 0``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.jobs import BACKENDS, BackendError
from agents.networks.hyperparameters import NETWORK, HyperParameter
from agents.ray_backend import check_installed
from training.common.config import (
    ENV_KEYS,
    EVAL_KEYS,
    Check,
    Config,
    ConfigError,
    Schema,
    _bool,
    _choice,
    _float,
    _int,
    _int_list,
    _minutes_or_zero,
    _str,
    check_agent_specs,
    check_eval,
    check_scenario,
    dumps,
)

BASELINES = ("random", "greedy", "heuristic")

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
DEFAULT_CONFIG = CONFIG_DIR / "default.toml"
"""The single home of the defaults: every config layers over it (the SCHEMA below keeps only
the types and ranges)."""

# A wall-time budget for the teacher games below this cannot start anything: the worker
# processes alone take seconds to come up.
MIN_COLLECT_MINUTES = 0.1

# Keys that fix the game or the network: a resumed run cannot change them (its checkpoints and
# snapshots were made for them).
FIXED_ON_RESUME = ("env", "policy")


def _network_check(parameter: HyperParameter) -> Check:
    """The check of one of the policy network's hyper-parameters (its kind and minimum)."""
    if parameter.kind == "ints":
        return _int_list(parameter.minimum)
    if parameter.kind == "int":
        return _int(parameter.minimum)
    return _bool


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
    "env": ENV_KEYS,
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
    "eval": EVAL_KEYS,
}


def _check_train(out: Config) -> None:
    """The PPO trainer's cross-key constraints."""
    ppo, run, opp = out["ppo"], out["run"], out["opponents"]
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
    check_eval(out["eval"])
    if out["pretrain"]["teacher"]:
        check_agent_specs("pretrain.teacher", [out["pretrain"]["teacher"]])
    _check_backend(out["pretrain"])
    seat = out["env"]["learner_seat"]
    if seat != "random" and seat >= out["env"]["num_players"]:
        raise ConfigError(
            f"env.learner_seat: expected 'random' or 0..{out['env']['num_players'] - 1}, got {seat!r}"
        )
    check_scenario(out)


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


TRAIN = Schema(SCHEMA, DEFAULT_CONFIG, _check_train, FIXED_ON_RESUME)
"""The PPO trainer's configs (``python -m training.train``)."""

# The schema's methods under the names the PPO modules (and older callers) use.
defaults = TRAIN.defaults
merge = TRAIN.merge
validate = TRAIN.validate
load_config = TRAIN.load
diff = TRAIN.diff
describe_diff = TRAIN.describe_diff
check_resume = TRAIN.check_resume

__all__ = [
    "CONFIG_DIR", "DEFAULT_CONFIG", "SCHEMA", "TRAIN", "Config", "ConfigError", "check_resume",
    "defaults", "describe_diff", "diff", "dumps", "load_config", "merge", "validate",
]  # fmt: skip
