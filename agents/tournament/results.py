"""A tournament's results: the statistics of every entry (:func:`summarise`) and the files
(see :mod:`agents.tournament` for the definitions)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.games import DEFAULT_GAME

from ..atomic import csv_text, write_text
from ..ratings import (
    bradley_terry,
    mean_interval,
    openskill_ratings,
    pairwise_wins,
    wilson_interval,
)
from .records import AgentSummary, GameRecord, game_rows
from .report import format_table, format_timing, plot_summary


def _r(x: float, digits: int = 4) -> float | None:
    """Round for the output files (``None`` for nan, so JSON stays valid)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    return round(float(x), digits)


@dataclass
class TournamentResult:
    """Everything a tournament produced; :meth:`save` writes the files."""

    specs: tuple[str, ...]
    labels: tuple[str, ...]
    players: int
    games: int
    seed: int
    mode: str
    scenario: str | None
    records: list[GameRecord]
    summaries: list[AgentSummary]
    pairwise: np.ndarray
    pairwise_games: np.ndarray
    anchor: str | None
    wall_seconds: float = 0.0
    workers: int = 1
    notes: dict[str, str] = field(default_factory=dict)
    game: str = DEFAULT_GAME
    """The game played (a registered name)."""
    categories: Mapping[str, str] = field(default_factory=dict)
    """The game's score categories and their short table headings (its score sheet)."""

    # -- views -------------------------------------------------------------------------------
    def game_rows(self) -> list[dict[str, Any]]:
        """One dict per game and seat (the rows of ``games.csv``)."""
        return [row for rec in self.records for row in game_rows(rec, self.labels)]

    def summary_rows(self) -> list[dict[str, Any]]:
        """One dict per entry (the rows of ``summary.csv``), floats rounded."""
        rows = []
        for s in self.summaries:
            row: dict[str, Any] = {}
            for k, v in s.row().items():
                row[k] = _r(v, 2 if k in ("elo", "elo_se") else 4) if isinstance(v, float) else v
            rows.append(row)
        return rows

    def config_dict(self) -> dict[str, Any]:
        game = {} if self.game == DEFAULT_GAME else {"game": self.game}
        return {
            **game,
            "agents": list(self.specs),
            "labels": list(self.labels),
            "players": self.players,
            "games": self.games,
            "games_played": len(self.records),
            "seed": self.seed,
            "mode": self.mode,
            "scenario": self.scenario,
            "elo_anchor": self.anchor,
        }

    def summary_dict(self) -> dict[str, Any]:
        """The content of ``summary.json`` (reproducible: no timings)."""
        k = len(self.labels)
        matrix = [
            [None if i == j else _r(float(self.pairwise[i, j])) for j in range(k)] for i in range(k)
        ]
        return {
            "config": self.config_dict(),
            "agents": self.summary_rows(),
            "pairwise": {
                "labels": list(self.labels),
                "win_rate": matrix,
                "comparisons": self.pairwise_games.astype(int).tolist(),
            },
            "notes": dict(self.notes),
        }

    def timing_dict(self) -> dict[str, Any]:
        """Wall time and decisions per second (``timing.json``; varies between runs)."""
        decisions = sum(s.decisions for rec in self.records for s in rec.seats)
        per_agent = {}
        for i, label in enumerate(self.labels):
            n = sum(s.decisions for rec in self.records for s in rec.seats if s.entry == i)
            t = sum(s.think_seconds for rec in self.records for s in rec.seats if s.entry == i)
            c = sum(s.think_cpu_seconds for rec in self.records for s in rec.seats if s.entry == i)
            per_agent[label] = {
                "decisions": n,
                "think_seconds": round(t, 4),
                "decisions_per_second": round(n / t, 1) if t > 0 else None,
                "ms_per_decision": round(1000 * t / n, 4) if n else None,
                # the CPU time of the deciding thread (what sharing the cores does not change)
                "cpu_ms_per_decision": round(1000 * c / n, 4) if n else None,
            }
        game_seconds = sum(rec.seconds for rec in self.records)
        return {
            "wall_seconds": round(self.wall_seconds, 3),
            "workers": self.workers,
            "games": len(self.records),
            "decisions": decisions,
            "decisions_per_second": (
                round(decisions / self.wall_seconds, 1) if self.wall_seconds > 0 else None
            ),
            "decisions_per_second_per_worker": (
                round(decisions / game_seconds, 1) if game_seconds > 0 else None
            ),
            "agents": per_agent,
        }

    def format_table(self) -> str:
        """The summary as a plain-text table (entries by Elo, best first) and the pairwise
        matrix."""
        return format_table(self)

    def format_timing(self) -> str:
        """One line: games, decisions, wall time and milliseconds per decision per entry."""
        return format_timing(self)

    # -- files -------------------------------------------------------------------------------
    def games_csv(self) -> str:
        return _csv_text(self.game_rows())

    def summary_csv(self) -> str:
        return _csv_text(self.summary_rows())

    def summary_json(self) -> str:
        return json.dumps(self.summary_dict(), indent=2) + "\n"

    def save(self, out_dir: str | os.PathLike[str], plot: bool = True) -> Path:
        """Write ``games.csv``, ``summary.csv``, ``summary.json``, ``timing.json`` and (with
        ``plot``) ``summary.png`` into ``out_dir`` (created); returns its path."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        # games.csv may hold the games appended while the tournament ran: replace it whole
        write_text(out / "games.csv", self.games_csv())
        write_text(out / "summary.csv", self.summary_csv())
        write_text(out / "summary.json", self.summary_json())
        write_text(out / "timing.json", json.dumps(self.timing_dict(), indent=2) + "\n")
        if plot:
            plot_summary(self, out / "summary.png")
        return out


def _csv_text(rows: list[dict[str, Any]]) -> str:
    return csv_text(rows, list(rows[0])) if rows else ""


def _anchor(specs: Sequence[str], labels: Sequence[str]) -> str | None:
    for spec, label in zip(specs, labels, strict=True):
        if spec.split(":")[0].strip().lower() == "random":
            return label
    return None


def summarise(
    game: str,
    categories: Mapping[str, str],
    specs: tuple[str, ...],
    labels: tuple[str, ...],
    players: int,
    games: int,
    seed: int,
    mode: str,
    scenario: str | None,
    records: list[GameRecord],
    wall: float,
    workers: int,
) -> TournamentResult:
    ranked = [[(labels[s.entry], s.rank) for s in rec.seats] for rec in records]
    skill = openskill_ratings(ranked, players=labels)
    w = pairwise_wins(ranked, labels)
    anchor = _anchor(specs, labels)
    bt = bradley_terry(w, labels, anchor=anchor)
    comparisons = w + w.T
    with np.errstate(invalid="ignore", divide="ignore"):
        pairwise = np.where(comparisons > 0, w / np.where(comparisons > 0, comparisons, 1), np.nan)
    summaries = []
    for i, label in enumerate(labels):
        seats = [s for rec in records for s in rec.seats if s.entry == i]
        n = len(seats)
        wins = sum(s.win_share for s in seats)
        wins = round(wins, 9)
        low, high = wilson_interval(wins, n)
        score = mean_interval([s.total for s in seats])
        sk = skill[label]
        summaries.append(
            AgentSummary(
                agent=label,
                spec=specs[i],
                games=n,
                wins=wins,
                shared_wins=sum(1 for s in seats if s.win and s.win_share < 1.0),
                win_rate=wins / n if n else math.nan,
                win_rate_low=low,
                win_rate_high=high,
                score_mean=score.mean,
                score_low=score.low,
                score_high=score.high,
                categories={c: _mean([s.score[c] for s in seats]) for c in categories},
                mean_rank=_mean([s.rank for s in seats]),
                openskill_mu=sk.mu,
                openskill_sigma=sk.sigma,
                openskill_ordinal=sk.ordinal,
                elo=bt.elo[i],
                elo_se=bt.se[i],
                decisions=sum(s.decisions for s in seats),
            )
        )
    notes = {
        "games": "seats played (an entry seated twice in a game counts twice)",
        "wins": "a shared win counts 1/k for each of the k winners",
        "win_rate_ci": "95% Wilson score interval",
        "score_ci": "95% Student-t interval of the mean total",
        "openskill": "Plackett-Luce, one-player teams, games in game order; ordinal = mu - 3 sigma",
        "elo": "Bradley-Terry MLE on pairwise finishing order (ties 1/2), 1 virtual game prior; "
        "anchored at the Elo anchor = 1000 (else mean 1000); elo_se relative to the anchor",
        "pairwise": "fraction of comparisons the row entry finished ahead of the column (ties 1/2)",
    }
    return TournamentResult(
        specs=specs,
        labels=labels,
        players=players,
        games=games,
        seed=seed,
        mode=mode,
        scenario=scenario,
        records=records,
        summaries=summaries,
        pairwise=pairwise,
        pairwise_games=comparisons,
        anchor=anchor,
        wall_seconds=wall,
        workers=workers,
        notes=notes,
        game=game,
        categories=dict(categories),
    )


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan
