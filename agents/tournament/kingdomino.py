"""``python -m agents.tournament --game kingdomino``: a seat-rotated, seeded, resumable
Kingdomino tournament (see :mod:`agents.kingdomino_cli` for the shared arguments).

The agents are seated with the Moon River schedule (:mod:`.schedule`: 2 players, both seat
orders of every pair; 3-4 players, every lineup in every cyclic rotation) and seeded the same
way (:mod:`agents.seeds`): game ``g`` is the game the environment deals on
``env.reset(seed=game_seed(seed, g))`` (:func:`agents.move_list.deal`, the one mapping from a
seed to a game, which the replay uses too), the agent in seat ``s`` is seeded with ``agent_seed(seed, g, s)``. The games
run in ``--workers`` processes or Ray actors (``--backend ray``; :func:`agents.jobs.run_jobs`),
so the same arguments give the same ``games.csv`` and table, byte for byte, for any number of
workers and either backend, as long as the agents have no time budget.

Files in ``--out``: ``tournament.json`` (the arguments that fix the games; ``--resume``
refuses others; it may ask for more games), ``games.csv`` (one row per game, appended as games finish and rewritten in
game order at the end), ``moves/game-<g>.json`` for the first ``--save-games`` games (replay
one with ``python -m agents.replay OUT --game G``) and ``timing.json`` (seconds per move of
each agent; wall time, not reproducible). The table gives each agent's sole wins, shared
wins, win rate with its 95% Wilson interval and mean points; the seconds per move follow it.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonriver_env.games import GameSpec
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState
from moonriver_env.kingdomino.agents import make_kingdomino_agent

from ..atomic import csv_text, write_text
from ..jobs import Backend, backend_from_args, run_jobs
from ..kingdomino_cli import config_from_args, game_arguments
from ..move_list import MoveList, deal, final_totals
from ..ratings import wilson_interval
from .arguments import add_run_arguments
from .games import make_jobs, move_list_path
from .gamesfile import CONFIG_FILE, GAMES_FILE
from .records import GameJob
from .schedule import entry_labels, split_specs

__all__ = ["KingdominoGame", "format_results", "run_kingdomino_tournament", "tournament_main"]


FIELDS = ("game", "seed", "lineup", "winners", "points")
"""The columns of a Kingdomino tournament's ``games.csv`` (one row per game)."""
TIMING_FILE = "timing.json"
SLOW_MOVE = 1.0
"""Seconds a move may take before the timing report counts it as over budget."""


@dataclass(frozen=True)
class KingdominoGame:
    """One finished game: its ``games.csv`` row, its moves (kept games only) and per seat
    the seconds spent deciding and the decisions made (wall time, not reproducible)."""

    index: int
    row: dict[str, str]
    final_scores: tuple[int, ...]
    moves: tuple[int, ...] | None
    think: tuple[tuple[float, float, int, int], ...]
    """Per seat: total seconds, the longest move, decisions, decisions over :data:`SLOW_MOVE`."""


class KingdominoTable:
    """One worker's environment (kept between games; only its deal is used) and the specs."""

    def __init__(self, specs: Sequence[str], spec: GameSpec, save_games: int) -> None:
        self.specs = list(specs)
        self.spec = spec
        self.env = spec.make_env()
        self.save_games = save_games

    def play(self, job: GameJob) -> KingdominoGame:
        agents = [
            make_kingdomino_agent(self.specs[e], seed=job.agent_seeds[s])
            for s, e in enumerate(job.lineup)
        ]
        state: KingdominoState = deal(self.spec, job.seed, self.env)
        moves: list[int] = []
        think = [[0.0, 0.0, 0, 0] for _ in agents]
        while not state.is_terminal:
            seat = state.seat
            start = time.perf_counter()
            action = agents[seat].choose(state)
            spent = time.perf_counter() - start
            clock = think[seat]
            clock[0] += spent
            clock[1] = max(clock[1], spent)
            clock[2] += 1
            clock[3] += spent > SLOW_MOVE
            state.apply(action)
            moves.append(action)
        totals = final_totals(state)
        row = {
            "game": str(job.index),
            "seed": str(job.seed),
            "lineup": " ".join(map(str, job.lineup)),
            "winners": " ".join(map(str, state.winners())),
            "points": " ".join(map(str, totals)),
        }
        return KingdominoGame(
            index=job.index,
            row=row,
            final_scores=totals,
            moves=tuple(moves) if job.index < self.save_games else None,
            think=tuple((t[0], t[1], int(t[2]), int(t[3])) for t in think),
        )


def _play_job(table: KingdominoTable, job: GameJob) -> KingdominoGame:
    return table.play(job)


def read_games(path: Path) -> dict[int, dict[str, str]]:
    """The complete rows of a ``games.csv`` by game (a line cut off by a hard kill is
    dropped, and its game played again on ``--resume``)."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    text = text[: text.rfind("\n") + 1]
    rows = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        if None not in row.values() and None not in row and row["game"].isdigit():
            rows[int(row["game"])] = dict(row)
    return rows


def run_kingdomino_tournament(
    specs: Sequence[str],
    config: KingdominoConfig,
    games: int,
    seed: int,
    out: str | os.PathLike[str],
    *,
    workers: int = 1,
    resume: bool = False,
    save_games: int = 0,
    backend: Backend | None = None,
) -> tuple[str, str]:
    """Play the tournament into ``out`` (see the module docstring); the table and the timing
    report. ``ValueError`` naming a bad argument or an ``out`` that cannot be used, before
    any game is played or file written."""
    if not specs:
        raise ValueError("agents: expected at least one agent spec")
    for name, value, least in (("games", games, 1), ("workers", workers, 1), ("seed", seed, 0)):
        if value < least:
            raise ValueError(f"{name}: expected at least {least}, got {value}")
    if save_games < 0:
        raise ValueError(f"save_games: expected a non-negative count, got {save_games}")
    for spec in specs:
        make_kingdomino_agent(spec)
    game = GameSpec.from_config(config)
    path = Path(out)
    # what fixes every game (a resumed tournament may play more games, not other ones)
    arguments = {"game": game.text, "agents": list(specs), "seed": seed}
    csv_path = path / GAMES_FILE
    if resume:
        saved = path / CONFIG_FILE
        if not saved.is_file():
            raise ValueError(f"out: no tournament to resume in {str(path)!r} ({CONFIG_FILE})")
        if json.loads(saved.read_text(encoding="utf-8")) != arguments:
            raise ValueError(f"resume: {str(path)!r} holds a tournament with other arguments")
    elif csv_path.exists() or (path / CONFIG_FILE).exists():
        raise ValueError(f"out: {str(path)!r} holds a tournament: --resume to continue it")
    labels = entry_labels(specs)
    jobs = make_jobs(len(specs), config.num_players, games, seed)
    done = read_games(csv_path)
    for job in jobs:
        if job.index in done and done[job.index]["lineup"] != " ".join(map(str, job.lineup)):
            raise ValueError(f"resume: game {job.index} of {str(path)!r} has another lineup")
    done = {g: row for g, row in done.items() if g < len(jobs)}
    todo = [job for job in jobs if job.index not in done]
    played: list[KingdominoGame] = []
    with (backend or Backend()).session(workers):
        write_text(path / CONFIG_FILE, json.dumps(arguments, indent=2) + "\n")
        write_text(csv_path, csv_text([done[g] for g in sorted(done)], FIELDS))
        with csv_path.open("a", encoding="utf-8", newline="") as fh:

            def finished(result: KingdominoGame) -> None:
                if result.moves is not None:
                    _save_moves(path, result, labels, game, config.num_players)
                fh.write(csv_text([result.row], FIELDS, header=False))
                fh.flush()

            played = run_jobs(
                todo,
                KingdominoTable,
                (specs, game, save_games),
                _play_job,
                workers=workers,
                on_result=finished,
                backend=backend,
            )
    rows = {**done, **{r.index: r.row for r in played}}
    write_text(csv_path, csv_text([rows[g] for g in sorted(rows)], FIELDS))
    timing = _timing(labels, played)
    write_text(path / TIMING_FILE, json.dumps(timing, indent=2) + "\n")
    return format_results(csv_path, labels, config), format_timing(timing)


def _save_moves(
    out: Path, result: KingdominoGame, labels: Sequence[str], game: GameSpec, players: int
) -> None:
    lineup = [int(e) for e in result.row["lineup"].split()]
    assert result.moves is not None
    MoveList(
        players=players,
        mode=game.mode,
        scenario=None,
        seed=int(result.row["seed"]),
        seats=tuple(labels[e] for e in lineup),
        actions=result.moves,
        final_scores=result.final_scores,
        source=f"tournament {os.fspath(out)} game {result.index}",
        game=game.game,
    ).save(move_list_path(out, result.index))


def _timing(labels: Sequence[str], played: Sequence[KingdominoGame]) -> dict[str, Any]:
    """Seconds per move of each entry over the games played in this run."""
    clocks = {label: [0.0, 0.0, 0, 0] for label in labels}
    for result in played:
        for seat, entry in enumerate(result.row["lineup"].split()):
            clock = clocks[labels[int(entry)]]
            seconds, longest, decisions, slow = result.think[seat]
            clock[0] += seconds
            clock[1] = max(clock[1], longest)
            clock[2] += decisions
            clock[3] += slow
    return {
        label: {
            "decisions": int(c[2]),
            "mean_seconds": c[0] / c[2] if c[2] else 0.0,
            "max_seconds": c[1],
            f"over_{SLOW_MOVE:g}s": int(c[3]),
        }
        for label, c in clocks.items()
    }


def format_timing(timing: dict[str, Any]) -> str:
    """The seconds per move of each entry (this run's games; wall time)."""
    lines = [f"{'agent':<40}{'moves':>8}{'s/move':>9}{'max s':>8}{f'over {SLOW_MOVE:g} s':>10}"]
    for label, t in timing.items():
        lines.append(
            f"{label:<40}{t['decisions']:>8}{t['mean_seconds']:>9.3f}{t['max_seconds']:>8.2f}"
            f"{t[f'over_{SLOW_MOVE:g}s']:>10}"
        )
    return "\n".join(lines)


def tournament_main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.tournament --game kingdomino ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament --game kingdomino",
        description="Seat-rotated, seeded tournament between Kingdomino agents.",
    )
    game_arguments(parser)
    parser.add_argument("--agents", required=True, help="comma-separated agent specs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="output directory (games.csv)")
    parser.add_argument("--resume", action="store_true", help="play only the missing games")
    add_run_arguments(parser)
    args = parser.parse_args(argv)
    config = config_from_args(parser, args)
    out = args.out or os.path.join(
        "runs", "kingdomino-tournament-" + time.strftime("%Y%m%d-%H%M%S")
    )
    try:
        table, timing = run_kingdomino_tournament(
            split_specs(args.agents),
            config,
            args.games,
            args.seed,
            out,
            workers=args.workers,
            resume=args.resume,
            save_games=args.save_games,
            backend=backend_from_args(args),
        )
    except ValueError as exc:
        parser.error(str(exc))
    print(table)
    print()
    print(timing)
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
