"""The strength bars of the shipped ``az`` models, each reproduced by one command::

    python -m training.az.bars                      # the list of rows
    python -m training.az.bars mr2-heuristic        # one row (or several, or --all)

The rows live in ``training/configs/az_bars.toml``: the table (a spelled game; ``@rotation``
plays each Legends scenario in turn, an equal share of the games), the agents (``az`` first:
the model that plays the table, :class:`agents.az.AzAgent`), the games, the bar. Every row is
a seat-rotated tournament (:mod:`agents.tournament`) on the evaluation seed of the file, which
tuned nothing (no setting of a shipped model was chosen on it); the win rate counts a shared
win 1/k, with its 95% Wilson interval.

Time is the CPU time of the deciding thread a decision (``time.thread_time``), from the same
games; a row is met when its interval's lower bound reaches the bar and az's time is within the
file's limit for the game (``time_limit_ms``). A row whose opponent is ``mc`` at ``time = x``
times az's gets its ``sims`` from a calibration first (a few games on another seed: az's and mc's time a decision at
``calibrate_sims``, mc's time taken as proportional to its simulations, plus a margin, then
once more at that estimate); the row then reports both times from its own games, and whether
mc's was at least ``x`` times az's: a row where it was not is not met.
A row already begun goes on at the ``sims`` its games were played at (``--force``: sized again).

Each part's games go to ``runs/bars/<row>/<part>/games.csv`` as they finish: a command stopped
by Ctrl-C resumes where it was (``--resume`` is implied; ``--force`` starts a row over).
Results are appended to ``runs/bars/results.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.tournament.games import run_tournament
from agents.tournament.gamesfile import CONFIG_FILE, read_arguments
from moonriver_env.games import GameSpec, parse_game
from training.common.config import read_toml
from training.common.evaluation import row as result_row

BARS_FILE = Path(__file__).resolve().parents[1] / "configs" / "az_bars.toml"
OUT = Path("runs") / "bars"
ROTATION = "@rotation"


def read_bars(path: Path = BARS_FILE) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The file's settings and its rows by name (``ValueError`` naming a bad row)."""
    raw: dict[str, Any] = dict(read_toml(path))
    settings = {k: v for k, v in raw.items() if k != "row"}
    rows: dict[str, dict[str, Any]] = {}
    for row in raw.get("row", []):
        name = row.get("name")
        if not isinstance(name, str) or name in rows:
            raise ValueError(f"{path}: a row without a name, or named twice: {row!r}")
        for key in ("table", "agents", "bar"):
            if key not in row:
                raise ValueError(f"{path}: row {name!r}: no {key!r}")
        rows[name] = row
    limits = settings.get("time_limit_ms")
    if not isinstance(limits, dict) or not limits:
        raise ValueError(f"{path}: no [time_limit_ms] table (ms a decision, by game)")
    for name, row in rows.items():  # checked before any row plays, not after its games
        game = tables_of(row["table"])[0].game
        if game not in limits:
            raise ValueError(f"{path}: row {name!r}: no time_limit_ms for {game!r}")
    return settings, rows


def time_limit_ms(settings: Mapping[str, Any], table: str) -> float:
    """az's CPU time a decision, at most, for a row of ``table`` to be met."""
    return float(settings["time_limit_ms"][tables_of(table)[0].game])


def tables_of(table: str) -> list[GameSpec]:
    """The tables a row plays: one, or each Legends scenario of ``<table>@rotation``."""
    if not table.endswith(ROTATION):
        return [parse_game(table)]
    base = parse_game(table.removesuffix(ROTATION))
    scenarios = base.entry.hook("scenarios") or ()
    if not scenarios:
        raise ValueError(f"{table}: the game has no scenarios to rotate")
    return [parse_game(f"{base.text}@{s}") for s in scenarios]


def cpu_ms(result: Any, entry: int) -> tuple[float, int]:
    """Entry ``entry``'s CPU milliseconds a decision over the games played in this call (a
    resumed game's time is not known) and the decisions counted."""
    t, n = 0.0, 0
    for rec in result.records:
        for s in rec.seats:
            if s.entry == entry and s.think_cpu_seconds > 0:
                t += s.think_cpu_seconds
                n += s.decisions
    return (1000.0 * t / n if n else float("nan")), n


def play(
    spec: GameSpec, agents: Sequence[str], games: int, seed: int, workers: int, out: Path | None
) -> Any:
    return run_tournament(
        list(agents), players=spec.num_players, games=games, seed=seed, workers=workers,
        game=spec.game, mode=spec.mode, scenario=spec.scenario, out=out,
        resume=out is not None and (out / "games.csv").is_file(), progress=sys.stderr.isatty(),
    )  # fmt: skip


def calibrate(row: Mapping[str, Any], settings: Mapping[str, Any], workers: int) -> int:
    """``sims`` for the row's ``mc`` so that its time a decision is ``time`` x az's (times the
    file's margin). Two rounds of games: the first at ``calibrate_sims``, the second at the first
    round's estimate, so that the estimate is scaled from a time measured near it (mc's time a
    simulation is not the same at every size)."""
    spec = tables_of(row["table"])[0]
    sims = int(settings.get("calibrate_sims", 256))
    for _ in range(2):
        mc = f"{row['agents'][1]},sims={sims}"
        result = play(spec, [row["agents"][0], mc], int(settings.get("calibrate_games", 4)),
                      int(settings["calibration_seed"]), workers, None)  # fmt: skip
        az_ms, _ = cpu_ms(result, 0)
        mc_ms, _ = cpu_ms(result, 1)
        if not (az_ms > 0 and mc_ms > 0):  # NaN where no decision was timed
            raise ValueError(
                f"calibration of {row['agents'][1]}: no time measured ({az_ms}, {mc_ms})"
            )
        want = float(row["time"]) * az_ms * float(settings.get("margin", 1.15))
        sims = max(1, math.ceil(sims * want / mc_ms))
    return sims


def recorded_sims(name: str, opponent: str) -> int | None:
    """The ``sims`` a begun part of row ``name`` plays ``opponent`` at (its tournament.json),
    or None where no part has begun."""
    for record in sorted((OUT / name).glob(f"*/{CONFIG_FILE}")):
        agents = read_arguments(record).get("agents", [])
        prefix = f"{opponent},sims="
        if len(agents) > 1 and str(agents[1]).startswith(prefix):
            return int(str(agents[1])[len(prefix) :])
    return None


def run_row(
    name: str, row: Mapping[str, Any], settings: Mapping[str, Any], workers: int, force: bool
) -> dict[str, Any]:
    """Play one row; the result as one JSON-able dict."""
    start = time.perf_counter()
    agents = list(row["agents"])
    sims = None
    if force and (OUT / name).exists():
        shutil.rmtree(OUT / name)
    if "time" in row:
        # a row already begun goes on at the sims it was sized to (a calibration varies)
        sims = recorded_sims(name, agents[1])
        if sims is None:
            sims = calibrate(row, settings, workers)
        agents[1] = f"{agents[1]},sims={sims}"
    tables = tables_of(row["table"])
    games = int(row.get("games", settings.get("games", 400)))
    seed = int(settings["seed"])
    wins = played = 0.0
    times: dict[int, list[float]] = {0: [0.0, 0.0], 1: [0.0, 0.0]}
    points: list[float] = []
    for part, spec in enumerate(tables):
        share = games // len(tables) + (part < games % len(tables))
        out = OUT / name / (spec.text if len(tables) > 1 else "games")
        result = play(spec, agents, share, seed, workers, out)
        result.save(out, plot=False)
        az = result.summaries[0]
        wins += az.wins
        played += az.games
        points.append(az.score_mean)
        for entry in (0, 1):
            ms, n = cpu_ms(result, entry)
            if n:
                times[entry][0] += ms * n
                times[entry][1] += n
    rate = result_row(agents[1], int(played), wins, float("nan"), float("nan"))
    low = rate["ci_low"]
    per = {e: (t / n if n else float("nan")) for e, (t, n) in times.items()}
    limit = time_limit_ms(settings, row["table"])
    time_met = per[0] <= limit
    # an mc row: mc's time held at the multiple asked, or the row is not met
    held = sims is None or per[1] >= float(row["time"]) * per[0]
    res: dict[str, Any] = {
        "row": name, "table": row["table"], "agents": agents, "games": int(played),
        "win_rate": round(rate["win_rate"], 4), "ci_low": round(low, 4),
        "ci_high": round(rate["ci_high"], 4), "bar": row["bar"], "met": low >= row["bar"] and time_met and held,
        "point_met": wins / played >= row["bar"], "az_cpu_ms": round(per[0], 2),
        "time_limit_ms": limit, "time_met": time_met,
        "opponent_cpu_ms": round(per[1], 2), "az_mean_score": round(sum(points) / len(points), 1),
        "seed": seed, "seconds": round(time.perf_counter() - start, 1),
    }  # fmt: skip
    if sims is not None:
        res["mc_sims"] = sims
        res["mc_time_ratio"] = round(per[1] / per[0], 2)
        res["mc_time_held"] = held
    return res


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.az.bars", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("rows", nargs="*", help="row names (none: list them)")
    parser.add_argument("--all", action="store_true", help="every row")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--force", action="store_true", help="replay the rows from the start")
    parser.add_argument("--file", type=Path, default=BARS_FILE)
    args = parser.parse_args(argv)
    settings, rows = read_bars(args.file)
    names = list(rows) if args.all else args.rows
    unknown = [n for n in names if n not in rows]
    if unknown:
        parser.error(f"unknown rows {unknown}; the rows: {', '.join(rows)}")
    if not names:
        for n, r in rows.items():
            print(f"{n:24s} {r['table']:34s} {' vs '.join(r['agents'])}  bar {r['bar']}")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    for n in names:
        res = run_row(n, rows[n], settings, args.workers, args.force)
        line = json.dumps(res)
        print(line, flush=True)
        with (OUT / "results.jsonl").open("a") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
