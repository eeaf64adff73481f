"""Benchmark the PettingZoo environment side by side with PettingZoo's connect_four_v3.

Usage::

    python -m moonriver_env.bench_env [--game NAME] [--steps N] [--runs R] [--players 2 4 ...]
                                      [--mode base] [--cpu C] [--json PATH]

``--game`` is any registered game (:data:`moonriver_env.games.GAMES`; default Moon River),
played through its environment (its entry's ``env_entry_point``) in the standard wrappers.

Both environments run the same loop as ``pettingzoo.test.performance_benchmark``: through
``env()`` (the standard wrappers), ``env.last()`` builds the acting agent's observation and
action mask, the action is ``random.choice`` over the mask's legal ids, every ``env.step``
counts as one step (dead-agent steps included, as PettingZoo counts them), and a finished
game is reset. Runs alternate between the environments so a busy machine slows both alike;
the table gives the median steps/s over the runs (with min and max) and the ratio of the
medians. The process is pinned to one CPU on Linux. connect_four_v3 needs pygame (in the
``dev`` extra).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from moonriver_env.aec_base import wrap
from moonriver_env.bench import add_players_argument, cpu_model, pin_to_one_cpu, players_of
from moonriver_env.games import DEFAULT_GAME, DEFAULT_MODE, GAMES, GameSpec


def run_loop(env: Any, steps: int, seed: int) -> float:
    """Play ``steps`` random steps through ``env``; return steps per second."""
    chooser = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter(env.num_agents):
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = chooser.choice(np.flatnonzero(obs["action_mask"]).tolist())
            env.step(action)
            done += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
    return done / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m moonriver_env.bench_env")
    parser.add_argument("--steps", type=int, default=20_000, help="steps per run (default 20000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per environment (default 5)")
    add_players_argument(parser)
    parser.add_argument("--mode", default=None, help=f"the game's mode (default {DEFAULT_MODE})")
    parser.add_argument("--game", choices=tuple(GAMES), default=DEFAULT_GAME)
    parser.add_argument(
        "--variants",
        default="",
        help="for a game whose modes combine: the mode as its parts, comma-separated "
        "(the same as --mode a+b; default none)",
    )
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (Linux)")
    parser.add_argument("--json", metavar="PATH", help="also save the results as JSON")
    args = parser.parse_args(argv)
    if args.variants and args.mode is not None:
        parser.error("--variants names the mode: give --mode or --variants, not both")
    mode = args.variants.replace(",", "+") if args.variants else args.mode or DEFAULT_MODE
    args.players = players_of(args)
    try:
        specs = {n: GameSpec(game=args.game, num_players=n, mode=mode) for n in args.players}
    except ValueError as exc:
        parser.error(str(exc))

    from pettingzoo.classic import connect_four_v3

    cpu = pin_to_one_cpu(args.cpu)
    title = GAMES[args.game].title
    print(f"{title} env benchmark (PettingZoo loop: env.last() + random legal action + step)")
    print(
        f"Python {platform.python_version()}, NumPy {np.__version__}, CPU {cpu_model()}"
        + (f", pinned to CPU {cpu}" if cpu is not None else "")
    )
    print(f"{args.steps} steps x {args.runs} runs per environment, runs interleaved\n")
    sys.stdout.flush()
    makers: dict[str, Callable[[], Any]] = {"connect_four_v3": connect_four_v3.env}
    for n, spec in specs.items():
        raw = spec.make_env()
        makers[f"{raw.metadata['name']} {n}p {spec.mode}"] = lambda raw=raw: wrap(raw)  # type: ignore[misc]
    rates: dict[str, list[float]] = {name: [] for name in makers}
    envs = {name: make() for name, make in makers.items()}
    for env in envs.values():  # warm-up (imports, caches)
        run_loop(env, 500, seed=12345)
    for run in range(args.runs):
        for name, env in envs.items():
            rates[name].append(run_loop(env, args.steps, seed=run))
    base = statistics.median(rates["connect_four_v3"])
    print(f"{'environment':<28}{'steps/s (median)':>18}{'min':>10}{'max':>10}{'vs c4':>8}")
    results = []
    for name, values in rates.items():
        med = statistics.median(values)
        results.append(
            {
                "env": name,
                "median": med,
                "min": min(values),
                "max": max(values),
                "runs": values,
                "ratio_to_connect_four": med / base,
            }
        )
        print(
            f"{name:<28}{med:>18,.0f}{min(values):>10,.0f}{max(values):>10,.0f}{med / base:>8.2f}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(
                {
                    "cpu_model": cpu_model(),
                    "steps": args.steps,
                    "runs": args.runs,
                    "results": results,
                },
                fh,
                indent=2,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
