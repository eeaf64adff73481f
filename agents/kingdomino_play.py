"""``python -m agents.play --game kingdomino``: play Kingdomino in the terminal against
agents, or watch them (type a move's text form, e.g. ``place d5 E``, ``discard``,
``pick 2``; ``moves`` lists the legal ones; ``quit`` leaves).

A new game is the one the environment deals on ``reset(seed=SEED)`` (:func:`agents.move_list.deal`)
and the agent in seat ``s`` is seeded with ``agents.seeds.agent_seed(SEED, 0, s)``, as in Moon
River's play CLI. Every game, finished or left, is saved to a new file in ``--save-dir`` as its
move list (:mod:`agents.move_list`: the seed, the seats and every move; a finished game with
its final scores), which ``python -m agents.replay FILE`` shows in the browser."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from moonriver_env.games import GameSpec
from moonriver_env.kingdomino import KingdominoState
from moonriver_env.kingdomino.agents import make_kingdomino_agent
from moonriver_env.kingdomino.render import render_text

from .kingdomino_cli import config_from_args, game_arguments
from .move_list import MoveList, deal, final_totals
from .saved_game import free_path
from .seeds import agent_seed
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
    parser.add_argument(
        "--save-dir", default=".", help="where the game's move list is saved (default: here)"
    )
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
    seat_specs = {s: specs[i % len(specs)] for i, s in enumerate(agent_seats)}
    try:
        agents = {
            s: make_kingdomino_agent(spec, seed=agent_seed(args.seed, 0, s))
            for s, spec in seat_specs.items()
        }
    except ValueError as exc:
        parser.error(str(exc))
    game = GameSpec.from_config(config)
    state: KingdominoState = deal(game, args.seed)
    actions: list[int] = []
    seats = tuple(f"{seat_specs.get(s, 'human')} (seat {s})" for s in range(n))

    def save() -> None:
        """Keep the game as its move list in a new file of ``--save-dir``."""
        moves = MoveList(
            players=n,
            mode=game.mode,
            scenario=None,
            seed=args.seed,
            seats=seats,
            actions=tuple(actions),
            final_scores=final_totals(state) if state.is_terminal else None,
            source="agents.play --game kingdomino",
            game=game.game,
        )
        try:
            path = moves.save(free_path(Path(args.save_dir), stem="kingdomino-game"))
        except OSError as exc:
            output_fn(f"Could not save the game in {args.save_dir!r}: {exc}")
            return
        output_fn(f"Game saved to {path}; replay it with: python -m agents.replay {path}")

    while not state.is_terminal:
        seat = state.seat
        if seat in agents:
            action = agents[seat].choose(state)
            output_fn(f"player_{seat}: {state.action_to_string(action)}")
            state.apply(action)
            actions.append(action)
            continue
        output_fn(render_text(state))
        legal_ids = state.legal_action_list()
        legal = [state.action_to_string(a) for a in legal_ids]
        while True:
            try:
                text = input_fn(f"player_{seat}> ").strip()
            except EOFError:
                text = "quit"
            if text == "quit":
                output_fn("game left unfinished")
                save()
                return 1
            if text == "moves":
                output_fn(", ".join(legal))
                continue
            if text in legal:
                action = legal_ids[legal.index(text)]
                state.apply(action)
                actions.append(action)
                break
            output_fn(
                f"not a legal move: {text!r} ({len(legal)} legal, e.g. {legal[0]!r}; 'moves' lists them)"
            )
    output_fn(render_text(state))
    save()
    return 0
