"""The az run's evaluation: the model against each opponent in the generic tournament runner
(:func:`agents.tournament.games.run_tournament`, any registered game; seats rotated; a shared
win counts 1/k), its win rate with a 95% Wilson interval; ``eval.csv`` and a learning curve
against the games the run has played."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.tournament.games import run_tournament
from moonriver_env.games import GameSpec
from training.common.ladder import append_csv, format_table


def evaluate_model(
    model: str | Path,
    spec: GameSpec,
    opponents: Sequence[str],
    games: int,
    seed: int,
    sims: int | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """One row per opponent: the model (``az:path=MODEL``, ``sims`` its k) in one seat, the
    opponent in the others, ``games`` games (2 players: seats alternated; more: rotated)."""
    az = f"az:path={model}" + ("" if sims is None else f",sims={sims}")
    rows = []
    for opp in opponents:
        result = run_tournament(
            [az] + [opp] * (spec.num_players - 1), players=spec.num_players, games=games,
            seed=seed, game=spec.game, mode=spec.mode, progress=progress,
        )  # fmt: skip
        me, others = result.summaries[0], result.summaries[1:]
        rows.append(
            {
                "opponent": opp,
                "games": me.games,
                "win_rate": me.win_rate,
                "ci_low": me.win_rate_low,
                "ci_high": me.win_rate_high,
                "mean_score": me.score_mean,
                "opponent_score": sum(o.score_mean for o in others) / len(others),
            }
        )
    return rows


def write_evaluation(
    run_dir: Path, games_played: int, seconds: float, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Append ``rows`` to ``eval.csv`` (its step: the games the run has played), print the
    table and redraw ``learning_curve.png``."""
    append_csv(run_dir / "eval.csv", games_played, seconds, rows)
    print(format_table(rows), flush=True)
    plot_curve(run_dir / "eval.csv", run_dir / "learning_curve.png")


def plot_curve(csv_path: Path, out_png: Path) -> Path | None:
    """Win rate against the games played, one line per opponent, each point with its 95%
    Wilson interval as an error bar."""
    series: dict[str, list[tuple[int, float, float, float]]] = {}
    if not csv_path.exists():
        return None
    with csv_path.open() as f:
        for row in csv.DictReader(f):
            series.setdefault(row["opponent"], []).append(
                (
                    int(row["step"]),
                    float(row["win_rate"]),
                    float(row["ci_low"]),
                    float(row["ci_high"]),
                )
            )
    if not series:
        return None
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for name, pts in series.items():
        pts.sort()
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        err = [[max(0.0, p[1] - p[2]) for p in pts], [max(0.0, p[3] - p[1]) for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", ms=3, capsize=3, label=f"vs {name}")
    ax.set_xlabel("games played by the run (teacher and self-play)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(f"az learning curve ({csv_path.parent.name})")
    fig.savefig(out_png, dpi=100)
    return out_png
