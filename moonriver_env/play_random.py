"""Play one seeded game of any registered game with uniformly random legal actions and print
a log.

Usage::

    python -m moonriver_env.play_random [--game G] [--players N] [--mode M]
                                        [--scenario S] [--seed K]

``--game`` is a registered game's name or a spelled game (``4p_legends``,
``kingdomino_4p_base``; :func:`moonriver_env.games.add_game_arguments`). The game is dealt by
its entry's ``new_game`` hook with ``seed=K``; the random player draws from a separate
``numpy.random.default_rng(K + 1)``, so the whole output is a function of the arguments.
The log has a line per round (as the game's terminal screen, its ``play`` hook, tells rounds
apart; round 0 is the first), the board every sixth round and at the end, then the final
score table and the winners. A game without a terminal screen gets the decisions and each
seat's points. Bad arguments exit with status 2, naming the field.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from moonriver_env.games import GameSpec, add_game_arguments, spec_from_args

BOARD_EVERY = 6
"""The board is shown after every sixth round (and at the end)."""


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def play(spec: GameSpec, seed: int) -> tuple[Any, list[str]]:
    """Play one game of ``spec`` with random legal actions; return the final state and the
    log lines."""
    entry = spec.entry
    new_game = entry.hook("new_game")
    screen = entry.hook("play")
    state = new_game(spec.config(), seed=seed)
    seats = [f"seat {s}" for s in range(spec.num_players)]
    rng = np.random.default_rng(seed + 1)
    setting = "" if screen is None else screen.setting(state)
    out = [
        f"{entry.title}: {spec.num_players} players, {spec.mode}{setting}, seed {seed} "
        f"(random player rng seed {seed + 1})"
    ]

    def round_of(state: Any) -> Hashable:
        return None if screen is None else screen.round(state)

    decisions = round_decisions = rounds = 0
    shown = round_of(state)
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[int(rng.integers(len(legal)))])
        decisions += 1
        round_decisions += 1
        if screen is None or (round_of(state) == shown and not state.is_terminal):
            continue
        out += ["", f"Round {rounds}: {plural(round_decisions, 'decision')}"]
        if state.is_terminal or (rounds + 1) % BOARD_EVERY == 0:
            out.append(screen.board(state, False, seats))
        shown, round_decisions, rounds = round_of(state), 0, rounds + 1
    out += ["", f"Final scores after {plural(decisions, 'decision')}:"]
    if screen is None:
        out += [
            f"  {seat}: {score.total}" for seat, score in zip(seats, state.scores(), strict=True)
        ]
    else:
        out.append(screen.score_table(state, seats))
    winners = state.winners()
    label = "Winner" if len(winners) == 1 else "Shared win"
    out.append(f"{label}: " + ", ".join(seats[s] for s in winners))
    return state, out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moonriver_env.play_random",
        description="Play one seeded game with uniformly random legal actions.",
    )
    add_game_arguments(parser)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed: expected a non-negative integer, got {args.seed}")
    try:
        spec = spec_from_args(args)
        spec.config()  # a mode this player count cannot play is refused here
        if spec.entry.hook("new_game") is None:
            raise ValueError(f"game: {spec.entry.title} registers no new_game hook")
    except ValueError as exc:
        parser.error(str(exc))
    _, lines = play(spec, args.seed)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
