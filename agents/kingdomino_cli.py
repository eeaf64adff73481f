"""The Kingdomino side of the commands: ``python -m agents.tournament``, ``python -m
agents.play`` and ``python -m training.evaluate`` hand their arguments to the Kingdomino
versions (:mod:`agents.tournament.kingdomino`, :mod:`agents.kingdomino_play`,
:func:`evaluate_main` here) when they contain ``--game kingdomino``.

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
import sys
from collections.abc import Sequence
from pathlib import Path

from moonriver_env.family.contract import DEFAULT_NUM_PLAYERS
from moonriver_env.games import parse_game
from moonriver_env.kingdomino import KingdominoConfig, Phase, new_game
from moonriver_env.kingdomino.agents import PolicyKingdominoAgent, make_kingdomino_agent
from moonriver_env.kingdomino.encoding import KingdominoEncoder

from .ratings import wilson_interval

__all__ = ["config_from_args", "evaluate_main", "game_arguments", "wants_kingdomino"]

GAME = "kingdomino"


def wants_kingdomino(argv: Sequence[str] | None) -> bool:
    """Whether a command line names Kingdomino: ``--game kingdomino`` or a spelled
    Kingdomino game (``--game kingdomino_4p_harmony+must_place``, ``--game=...``)."""
    words = list(sys.argv[1:] if argv is None else argv)
    for i, w in enumerate(words):
        value = w[len("--game=") :] if w.startswith("--game=") else None
        if w == "--game" and i + 1 < len(words):
            value = words[i + 1]
        if value is not None and (value == GAME or value.startswith(GAME + "_")):
            return True
    return False


def game_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game`` (``kingdomino`` or a spelled game such as ``kingdomino_4p_base``),
    ``--players`` and the variants as ``--variants a,b`` or ``--mode a+b``."""
    parser.add_argument(
        "--game",
        required=True,
        help="kingdomino, or the game spelled out (kingdomino_4p_harmony+must_place)",
    )
    parser.add_argument("--players", type=int, default=None, choices=(2, 3, 4))
    parser.add_argument(
        "--variants",
        default=None,
        help="comma-separated: must_place, harmony, middle_kingdom, mighty_duel, dynasty",
    )
    parser.add_argument(
        "--mode",
        default=None,
        help="the same as one word (the game's text spelling): 'base' or the variants joined "
        "with '+', e.g. harmony+middle_kingdom+must_place",
    )


def config_from_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> KingdominoConfig:
    """The game of :func:`game_arguments` (``parser.error`` naming a bad or contradicting
    argument)."""
    players, mode = DEFAULT_NUM_PLAYERS, None
    if args.game != GAME:
        try:
            spec = parse_game(args.game)
        except ValueError as exc:
            parser.error(f"--game: {exc}")
        if spec.game != GAME:
            parser.error(f"--game: {args.game!r} is not a Kingdomino game")
        players, mode = spec.num_players, spec.mode
        if args.players is not None and args.players != players:
            parser.error(f"--players {args.players} contradicts --game {args.game}")
        if (args.mode is not None or args.variants is not None) and mode != "base":
            parser.error(f"--game {args.game} names the variants already")
    if args.players is not None:
        players = args.players
    if args.mode is not None and args.variants is not None:
        parser.error("--mode and --variants name the same thing: give one")
    if args.mode is not None:
        mode = args.mode
    variants = args.variants or ""
    if mode is not None:
        variants = "" if mode == "base" else mode.replace("+", ",")
    try:
        return KingdominoConfig(players, variants)
    except ValueError as exc:
        parser.error(str(exc))
        raise  # unreachable: parser.error exits


def evaluate_main(argv: Sequence[str] | None = None) -> int:
    """``python -m training.evaluate --game kingdomino --model PATH ...``: a MaskablePPO model
    trained through ``Kingdomino-v0`` against each opponent, seats rotated, with 95% intervals."""
    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate --game kingdomino",
        description="Evaluate a Kingdomino MaskablePPO model against agents.",
    )
    game_arguments(parser)
    parser.add_argument("--model", required=True, help="MaskablePPO zip trained on Kingdomino-v0")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated agent specs")
    parser.add_argument("--games", type=int, default=100, help="games per opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stochastic", action="store_true", help="sample the model's actions")
    args = parser.parse_args(argv)
    config = config_from_args(parser, args)
    if args.games < 1:
        parser.error("--games: expected a positive integer")
    if not Path(args.model).exists():
        parser.error(f"--model: no file {args.model}")
    policy = PolicyKingdominoAgent(args.model, seed=args.seed, sample=args.stochastic)
    size = KingdominoEncoder(config).size
    if policy.model.observation_space.shape != (size,):
        parser.error(
            f"--model: it observes {policy.model.observation_space.shape}, "
            f"{config.describe()} gives ({size},): evaluate it in the game it was trained for"
        )
    n = config.num_players
    lines = [f"model {args.model} ({config.describe()}), seed {args.seed}"]
    for spec in [s.strip() for s in args.opponents.split(",") if s.strip()]:
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
