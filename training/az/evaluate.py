"""The az run's evaluation: the model against each opponent through the one evaluator of the
pipelines (:func:`training.common.evaluation.evaluate_agent`: any registered game, seats
rotated, a shared win counts 1/k, the win rate with its 95% Wilson interval); ``eval.csv`` and
a learning curve against the games the run has played."""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moonriver_env.games import GameSpec
from training.common.closing import plot_win_rates
from training.common.evaluation import append_csv, evaluate_agent, format_table


def evaluate_model(
    model: str | Path,
    spec: GameSpec,
    opponents: Sequence[str],
    games: int,
    seed: int,
    sims: int | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """One row per opponent (:func:`training.common.evaluation.evaluate_agent`): the model
    (``az:path=MODEL``, ``sims`` its k) in one seat, the opponent in the others, ``games``
    games (2 players: seats alternated; more: rotated)."""
    az = f"az:path={model}" + ("" if sims is None else f",sims={sims}")
    return evaluate_agent(az, spec, opponents, games, seed, progress=progress)


def write_evaluation(
    run_dir: Path, games_played: int, seconds: float, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Append ``rows`` to ``eval.csv`` (its step: the games the run has played), print the
    table and redraw ``learning_curve.png``."""
    append_csv(run_dir / "eval.csv", games_played, seconds, rows)
    print(format_table(rows), flush=True)
    plot_curve(run_dir / "eval.csv", run_dir / "learning_curve.png")


def plot_curve(csv_path: Path, out_png: Path) -> Path | None:
    """Win rate against the games the run had played at each evaluation, one series per
    opponent, each point with its 95% Wilson interval (:func:`training.common.closing.
    plot_win_rates`); ``None`` when there is no evaluation yet."""
    if not csv_path.exists():
        return None
    with csv_path.open() as f:
        rows = [
            {
                "games_played": int(r["step"]),
                "opponent": r["opponent"],
                "wins": float(r["win_rate"]) * int(r["games"]),
                "games": int(r["games"]),
            }
            for r in csv.DictReader(f)
        ]
    if not rows:
        return None
    return plot_win_rates(
        rows, out_png, "games_played", "games played by the run (teacher and self-play)",
        title=f"az learning curve ({csv_path.parent.name})",
    )  # fmt: skip
