"""The PPO pipeline's model: the vectorised self-play environments, the ``MaskablePPO`` (or
:class:`~training.ppo.selfplay_vec.SelfPlayPPO`) of a config, its learning-rate schedule, and
the model a run starts from (a checkpoint, or built and warm-started by behaviour cloning).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from agents.networks.features import MoonRiverExtractor, extractor_kwargs
from agents.networks.hyperparameters import NETWORK
from agents.networks.policy import MoonRiverPolicy
from agents.networks.snapshots import ModelFileError, load_policy
from moonriver_env.vector import NATIVE
from training.common.config import Config, ConfigError
from training.common.outputs import save_model
from training.common.run import RunClock
from training.ppo.checkpoints import PRETRAIN_WORK, save_checkpoint, unreadable
from training.ppo.pretrain import pretrain
from training.ppo.selfplay import make_selfplay_env
from training.ppo.selfplay_native import NativeSelfPlayGames
from training.ppo.selfplay_vec import SelfPlayGames, SelfPlayPPO


class LinearSchedule:
    """Learning rate decaying linearly from ``initial`` to ``initial * final_fraction`` over the
    budget: the step budget (SB3's ``progress_remaining``) or, when a time limit is set, the wall
    budget, whichever is further along. Picklable (saved with the model)."""

    def __init__(
        self,
        initial: float,
        final_fraction: float,
        clock: RunClock | None = None,
        limit_s: float = 0.0,
    ) -> None:
        self.initial = float(initial)
        self.final_fraction = float(final_fraction)
        self.clock = clock
        self.limit_s = float(limit_s)

    def __call__(self, progress_remaining: float) -> float:
        remaining = progress_remaining
        if self.clock is not None and self.limit_s > 0:
            remaining = min(remaining, max(0.0, 1.0 - self.clock() / self.limit_s))
        frac = self.final_fraction + (1.0 - self.final_fraction) * remaining
        return self.initial * frac


def _make_env_fn(cfg: Config, pool_dir: Path | None, rank: int) -> Any:
    env_cfg, opp_cfg = dict(cfg["env"]), dict(cfg["opponents"])
    seed = int(cfg["run"]["seed"]) * 1000 + rank

    def init() -> Any:
        import torch

        torch.set_num_threads(1)
        return Monitor(make_selfplay_env(env_cfg, opp_cfg, pool_dir, seed=seed))

    return init


def make_vec_env(cfg: Config, run_dir: Path) -> VecEnv:
    """``n_envs`` self-play environments (``SubprocVecEnv`` or ``DummyVecEnv``), seeded; or,
    with ``run.vec_env = "selfplay"``, ``n_envs`` in-process games (:class:`SelfPlayGames`;
    in the native core when it is built, the same games)."""
    pool_dir = run_dir / "snapshots" if cfg["opponents"]["snapshot"] > 0 else None
    if cfg["run"]["vec_env"] == "selfplay":
        if NATIVE:  # the same games, in the native core (training/ppo/selfplay_native.py)
            games: type[SelfPlayGames] = NativeSelfPlayGames
        else:
            games = SelfPlayGames
        return games(
            cfg["run"]["n_envs"], cfg["env"], cfg["opponents"], pool_dir, cfg["run"]["seed"]
        )
    fns = [_make_env_fn(cfg, pool_dir, i) for i in range(cfg["run"]["n_envs"])]
    if cfg["run"]["vec_env"] == "subproc" and len(fns) > 1:
        venv: VecEnv = SubprocVecEnv(fns, start_method="forkserver")
    else:
        venv = DummyVecEnv(fns)
    venv.seed(int(cfg["run"]["seed"]))
    return venv


def policy_kwargs(cfg: Config) -> dict[str, Any]:
    """``policy_kwargs`` of MaskablePPO for the ``[policy]`` section."""
    import torch

    pol = cfg["policy"]
    if pol["head"] == "spatial":
        return {
            "num_players": cfg["env"]["num_players"],
            "mode": cfg["env"]["mode"],
            **{p.name: p.convert(pol[p.config_key]) for p in NETWORK},
            "ortho_init": bool(pol["ortho_init"]),
        }
    return {
        "features_extractor_class": MoonRiverExtractor,
        "features_extractor_kwargs": extractor_kwargs(pol, cfg["env"]),
        "net_arch": {"pi": list(pol["pi"]), "vf": list(pol["vf"])},
        "activation_fn": {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh, "elu": torch.nn.ELU}[
            pol["activation"]
        ],
        "ortho_init": bool(pol["ortho_init"]),
    }


def learning_rate(cfg: Config, clock: RunClock) -> Any:
    ppo = cfg["ppo"]
    if ppo["lr_schedule"] == "constant":
        return float(ppo["learning_rate"])
    return LinearSchedule(
        ppo["learning_rate"], ppo["lr_final_fraction"], clock, cfg["run"]["time_limit_minutes"] * 60
    )


def ppo_class(cfg: Config) -> Any:
    """``SelfPlayPPO`` for ``run.vec_env = "selfplay"``, else ``MaskablePPO`` (one zip format)."""
    from sb3_contrib import MaskablePPO

    return SelfPlayPPO if cfg["run"]["vec_env"] == "selfplay" else MaskablePPO


SB3_ARGUMENTS = {
    key: key
    for key in (
        "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda", "clip_range", "ent_coef",
        "vf_coef", "max_grad_norm",
    )
}  # fmt: skip
"""``[ppo]`` keys passed to ``MaskablePPO`` under their own name (the config uses SB3's names)."""


def build_model(cfg: Config, venv: VecEnv, run_dir: Path, clock: RunClock) -> Any:
    ppo = cfg["ppo"]
    policy_class: Any = MoonRiverPolicy if cfg["policy"]["head"] == "spatial" else "MlpPolicy"
    return ppo_class(cfg)(
        policy_class,
        venv,
        learning_rate=learning_rate(cfg, clock),
        **{argument: ppo[key] for key, argument in SB3_ARGUMENTS.items()},
        target_kl=ppo["target_kl"] or None,
        normalize_advantage=ppo["normalize_advantage"],
        policy_kwargs=policy_kwargs(cfg),
        tensorboard_log=str(run_dir / "tb"),
        seed=cfg["run"]["seed"],
        device="cpu",
        verbose=cfg["run"]["verbose"],
    )


def init_policy(model: Any, path: str | Path) -> None:
    """Copy the policy weights of a saved MaskablePPO zip or policy snapshot (same network
    config) into ``model``. The file is read by :func:`agents.networks.snapshots.load_policy`,
    which runs no code from it (no unpickling, whatever its name): a file it refuses, e.g. one
    whose pickled entries would run code, is a ``ConfigError`` naming the key and why."""
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"pretrain.init_model: no file {str(p)!r}")
    try:
        source = load_policy(p)
    except ModelFileError as e:
        raise ConfigError(f"pretrain.init_model: {e}") from None
    try:
        model.policy.load_state_dict(source.state_dict())
    except RuntimeError as e:
        raise ConfigError(
            f"pretrain.init_model: the network does not match [policy]: {e}"
        ) from None
    print(f"policy initialised from {p}", flush=True)


def run_pretrain(model: Any, cfg: Config, run_dir: Path) -> dict[str, Any]:
    """Behaviour cloning of ``[pretrain] teacher`` into the fresh model (training/ppo/pretrain.py);
    saves ``pretrained.zip`` and logs ``pretrain/*`` to ``tb/pretrain``."""
    from stable_baselines3.common.logger import configure

    logger = configure(str(run_dir / "tb" / "pretrain"), ["tensorboard"])
    pre = cfg["pretrain"]
    metrics = pretrain(
        model,
        pre,
        cfg["env"],
        cfg["ppo"]["gamma"],
        cfg["run"]["seed"],
        logger=logger,
        save_to=run_dir / "pretrain_data.npz" if pre["save_data"] else None,
        work_dir=run_dir / PRETRAIN_WORK,
    )
    logger.close()
    save_model(model, run_dir / "pretrained.zip")
    return metrics


def open_model(
    cfg: Config, venv: VecEnv, run_dir: Path, clock: RunClock, checkpoint: Path | None
) -> tuple[Any, dict[str, Any] | None]:
    """The model: loaded from ``checkpoint``, or built and warm-started (``[pretrain]``
    ``init_model`` and/or behaviour cloning, then a step-0 checkpoint so that an interrupted
    run resumes without cloning again). Returns it with the pretraining metrics, if any."""
    if checkpoint is not None:
        model = ppo_class(cfg).load(
            str(checkpoint),
            env=venv,
            device="cpu",
            custom_objects={
                "learning_rate": learning_rate(cfg, clock),
                "tensorboard_log": str(run_dir / "tb"),
            },
        )
        print(f"resuming from {checkpoint} at {model.num_timesteps} steps", flush=True)
        return model, None
    model = build_model(cfg, venv, run_dir, clock)
    pretrained = run_dir / "pretrained.zip"
    if cfg["pretrain"]["teacher"] and pretrained.exists() and not unreadable(pretrained):
        # an interrupted run that finished its warm start: the cloned model is kept
        init_policy(model, pretrained)
        save_checkpoint(model, run_dir / "checkpoints", clock(), cfg["checkpoint"]["keep"])
        return model, {"from": str(pretrained)}
    if cfg["pretrain"]["init_model"]:
        init_policy(model, cfg["pretrain"]["init_model"])
    metrics = None
    if cfg["pretrain"]["teacher"]:
        metrics = run_pretrain(model, cfg, run_dir)
        save_checkpoint(model, run_dir / "checkpoints", clock(), cfg["checkpoint"]["keep"])
        # the step-0 checkpoint holds the warm start now: its games can go (they are large)
        shutil.rmtree(run_dir / PRETRAIN_WORK, ignore_errors=True)
    return model, metrics
