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
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from agents.networks.snapshots import load_policy
from training.common.config import Config, ConfigError
from training.common.ladder import env_kwargs_from_config, evaluate_ladder, format_table
from training.common.ladder import plot_learning_curve as _plot
from training.common.outputs import OutputError, RunLock, save_model, write_json
from training.common.run import RunClock, begin_run
from training.common.run import resolve_config as resolve_run_config
from training.ppo.callbacks import make_callbacks
from training.ppo.checkpoints import find_checkpoint, save_checkpoint
from training.ppo.config import CONFIG_DIR, DEFAULT_CONFIG, TRAIN
from training.ppo.model import make_vec_env, open_model

__all__ = ["CONFIG_DIR", "DEFAULT_CONFIG", "main", "train"]

FULL_CONFIG = CONFIG_DIR / "full.toml"
FULL_MINUTES = 60.0
FULL_STEPS = 100_000_000


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
    if args.resume and args.run_dir is None:
        raise ConfigError("--run-dir: --resume needs the run directory")
    path = Path(args.config) if args.config else (FULL_CONFIG if args.full else DEFAULT_CONFIG)
    if args.run_dir is not None:
        run_dir = Path(args.run_dir)
    else:
        run_dir = Path("runs") / time.strftime(f"{path.stem}-%Y%m%d-%H%M%S")

    def log(text: str) -> None:
        print(text, file=sys.stderr)

    config = args.config if args.resume else path
    cfg = resolve_run_config(TRAIN, run_dir, args.resume, config, overrides, log=log)
    return cfg, run_dir


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
    # refuses a new run over an old one, or a resumed one changing [env] or [policy], before
    # anything is written; config.toml then records the effective config
    before = begin_run(TRAIN, run_dir, cfg, resume)
    print(describe_budget(cfg), flush=True)
    checkpoint, base_time = find_checkpoint(run_dir, before is not None) if resume else (None, 0.0)
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
