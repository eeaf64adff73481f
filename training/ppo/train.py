"""Train a MaskablePPO agent for Moon River with self-play and baseline opponents.

Usage::

    python -m training.train [--config training/ppo/configs/default.toml] [--set key=value ...]
        [--total-timesteps N] [--run-dir runs/NAME] [--resume] [--seed S] [--full]

* ``--config``: a TOML file layered over ``training/ppo/configs/default.toml`` (the one home of
  the defaults: a short run of a few minutes; ``--full`` defaults to ``full.toml``). The run
  prints what its config changes from ``default.toml`` at the start.
* ``--set section.key=value`` (repeatable): override one key, e.g. ``--set ppo.n_steps=512``
  (the value is read as TOML; bare words are strings).
* ``--full``: the full budget: 60 minutes of wall time (``run.time_limit_minutes = 60``, a
  time-limit callback stops the run) with a step budget too large to be reached first.
* ``--resume``: continue the run in ``--run-dir`` from its latest checkpoint: the saved
  ``config.toml`` is used (``--set`` / ``--total-timesteps`` still apply on top), the step count
  continues (``reset_num_timesteps=False``) and so does the run's wall clock (for the time limit).
  Keys that fix the game or the network (``[env]``, ``[policy]``) cannot change; the others
  can and are recorded in ``config.toml``. A checkpoint that cannot be read (cut short) is
  skipped for the newest readable one. A run interrupted in its warm start continues it: the
  teacher games kept so far (``pretrain/games/``) are not played again and the cloning goes on
  from its last finished epoch (``pretrain/cloning.zip``) or from ``pretrained.zip``.

The step budget is rounded up to whole rollouts (``ppo.n_steps x run.n_envs``), with a
message. A run directory is locked while a run uses it (``.lock``: a second run there is
refused, naming the holder). Every file is written atomically (:mod:`training.common.outputs`).

A run directory holds ``config.toml`` (the validated config), ``checkpoints/model_<N>_steps.zip``
(+ ``.json`` with the wall time), ``snapshots/`` (the self-play pool), ``tb/`` (TensorBoard:
``tensorboard --logdir runs``), ``eval.csv`` (ladder evaluations), ``final_model.zip``,
``final_eval.json`` and ``learning_curve.png``.

The environments are :class:`~training.ppo.selfplay.SelfPlayEnv` (one learner seat, opponents drawn
per episode) in a ``SubprocVecEnv``; MaskablePPO reads each env's ``action_masks()`` (the
learner's legal actions) through ``env_method``. With ``run.vec_env = "selfplay"`` the games run
in this process instead and :class:`~training.ppo.selfplay_vec.SelfPlayPPO` collects every learner
seat's decisions with one batched forward pass per step (training/ppo/selfplay_vec.py).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv

from agents.networks.features import MoonRiverExtractor, extractor_kwargs
from agents.networks.hyperparameters import NETWORK
from agents.networks.policy import MoonRiverPolicy
from agents.networks.snapshots import load_policy
from moonriver_env.vector import NATIVE
from training.common.config import Config, ConfigError, dumps
from training.common.ladder import (
    LadderEvalCallback,
    env_kwargs_from_config,
    evaluate_ladder,
    format_table,
)
from training.common.ladder import plot_learning_curve as _plot
from training.common.opponents import SnapshotPool
from training.common.outputs import OutputError, RunLock, save_model, write_json, write_text
from training.ppo.config import (
    CONFIG_DIR,
    DEFAULT_CONFIG,
    check_resume,
    describe_diff,
    load_config,
)
from training.ppo.pretrain import pretrain
from training.ppo.selfplay import OpponentStatsCallback, SnapshotCallback, make_selfplay_env
from training.ppo.selfplay_native import NativeSelfPlayGames
from training.ppo.selfplay_vec import SelfPlayGames, SelfPlayPPO

__all__ = ["CONFIG_DIR", "DEFAULT_CONFIG", "main", "train"]

FULL_CONFIG = CONFIG_DIR / "full.toml"
FULL_MINUTES = 60.0
FULL_STEPS = 100_000_000
PRETRAIN_WORK = "pretrain"  # the warm start's games and cloning epochs until step 0 is saved
_CKPT_RE = re.compile(r"model_(\d+)_steps\.zip$")


# -- schedules and clocks ----------------------------------------------------------------------
class RunClock:
    """Wall time of a run in seconds, continued across resumes (``base`` = time already spent)."""

    def __init__(self, base: float = 0.0) -> None:
        self.base = float(base)
        self.start = time.time()

    def __call__(self) -> float:
        return self.base + time.time() - self.start


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


# -- callbacks ---------------------------------------------------------------------------------
class TimeLimitCallback(BaseCallback):
    """Stops training once the run's wall clock passes ``limit_s`` seconds."""

    def __init__(self, limit_s: float, clock: RunClock, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.limit_s = float(limit_s)
        self.clock = clock
        self.stopped = False

    def _on_step(self) -> bool:
        if self.clock() >= self.limit_s:
            if not self.stopped and self.verbose:
                print(
                    f"time limit reached after {self.clock():.0f} s at {self.num_timesteps} steps"
                )
            self.stopped = True
            return False
        return True


class PruningCheckpointCallback(CheckpointCallback):
    """``CheckpointCallback`` that also writes ``model_<N>_steps.json`` (step, run wall time)
    beside each checkpoint and keeps only the last ``keep`` checkpoints (0 = all)."""

    def __init__(
        self, save_freq: int, save_path: str, clock: RunClock, keep: int = 0, **kwargs: Any
    ):
        super().__init__(save_freq, save_path, name_prefix="model", **kwargs)
        self.clock = clock
        self.keep = int(keep)

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            save_checkpoint(self.model, Path(self.save_path), self.clock(), self.keep)
        return True


def save_checkpoint(model: Any, ckpt_dir: Path, wall_time: float, keep: int = 0) -> Path:
    """Save ``model`` as ``model_<N>_steps.zip`` (+ ``.json``: steps, run wall time), both
    atomically, and drop the checkpoints beyond the last ``keep``."""
    path = ckpt_dir / f"model_{model.num_timesteps}_steps.zip"
    save_model(model, path)
    meta = {"num_timesteps": int(model.num_timesteps), "wall_time": round(float(wall_time), 2)}
    write_json(path.with_suffix(".json"), meta)
    if keep > 0:
        for old in list_checkpoints(ckpt_dir)[:-keep]:
            old.unlink(missing_ok=True)
            old.with_suffix(".json").unlink(missing_ok=True)
    return path


def list_checkpoints(ckpt_dir: Path) -> list[Path]:
    """Checkpoint zips of a run, oldest (fewest steps) first."""
    if not ckpt_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in ckpt_dir.iterdir() if (m := _CKPT_RE.search(p.name))]
    return [p for _, p in sorted(found)]


# -- building ----------------------------------------------------------------------------------
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
    """Copy the policy weights of a saved MaskablePPO zip (same network config) into ``model``."""
    from sb3_contrib import MaskablePPO

    p = Path(path)
    if not p.exists():
        raise ConfigError(f"pretrain.init_model: no file {str(p)!r}")
    source = MaskablePPO.load(str(p), device="cpu")
    try:
        model.policy.load_state_dict(source.policy.state_dict())
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


# -- the run -----------------------------------------------------------------------------------
def resolve_config(args: argparse.Namespace) -> tuple[Config, Path]:
    """The config and run directory from the command line (see the module docstring)."""
    overrides = list(args.set or [])
    if args.seed is not None:
        overrides.append(f"run.seed={args.seed}")
    if args.total_timesteps is not None:
        overrides.append(f"run.total_timesteps={args.total_timesteps}")
    if args.full:
        overrides.append(f"run.time_limit_minutes={FULL_MINUTES}")
        if args.total_timesteps is None:
            overrides.append(f"run.total_timesteps={FULL_STEPS}")
    if args.resume:
        if args.run_dir is None:
            raise ConfigError("--run-dir: --resume needs the run directory")
        run_dir = Path(args.run_dir)
        saved = run_dir / "config.toml"
        if not saved.exists():
            raise ConfigError(f"--run-dir: {saved} not found (nothing to resume)")
        if args.config is not None:
            print(f"--resume: using {saved}, not {args.config}", file=sys.stderr)
        return load_config(saved, overrides), run_dir
    path = Path(args.config) if args.config else (FULL_CONFIG if args.full else DEFAULT_CONFIG)
    cfg = load_config(path, overrides)
    if args.run_dir is not None:
        run_dir = Path(args.run_dir)
    else:
        run_dir = Path("runs") / time.strftime(f"{path.stem}-%Y%m%d-%H%M%S")
    return cfg, run_dir


def find_checkpoint(run_dir: Path, resume: bool) -> tuple[Path | None, float]:
    """The checkpoint to resume from and the run's wall time so far (``None, 0`` for a new
    run); ``ConfigError`` when resuming finds nothing or a new run would overwrite one."""
    ckpt_dir = run_dir / "checkpoints"
    if not resume:
        if list_checkpoints(ckpt_dir) or (run_dir / "config.toml").exists():
            raise ConfigError(
                f"--run-dir: {run_dir} already holds a run; pass --resume or a new dir"
            )
        return None, 0.0
    for path in reversed(list_checkpoints(ckpt_dir)):
        problem = unreadable(path)
        if problem:
            print(
                f"checkpoint {path.name} is unreadable ({problem}); trying an older one", flush=True
            )
            continue
        meta = path.with_suffix(".json")
        try:
            base_time = float(json.loads(meta.read_text()).get("wall_time", 0.0))
        except (OSError, ValueError, AttributeError):
            base_time = 0.0  # the sidecar is lost: the time limit restarts with this session
        return path, base_time
    if (run_dir / "config.toml").exists():
        print(
            f"no readable checkpoint in {ckpt_dir}: starting the run again"
            + (" (keeping the warm start done so far)" if _warm_start_kept(run_dir) else ""),
            flush=True,
        )
        return None, 0.0
    raise ConfigError(f"--run-dir: no checkpoint in {ckpt_dir} to resume from")


def unreadable(path: Path) -> str:
    """Why the checkpoint zip ``path`` cannot be loaded ("" when it looks whole: a zip whose
    members pass their CRC checks; a write cut short leaves no central directory)."""
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                return f"{bad} is corrupt"
            if "data" not in z.namelist():
                return "not an SB3 model"
    except (OSError, zipfile.BadZipFile) as e:
        return str(e)
    return ""


def _warm_start_kept(run_dir: Path) -> bool:
    return (run_dir / "pretrained.zip").exists() or (run_dir / PRETRAIN_WORK).is_dir()


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


def make_callbacks(
    cfg: Config, run_dir: Path, clock: RunClock, warm_started: bool
) -> tuple[list[BaseCallback], TimeLimitCallback | None]:
    """Checkpoints, opponent statistics, self-play snapshots, the ladder evaluation (also at
    the start when ``warm_started``: the policy before PPO) and the time limit (returned
    too, to tell whether it stopped the run)."""
    n_envs = cfg["run"]["n_envs"]
    callbacks: list[BaseCallback] = [
        PruningCheckpointCallback(
            max(cfg["checkpoint"]["every"] // n_envs, 1),
            str(run_dir / "checkpoints"),
            clock,
            cfg["checkpoint"]["keep"],
        ),
        OpponentStatsCallback(),
    ]
    if cfg["opponents"]["snapshot"] > 0:
        pool = SnapshotPool(run_dir / "snapshots", cfg["opponents"]["snapshot_keep"])
        callbacks.append(SnapshotCallback(pool, cfg["opponents"]["snapshot_every"]))
    ev = cfg["eval"]
    if ev["every"] > 0:
        callbacks.append(
            LadderEvalCallback(
                ev["every"],
                ev["opponents"],
                ev["games"],
                run_dir / "eval.csv",
                env_kwargs_from_config(cfg["env"]),
                seed=ev["seed"],
                deterministic=ev["deterministic"],
                clock=clock,
                verbose=1,
                at_start=warm_started,
                best_opponent=ev["best_opponent"],
                best_path=run_dir / "best_model.zip",
            )
        )
    limit_s = cfg["run"]["time_limit_minutes"] * 60.0
    time_cb = TimeLimitCallback(limit_s, clock, verbose=1) if limit_s > 0 else None
    if time_cb is not None:
        callbacks.append(time_cb)
    return callbacks, time_cb


def learn(
    model: Any, cfg: Config, callbacks: list[BaseCallback], clock: RunClock, resumed: bool
) -> tuple[int, float]:
    """PPO for the remaining step budget (unless it or the time limit is spent); returns the
    steps taken and the seconds it took."""
    run = cfg["run"]
    start_steps = int(model.num_timesteps)
    remaining = round_to_rollouts(cfg, start_steps)
    limit_s = run["time_limit_minutes"] * 60.0
    t0 = time.time()
    if remaining > 0 and (limit_s <= 0 or clock() < limit_s):
        model.learn(
            total_timesteps=remaining,
            callback=CallbackList(callbacks),
            log_interval=run["log_interval"],
            tb_log_name="ppo",
            reset_num_timesteps=not resumed,
            progress_bar=run["progress_bar"],
        )
    else:
        print(f"nothing to do: {start_steps} steps of {run['total_timesteps']} done", flush=True)
    return int(model.num_timesteps) - start_steps, time.time() - t0


def rollout_steps(cfg: Config) -> int:
    """Learner steps per rollout: ``ppo.n_steps x run.n_envs``."""
    return int(cfg["ppo"]["n_steps"] * cfg["run"]["n_envs"])


def round_to_rollouts(cfg: Config, start_steps: int) -> int:
    """The steps left to train: the budget ``run.total_timesteps`` rounded up to whole
    rollouts (PPO collects ``ppo.n_steps x run.n_envs`` steps before every update), with a
    message when the rounding changes it."""
    asked = cfg["run"]["total_timesteps"]
    remaining = asked - start_steps
    if remaining <= 0:
        return 0
    rollout = rollout_steps(cfg)
    rounded = math.ceil(remaining / rollout) * rollout
    if rounded != remaining:
        print(
            f"run.total_timesteps: {asked:,} rounded up to {start_steps + rounded:,} (PPO trains "
            f"whole rollouts of ppo.n_steps x run.n_envs = {cfg['ppo']['n_steps']} x "
            f"{cfg['run']['n_envs']} = {rollout:,} steps)",
            flush=True,
        )
    return rounded


def final_evaluation(model: Any, cfg: Config, run_dir: Path) -> dict[str, Any]:
    """The ``[eval] final_games`` evaluation of the final model (and of the best one, when it
    is another), also written to ``final_eval.json``."""
    ev = cfg["eval"]
    models = {"final": run_dir / "final_model.zip"}
    best_meta = run_dir / "best_model.json"
    if (
        (run_dir / "best_model.zip").exists()
        and best_meta.exists()
        and json.loads(best_meta.read_text())["step"] != model.num_timesteps
    ):
        models["best"] = run_dir / "best_model.zip"
    report: dict[str, Any] = {}
    for name, path in models.items():
        policy = model.policy if name == "final" else load_policy(path)
        policy.set_training_mode(False)
        rows = evaluate_ladder(
            policy,
            ev["final_opponents"] or ev["opponents"],
            ev["final_games"],
            seed=ev["seed"],
            env_kwargs=env_kwargs_from_config(cfg["env"]),
            deterministic=ev["deterministic"],
            show_progress=True,
        )
        print(f"{name} model ({path.name}), {ev['final_games']} games per opponent:")
        print(format_table(rows), flush=True)
        report[name] = {"model": str(path), "results": rows}
    if "best" in report:
        report["best"]["step"] = json.loads(best_meta.read_text())["step"]
    write_json(run_dir / "final_eval.json", report)
    return report


def train(cfg: Config, run_dir: Path, resume: bool = False) -> dict[str, Any]:
    """Train (or resume) the run; returns a summary dict (also ``run_dir/summary.json``).

    The run directory is locked meanwhile (:class:`~training.common.outputs.RunLock`); a resumed
    run refuses a config that changes the game or the network (``[env]``, ``[policy]``)
    before writing anything, and records the other changes in ``config.toml``."""
    import torch

    if cfg["run"]["torch_threads"] > 0:
        torch.set_num_threads(cfg["run"]["torch_threads"])
    with RunLock(run_dir):
        return _train_locked(cfg, run_dir, resume)


def describe_budget(cfg: Config) -> str:
    """The run's budgets in one line, saying which are wall time (then the result depends on
    the machine's speed) and which are fixed amounts of work."""
    pre, run = cfg["pretrain"], cfg["run"]
    parts = []
    timed = False
    if pre["teacher"] and not pre["data"] and not pre["init_model"]:
        games = f"warm start: up to {pre['games']:,} {pre['teacher']} games"
        if pre["collect_minutes"] > 0:
            games += f" or {pre['collect_minutes']:g} min of wall time"
            timed = True
        clone = f"cloning up to {pre['epochs']} epochs"
        if pre["max_minutes"] > 0:
            clone += f" or {pre['max_minutes']:g} min"
            timed = True
        parts += [games, clone]
    ppo = f"PPO {run['total_timesteps']:,} steps"
    if run["time_limit_minutes"] > 0:
        ppo += f" or {run['time_limit_minutes']:g} min of wall time in all"
        timed = True
    parts.append(ppo)
    if cfg["eval"]["final_games"]:
        parts.append(f"final evaluation {cfg['eval']['final_games']} games per opponent")
    note = (
        " (the wall-time caps make the amount of work, and so the result, depend on the "
        "machine's speed)"
        if timed
        else " (fixed amounts of work)"
    )
    return "budget: " + "; ".join(parts) + note


def _train_locked(cfg: Config, run_dir: Path, resume: bool) -> dict[str, Any]:
    saved = run_dir / "config.toml"
    if resume and saved.exists():
        before = load_config(saved)
        check_resume(before, cfg)  # before anything is written
        print(describe_diff(cfg, before, f"{saved} (the run's)"), flush=True)
    else:
        print(describe_diff(cfg), flush=True)
    print(describe_budget(cfg), flush=True)
    checkpoint, base_time = find_checkpoint(run_dir, resume)
    write_text(saved, dumps(cfg))  # the effective config; on --resume it records the changes
    clock = RunClock(base_time)
    venv = make_vec_env(cfg, run_dir)
    try:
        model, pretrain_metrics = open_model(cfg, venv, run_dir, clock, checkpoint)
        warm = pretrain_metrics is not None or bool(cfg["pretrain"]["init_model"])
        callbacks, time_cb = make_callbacks(cfg, run_dir, clock, warm_started=warm)
        steps, learn_s = learn(model, cfg, callbacks, clock, resumed=checkpoint is not None)
        final = save_checkpoint(model, run_dir / "checkpoints", clock(), cfg["checkpoint"]["keep"])
        save_model(model, run_dir / "final_model.zip")
    finally:
        venv.close()
    summary: dict[str, Any] = {
        "run_dir": str(run_dir),
        "num_timesteps": int(model.num_timesteps),
        "steps_this_session": steps,
        "seconds_this_session": round(learn_s, 1),
        "steps_per_second": round(steps / learn_s, 1) if learn_s > 0 else None,
        "wall_time": round(clock(), 1),
        "stopped_by_time_limit": bool(time_cb is not None and time_cb.stopped),
        "checkpoint": str(final),
    }
    if pretrain_metrics is not None:
        summary["pretrain"] = pretrain_metrics
    print(
        f"trained {steps} steps in {learn_s:.0f} s ({summary['steps_per_second']} steps/s); "
        f"total {model.num_timesteps} steps",
        flush=True,
    )
    if cfg["eval"]["final_games"] > 0:
        t1 = time.time()
        summary["final_eval"] = final_evaluation(model, cfg, run_dir)
        summary["final_eval_seconds"] = round(time.time() - t1, 1)
    final_rows = {name: r["results"] for name, r in summary.get("final_eval", {}).items()}
    plot = _plot(run_dir / "eval.csv", run_dir / "learning_curve.png", final_rows)
    if plot is not None:
        print(f"plot: {plot}", flush=True)
    write_json(run_dir / "summary.json", summary)
    return summary


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m training.train", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--config", default=None, help="TOML config (default: training/ppo/configs/default.toml)"
    )
    ap.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a config key")
    ap.add_argument("--total-timesteps", type=int, default=None)
    ap.add_argument("--run-dir", default=None, help="default: runs/<config>-<timestamp>")
    ap.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--full", action="store_true", help="the full budget: 60 minutes of wall time")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run_dir: Path | str = "runs/NAME"
    try:
        cfg, run_dir = resolve_config(args)
        print(f"run dir: {run_dir}", flush=True)
        train(cfg, run_dir, resume=args.resume)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    except OutputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; the files written so far are whole. Continue with: "
            f"python -m training.train --run-dir {run_dir} --resume",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
