"""``python -m agents.tournament``: the command line of :func:`run_tournament`."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence

from moonriver_env.games import GameSpec, add_game_arguments, spec_from_args

from ..jobs import backend_from_args
from .arguments import add_run_arguments
from .games import run_tournament
from .gamesfile import GamesFileError
from .schedule import seat_slots, split_specs


def resume_command(argv: Sequence[str], out: str) -> str:
    """The command line that continues an interrupted run of ``argv`` writing to ``out``."""
    words = [a for a in argv if a != "--force"]
    if "--out" not in words and not any(a.startswith("--out=") for a in words):
        words += ["--out", out]
    if "--resume" not in words:
        words.append("--resume")
    return "python -m agents.tournament " + " ".join(shlex.quote(a) for a in words)


def game_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> GameSpec:
    """The game of :func:`~moonriver_env.games.add_game_arguments`'s options and ``--variants``
    (the modes that combine, spelled with commas: ``--variants a,b`` is ``--mode a+b``);
    ``parser.error`` naming a bad or contradicting option."""
    if args.variants is not None:
        if args.mode is not None:
            parser.error("--mode and --variants name the same thing: give one")
        args.mode = "+".join(v.strip() for v in args.variants.split(",") if v.strip()) or "base"
    try:
        spec = spec_from_args(args)
        spec.config()  # a mode this player count cannot play (Kingdomino's Mighty Duel: 2)
    except ValueError as exc:
        parser.error(str(exc))
    return spec


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament",
        description="Seat-rotated, seeded round-robin tournament between agents of one game.",
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent specs, e.g. random,greedy,mcts:sims=200 (repeat for self-play)",
    )
    parser.add_argument(
        "--variants",
        default=None,
        help="the mode as comma-separated parts, for a game whose modes combine "
        "(a,b is --mode a+b)",
    )
    parser.add_argument("--seed", type=int, default=0)
    add_run_arguments(parser)
    parser.add_argument(
        "--out",
        default=None,
        help="output directory (default runs/tournament-<timestamp>); games are appended to "
        "its games.csv as they finish",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the interrupted tournament in --out (same arguments; --games may grow): "
        "play only the games missing from its games.csv",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace the tournament files already in --out"
    )
    parser.add_argument("--no-plot", action="store_true", help="skip summary.png")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    specs = split_specs(args.agents)
    if not specs:
        parser.error("--agents: expected at least one agent spec")
    spec = game_from_args(parser, args)
    if spec.num_players > 2:
        slots = len(seat_slots(len(specs), spec.num_players))
        if args.games % slots:
            print(
                f"note: {args.games} games over {slots} (lineup, rotation) slots: seats are "
                f"not exactly balanced (use a multiple of {slots})",
                file=sys.stderr,
            )
    if args.resume and args.out is None:
        parser.error("--resume needs --out (the directory of the interrupted tournament)")
    out = args.out or os.path.join("runs", "tournament-" + time.strftime("%Y%m%d-%H%M%S"))
    try:
        backend = backend_from_args(args)
        result = run_tournament(
            specs,
            players=spec.num_players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            game=spec.game,
            mode=spec.mode,
            scenario=spec.scenario,
            progress=not args.no_progress,
            out=out,
            resume=args.resume,
            force=args.force,
            backend=backend,
            save_games=args.save_games,
        )
    except GamesFileError as exc:  # a bad file, not a bad argument: one line, no usage
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        parser.error(str(exc))
    except KeyboardInterrupt:
        print(
            f"\ninterrupted: the finished games are in {os.path.join(out, 'games.csv')}; "
            f"continue with:\n  {resume_command(sys.argv[1:] if argv is None else argv, out)}",
            file=sys.stderr,
        )
        return 130
    result.save(out, plot=not args.no_plot)
    print(result.format_table())
    print()
    print(result.format_timing())
    print(f"results: {out}")
    return 0
