"""An animation of a real game between agents, as an animated GIF or WebP.

Usage::

    python -m agents.animate --agents trained,heuristic --seed 1 -o docs/assets/game.gif
                             [--players 2] [--mode base] [--scenario S] [--every turn|N]
                             [--fps 4] [--moves game.json]

The agents (specs as in :func:`agents.make_agent`, one per seat, the list repeated to fill the
seats) play one game: the environment reset with ``--seed``, the agent in seat ``s`` reset with
``agents.runner.agent_seed(SEED, 0, s)`` (as the play CLI seeds them), so the same command
makes the same game. The frames are the game's pictures (its registry entry's ``render`` hook,
Moon River's :func:`moonriver_env.moonriver.render.render_rgb`, the environment's ``rgb_array``
pictures, with the agents' names on the ranches): one at the start, one at the end of each turn (``--every turn``, the default) or every N decisions, and
the last one held for two seconds. ``--moves FILE`` also writes the game's move list
(:mod:`agents.move_list`), so the same game can be replayed in the browser
(``python -m agents.replay FILE``). The file is written atomically (the suffix picks the
format: ``.gif`` or ``.webp``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from moonriver_env.games import add_table_arguments, check_table_arguments, game_entry

from .atomic import atomic_path
from .move_list import MoveList
from .play import seat_specs
from .registry import make_agent
from .runner import GameRunner, GameSetup
from .seeds import agent_seed
from .tournament import split_specs
from .tournament.games import MoveRecorder

FORMATS = {".gif": "GIF", ".webp": "WEBP"}
"""The animation formats, by file suffix."""
HOLD_SECONDS = 2.0
"""How long the last frame stays before the animation loops."""


def play_game(
    specs: Sequence[str],
    players: int = 2,
    seed: int = 1,
    mode: str = "base",
    scenario: str | None = None,
) -> MoveList:
    """Play one game between the agents ``specs`` (repeated to fill the seats); its moves.

    Raises:
        ValueError: a bad spec, more specs than seats, an agent that cannot play the game.
    """
    seats = seat_specs(list(specs), list(range(players)))
    setup = GameSetup(num_players=players, mode=mode, scenario=scenario)
    agents = [make_agent(spec, seed=agent_seed(seed, 0, s)) for s, spec in enumerate(seats)]
    seeds = [agent_seed(seed, 0, s) for s in range(players)]
    recorder = MoveRecorder()
    outcome = GameRunner(setup).play(agents, seed, seeds, names=seats, hook=recorder)
    return MoveList(
        players=players,
        mode=mode,
        scenario=scenario,
        seed=seed,
        seats=tuple(seats),
        actions=tuple(recorder.actions),
        final_scores=tuple(s.total for s in outcome.state.scores()),
        source=f"python -m agents.animate --agents {','.join(specs)} --seed {seed}",
    )


def frames(moves: MoveList, every: int | None = None) -> list[np.ndarray]:
    """The pictures of the game (its ``render`` hook): the start, then after each turn
    (``every`` ``None``: when the acting seat changes) or every ``every`` decisions, and the
    end. ``ValueError`` naming the game when it has no pictures."""
    entry = game_entry(moves.game)
    render = entry.hook("render")
    if render is None:
        raise ValueError(f"game: {entry.title} has no picture to animate (no render hook)")
    shown: list[np.ndarray] = []
    previous = None
    for done, (state, action) in enumerate(moves.states()):  # ``done`` moves made
        seat = state.current_seat
        turn_over = seat != previous if every is None else done % every == 0
        if done == 0 or action is None or turn_over:
            shown.append(render(state, seat_names=moves.seats))
        previous = seat
    return shown


def save_animation(pictures: Sequence[np.ndarray], path: str | Path, fps: float = 4.0) -> Path:
    """Write ``pictures`` as an animated GIF or WebP (by suffix), looping, the last one held
    :data:`HOLD_SECONDS`; atomically. ``ValueError`` for another suffix or no pictures."""
    from PIL import Image

    target = Path(path)
    fmt = FORMATS.get(target.suffix.lower())
    if fmt is None:
        raise ValueError(f"out: expected a .gif or .webp file, got {str(target)!r}")
    if not pictures:
        raise ValueError("frames: nothing to animate")
    if fps <= 0:
        raise ValueError(f"fps: expected a positive rate, got {fps!r}")
    images = [Image.fromarray(p) for p in pictures]
    if fmt == "GIF":  # one shared palette: smaller, and no colour flicker between frames
        picks = sorted({0, len(pictures) // 3, 2 * len(pictures) // 3, len(pictures) - 1})
        sample = Image.fromarray(np.concatenate([pictures[i] for i in picks], axis=0))
        palette = sample.quantize(colors=192, method=Image.Quantize.MEDIANCUT)
        images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    step = round(1000 / fps)
    durations = [step] * (len(images) - 1) + [round(HOLD_SECONDS * 1000)]
    with atomic_path(target) as tmp:
        images[0].save(
            tmp,
            format=fmt,
            save_all=True,
            append_images=images[1:],
            duration=durations,
            loop=0,
            **({"optimize": True} if fmt == "GIF" else {"quality": 80, "method": 4}),
        )
    return target


def _every(text: str) -> int | None:
    if text == "turn":
        return None
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'turn' or a number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {n}")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.animate",
        description="Animate a real game between agents (GIF or WebP from rgb_array frames).",
    )
    add_table_arguments(parser, seed=1)
    parser.add_argument("--agents", required=True, help="agent specs, one per seat (repeated)")
    parser.add_argument(
        "--every",
        type=_every,
        default=None,
        metavar="turn|N",
        help="a frame per turn (default) or every N decisions",
    )
    parser.add_argument("--fps", type=float, default=4.0, help="frames per second (default 4)")
    parser.add_argument("--moves", default=None, help="also write the game's move list here")
    parser.add_argument("-o", "--out", required=True, help="the .gif or .webp file to write")
    args = parser.parse_args(argv)
    if Path(args.out).suffix.lower() not in FORMATS:
        parser.error(f"-o: expected a .gif or .webp file, got {args.out!r}")
    check_table_arguments(parser, args)
    try:
        moves = play_game(
            split_specs(args.agents), args.players, args.seed, args.mode, args.scenario
        )
        pictures = frames(moves, args.every)
        path = save_animation(pictures, args.out, fps=args.fps)
    except ValueError as exc:
        parser.error(str(exc))
    if args.moves:
        moves.save(args.moves)
    totals = ", ".join(
        f"{name} {score}" for name, score in zip(moves.seats, moves.final_scores or (), strict=True)
    )
    size = path.stat().st_size
    print(f"{len(pictures)} frames, {size / 1e6:.2f} MB: {path} (final scores: {totals})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
