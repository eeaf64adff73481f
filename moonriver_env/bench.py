"""Benchmark the rules engine with random play.

Usage::

    python -m moonriver_env.bench [--game NAME] [--games G] [--runs R]
                                  [--modes 2p_base 4p_legends ...] [--seed S] [--cpu C]
                                  [--json PATH]

``--game`` is any registered game (:data:`moonriver_env.games.GAMES`; default Moon River); its
engine deals each game with its ``new_game`` hook. For every mode (default: the game's
``bench_modes`` hook, else every player count and mode; Moon River: 2/3/4 players x
base/legends, Legends scenarios drawn at random from each game's seed) the benchmark first plays ``G`` games untimed, choosing uniformly among
the legal actions with ``random.Random(seed).randrange`` (game ``i`` uses seed ``S + i`` for
both the engine and the chooser), and records every game's action sequence. Then it replays
those ``G`` games ``R`` times, timing only the engine: ``new_game``, and per decision
``legal_action_list()`` + ``apply()``. The random choice, the bookkeeping and the check that
every replay ends with the recorded scores are outside the timed region.

The table reports decisions/s and games/s as the median over the runs with the min and max,
and the mean number of decisions per game. Everything runs in one process; on Linux the
process is pinned to one CPU (``--cpu``, default: the first CPU it may use). Use at least 5
runs for numbers that go into a report.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from moonriver_env.games import DEFAULT_GAME, DEFAULT_MODE, GAMES, GameSpec, game_entry, parse_game
from moonriver_env.text_table import format_columns

REPORT_MIN_RUNS = 5


@dataclass
class ModeResult:
    mode: str
    players: int
    game_mode: str
    games: int
    runs: int
    mean_decisions_per_game: float
    decisions_per_s_median: float
    decisions_per_s_min: float
    decisions_per_s_max: float
    games_per_s_median: float
    games_per_s_min: float
    games_per_s_max: float
    run_seconds: list[float]


def default_modes(game: str) -> tuple[str, ...]:
    """The spelled games ``--game`` times by default: its ``bench_modes`` hook, else every
    player count and mode that makes a game."""
    entry = game_entry(game)
    modes: tuple[str, ...] | None = entry.hook("bench_modes")
    if modes is not None:
        return tuple(modes)
    found = []
    for mode in entry.modes:
        for n in entry.player_counts:
            spec = GameSpec(game=game, num_players=n, mode=mode)
            try:
                spec.config()
            except ValueError:  # a mode this player count cannot play
                continue
            found.append(spec.text)
    return tuple(found)


def mode_name(name: str, game: str) -> str:
    """``name`` with the game's prefix when it names no game (``"4p_base"`` is a game of
    ``game``, the default game's spelling has no prefix)."""
    if game == DEFAULT_GAME or name.startswith(f"{game}_"):
        return name
    return f"{game}_{name}"


def parse_mode(name: str) -> Any:
    """``"3p_legends"`` (or the older ``"3p-legends"``) -> ``GameConfig(num_players=3,
    mode="legends", scenario="random")``: the game's one spelling
    (:func:`moonriver_env.games.parse_game`); a game with scenarios (a ``scenario`` setting)
    draws one per game outside its base mode."""
    try:
        spec = parse_game(name)
    except ValueError as e:
        raise ValueError(f"mode {name!r}: expected like '2p_base' or '4p_legends' ({e})") from None
    if "scenario" in spec.entry.settings and spec.mode != DEFAULT_MODE and spec.scenario is None:
        spec = replace(spec, scenario="random")
    return spec.config()


def dealer(config: Any) -> Callable[..., Any]:
    """The ``new_game`` of the config's game (its entry's hook): ``(config, seed=) -> state``."""
    deal: Callable[..., Any] | None = GameSpec.from_config(config).entry.hook("new_game")
    if deal is None:
        raise ValueError(f"game: {type(config).__name__} has no new_game hook to deal games")
    return deal


def add_players_argument(parser: argparse.ArgumentParser) -> None:
    """``--players``, the player counts of the environment benchmarks (read back by
    :func:`players_of`)."""
    parser.add_argument(
        "--players",
        type=int,
        nargs="+",
        default=None,
        help="player counts (default: 2 and 4, those the game is played by)",
    )


def players_of(args: argparse.Namespace) -> list[int]:
    """``--players``, or 2 and 4 where ``--game`` is played by them."""
    if args.players is not None:
        return list(args.players)
    return [n for n in (2, 4) if n in game_entry(args.game).player_counts]


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_line(cpu: int | None) -> str:
    """The benchmarks' line naming Python, NumPy and the CPU (and the one it is pinned to)."""
    pinned = f", pinned to CPU {cpu}" if cpu is not None else ""
    return f"Python {platform.python_version()}, NumPy {np.__version__}, CPU {cpu_model()}{pinned}"


def pin_to_one_cpu(cpu: int | None) -> int | None:
    """Pin this process to one CPU where the OS allows it; return that CPU (or None)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    target = allowed[0] if cpu is None else cpu
    os.sched_setaffinity(0, {target})
    return target


def record_games(config: Any, seeds: Sequence[int]) -> list[tuple[int, list[int], list[int]]]:
    """Play the games untimed: (seed, chosen action ids, final totals) per game."""
    games = []
    start_game = dealer(config)
    for seed in seeds:
        state = start_game(config, seed=seed)
        chooser = random.Random(seed)
        actions: list[int] = []
        while True:
            legal = state.legal_action_list()
            if not legal:
                break
            a = legal[chooser.randrange(len(legal))]
            actions.append(a)
            state.apply(a)
        games.append((seed, actions, [s.total for s in state.scores()]))
    return games


def timed_replay(config: Any, games: list[tuple[int, list[int], list[int]]]) -> float:
    """Replay recorded games; return the engine seconds. Checks the outcomes afterwards."""
    finals = []
    start_game = dealer(config)
    gc.collect()
    perf = time.perf_counter
    total = 0.0
    for seed, actions, _ in games:
        t0 = perf()
        state = start_game(config, seed=seed)
        for a in actions:
            state.legal_action_list()
            state.apply(a)
        state.legal_action_list()
        total += perf() - t0
        finals.append(state)
    for state, (seed, _, totals) in zip(finals, games, strict=True):
        if not state.is_terminal or [s.total for s in state.scores()] != totals:
            raise RuntimeError(f"replay of seed {seed} diverged from the recorded game")
    return total


def bench_mode(name: str, games: int, runs: int, seed: int) -> ModeResult:
    config = parse_mode(name)
    recorded = record_games(config, range(seed, seed + games))
    decisions = sum(len(actions) for _, actions, _ in recorded)
    seconds = [timed_replay(config, recorded) for _ in range(runs)]
    dps = [decisions / t for t in seconds]
    gps = [games / t for t in seconds]
    return ModeResult(
        mode=name,
        players=config.num_players,
        game_mode=str(config.mode),
        games=games,
        runs=runs,
        mean_decisions_per_game=decisions / games,
        decisions_per_s_median=statistics.median(dps),
        decisions_per_s_min=min(dps),
        decisions_per_s_max=max(dps),
        games_per_s_median=statistics.median(gps),
        games_per_s_min=min(gps),
        games_per_s_max=max(gps),
        run_seconds=seconds,
    )


def format_table(results: Sequence[ModeResult]) -> list[str]:
    head = (
        "mode",
        "decisions/s median",
        "(min - max)",
        "games/s median",
        "(min - max)",
        "decisions/game",
    )
    rows = [head]
    for r in results:
        rows.append(
            (
                r.mode,
                f"{r.decisions_per_s_median:,.0f}",
                f"({r.decisions_per_s_min:,.0f} - {r.decisions_per_s_max:,.0f})",
                f"{r.games_per_s_median:,.1f}",
                f"({r.games_per_s_min:,.1f} - {r.games_per_s_max:,.1f})",
                f"{r.mean_decisions_per_game:.1f}",
            )
        )
    return format_columns(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moonriver_env.bench",
        description="Time the rules engine (legal_action_list + apply) on random games.",
    )
    parser.add_argument(
        "--game",
        choices=tuple(GAMES),
        default=DEFAULT_GAME,
        help=f"the game whose engine is timed (default {DEFAULT_GAME}); its modes are the default",
    )
    parser.add_argument("--games", type=int, default=200, help="games per run (default 200)")
    parser.add_argument(
        "--runs", type=int, default=REPORT_MIN_RUNS, help="timed runs per mode (default 5)"
    )
    parser.add_argument(
        "--modes",
        nargs="+",
        default=None,
        metavar="MODE",
        help="modes to run (default: the game's; "
        + "; ".join(f"{name}: {' '.join(default_modes(name))}" for name in GAMES)
        + ")",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (Linux)")
    parser.add_argument("--json", metavar="PATH", help="also save the results as JSON")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.modes is None:
        args.modes = list(default_modes(args.game))
    else:  # "4p_base" names a game of --game here
        args.modes = [mode_name(m, args.game) for m in args.modes]
    for name in args.modes:
        try:
            parse_mode(name)
        except ValueError as exc:
            parser.error(str(exc))

    cpu = pin_to_one_cpu(args.cpu)
    header = {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "numpy": np.__version__,
        "cpu_model": cpu_model(),
        "pinned_cpu": cpu,
        "platform": platform.platform(),
        "games": args.games,
        "runs": args.runs,
        "seed": args.seed,
    }
    title = game_entry(args.game).title
    print(f"{title} engine benchmark (random play; timed: new_game + legal_action_list + apply)")
    print(f"Python {header['python']}, NumPy {header['numpy']}")
    pinned = f", pinned to CPU {cpu}" if cpu is not None else ""
    print(f"CPU: {header['cpu_model']}{pinned}")
    print(
        f"{args.games} games x {args.runs} runs per mode; seeds {args.seed}..{args.seed + args.games - 1}"
    )
    if args.runs < REPORT_MIN_RUNS:
        print(f"note: fewer than {REPORT_MIN_RUNS} runs; not for a report")
    print()
    sys.stdout.flush()

    results = []
    for name in args.modes:
        results.append(bench_mode(name, args.games, args.runs, args.seed))
    for line in format_table(results):
        print(line)

    if args.json:
        payload = {**header, "results": [asdict(r) for r in results]}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2)
            fh.write("\n")
        print(f"\nsaved {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
