"""``python -m agents.tournament --game kingdomino``: a seat-rotated, seeded, resumable
Kingdomino tournament (see :mod:`agents.kingdomino_cli` for the shared arguments).

The agents are seated with the Moon River schedule (:mod:`.schedule`: 2 players, both seat
orders of every pair; 3-4 players, every lineup in every cyclic rotation), game ``g`` dealt
by engine seed ``seed + g``; each finished game is appended to ``OUT/games.csv``
(``--resume`` plays only the missing ones) and the table gives each agent's sole wins, shared
wins, win rate with its 95% Wilson interval and mean points.
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from collections.abc import Sequence
from pathlib import Path

from moonriver_env.kingdomino import KingdominoConfig, Phase, new_game

from ..kingdomino_agents import make_kingdomino_agent
from ..kingdomino_cli import config_from_args, game_arguments
from ..ratings import wilson_interval
from .schedule import entry_labels, schedule, split_specs

__all__ = ["format_results", "tournament_main"]


FIELDS = ("game", "seed", "lineup", "winners", "points")


def tournament_main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.tournament --game kingdomino ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament --game kingdomino",
        description="Seat-rotated, seeded tournament between Kingdomino agents.",
    )
    game_arguments(parser)
    parser.add_argument("--agents", required=True, help="comma-separated agent specs")
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        help="2 players: games per pair of agents; 3-4 players: games in total (default 100)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="output directory (games.csv)")
    parser.add_argument("--resume", action="store_true", help="play only the missing games")
    args = parser.parse_args(argv)
    config = config_from_args(parser, args)
    specs = split_specs(args.agents)
    if not specs:
        parser.error("--agents: expected at least one agent spec")
    try:
        for spec in specs:
            make_kingdomino_agent(spec)
    except ValueError as exc:
        parser.error(str(exc))
    if args.games < 1:
        parser.error("--games must be at least 1")
    out = Path(
        args.out or os.path.join("runs", "kingdomino-tournament-" + time.strftime("%Y%m%d-%H%M%S"))
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / "games.csv"
    if path.exists() and not args.resume:
        parser.error(f"{path} exists: --resume to continue it, or another --out")
    labels = entry_labels(specs)
    lineups = schedule(len(specs), config.num_players, args.games)
    done = {int(r["game"]) for r in csv.DictReader(path.open())} if path.exists() else set()
    new_file = not path.exists()
    with path.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if new_file:
            writer.writeheader()
        for g, lineup in enumerate(lineups):
            if g in done:
                continue
            seed = args.seed + g
            agents = [
                make_kingdomino_agent(specs[e], seed=seed * 10 + s) for s, e in enumerate(lineup)
            ]
            state = new_game(config, seed=seed)
            while state.phase != Phase.GAME_OVER:
                state.apply(agents[state.seat].choose(state))
            writer.writerow(
                {
                    "game": g,
                    "seed": seed,
                    "lineup": " ".join(map(str, lineup)),
                    "winners": " ".join(map(str, state.winners())),
                    "points": " ".join(map(str, state.points())),
                }
            )
            fh.flush()
    print(format_results(path, labels, config))
    print(f"results: {out}")
    return 0


def format_results(path: Path, labels: Sequence[str], config: KingdominoConfig) -> str:
    """The per-agent table of a games.csv."""
    stats = {i: [0, 0, 0, 0] for i in range(len(labels))}  # seats, wins, shared, points
    for row in csv.DictReader(path.open()):
        lineup = [int(x) for x in row["lineup"].split()]
        winners = [int(x) for x in row["winners"].split()]
        points = [int(x) for x in row["points"].split()]
        for seat, entry in enumerate(lineup):
            st = stats[entry]
            st[0] += 1
            st[1] += winners == [seat]
            st[2] += seat in winners and len(winners) > 1
            st[3] += points[seat]
    lines = [
        f"Kingdomino, {config.describe()}",
        f"{'agent':<40}{'seats':>7}{'wins':>7}{'shared':>8}{'win rate [95%]':>24}{'points':>9}",
    ]
    for i, label in enumerate(labels):
        seats, wins, shared, pts = stats[i]
        if not seats:
            continue
        lo, hi = wilson_interval(wins, seats)
        rate = f"{wins / seats:.3f} [{lo:.3f}, {hi:.3f}]"
        lines.append(f"{label:<40}{seats:>7}{wins:>7}{shared:>8}{rate:>24}{pts / seats:>9.1f}")
    return "\n".join(lines)
