"""The Kingdomino side of ``python -m agents.tournament`` and ``python -m agents.play``.

Both commands hand their arguments here when they contain ``--game kingdomino`` (Moon River
stays the default)::

    python -m agents.tournament --game kingdomino --variants must_place,harmony,middle_kingdom \\
        --players 4 --agents random,greedy,heuristic,mc:sims=50 --games 40 --out runs/kd
    python -m agents.play --game kingdomino --players 2 --opponents greedy --seed 3
    python -m agents.play --game kingdomino --players 4 --watch --opponents greedy,mc:sims=20

The tournament seats the agents with the Moon River schedule (:mod:`agents.tournament.schedule`:
2 players, both seat orders of every pair; 3-4 players, every lineup in every cyclic
rotation), game ``g`` dealt by engine seed ``seed + g``; each finished game is appended to
``OUT/games.csv`` (``--resume`` plays only the missing ones) and the table gives each agent's
sole wins, shared wins, win rate with its 95% Wilson interval and mean points.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from moonriver_env.kingdomino import KingdominoConfig, Phase, new_game
from moonriver_env.kingdomino_render import render_text

from .kingdomino_agents import make_kingdomino_agent
from .ratings import wilson_interval
from .tournament.schedule import entry_labels, schedule, split_specs

__all__ = ["evaluate_main", "play_main", "tournament_main", "wants_kingdomino"]

GAME = "kingdomino"


def wants_kingdomino(argv: Sequence[str] | None) -> bool:
    """Whether a command line names ``--game kingdomino`` (or ``--game=kingdomino``)."""
    words = list(sys.argv[1:] if argv is None else argv)
    for i, w in enumerate(words):
        if w == f"--game={GAME}" or (w == "--game" and i + 1 < len(words) and words[i + 1] == GAME):
            return True
    return False


def _game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=(GAME,), required=True)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument(
        "--variants",
        default="",
        help="comma-separated: must_place, harmony, middle_kingdom, mighty_duel, dynasty",
    )
    parser.add_argument(
        "--mode",
        default=None,
        help="the same as one word (the game's text spelling): 'base' or the variants joined "
        "with '+', e.g. harmony+middle_kingdom+must_place",
    )


def _config(parser: argparse.ArgumentParser, args: argparse.Namespace) -> KingdominoConfig:
    variants = args.variants
    if args.mode is not None:
        if variants:
            parser.error("--mode and --variants name the same thing: give one")
        variants = "" if args.mode == "base" else args.mode.replace("+", ",")
    try:
        return KingdominoConfig(args.players, variants)
    except ValueError as exc:
        parser.error(str(exc))
        raise  # unreachable: parser.error exits


FIELDS = ("game", "seed", "lineup", "winners", "points")


def tournament_main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.tournament --game kingdomino ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament --game kingdomino",
        description="Seat-rotated, seeded tournament between Kingdomino agents.",
    )
    _game_arguments(parser)
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
    config = _config(parser, args)
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
    _game_arguments(parser)
    parser.add_argument("--opponents", default="greedy", help="agent spec(s), comma-separated")
    parser.add_argument("--human", default="0", help="human seat(s), comma-separated, or 'none'")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--watch", action="store_true", help="agents play every seat")
    args = parser.parse_args(argv)
    config = _config(parser, args)
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


def evaluate_main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.evaluate --game kingdomino --model PATH ...``: a MaskablePPO model
    trained through ``Kingdomino-v0`` against each opponent, seats rotated, with 95% intervals."""
    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate --game kingdomino",
        description="Evaluate a Kingdomino MaskablePPO model against agents.",
    )
    _game_arguments(parser)
    parser.add_argument("--model", required=True, help="MaskablePPO zip trained on Kingdomino-v0")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated agent specs")
    parser.add_argument("--games", type=int, default=100, help="games per opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stochastic", action="store_true", help="sample the model's actions")
    args = parser.parse_args(argv)
    config = _config(parser, args)
    if args.games < 1:
        parser.error("--games: expected a positive integer")
    if not Path(args.model).exists():
        parser.error(f"--model: no file {args.model}")
    from moonriver_env.kingdomino_encoding import KingdominoEncoder

    from .kingdomino_agents import PolicyKingdominoAgent

    policy = PolicyKingdominoAgent(args.model, seed=args.seed, sample=args.stochastic)
    size = KingdominoEncoder(config).size
    if policy.model.observation_space.shape != (size,):
        parser.error(
            f"--model: it observes {policy.model.observation_space.shape}, "
            f"{config.describe()} gives ({size},): evaluate it in the game it was trained for"
        )
    n = config.num_players
    lines = [f"model {args.model} ({config.describe()}), seed {args.seed}"]
    for spec in split_specs(args.opponents):
        wins = shared = 0
        for g in range(args.games):
            seat = g % n
            seed = args.seed + g
            players = [make_kingdomino_agent(spec, seed=seed * 10 + s) for s in range(n)]
            policy.reset(seed)
            players[seat] = policy
            state = new_game(config, seed=seed)
            while state.phase != Phase.GAME_OVER:
                state.apply(players[state.seat].choose(state))
            w = state.winners()
            wins += w == [seat]
            shared += seat in w and len(w) > 1
        lo, hi = wilson_interval(wins, args.games)
        lines.append(
            f"vs {n - 1} x {spec}: {wins}/{args.games} sole wins ({shared} shared), "
            f"win rate {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}]"
        )
    print("\n".join(lines))
    return 0
