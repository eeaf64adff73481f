"""Play one seeded game of Moon River with uniformly random legal actions and print a log.

Usage::

    python -m moonriver_env.play_random [--players N] [--mode base|legends]
                                        [--scenario S] [--seed K]

The game is created with ``new_game(config, seed=K)``; the random player draws from a separate
``numpy.random.default_rng(K + 1)``, so the whole output is a function of the arguments.
After every round the log shows each seat's ranch as a 5-wide grid (far row on top, the river
row at the bottom, bridges marked under it), then the final score breakdown and the winners.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from .rules import SCENARIOS, GameConfig, GameState, Landscape, PartnerKind, new_game
from .rules.geometry import COLUMN_LETTERS

LAND_LETTERS = {
    Landscape.DESERT: "D",
    Landscape.CANYON: "C",
    Landscape.MEADOW: "M",
    Landscape.FOREST: "F",
    Landscape.CORNFIELD: "K",
    Landscape.FARM: "H",
}
PARTNER_LETTERS = {
    PartnerKind.DESPERADO: "d",
    PartnerKind.CATTLE_THIEF: "t",
    PartnerKind.GOLD_DIGGER: "g",
    PartnerKind.TRAPPER: "r",
    PartnerKind.FARMER: "f",
}
COWBOY_LETTER = "c"
LEGEND = (
    "cells: landscape D desert, C canyon, M meadow, F forest, K cornfield, H farm; "
    "then cows (digit); then partner d desperado, t thief, g gold digger, r trapper, "
    "f farmer, c cowboy side up; '.' empty; '===' under a column marks a bridge"
)
CELL_WIDTH = 3


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def cell_text(state: GameState, seat: int, cell: int) -> str:
    """Three characters: landscape letter, cow count (blank if none), partner letter."""
    kind = state.kinds[seat][cell]
    if kind < 0:
        return " . "
    land = Landscape(state.kind_table.land[kind])
    cows = state.cows[seat][cell]
    code = state.partners[seat][cell]
    if code < 0:
        mark = " "
    else:
        token, cowboy = divmod(code, 2)
        mark = COWBOY_LETTER if cowboy else PARTNER_LETTERS[PartnerKind(token)]
    return f"{LAND_LETTERS[land]}{cows if cows else ' '}{mark}"


def ranch_lines(state: GameState, seat: int) -> list[str]:
    """The ranch of ``seat``: far row first, row labels on the left, bridges at the bottom."""
    grid = state.grid
    lines = []
    for row in range(grid.rows - 1, -1, -1):
        cells = " ".join(cell_text(state, seat, row * grid.cols + c) for c in range(grid.cols))
        lines.append(f"{row + 1:>2} {cells}")
    bridge_mask = state.bridges[seat]
    marks = " ".join(("===" if bridge_mask >> c & 1 else "   ") for c in range(grid.cols))
    lines.append(f"   {marks}")
    lines.append("   " + " ".join(f" {letter} " for letter in COLUMN_LETTERS[: grid.cols]))
    return lines


def seat_header(state: GameState, seat: int) -> str:
    board = state.boards[seat]
    return f"seat {seat} ({board})"


def print_ranches(state: GameState, out: list[str]) -> None:
    """All seats side by side, each with a one-line header, its reserve and its running score."""
    n = state.config.num_players
    width = 3 + (CELL_WIDTH + 1) * state.grid.cols - 1
    gap = "   "
    scores = state.scores()
    blocks = [ranch_lines(state, s) for s in range(n)]
    out.append(gap.join(f"{seat_header(state, s):<{width}}" for s in range(n)).rstrip())
    held = [f"held {len(state.held[s])}, score {scores[s].total}" for s in range(n)]
    out.append(gap.join(f"{h:<{width}}" for h in held).rstrip())
    for i in range(len(blocks[0])):
        out.append(gap.join(f"{b[i]:<{width}}" for b in blocks).rstrip())


def score_table(state: GameState) -> list[str]:
    scores = state.scores()
    head = ("seat", "board", "territ", "resrc", "partn", "scen", "total", "largest", "cows")
    rows = [head]
    for s, sc in enumerate(scores):
        rows.append(
            (
                str(s),
                state.boards[s],
                str(sc.territories),
                str(sc.resources),
                str(sc.partners),
                str(sc.scenario),
                str(sc.total),
                str(sc.largest_territory),
                str(sc.cows),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = []
    for k, r in enumerate(rows):
        cells = [r[0].rjust(widths[0]), r[1].ljust(widths[1])]
        cells += [r[i].rjust(widths[i]) for i in range(2, len(head))]
        lines.append("  ".join(cells))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def play(config: GameConfig, seed: int) -> tuple[GameState, list[str]]:
    """Play one game with random legal actions; return the final state and the log lines."""
    state = new_game(config, seed=seed)
    rng = np.random.default_rng(seed + 1)
    out: list[str] = []
    scen = f", scenario {state.scenario}" if state.scenario else ""
    out.append(
        f"Moon River: {config.num_players} players, {config.mode}{scen}, seed {seed} "
        f"(random player rng seed {seed + 1})"
    )
    out.append(LEGEND)
    decisions = 0
    round_decisions = 0
    shown_round = state.round
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[int(rng.integers(len(legal)))])
        decisions += 1
        round_decisions += 1
        if state.round != shown_round or state.is_terminal:
            if shown_round == 0:
                out.append("")
                out.append(f"Setup: {plural(round_decisions, 'claim')}")
            else:
                final = " (final round, after overpopulation)" if state.is_terminal else ""
                out.append("")
                out.append(
                    f"Round {shown_round}{final}: {plural(round_decisions, 'decision')}; "
                    f"pile {len(state.pile)}, cow supply {state.supply}, "
                    f"saloon {sum(1 for t in state.saloon if t >= 0)}, "
                    f"stack {len(state.stack)}"
                )
                print_ranches(state, out)
            shown_round = state.round
            round_decisions = 0
    out.append("")
    out.append(f"Final scores after {decisions} decisions:")
    out.extend(score_table(state))
    winners = state.winners()
    label = "Winner" if len(winners) == 1 else "Shared win"
    out.append(f"{label}: " + ", ".join(f"seat {s}" for s in winners))
    return state, out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moonriver_env.play_random",
        description="Play one seeded Moon River game with uniformly random legal actions.",
    )
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--mode", default="base", choices=("base", "legends"))
    parser.add_argument(
        "--scenario",
        default=None,
        choices=(*SCENARIOS, "random"),
        help="Legends scenario (default: drawn at random from the seed)",
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.scenario is not None and args.mode != "legends":
        parser.error("--scenario needs --mode legends")
    config = GameConfig(num_players=args.players, mode=args.mode, scenario=args.scenario)
    _, lines = play(config, args.seed)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
