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
from training.common.config import (
    ENV_KEYS,
    EVAL_KEYS,
    Config,
    ConfigError,
    Schema,
    _choice,
    _float,
    _int,
    _int_list,
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
        "seed": _int(0),
        "time_limit_minutes": _float(0.0),
        "max_iterations": _int(0),
        "max_env_steps": _int(0),
        "num_env_runners": _int(0, 1024),
        "envs_per_env_runner": _int(1, 256),
        "num_learners": _int(0, 256),
        "num_cpus": _int(0, 4096),
        "torch_threads": _int(0, 64),
        "log_every": _int(1),
    },
    # the shared game and reward keys; no learner_seat (the env draws it every game)
    "env": {k: check for k, check in ENV_KEYS.items() if k != "learner_seat"},
    "ppo": {
        "learning_rate": _float(0.0, open_lo=True),
        "train_batch_size": _int(2),
        "minibatch_size": _int(1),
        "num_epochs": _int(1),
        "gamma": _float(0.0, 1.0),
        "gae_lambda": _float(0.0, 1.0),
        "clip_range": _float(0.0, open_lo=True),
        "vf_clip": _float(0.0, open_lo=True),
        "ent_coef": _float(0.0),
        "vf_coef": _float(0.0),
        "kl_coef": _float(0.0),
        "kl_target": _float(0.0, open_lo=True),
        "max_grad_norm": _float(0.0, open_lo=True),
    },
    "model": {"hidden": _int_list(1), "activation": _choice("relu", "tanh")},
    "opponents": {
        **{role: _float(0.0) for role in ROLES},
        "snapshot_slots": _int(0, 64),
        "snapshot_every": _int(1),
    },
    "checkpoint": {"every": _int(1), "keep": _int(0)},
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
