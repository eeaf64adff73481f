"""Training throughput: PPO rollouts + updates with a config, learner steps/s and where the time goes.

Usage::

    python -m training.bench [--config FILE] [--set key=value ...] [--rollouts 3] [--repeats 3]
        [--no-breakdown] [--cprofile out.prof]

The run is the PPO phase of ``python -m training.train`` with the same config (no warm start,
evaluations or checkpoints; a fresh network of the config's ``[policy]``): one warm-up rollout,
then ``--repeats`` timed runs of ``--rollouts`` rollouts each (collection and update). It
prints learner steps/s per run and their median, the CPU seconds per 1,000 learner steps (this
process and its children: less sensitive to other jobs on the machine than wall time) and the
load average, then one more run with timers around the parts of a step (exclusive times: a
part's time excludes the parts it calls):

* ``env step``: the engine and the env adapter (apply, legal actions, rewards, infos);
* ``encoding``: :meth:`ObservationEncoder.encode_flat` (with the native core, which writes the
  acting seat's observation inside its step, the hand-over of observations and other seats'
  views);
* ``opponent moves``: the baseline agents' and snapshot opponents' decisions;
* ``policy inference``: the learner's forward passes while collecting;
* ``update``: ``MaskablePPO.train`` (the epochs over the rollout);
* ``env processes (wait)``: time the learner waits for ``SubprocVecEnv`` workers (their own
  parts run in other processes and are not split; use ``--set run.vec_env=dummy`` for that);
* ``other``: the rest of the learner's loop (rollout buffer, callbacks, tensor conversion).

When ``[opponents] snapshot`` is positive the pool is seeded with the fresh network, so that
snapshot opponents play their configured share from the first rollout (as in a run after its
first ``snapshot_every`` steps).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agents.base import Agent
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.env import raw_env
from moonriver_env.single_agent import RandomPolicy, SingleAgentEnv
from moonriver_env.vector import VectorGame
from training.common.config import Config, ConfigError
from training.common.opponents import SnapshotPool
from training.common.run import RunClock
from training.ppo.config import DEFAULT_CONFIG, load_config

__all__ = ["PartTimer", "bench", "main"]

# Settings that turn a training run into a bench of its PPO phase.
BENCH_OVERRIDES = [
    "pretrain.teacher=",
    "pretrain.init_model=",
    "eval.every=0",
    "eval.final_games=0",
    "run.progress_bar=false",
    "run.time_limit_minutes=0",
    "run.verbose=0",
    "checkpoint.every=1000000000",
]


class PartTimer:
    """Exclusive wall time per labelled part: :meth:`wrap` puts a timer around a method; the
    time of a wrapped call nested in another is subtracted from the outer one."""

    def __init__(self) -> None:
        self.totals: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[float] = []  # the nested parts' time of each open call
        self._restore: list[Callable[[], None]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        """Time ``owner.name`` (a class's method or an instance's attribute) under ``label``."""
        original = getattr(owner, name)
        own = name in vars(owner)
        stored = vars(owner).get(name)
        stack, totals, calls = self._stack, self.totals, self.calls
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = clock()
            stack.append(0.0)
            try:
                return original(*args, **kwargs)
            finally:
                dt = clock() - t0
                totals[label] += dt - stack.pop()
                calls[label] += 1
                if stack:
                    stack[-1] += dt

        setattr(owner, name, timed)

        def restore() -> None:
            if own:
                setattr(owner, name, stored)
            else:
                delattr(owner, name)

        self._restore.append(restore)

    @contextmanager
    def part(self, label: str) -> Iterator[None]:
        """Time a block under ``label`` (exclusive of wrapped calls inside it)."""
        t0 = time.perf_counter()
        self._stack.append(0.0)
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            self.totals[label] += dt - self._stack.pop()
            self.calls[label] += 1
            if self._stack:
                self._stack[-1] += dt

    def unwrap(self) -> None:
        for restore in reversed(self._restore):
            restore()
        self._restore.clear()


def instrument(timer: PartTimer, model: Any) -> None:
    """Timers on the parts named in the module docstring (learner process only)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    timer.wrap(ObservationEncoder, "encode_flat", "encoding")
    timer.wrap(Agent, "__call__", "opponent moves")
    timer.wrap(RandomPolicy, "__call__", "opponent moves")
    for name in ("step", "reset", "action_masks"):
        timer.wrap(SingleAgentEnv, name, "env step")
    for name in ("step", "reset", "action_mask", "observe"):
        timer.wrap(raw_env, name, "env step")
    for name in ("step_wait", "env_method", "reset"):
        timer.wrap(SubprocVecEnv, name, "env processes (wait)")
    for name in ("step", "reset", "reset_game", "get_state"):
        timer.wrap(VectorGame, name, "env step")  # native: rules, masks and observations
    timer.wrap(VectorGame, "observation_of", "encoding")
    if model.env is not None and hasattr(model.env, "vector"):  # NativeSelfPlayGames
        timer.wrap(type(model.env), "observation", "encoding")
    timer.wrap(model.policy, "forward", "policy inference")
    timer.wrap(MaskablePPO, "train", "update")
    for hook in getattr(model, "bench_hooks", lambda: [])():
        timer.wrap(*hook)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and its live (and reaped) children."""
    import psutil

    me = psutil.Process()
    t = me.cpu_times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in me.children(recursive=True):
        try:
            c = child.cpu_times()
        except psutil.Error:
            continue
        total += c.user + c.system
    return total


def bench_config(config: str | Path | None, overrides: Sequence[str]) -> Config:
    """The config of a bench: ``config`` (default.toml) with ``overrides`` and the settings
    that keep only the PPO phase."""
    return load_config(Path(config) if config else DEFAULT_CONFIG, [*BENCH_OVERRIDES, *overrides])


def bench(
    cfg: Config,
    rollouts: int = 3,
    repeats: int = 3,
    breakdown: bool = True,
    cprofile: str | Path | None = None,
    out: Any = sys.stdout,
) -> dict[str, Any]:
    """Run the bench (see the module docstring) and return its figures."""
    import torch

    from training.ppo.model import build_model, make_vec_env
    from training.ppo.train import rollout_steps

    if cfg["run"]["torch_threads"] > 0:
        torch.set_num_threads(cfg["run"]["torch_threads"])
    per_rollout = rollout_steps(cfg)
    steps = rollouts * per_rollout
    report: dict[str, Any] = {"rollout": per_rollout, "steps_per_run": steps}
    with tempfile.TemporaryDirectory(prefix="moonriver-bench-") as tmp:
        run_dir = Path(tmp)
        venv = make_vec_env(cfg, run_dir)
        try:
            model = build_model(cfg, venv, run_dir, RunClock())
            if cfg["opponents"]["snapshot"] > 0:
                SnapshotPool(run_dir / "snapshots", cfg["opponents"]["snapshot_keep"]).add(
                    model.policy, 0
                )

            def run() -> tuple[float, float]:
                c0, t0 = cpu_seconds(), time.perf_counter()
                model.learn(steps, reset_num_timesteps=False, progress_bar=False)
                return time.perf_counter() - t0, cpu_seconds() - c0

            model.learn(per_rollout, progress_bar=False)  # warm-up: processes, first snapshot
            rates, cpu = [], []
            for i in range(repeats):
                wall, used = run()
                rates.append(steps / wall)
                cpu.append(used / steps * 1000)
                print(
                    f"run {i + 1}/{repeats}: {steps} steps in {wall:.2f} s = {steps / wall:.0f} "
                    f"steps/s, {used / steps * 1000:.2f} CPU-s per 1,000 steps",
                    file=out,
                    flush=True,
                )
            report["steps_per_s"] = [round(r, 1) for r in rates]
            report["median_steps_per_s"] = round(statistics.median(rates), 1)
            report["cpu_s_per_1000"] = round(statistics.median(cpu), 3)
            report["load_average"] = [round(x, 2) for x in os.getloadavg()]
            print(
                f"median {report['median_steps_per_s']:.0f} learner steps/s over {repeats} runs "
                f"of {steps} steps; {report['cpu_s_per_1000']:.2f} CPU-s per 1,000 steps; "
                f"load average {' '.join(f'{x:.2f}' for x in report['load_average'])}",
                file=out,
                flush=True,
            )
            if breakdown:
                report["breakdown"] = _breakdown(model, run, steps, out)
            if cprofile:
                prof = cProfile.Profile()
                prof.runcall(run)
                prof.dump_stats(str(cprofile))
                print(f"cProfile of one more run: {cprofile}", file=out)
                pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
        finally:
            venv.close()
    return report


def _breakdown(model: Any, run: Callable[[], tuple[float, float]], steps: int, out: Any) -> Any:
    timer = PartTimer()
    instrument(timer, model)
    try:
        wall, _ = run()
    finally:
        timer.unwrap()
    parts = dict(timer.totals)
    parts["other"] = max(0.0, wall - sum(parts.values()))
    rows = []
    print(f"\nbreakdown (one more run with timers, {steps / wall:.0f} steps/s):", file=out)
    print(f"{'part':<24} {'ms per 1,000 steps':>18} {'share':>7}", file=out)
    for label, secs in sorted(parts.items(), key=lambda kv: -kv[1]):
        ms = secs / steps * 1e6
        rows.append({"part": label, "ms_per_1000": round(ms, 1), "share": round(secs / wall, 3)})
        print(f"{label:<24} {ms:>18.0f} {secs / wall:>7.1%}", file=out)
    print(f"{'total':<24} {wall / steps * 1e6:>18.0f} {1:>7.0%}", file=out, flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.bench", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--config", default=None, help="TOML config (default: configs/default.toml)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--rollouts", type=int, default=3, help="rollouts (+ updates) per timed run")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs (the median is reported)")
    ap.add_argument("--no-breakdown", action="store_true", help="skip the run with timers")
    ap.add_argument("--cprofile", default=None, help="also profile one run into this file")
    args = ap.parse_args(argv)
    if args.rollouts < 1 or args.repeats < 1:
        print("--rollouts and --repeats: expected at least 1", file=sys.stderr)
        return 2
    try:
        cfg = bench_config(args.config, args.set)
    except ConfigError as e:
        print(f"config error: {e}", file=sys.stderr)
        return 2
    bench(cfg, args.rollouts, args.repeats, not args.no_breakdown, args.cprofile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
