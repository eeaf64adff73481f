"""``python -m training.ppo.bench``: the reference PPO's speed, learning included.

Usage::

    python -m training.ppo.bench [--game moonriver_2p_base] [--runs 5] [--updates 3]
                                 [--threads 2] [--num-games 1024] [--num-steps 32]
                                 [--rollouts python|core] [--json PATH]

Each run builds the run's pieces as :func:`training.ppo.ppo.train` does (its learner: the
game's vector game with the sparse observation and the network, or with ``--rollouts core`` the
core's self-play and az's network; Adam), plays one warm-up update, then times ``--updates``
updates: collection (the games and the policy's sampling), advantages, minibatches and the PPO
epochs. With ``--rollouts core`` an update is ``--num-games`` whole games (default 256), with
the documented core runs' settings (``--embed 128 --hidden 64 --vf-coef 2 --max-grad-norm 5
--num-minibatches 16``). It prints the decisions per second of each run and their
median as ``ppo: N steps/s``, and beside it, measured in the same process between the runs,
the anchor: the core alone playing random legal moves with the sparse observation (one
thread), so that ``ppo`` reads as a share of what the game itself allows. Also the CPU
seconds per 1,000 steps (this process), which a busy machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from moonriver_env.bench import cpu_model
from moonriver_env.vector.env_batch import batched_game
from training.ppo.ppo import (
    CORE_SETTINGS,
    HEADS,
    ROLLOUTS,
    Args,
    learned,
    make_learner,
    make_policy,
    optimizer_for,
)


def ppo_rate(args: Args, updates: int, seed: int) -> tuple[float, float]:
    """Steps per second (wall) and CPU seconds per 1,000 steps over ``updates`` timed updates
    after one warm-up update."""
    torch.set_flush_denormal(True)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    learner = make_learner(replace(args, seed=seed))
    torch.set_num_threads(learner.torch_threads)
    opt = optimizer_for(learned(learner.net), args)
    learner.step(opt, rng, 0)  # the warm-up update
    wall, cpu = time.perf_counter(), time.process_time()
    steps = sum(learner.step(opt, rng, 1 + i)[0] for i in range(updates))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return steps / wall, 1000.0 * cpu / steps


def core_rate(game: str, num_games: int, seconds: float = 2.0) -> float:
    """The core alone: random legal moves with the sparse observation, steps per second."""
    vg = batched_game(game, num_games=num_games, seed=0, observe="sparse")
    rng = np.random.default_rng(0)
    rows = np.arange(num_games)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            pick = (rng.random(num_games) * vg.num_legal).astype(np.int64)
            vg.step(vg.legal_ids[rows, pick].astype(np.int64))
        done += 10 * num_games
    return done / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.ppo.bench", description=__doc__)
    defaults = Args()
    parser.add_argument("--game", default=defaults.game, help="a game spec text")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--updates", type=int, default=3, help="timed updates per run")
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--num-games", type=int, default=None,
                        help=f"games an update (default {defaults.num_games}; core: 256)")
    parser.add_argument("--num-steps", type=int, default=defaults.num_steps)
    parser.add_argument("--head", choices=("auto", *HEADS), default=defaults.head,
                        help="the network's head, as training.ppo.ppo's --head")
    parser.add_argument("--rollouts", choices=ROLLOUTS, default=defaults.rollouts,
                        help="where the games are played, as training.ppo.ppo's --rollouts "
                        "(core: --num-games whole games an update, --num-steps unused)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    ns = parser.parse_args(argv)
    if ns.num_games is None:
        ns.num_games = CORE_SETTINGS["num_games"] if ns.rollouts == "core" else defaults.num_games
    if min(ns.runs, ns.updates, ns.threads, ns.num_games, ns.num_steps) < 1:
        parser.error("--runs, --updates, --threads, --num-games and --num-steps must be >= 1")
    args = replace(defaults, game=ns.game, threads=ns.threads, num_games=ns.num_games,
                   num_steps=ns.num_steps, head=ns.head, rollouts=ns.rollouts)
    if args.rollouts == "core":  # the documented core runs' settings
        args = replace(args, **{**CORE_SETTINGS, "num_games": ns.num_games})
    shape = (f"{args.num_games} whole games an update in the core" if args.rollouts == "core"
             else f"{args.num_games} games x {args.num_steps} steps an update, head "
             f"{make_policy(args, batched_game(args.game, num_games=1, seed=0)).head}")
    print(f"training.ppo bench: {args.game}, {shape}, {args.update_epochs} epochs, "
          f"{args.threads} threads; "
          f"CPU {cpu_model()}, "
          f"{os.cpu_count()} logical CPUs, load {os.getloadavg()[0]:.2f}", flush=True)
    rates, cpus, anchors = [], [], []
    for r in range(ns.runs):
        rate, cpu = ppo_rate(args, ns.updates, seed=r)
        anchor = core_rate(args.game, args.num_games)
        rates.append(rate)
        cpus.append(cpu)
        anchors.append(anchor)
        print(f"  run {r + 1}: ppo {rate:,.0f} steps/s ({cpu:.2f} CPU s per 1,000 steps); "
              f"core alone {anchor:,.0f} steps/s", flush=True)
    med, anchor = statistics.median(rates), statistics.median(anchors)
    print(f"ppo: {med:,.0f} steps/s (median of {ns.runs} runs, min {min(rates):,.0f}, "
          f"max {max(rates):,.0f}); the core alone: {anchor:,.0f} steps/s; ppo / core "
          f"{med / anchor:.3f}; load {os.getloadavg()[0]:.2f}")
    if ns.json:
        ns.json.write_text(json.dumps({
            "game": args.game, "ppo_steps_per_second": rates, "core_steps_per_second": anchors,
            "cpu_seconds_per_1000_steps": cpus, "median": med, "core_median": anchor,
            "threads": args.threads, "num_games": args.num_games, "num_steps": args.num_steps,
            "head": args.head, "rollouts": args.rollouts,
            "cpu_model": cpu_model(),
        }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
