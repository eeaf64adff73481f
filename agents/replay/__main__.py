"""``python -m agents.replay GAME [--game N] [-o runs/replay.html]``: see :mod:`agents.replay`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import ReplayError, write_replay


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.replay",
        description="Write a game's replay as one self-contained HTML file (open it in a "
        "browser: slider, arrow keys, moves in words, score chart).",
    )
    parser.add_argument(
        "game",
        metavar="GAME",
        help="a saved game of the play CLI, a move list, or a tournament folder (with --game)",
    )
    parser.add_argument(
        "--game",
        dest="index",
        type=int,
        default=None,
        metavar="N",
        help="the game of the tournament folder to replay (kept with --save-games)",
    )
    parser.add_argument(
        "-o", "--out", default="runs/replay.html",
        help="the HTML file to write (default runs/replay.html; runs/ is ignored by git)",
    )  # fmt: skip
    parser.add_argument("--title", default=None, help="the page title (default: the seats)")
    args = parser.parse_args(argv)
    try:
        path = write_replay(args.game, args.out, game=args.index, title=args.title)
    except ReplayError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 2
    print(f"replay written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
