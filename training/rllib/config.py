"""The RLlib trainer's configuration (``python -m training.rllib_train``): the
:class:`~training.common.config.Schema` :data:`RLLIB`, read with :mod:`training.common.config`'s machinery
(``RLLIB.load(path, overrides)``: TOML layered over
``training/rllib/configs/default.toml``, the one home of its defaults, which documents every
key; errors are :class:`~training.common.config.ConfigError` naming the dotted key).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from moonriver_env.opponents import LEARNER, OPPONENT_ROLES
from training.common import config as checks
from training.common.config import (
    ENV_KEYS,
    EVAL_KEYS,
    Config,
    ConfigError,
    Schema,
    check_eval,
    check_scenario,
)

RLLIB_CONFIGS = Path(__file__).resolve().parent / "configs"
RLLIB_DEFAULT = RLLIB_CONFIGS / "default.toml"
RLLIB_SMOKE = RLLIB_CONFIGS / "smoke.toml"
# The roles of an opponent seat, the keys of the [opponents] weights.
ROLES = OPPONENT_ROLES

KEYS = {
    "run": {
        "seed": checks.integer(0),
        "time_limit_minutes": checks.number(0.0),
        "max_iterations": checks.integer(0),
        "max_env_steps": checks.integer(0),
        "num_env_runners": checks.integer(0, 1024),
        "envs_per_env_runner": checks.integer(1, 256),
        "num_learners": checks.integer(0, 256),
        "num_cpus": checks.integer(0, 4096),
        "torch_threads": checks.integer(0, 64),
        "log_every": checks.integer(1),
    },
    # the shared game and reward keys (the env draws the learner's seat every game)
    "env": dict(ENV_KEYS),
    "ppo": {
        "learning_rate": checks.number(0.0, open_lo=True),
        "train_batch_size": checks.integer(2),
        "minibatch_size": checks.integer(1),
        "num_epochs": checks.integer(1),
        "gamma": checks.number(0.0, 1.0),
        "gae_lambda": checks.number(0.0, 1.0),
        "clip_range": checks.number(0.0, open_lo=True),
        "vf_clip": checks.number(0.0, open_lo=True),
        "ent_coef": checks.number(0.0),
        "vf_coef": checks.number(0.0),
        "kl_coef": checks.number(0.0),
        "kl_target": checks.number(0.0, open_lo=True),
        "max_grad_norm": checks.number(0.0, open_lo=True),
    },
    "model": {"hidden": checks.int_list(1), "activation": checks.choice("relu", "tanh")},
    "opponents": {
        **{role: checks.number(0.0) for role in ROLES},
        "snapshot_slots": checks.integer(0, 64),
        "snapshot_every": checks.integer(1),
    },
    "checkpoint": {"every": checks.integer(1), "keep": checks.integer(0)},
    # the shared evaluation keys (every counts iterations here), without the best model and
    # separate final opponents
    "eval": {
        k: EVAL_KEYS[k]
        for k in ("every", "opponents", "games", "deterministic", "seed", "final_games")
    },
}


def _cross_check(cfg: Config) -> None:
    ppo, opp = cfg["ppo"], cfg["opponents"]
    if ppo["minibatch_size"] > ppo["train_batch_size"]:
        raise ConfigError(
            f"ppo.minibatch_size: {ppo['minibatch_size']} exceeds ppo.train_batch_size "
            f"{ppo['train_batch_size']}"
        )
    if not any(opp[role] > 0 for role in ROLES):
        raise ConfigError(
            f"opponents.{LEARNER}: the role weights ({', '.join(ROLES)}) are all zero"
        )
    if opp["snapshot"] > 0 and opp["snapshot_slots"] == 0:
        raise ConfigError("opponents.snapshot_slots: a positive opponents.snapshot needs >= 1 slot")
    check_eval(cfg["eval"])
    check_scenario(cfg)


RLLIB = Schema(KEYS, RLLIB_DEFAULT, _cross_check, fixed_on_resume=("env", "model", "opponents"))
"""The RLlib trainer's configs. ``[env]`` and ``[model]`` fix the game and the network;
``[opponents]`` fixes the modules (snapshot slots) and the env's agents."""


def load_rllib_config(path: str | Path | None = None, overrides: Iterable[str] = ()) -> Config:
    """``rllib/configs/default.toml`` <- the file at ``path`` <- ``overrides``, validated."""
    return RLLIB.load(path, overrides)
