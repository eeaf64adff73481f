"""``python -m agents.play --game kingdomino``: play Kingdomino in the terminal against
agents, or watch them (type a move's text form, e.g. ``place d5 E``, ``discard``,
``pick 2``; ``moves`` lists the legal ones; ``quit`` leaves)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from moonriver_env.kingdomino import Phase, new_game
from moonriver_env.kingdomino_render import render_text

from .kingdomino_agents import make_kingdomino_agent
from .kingdomino_cli import config_from_args, game_arguments
from .tournament.schedule import split_specs

__all__ = ["play_main"]


def play_main(
    argv: Sequence[str] | None = None,
    input_fn: Callable[[str], str] = input,
    output_fn: Callable[[str], None] = print,
) -> int:
    """``python -m agents.play --game kingdomino ...``: play in the terminal (type a move's
    text form, e.g. ``place d5 E``, ``discard``, ``pick 2``; ``moves``; ``quit``) or watch."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.play --game kingdomino",
        description="Play Kingdomino in the terminal against agents, or watch agents play.",
    )
    game_arguments(parser)
    parser.add_argument("--opponents", default="greedy", help="agent spec(s), comma-separated")
    parser.add_argument("--human", default="0", help="human seat(s), comma-separated, or 'none'")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--watch", action="store_true", help="agents play every seat")
    args = parser.parse_args(argv)
    config = config_from_args(parser, args)
    n = config.num_players
    humans: set[int] = set()
    if not args.watch and args.human != "none":
        try:
            humans = {int(h) for h in args.human.split(",")}
        except ValueError:
            parser.error(f"--human: expected seat numbers or 'none', got {args.human!r}")
        if not humans <= set(range(n)):
            parser.error(f"--human: seats are 0..{n - 1}")
    specs = split_specs(args.opponents) or ["greedy"]
    agent_seats = [s for s in range(n) if s not in humans]
    if len(specs) > max(1, len(agent_seats)):
        parser.error(f"--opponents: {len(specs)} specs for {len(agent_seats)} agent seats")
    try:
        agents = {
            s: make_kingdomino_agent(specs[i % len(specs)], seed=args.seed * 10 + s)
            for i, s in enumerate(agent_seats)
        }
    except ValueError as exc:
        parser.error(str(exc))
    state = new_game(config, seed=args.seed)
    while state.phase != Phase.GAME_OVER:
        seat = state.seat
        if seat in agents:
            action = agents[seat].choose(state)
            output_fn(f"player_{seat}: {state.action_to_string(action)}")
            state.apply(action)
            continue
        output_fn(render_text(state))
        legal = [state.action_to_string(a) for a in state.legal_action_list()]
        while True:
            try:
                text = input_fn(f"player_{seat}> ").strip()
            except EOFError:
                text = "quit"
            if text == "quit":
                output_fn("game left unfinished")
                return 1
            if text == "moves":
                output_fn(", ".join(legal))
                continue
            if text in legal:
                state.apply(text)
                break
            output_fn(
                f"not a legal move: {text!r} ({len(legal)} legal, e.g. {legal[0]!r}; 'moves' lists them)"
            )
    output_fn(render_text(state))
    return 0
