"""The command-line options of a tournament's run (``--games``, ``--workers``, the
backend, ``--save-games``): one home for their names, defaults and help."""

from __future__ import annotations

import argparse

from ..jobs import add_backend_arguments


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """How many games, where they are played and which of them are kept for replays."""
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        help="2 players: games per pair of agents; 3-4 players: games in total (default 100)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes or Ray actors (default 1)"
    )
    add_backend_arguments(parser)
    parser.add_argument(
        "--save-games",
        type=int,
        default=0,
        metavar="K",
        help="keep the move lists of the first K games in OUT/moves/ (replay one with "
        "python -m agents.replay OUT --game N)",
    )
