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
from training.common import config as checks
from training.common.config import (
    ENV_KEYS,
    EVAL_KEYS,
    Check,
    Config,
    ConfigError,
    Schema,
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
        return checks.int_list(parameter.minimum)
    if parameter.kind == "int":
        return checks.integer(parameter.minimum)
    return checks.flag


SCHEMA: dict[str, dict[str, Check]] = {
    "run": {
        "seed": checks.integer(0),
        "total_timesteps": checks.integer(1),
        "time_limit_minutes": checks.number(0.0),
        "n_envs": checks.integer(1, 64),
        "vec_env": checks.choice("subproc", "dummy", "selfplay"),
        "torch_threads": checks.integer(0, 64),
        "progress_bar": checks.flag,
        "verbose": checks.integer(0, 2),
        "log_interval": checks.integer(1),
    },
    "env": ENV_KEYS,
    "ppo": {
        "learning_rate": checks.number(0.0, open_lo=True),
        "lr_schedule": checks.choice("constant", "linear"),
        "lr_final_fraction": checks.number(0.0, 1.0),
        "n_steps": checks.integer(2),
        "batch_size": checks.integer(2),
        "n_epochs": checks.integer(1),
        "gamma": checks.number(0.0, 1.0),
        "gae_lambda": checks.number(0.0, 1.0),
        "clip_range": checks.number(0.0, open_lo=True),
        "ent_coef": checks.number(0.0),
        "vf_coef": checks.number(0.0),
        "max_grad_norm": checks.number(0.0, open_lo=True),
        "target_kl": checks.number(0.0),
        "normalize_advantage": checks.flag,
    },
    "policy": {
        "head": checks.choice("spatial", "flat"),
        **{p.config_key: _network_check(p) for p in NETWORK},
        "cnn_out": checks.integer(0),
        "share_ranch": checks.flag,
        "activation": checks.choice("relu", "tanh", "elu"),
        "ortho_init": checks.flag,
    },
    "opponents": {
        "learner": checks.number(0.0),
        "random": checks.number(0.0),
        "greedy": checks.number(0.0),
        "heuristic": checks.number(0.0),
        "snapshot": checks.number(0.0),
        "snapshot_deterministic": checks.flag,
        "snapshot_every": checks.integer(1),
        "snapshot_keep": checks.integer(1),
    },
    "pretrain": {
        "teacher": checks.string,
        "games": checks.integer(1),
        "explore": checks.number(0.0, 1.0),
        "workers": checks.integer(1, 64),
        "backend": checks.choice(*BACKENDS),
        "address": checks.string,
        "epochs": checks.integer(0),
        "batch_size": checks.integer(1),
        "learning_rate": checks.number(0.0, open_lo=True),
        "vf_coef": checks.number(0.0),
        "target": checks.choice("action", "tie_set"),
        "lr_schedule": checks.choice("constant", "cosine"),
        "value_to_trunk": checks.flag,
        "collect_minutes": checks.minutes_or_zero(MIN_COLLECT_MINUTES),
        "max_minutes": checks.number(0.0),
        "data": checks.string,
        "save_data": checks.flag,
        "init_model": checks.string,
    },
    "checkpoint": {
        "every": checks.integer(1),
        "keep": checks.integer(0),
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
