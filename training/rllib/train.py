"""Multi-agent PPO self-play on Ray RLlib (new API stack) with action masking.

Usage::

    python -m training.rllib_train --config training/rllib/configs/default.toml --run-dir DIR
        [--address ADDR] [--resume] [--set section.key=value ...] [--bench N]

* ``--config``: a TOML file layered over ``training/rllib/configs/default.toml`` (the one home
  of the defaults, every key documented; :mod:`training.rllib.config`), ``--set`` overrides one
  key. Errors name the key.
* ``--address``: connect to a running Ray cluster (``ray start --head`` on one machine, ``ray
  start --address HEAD:6379`` on the others; every node needs this package installed). Without
  it a local Ray is started for the command (``run.num_cpus``, default the machine's CPUs).
* ``--resume``: continue the run in ``--run-dir`` from its latest finished checkpoint: the saved
  ``config.toml`` is used (``--set`` applies on top; ``[env]``, ``[model]`` and
  ``[opponents]`` cannot change); the iteration count, env steps and wall clock continue.
* ``--bench N``: measure instead of training (nothing is written): env steps per second
  sampled by the env runners and learner steps per second of the PPO update (batch x epochs
  / update time), each the median of ``N`` repeats, as JSON; with ``--sb3`` the same for the
  SB3 trainer's ``MaskablePPO`` at the same network size (no Ray).

The run (:mod:`moonriver_env.rllib`): the learner module ``main`` plays one seat of every game
and the other seats draw a role with the ``[opponents]`` weights: itself (every learner seat
trains, one shared policy), a frozen snapshot module ``snapshot_<k>`` (its weights are the
learner's, copied every ``opponents.snapshot_every`` iterations into the next slot), or an
embedded baseline agent (random, greedy, heuristic) played inside the env. The action mask
reaches the logits in sampling and in training (:class:`~moonriver_env.rllib.MaskedPPOTorchRLModule`).

The run directory (locked while a run uses it, :class:`training.common.outputs.RunLock`):
``config.toml``, ``provenance.json`` (command, versions, machine, Ray resources, each start),
``checkpoints/iter_<N>/`` (RLlib algorithm checkpoints, written beside and renamed into place
with their ``moonriver.json``; the last ``checkpoint.keep`` kept; layout:
:mod:`agents.rllib_agent`), ``metrics.csv`` (one row per iteration), ``tb/`` (TensorBoard),
``eval.csv`` (ladder evaluations: :func:`training.common.evaluation.append_csv` rows) and
``final_eval.json``. The result plays as the agent ``rllib:DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.atomic import csv_text
from agents.base import PolicyAgent
from agents.ray_backend import check_address, connect, start_local
from agents.rllib_agent import (
    CHECKPOINT_DIR,
    CHECKPOINT_META,
    ModulePolicy,
    checkpoint_name,
    list_checkpoints,
    read_meta,
)
from agents.runner import GameSetup
from agents.workers import BackendError
from moonriver_env.games import GameSpec
from moonriver_env.opponents import LEARNER
from training.common.config import Config, ConfigError
from training.common.evaluation import append_csv, evaluate_agent, format_table
from training.common.outputs import (
    OutputError,
    RunLock,
    append_text,
    replace_dir,
    write_json,
)
from training.common.provenance import git_commit
from training.common.run import RunClock, begin_run, budget_spent, iterate, resolve_config
from training.rllib.config import RLLIB, RLLIB_DEFAULT, ROLES

METRICS = (
    "iteration",
    "env_steps",
    "wall_time",
    "iter_seconds",
    "env_steps_per_s",
    "episodes",
    "episode_len_mean",
    "learner_return_mean",
    "learner_win_share",
    "policy_loss",
    "vf_loss",
    "entropy",
    "kl",
    "vf_explained_var",
)


# -- building ----------------------------------------------------------------------------------
def env_config(cfg: Config) -> dict[str, Any]:
    """:class:`~moonriver_env.rllib.GameMultiAgentEnv`'s ``env_config`` from a run config: the
    game by its registered name (``game``), its arguments, the opponents."""
    env, opp = cfg["env"], cfg["opponents"]
    return {
        "game": GameSpec.from_section(env).game,
        **GameSetup.from_config(env).env_kwargs(),
        "illegal_penalty": env["illegal_penalty"],
        "opponents": {role: opp[role] for role in ROLES},
        "snapshot_slots": opp["snapshot_slots"],
    }


def algo_config(cfg: Config, iteration: int = 0) -> Any:
    """The RLlib ``PPOConfig`` of a run config; a run resumed after ``iteration`` iterations
    seeds RLlib with ``(run.seed, iteration)`` so its env runners do not replay the first games."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from moonriver_env.rllib import (
        LEARNER,
        GameMultiAgentEnv,
        module_for_agent,
        rl_module_spec,
    )

    run, ppo, model = cfg["run"], cfg["ppo"], cfg["model"]
    env_cfg = env_config(cfg)
    spec = rl_module_spec(GameMultiAgentEnv(env_cfg), tuple(model["hidden"]), model["activation"])
    return (
        PPOConfig()
        # The env pre-check steps one unmasked random action; GameMultiAgentEnv answers an
        # illegal action by ending the game with the penalty, silently, so the check stays on.
        .environment(GameMultiAgentEnv, env_config=env_cfg)
        .env_runners(
            num_env_runners=run["num_env_runners"],
            num_envs_per_env_runner=run["envs_per_env_runner"],
            num_cpus_per_env_runner=1,
        )
        # 0: the driver learns (run.torch_threads); N: N learner actors (CPU, torch DDP), each
        # with run.torch_threads CPUs (at least 1)
        .learners(
            num_learners=run["num_learners"], num_cpus_per_learner=max(1, run["torch_threads"])
        )
        .training(
            lr=ppo["learning_rate"],
            train_batch_size_per_learner=ppo["train_batch_size"] // max(1, run["num_learners"]),
            use_kl_loss=ppo["kl_coef"] > 0,
            **{argument: ppo[key] for key, argument in RLLIB_ARGUMENTS.items()},
        )
        .multi_agent(
            policies=set(spec.rl_module_specs),  # type: ignore[arg-type]
            policy_mapping_fn=module_for_agent,  # type: ignore[arg-type]
            policies_to_train=[LEARNER],
        )
        .rl_module(rl_module_spec=spec)
        .callbacks(_outcome_callback())
        .debugging(seed=run_seed(run["seed"], iteration), log_level="WARN")
    )


RLLIB_ARGUMENTS = {
    "minibatch_size": "minibatch_size", "num_epochs": "num_epochs", "gamma": "gamma",
    "gae_lambda": "lambda_", "clip_range": "clip_param", "vf_clip": "vf_clip_param",
    "ent_coef": "entropy_coeff", "vf_coef": "vf_loss_coeff", "kl_coef": "kl_coeff",
    "kl_target": "kl_target", "max_grad_norm": "grad_clip",
}  # fmt: skip
"""``[ppo]`` keys (the SB3 names, shared with the PPO pipeline's config) -> RLlib's
``AlgorithmConfig.training`` arguments."""


def run_seed(seed: int, iteration: int) -> int:
    """RLlib's seed for a run (re)started after ``iteration`` iterations: ``seed`` for a new run."""
    if iteration == 0:
        return seed
    return int(np.random.SeedSequence([seed, iteration]).generate_state(1)[0])


def _outcome_callback() -> type:
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class LearnerOutcome(RLlibCallback):
        """Logs ``learner_win_share``: the learner seats' share of the win (1, 1/k, 0)."""

        def on_episode_end(
            self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any
        ) -> None:
            for agent_id, agent_episode in episode.agent_episodes.items():
                if "@" in agent_id or not len(agent_episode):
                    continue
                info = agent_episode.get_infos(-1)
                if "win_share" in info:
                    metrics_logger.log_value(
                        "learner_win_share", info["win_share"], reduce="mean", window=200
                    )

    return LearnerOutcome


def start_ray(address: str | None, num_cpus: int) -> None:
    """Connect to the cluster at ``address``, or start a local Ray with ``num_cpus`` CPUs (0 =
    the machine's)."""
    import ray

    os.environ.setdefault("RAY_DEDUP_LOGS", "1")
    if ray.is_initialized():
        return
    if address:
        connect(address, log_to_driver=True)
    else:
        start_local(num_cpus or os.cpu_count() or 1)


def refresh_snapshot(algo: Any, iteration: int, cfg: Config) -> str | None:
    """Every ``opponents.snapshot_every`` iterations copy the learner into the next snapshot
    slot (round robin) and push it to the env runners; returns the slot's module id."""
    from moonriver_env.rllib import LEARNER, snapshot_module

    opp = cfg["opponents"]
    if opp["snapshot_slots"] == 0 or iteration % opp["snapshot_every"]:
        return None
    slot = snapshot_module((iteration // opp["snapshot_every"] - 1) % opp["snapshot_slots"])
    weights = algo.learner_group.get_weights(module_ids=[LEARNER])[LEARNER]
    algo.learner_group.set_weights({slot: weights})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[slot], inference_only=True
    )
    return slot


# -- checkpoints, metrics ------------------------------------------------------------------------
def save_checkpoint(algo: Any, run_dir: Path, meta: Mapping[str, Any], keep: int) -> Path:
    """The algorithm into ``checkpoints/iter_<N>/``: written beside, ``moonriver.json`` last,
    renamed into place (a crash never leaves a half checkpoint that looks finished); then the
    checkpoints beyond the last ``keep`` are removed."""
    dest = run_dir / CHECKPOINT_DIR / checkpoint_name(int(meta["iteration"]))
    build = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    shutil.rmtree(build, ignore_errors=True)
    build.parent.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str(build.resolve()))
    write_json(build / CHECKPOINT_META, dict(meta))
    replace_dir(build, dest)
    if keep > 0:
        for old in list_checkpoints(run_dir)[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    return dest


def metrics_row(result: Mapping[str, Any], wall_time: float, seconds: float) -> dict[str, Any]:
    """One ``metrics.csv`` row from an RLlib result dict."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(LEARNER, {})
    sampled = float(runners.get("num_env_steps_sampled", 0))
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": int(result.get("num_env_steps_sampled_lifetime", 0)),
        "wall_time": round(wall_time, 1),
        "iter_seconds": round(seconds, 2),
        "env_steps_per_s": round(sampled / seconds, 1) if seconds > 0 else 0.0,
        "episodes": int(runners.get("num_episodes", 0)),
        "episode_len_mean": _num(runners.get("episode_len_mean")),
        "learner_return_mean": _num(runners.get("module_episode_returns_mean", {}).get(LEARNER)),
        "learner_win_share": _num(runners.get("learner_win_share")),
        "policy_loss": _num(learner.get("policy_loss")),
        "vf_loss": _num(learner.get("vf_loss")),
        "entropy": _num(learner.get("entropy")),
        "kl": _num(learner.get("mean_kl_loss")),
        "vf_explained_var": _num(learner.get("vf_explained_var")),
    }


def _num(value: Any) -> float:
    try:
        return round(float(value), 5)
    except (TypeError, ValueError):
        return float("nan")


def append_metrics(path: Path, row: Mapping[str, Any]) -> None:
    """Append ``row`` to ``metrics.csv`` (header first in a new file), atomically."""
    append_text(path, csv_text([row], METRICS, header=not path.exists()))


def evaluate(algo: Any, cfg: Config, games: int) -> list[dict[str, Any]]:
    """The learner against each ``eval.opponents`` agent (the one evaluator,
    :func:`training.common.evaluation.evaluate_agent`: the tournament runner's games, seats
    rotated, the same seeds every time)."""
    ev = cfg["eval"]
    policy = ModulePolicy(algo.get_module(LEARNER), sample=not ev["deterministic"])

    def learner(_spec: str, seed: int) -> PolicyAgent:
        return PolicyAgent(
            policy, seed=seed, deterministic=ev["deterministic"], name=LEARNER, repair=False
        )

    spec = GameSpec.from_section(cfg["env"])
    return evaluate_agent(LEARNER, spec, ev["opponents"], games, ev["seed"], agent_factory=learner)


# -- the run -----------------------------------------------------------------------------------
def provenance(args: argparse.Namespace, run_dir: Path, previous: dict[str, Any]) -> dict[str, Any]:
    """``provenance.json``: what made the run (one entry per start: command, versions, machine)."""
    import ray
    import torch

    commit = git_commit() or ""
    start = {
        "command": [sys.executable, "-m", "training.rllib_train", *sys.argv[1:]],
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "resume": bool(args.resume),
        "address": args.address or "local",
        "cluster_resources": {k: v for k, v in ray.cluster_resources().items() if "node" not in k},
        "git_commit": commit,
        "host": socket.gethostname(),
        "cpu_count": os.cpu_count(),
    }
    out = dict(previous)
    out.setdefault("starts", []).append(start)
    out["versions"] = {
        "python": platform.python_version(),
        "ray": ray.__version__,
        "torch": torch.__version__,
    }
    return out


def train(cfg: Config, run_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Train until a budget of ``[run]`` is spent; returns the last metrics row."""
    import torch

    run = cfg["run"]
    if run["torch_threads"]:
        torch.set_num_threads(run["torch_threads"])
    start_ray(args.address, run["num_cpus"])
    prov_path = run_dir / "provenance.json"
    previous = json.loads(prov_path.read_text()) if prov_path.exists() else {}
    write_json(prov_path, provenance(args, run_dir, previous))
    iteration, env_steps, wall_base = 0, 0, 0.0
    found = list_checkpoints(run_dir) if args.resume else []
    if found:
        meta = read_meta(found[-1])
        iteration, env_steps, wall_base = meta["iteration"], meta["env_steps"], meta["wall_time"]
    algo = algo_config(cfg, iteration).build_algo()
    if found:
        algo.restore_from_path(str(found[-1].resolve()))
        print(
            f"resumed from {found[-1]} (iteration {iteration}, {env_steps} env steps)", flush=True
        )
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / "tb"), purge_step=iteration + 1 if iteration else None)
    clock = RunClock(wall_base)
    ck, ev = cfg["checkpoint"], cfg["eval"]
    state: dict[str, Any] = {"iteration": iteration, "env_steps": env_steps, "row": {}}
    saved_at = [iteration]

    def done() -> bool:
        if run["max_env_steps"] and state["env_steps"] >= run["max_env_steps"]:
            return True
        limits = (run["max_iterations"], clock(), run["time_limit_minutes"])
        return budget_spent(state["iteration"], *limits) is not None

    def step() -> int:
        t0 = time.time()
        result = algo.train()
        state["iteration"] = int(result["training_iteration"])
        row = state["row"] = metrics_row(result, clock(), time.time() - t0)
        state["env_steps"] = row["env_steps"]
        append_metrics(run_dir / "metrics.csv", row)
        for key, value in row.items():
            if key != "iteration":
                writer.add_scalar(f"rllib/{key}", value, state["iteration"])
        refresh_snapshot(algo, state["iteration"], cfg)
        return int(state["iteration"])

    def checkpoint(it: int) -> None:
        _checkpoint(algo, run_dir, it, state["env_steps"], clock(), ck["keep"])
        saved_at[0] = it

    try:
        iterate(
            step,
            done,
            [
                (ev["every"], lambda it: _evaluate_and_log(
                    algo, cfg, run_dir, ev["games"], it, state["env_steps"], clock()
                )),
                (ck["every"], checkpoint),
                (run["log_every"], lambda it: print(_progress_line(state["row"]), flush=True)),
            ],
        )  # fmt: skip
        if state["iteration"] > saved_at[0]:
            checkpoint(state["iteration"])
        if ev["final_games"]:
            rows = evaluate(algo, cfg, ev["final_games"])
            write_json(
                run_dir / "final_eval.json", {"iteration": state["iteration"], "results": rows}
            )
            print(format_table(rows), flush=True)
    finally:
        writer.close()
        algo.stop()
    return dict(state["row"])


def _checkpoint(
    algo: Any, run_dir: Path, iteration: int, env_steps: int, wall: float, keep: int
) -> None:
    meta = {"iteration": iteration, "env_steps": env_steps, "wall_time": round(wall, 2)}
    save_checkpoint(algo, run_dir, meta, keep)


def _evaluate_and_log(
    algo: Any, cfg: Config, run_dir: Path, games: int, iteration: int, steps: int, wall: float
) -> None:
    rows = evaluate(algo, cfg, games)
    append_csv(run_dir / "eval.csv", steps, wall, rows)
    text = ", ".join(f"{r['opponent']} {r['win_rate']:.2f}" for r in rows)
    print(f"eval at iteration {iteration} ({steps} env steps): win rate {text}", flush=True)


def _progress_line(row: Mapping[str, Any]) -> str:
    return (
        f"iter {row['iteration']:>4}  env steps {row['env_steps']:>9}  "
        f"{row['env_steps_per_s']:>7.0f} steps/s  wall {row['wall_time']:>7.0f} s  "
        f"learner win share {row['learner_win_share']:.3f}  entropy {row['entropy']:.3f}"
    )


# -- the benchmark -----------------------------------------------------------------------------
def bench(cfg: Config, args: argparse.Namespace, repeats: int) -> dict[str, Any]:
    """Env steps/s sampled (one ``train_batch_size`` batch over all env runners, wall clock)
    and learner steps/s (one PPO update on that batch), each the median of ``repeats``."""
    import torch

    torch.set_num_threads(max(1, cfg["run"]["torch_threads"]))
    start_ray(args.address, cfg["run"]["num_cpus"])
    algo = algo_config(cfg).build_algo()
    group = algo.env_runner_group
    runners = cfg["run"]["num_env_runners"]
    batch = cfg["ppo"]["train_batch_size"]
    per_runner = max(1, batch // max(1, runners))
    algo.train()  # warm-up: connectors, torch kernels
    sample_rates, learn_rates, sample_cpu, learn_cpu = [], [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        parts = group.foreach_env_runner(
            lambda r: _timed_sample(r, per_runner), local_env_runner=runners == 0
        )
        dt = time.perf_counter() - t0
        episodes = [e for part, _ in parts for e in part]
        steps = sum(e.env_steps() for e in episodes)
        sample_rates.append(steps / dt)
        sample_cpu.append(steps / sum(cpu for _, cpu in parts))
        t0, c0 = time.perf_counter(), time.process_time()
        algo.learner_group.update(
            episodes=episodes,
            minibatch_size=cfg["ppo"]["minibatch_size"],
            num_epochs=cfg["ppo"]["num_epochs"],
        )
        work = steps * cfg["ppo"]["num_epochs"]
        learn_rates.append(work / (time.perf_counter() - t0))
        learn_cpu.append(work / (time.process_time() - c0))
    algo.stop()
    return {
        "num_env_runners": runners,
        "envs_per_env_runner": cfg["run"]["envs_per_env_runner"],
        "train_batch_size": batch,
        "hidden": cfg["model"]["hidden"],
        "repeats": repeats,
        "env_steps_per_s_sampled": round(statistics.median(sample_rates), 1),
        "learner_steps_per_s": round(statistics.median(learn_rates), 1),
        "samples": [round(x, 1) for x in sample_rates],
        "learner_samples": [round(x, 1) for x in learn_rates],
        # per CPU second (the process's own CPU time): what a dedicated core would give
        "env_steps_per_cpu_s": round(statistics.median(sample_cpu), 1),
        "learner_steps_per_cpu_s": round(statistics.median(learn_cpu), 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def _timed_sample(runner: Any, steps: int) -> tuple[Any, float]:
    """An env runner's ``sample`` of ``steps`` env steps and the CPU seconds it took there."""
    t0 = time.process_time()
    episodes = runner.sample(num_timesteps=steps, explore=True)
    return episodes, time.process_time() - t0


def bench_sb3(cfg: Config, repeats: int) -> dict[str, Any]:
    """The same measurement for sb3-contrib's ``MaskablePPO`` at the RLlib run's network size:
    an MLP policy with ``model.hidden`` for the policy and the value (separate, as RLlib's),
    the same batch, minibatch and epochs, on ``envs_per_env_runner`` games of the documented
    Gymnasium route (:func:`moonriver_env.vector.sb3.make_sb3_vec_env`: the run's game in the
    core; greedy opponents). Learner steps/s: batch x epochs / the time of ``train()``; env
    steps/s: the rollouts' steps / the time outside ``train()``."""
    import torch
    from sb3_contrib import MaskablePPO

    from moonriver_env.vector.sb3 import make_sb3_vec_env

    torch.set_num_threads(max(1, cfg["run"]["torch_threads"]))
    setup = GameSetup.from_config(cfg["env"])
    n_envs = cfg["run"]["envs_per_env_runner"]
    ppo = cfg["ppo"]
    rewards: dict[str, Any] = {"reward": setup.reward}
    if setup.dense_reward:
        rewards["dense_reward"] = setup.dense_reward
    venv = make_sb3_vec_env(
        GameSpec.from_section(cfg["env"]), n_envs, "greedy", seed=cfg["run"]["seed"], **rewards
    )
    hidden = list(cfg["model"]["hidden"])
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=max(2, ppo["train_batch_size"] // n_envs),
        batch_size=ppo["minibatch_size"],
        n_epochs=ppo["num_epochs"],
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}},
        device="cpu",
        seed=cfg["run"]["seed"],
    )
    train_times: list[float] = []
    train_cpu: list[float] = []
    train = model.train

    def timed_train() -> None:
        t0, c0 = time.perf_counter(), time.process_time()
        train()
        train_times.append(time.perf_counter() - t0)
        train_cpu.append(time.process_time() - c0)

    model.train = timed_train  # type: ignore[method-assign]
    rollout = model.n_steps * n_envs
    t0, c0 = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=rollout * (repeats + 1))
    total, total_cpu = time.perf_counter() - t0, time.process_time() - c0
    learn_rates = [rollout * ppo["num_epochs"] / t for t in train_times[1:]]
    learn_cpu = [rollout * ppo["num_epochs"] / t for t in train_cpu[1:]]
    venv.close()
    return {
        "trainer": "sb3 MaskablePPO MlpPolicy",
        "hidden": hidden,
        "n_envs": n_envs,
        "rollout": rollout,
        "repeats": repeats,
        "env_steps_per_s_sampled": round(rollout * (repeats + 1) / (total - sum(train_times)), 1),
        "learner_steps_per_s": round(statistics.median(learn_rates), 1),
        "learner_samples": [round(x, 1) for x in learn_rates],
        "env_steps_per_cpu_s": round(rollout * (repeats + 1) / (total_cpu - sum(train_cpu)), 1),
        "learner_steps_per_cpu_s": round(statistics.median(learn_cpu), 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


# -- command line ------------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m training.rllib_train",
        description="Multi-agent PPO self-play with action masking on Ray RLlib.",
    )
    p.add_argument("--config", default=None, help=f"TOML config (default {RLLIB_DEFAULT.name})")
    p.add_argument("--run-dir", default=None, help="run directory (required unless --bench)")
    p.add_argument("--address", default=None, help="a Ray cluster to use (default: local Ray)")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key"
    )
    p.add_argument(
        "--bench", type=int, default=0, metavar="N", help="measure steps/s (median of N)"
    )
    p.add_argument(
        "--sb3",
        action="store_true",
        help="with --bench: measure MaskablePPO (the SB3 VecEnv on the core) at the same size",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.bench:
            cfg = RLLIB.load(args.config, args.set)
            measure = bench_sb3(cfg, args.bench) if args.sb3 else bench(cfg, args, args.bench)
            print(json.dumps(measure), flush=True)
            return 0
        if not args.run_dir:
            raise ConfigError("--run-dir: required (where the run's files go)")
        run_dir = Path(args.run_dir)
        if args.address:  # before anything is written: a dead address leaves no run behind
            check_address(args.address)
        with RunLock(run_dir):
            train(_run_config(args, run_dir), run_dir, args)
    except (ConfigError, OutputError, BackendError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def _run_config(args: argparse.Namespace, run_dir: Path) -> Config:
    """The config of the run (:func:`training.common.run.resolve_config`): a new one, refused
    over an existing run without ``--resume``, or the saved one with ``--set`` on top; checked
    and written to ``config.toml`` (:func:`training.common.run.begin_run`)."""
    cfg = resolve_config(RLLIB, run_dir, args.resume, args.config, args.set)
    begin_run(RLLIB, run_dir, cfg, args.resume)
    return cfg


if __name__ == "__main__":
    sys.exit(main())
