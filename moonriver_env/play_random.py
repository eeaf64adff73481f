"""Play one seeded game of Moon River with uniformly random legal actions and print a log.

Usage::

    python -m moonriver_env.play_random [--players N] [--mode base|legends]
                                        [--scenario S] [--seed K]

The game is created with ``new_game(config, seed=K)``; the random player draws from a separate
``numpy.random.default_rng(K + 1)``, so the whole output is a function of the arguments.
The log has a line per round, the table (``render_ansi``, plain text) every sixth round and at
the end, then the final score breakdown and the winners.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from moonriver_env.moonriver.render import render_ansi, score_table
from moonriver_env.moonriver.rules import SCENARIOS, GameConfig, GameState, new_game


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
                if shown_round % 6 == 0 or state.is_terminal:
                    out.append(render_ansi(state, color=False))
            shown_round = state.round
            round_decisions = 0
    out.append("")
    out.append(f"Final scores after {decisions} decisions:")
    out.append(score_table(state))
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
