"""Reporting a tournament: the plain-text summary table, the timing line and the summary
plot (see :mod:`agents.tournament`)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from moonriver_env.games import DEFAULT_GAME, game_entry
from moonriver_env.text_table import format_columns

from .records import AgentSummary, GameRecord


class TournamentResult(Protocol):
    """What a report reads of a tournament's result (:class:`.results.TournamentResult`
    satisfies it; a protocol here keeps the report below the results, with no import back)."""

    @property
    def labels(self) -> Sequence[str]: ...
    @property
    def players(self) -> int: ...
    @property
    def mode(self) -> str: ...
    @property
    def scenario(self) -> str | None: ...
    @property
    def seed(self) -> int: ...
    @property
    def records(self) -> Sequence[GameRecord]: ...
    @property
    def summaries(self) -> Sequence[AgentSummary]: ...
    @property
    def pairwise(self) -> np.ndarray: ...
    @property
    def anchor(self) -> str | None: ...
    @property
    def game(self) -> str: ...
    @property
    def categories(self) -> Mapping[str, str]: ...
    def timing_dict(self) -> dict[str, Any]: ...


def format_table(result: TournamentResult) -> str:
    """The summary as a plain-text table (entries by Elo, best first) and the pairwise
    matrix."""
    head = [
        "agent",
        "games",
        "wins",
        "win rate [95% CI]",
        "score +- 95% CI",
        *result.categories.values(),
        "rank",
        "OS ordinal (mu/sigma)",
        "BT Elo +- SE",
    ]
    order = sorted(range(len(result.summaries)), key=lambda i: (-_nan0(result.summaries[i].elo), i))
    rows = [head]
    for i in order:
        s = result.summaries[i]
        rows.append(
            [
                s.agent,
                str(s.games),
                _fmt_num(s.wins),
                f"{s.win_rate:.3f} [{s.win_rate_low:.3f}, {s.win_rate_high:.3f}]",
                f"{s.score_mean:.1f} +- {_nan0(s.score_high - s.score_mean):.1f}",
                *(f"{s.categories[c]:.1f}" for c in result.categories),
                f"{s.mean_rank:.2f}",
                f"{s.openskill_ordinal:.2f} ({s.openskill_mu:.2f}/{s.openskill_sigma:.2f})",
                f"{s.elo:.0f} +- {_nan0(s.elo_se):.0f}",
            ]
        )
    lines = format_columns(rows)
    scen = f", scenario {result.scenario}" if result.scenario else ""
    title = (
        f"Tournament: {_game(result)}{result.players} players, {result.mode}{scen}, {len(result.records)} games, "
        f"seed {result.seed} (chance win rate {1 / result.players:.3f}; shared wins count 1/k; "
        f"Elo anchor: {result.anchor or 'mean 1000'})"
    )
    out = [title, *lines]
    k = len(result.labels)
    if k > 1:
        which = "head-to-head win rate" if result.players == 2 else "finished ahead of"
        out += ["", f"pairwise ({which}, row vs column, ties 1/2):"]
        lw = max(len(x) for x in result.labels)
        cw = [max(6, len(x)) for x in result.labels]
        out.append(
            " " * lw + "  " + "  ".join(x.rjust(w) for x, w in zip(result.labels, cw, strict=True))
        )
        for i, label in enumerate(result.labels):
            cells = []
            for j in range(k):
                v = result.pairwise[i, j]
                cells.append(("-" if i == j or math.isnan(v) else f"{v:.3f}").rjust(cw[j]))
            out.append(label.ljust(lw) + "  " + "  ".join(cells))
    return "\n".join(out)


def format_timing(result: TournamentResult) -> str:
    """One line: games, decisions, wall time and milliseconds per decision per entry."""
    t = result.timing_dict()
    per = ", ".join(
        f"{label} {v['ms_per_decision']} ms (CPU {v['cpu_ms_per_decision']} ms)"
        for label, v in t["agents"].items()
    )
    return (
        f"{t['games']} games, {t['decisions']} decisions in {t['wall_seconds']:.1f} s with "
        f"{t['workers']} worker(s): {t['decisions_per_second']} decisions/s "
        f"({t['decisions_per_second_per_worker']} per worker); per decision: {per}"
    )


def _game(result: TournamentResult) -> str:
    """The game's title before the players, for a game other than the default one."""
    return "" if result.game == DEFAULT_GAME else f"{game_entry(result.game).title}, "


def _nan0(x: float) -> float:
    return 0.0 if math.isnan(x) else x


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def plot_summary(result: TournamentResult, path: str | os.PathLike[str]) -> None:
    """Three panels: win rate with 95% Wilson bars (dashed: chance), Bradley-Terry Elo with
    95% bars (OpenSkill ordinal written on the bars), mean score stacked by category."""
    from matplotlib.figure import Figure  # no pyplot: the caller's backend is left alone

    s = result.summaries
    labels = [x.agent for x in s]
    xs = np.arange(len(s))
    fig = Figure(figsize=(max(12.0, 1.6 * len(s) * 3), 4.6))
    axes = fig.subplots(1, 3)
    ax = axes[0]
    rate = np.array([x.win_rate for x in s])
    err = np.array(
        [
            [_nan0(x.win_rate - x.win_rate_low) for x in s],
            [_nan0(x.win_rate_high - x.win_rate) for x in s],
        ]
    )
    ax.bar(xs, rate, yerr=err, capsize=4, color="#0072B2")
    ax.axhline(1.0 / result.players, ls="--", color="grey", lw=1, label="chance")
    ax.set_ylim(0, 1)
    ax.set_title("win rate (95% Wilson CI)")
    ax.legend(loc="upper right", fontsize=8)
    ax = axes[1]
    elo = np.array([x.elo for x in s])
    se = np.array([1.96 * _nan0(x.elo_se) for x in s])
    ax.errorbar(xs, elo, yerr=se, fmt="o", capsize=4, color="#D55E00")
    ax.axhline(1000.0, ls="--", color="grey", lw=1)
    for i, x in enumerate(s):
        ax.annotate(
            f"{x.elo:.0f}\nOS {x.openskill_ordinal:.1f}",
            (i, x.elo),
            textcoords="offset points",
            xytext=(8, -4),
            ha="left",
            va="center",
            fontsize=7,
        )
    ax.set_xlim(-0.5, len(s) - 0.2)
    anchor = f"{result.anchor} = 1000" if result.anchor else "mean 1000"
    ax.set_title(f"Bradley-Terry Elo, 95% CI ({anchor}); OpenSkill ordinal", fontsize=10)
    ax = axes[2]
    bottom = np.zeros(len(s))
    colors = ("#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#0072B2")
    for n, cat in enumerate(result.categories):
        col = colors[n % len(colors)]
        vals = np.array([x.categories[cat] for x in s])
        ax.bar(xs, vals, bottom=bottom, label=cat, color=col)
        bottom += vals
    ax.set_ylim(0, 1.3 * max(float(bottom.max()), 1.0))
    ax.set_title("mean score by category")
    ax.legend(loc="upper right", fontsize=8, ncol=2)
    for ax in axes:
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    scen = f", {result.scenario}" if result.scenario else ""
    fig.suptitle(
        f"{_game(result)}{result.players} players, {result.mode}{scen}, {len(result.records)} games"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
