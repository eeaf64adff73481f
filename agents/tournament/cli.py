"""``python -m agents.tournament``: the command line of :func:`run_tournament`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

from .games import run_tournament
from .schedule import seat_slots, split_specs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament",
        description="Seat-rotated, seeded round-robin tournament between Moon River agents.",
    )
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent specs, e.g. random,greedy,mcts:sims=200 (repeat for self-play)",
    )
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        help="2 players: games per pair of agents; 3-4 players: games in total (default 100)",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", default="base", choices=("base", "legends"))
    parser.add_argument("--scenario", default=None, help="Legends scenario (default: drawn)")
    parser.add_argument("--out", default=None, help="output directory")
    parser.add_argument("--no-plot", action="store_true", help="skip summary.png")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    specs = split_specs(args.agents)
    if not specs:
        parser.error("--agents: expected at least one agent spec")
    if args.scenario is not None and args.mode != "legends":
        parser.error("--scenario needs --mode legends")
    if args.players > 2:
        slots = len(seat_slots(len(specs), args.players))
        if args.games % slots:
            print(
                f"note: {args.games} games over {slots} (lineup, rotation) slots: seats are "
                f"not exactly balanced (use a multiple of {slots})",
                file=sys.stderr,
            )
    try:
        result = run_tournament(
            specs,
            players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            mode=args.mode,
            scenario=args.scenario,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        parser.error(str(exc))
    out = args.out or os.path.join("runs", "tournament-" + time.strftime("%Y%m%d-%H%M%S"))
    result.save(out, plot=not args.no_plot)
    print(result.format_table())
    print()
    print(result.format_timing())
    print(f"results: {out}")
    return 0
