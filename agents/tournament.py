"""Round-robin tournaments between agents, with ratings and confidence intervals.

Usage::

    python -m agents.tournament --agents random,greedy,mcts --players 2 --games 400 \\
        --workers 2 --seed 0 [--mode base|legends] [--scenario S] [--out DIR] [--no-plot]

Schedule
--------
Agents are given as specs (``make_agent`` syntax, e.g. ``mcts:sims=200``); a spec may be
listed twice for self-play, its entries are then labelled ``spec#1``, ``spec#2``.

- 2 players: every pair of distinct entries plays ``--games`` games, seats alternating
  (the first entry of the pair is seat 0 in even games). With a single entry it plays itself.
- 3-4 players: every lineup of N entries (combinations of the list; with repetition when there
  are fewer entries than seats, leaving out lineups of a single entry) in each of its N cyclic
  seat rotations; the ``--games`` games go round-robin over these (lineup, rotation) slots, so
  seats are exactly balanced when ``--games`` is a multiple of the number of slots.

Game ``i`` uses the seed ``SeedSequence([seed, i])`` (63 bits) for ``env.reset``, and the
agent in seat ``s`` is ``reset`` with ``SeedSequence([seed, i, 1 + s])``. Games run in
``--workers`` spawned processes (each keeps its agents and environment between games) and the
results are put back in game order, so the same arguments give byte-identical ``games.csv``,
``summary.csv`` and ``summary.json`` for any number of workers, as long as the agents are
deterministic given their seed (no time budgets: e.g. ``mcts:sims=200,time=none``).

Agents built on :class:`agents.base.Agent` are asked through ``choose(state)`` (what their
``act`` does with ``env.unwrapped.state``) so no observation is encoded for them; any other
object is called as ``act(observation, env)``.

Results
-------
- *games* counts the seats an agent played (a lineup with repetition seats it twice).
- *wins* credits a shared win (tie after the tie-breaks) as ``1/k`` to each of the ``k``
  winners, so wins sum to the number of games; the win rate is ``wins / games`` with a 95%
  Wilson interval (the chance level is ``1/N``).
- *score*: mean final total with a 95% Student-t interval, and the mean per category.
- *rank*: mean finishing rank (tie-breaks applied, tied seats share the better rank).
- OpenSkill (Plackett-Luce) ``mu``, ``sigma`` and ``ordinal = mu - 3 sigma``, games taken in
  game order.
- Bradley-Terry Elo: every game is split into pairwise comparisons between seats of different
  entries (finishing ahead = a win, a tie = half); ratings anchored at ``random = 1000`` (the
  first entry whose spec is ``random``) else at a mean of 1000, with standard errors.
- The pairwise matrix: how often the row entry finished ahead of the column entry (ties 1/2);
  with 2 players it is the head-to-head win rate.

Files in ``--out`` (default ``runs/tournament-<timestamp>``): ``games.csv`` (one row per game
and seat), ``summary.csv`` (one row per entry), ``summary.json`` (configuration, summary rows,
pairwise matrix), ``timing.json`` (wall time, decisions per second; not reproducible) and
``summary.png`` (win rate with CI, ratings, mean score by category).
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .ratings import (
    bradley_terry,
    competition_ranks,
    mean_interval,
    openskill_ratings,
    pairwise_wins,
    wilson_interval,
)

if TYPE_CHECKING:
    from . import Agent

__all__ = [
    "AgentSummary",
    "GameJob",
    "GameRecord",
    "SeatResult",
    "TournamentResult",
    "agent_seed",
    "entry_labels",
    "game_seed",
    "main",
    "run_tournament",
    "schedule",
    "seat_slots",
    "split_specs",
]

SCORE_FIELDS = (
    "territories",
    "resources",
    "partners",
    "scenario",
    "total",
    "largest_territory",
    "cows",
)
CATEGORIES = ("territories", "resources", "partners", "scenario")

AgentFactory = Callable[[str, int], "Agent"]


# -------------------------------------------------------------------------- schedule


def split_specs(text: str) -> list[str]:
    """Split a comma-separated agent list; a piece with ``=`` but no ``:`` continues the
    previous spec's parameters (``mcts:sims=200,c=1.4,random`` -> two specs)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def entry_labels(specs: Sequence[str]) -> list[str]:
    """Unique labels: a spec listed more than once becomes ``spec#1``, ``spec#2``, ..."""
    counts: dict[str, int] = {}
    for s in specs:
        counts[s] = counts.get(s, 0) + 1
    seen: dict[str, int] = {}
    labels = []
    for s in specs:
        if counts[s] > 1:
            seen[s] = seen.get(s, 0) + 1
            labels.append(f"{s}#{seen[s]}")
        else:
            labels.append(s)
    return labels


def seat_slots(num_entries: int, players: int) -> list[tuple[int, ...]]:
    """The (lineup, cyclic rotation) slots of a 3-4 player tournament, in schedule order."""
    if num_entries >= players:
        lineups = list(itertools.combinations(range(num_entries), players))
    else:
        lineups = [
            c
            for c in itertools.combinations_with_replacement(range(num_entries), players)
            if num_entries == 1 or len(set(c)) > 1
        ]
    return [lu[r:] + lu[:r] for lu in lineups for r in range(players)]


def schedule(num_entries: int, players: int, games: int) -> list[tuple[int, ...]]:
    """The seat lineup (entry index per seat) of every game, in game order (see module doc)."""
    if num_entries < 1:
        raise ValueError("agents: expected at least one agent")
    if players == 2:
        pairs = list(itertools.combinations(range(num_entries), 2)) or [(0, 0)]
        return [(a, b) if g % 2 == 0 else (b, a) for a, b in pairs for g in range(games)]
    slots = seat_slots(num_entries, players)
    return [slots[i % len(slots)] for i in range(games)]


def _seed_from(*words: int) -> int:
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0]) >> 1


def game_seed(seed: int, index: int) -> int:
    """The ``env.reset`` seed of game ``index``: 63 bits of ``SeedSequence([seed, index])``."""
    return _seed_from(seed, index)


def agent_seed(seed: int, index: int, seat: int) -> int:
    """The ``agent.reset`` seed of the agent in ``seat`` of game ``index``."""
    return _seed_from(seed, index, 1 + seat)


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class GameJob:
    index: int
    seed: int
    lineup: tuple[int, ...]
    agent_seeds: tuple[int, ...]


@dataclass(frozen=True)
class SeatResult:
    """One seat's result in one game (``think_seconds`` is wall time, not reproducible)."""

    seat: int
    entry: int
    board: str
    territories: int
    resources: int
    partners: int
    scenario: int
    total: int
    largest_territory: int
    cows: int
    rank: int
    win: bool
    win_share: float
    decisions: int
    think_seconds: float


@dataclass(frozen=True)
class GameRecord:
    index: int
    seed: int
    scenario: str | None
    seats: tuple[SeatResult, ...]
    seconds: float


@dataclass(frozen=True)
class AgentSummary:
    """Summary row of one entry (see the module doc for the definitions)."""

    agent: str
    spec: str
    games: int
    wins: float
    shared_wins: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    score_mean: float
    score_low: float
    score_high: float
    territories: float
    resources: float
    partners: float
    scenario: float
    mean_rank: float
    openskill_mu: float
    openskill_sigma: float
    openskill_ordinal: float
    elo: float
    elo_se: float
    decisions: int


# ---------------------------------------------------------------------------- worker


def _default_factory(spec: str, seed: int) -> Agent:
    from . import make_agent

    return make_agent(spec, seed=seed)


def _is_engine_agent(agent: Any) -> bool:
    """True for :class:`agents.base.Agent` subclasses that implement ``choose`` (the
    engine-level entry point ``act`` calls): the tournament then calls ``choose`` on the
    engine state and skips encoding an observation nobody reads."""
    try:
        from .base import Agent as BaseAgent
    except ImportError:  # pragma: no cover
        return False
    return isinstance(agent, BaseAgent) and type(agent).choose is not BaseAgent.choose


class _Runner:
    """Plays games in one process; keeps the environment and one agent per (entry, copy)."""

    def __init__(
        self,
        specs: Sequence[str],
        players: int,
        mode: str,
        scenario: str | None,
        factory: AgentFactory | None,
    ) -> None:
        from moonriver_env import moonriver_v0

        self.specs = list(specs)
        self.factory = factory or _default_factory
        self.env = moonriver_v0.env(num_players=players, mode=mode, scenario=scenario)
        self.agents: dict[tuple[int, int], Agent] = {}

    def agent(self, entry: int, copy: int) -> Agent:
        key = (entry, copy)
        if key not in self.agents:
            self.agents[key] = self.factory(self.specs[entry], 0)
        return self.agents[key]

    def play(self, job: GameJob) -> GameRecord:
        try:
            return self._play(job)
        except Exception as exc:
            lineup = ", ".join(f"seat {s}: {self.specs[e]}" for s, e in enumerate(job.lineup))
            raise RuntimeError(
                f"game {job.index} (seed {job.seed}; {lineup}) failed: {type(exc).__name__}: {exc}"
            ) from exc

    def _play(self, job: GameJob) -> GameRecord:
        start = time.perf_counter()
        copies: dict[int, int] = {}
        seat_agents = []
        for entry in job.lineup:
            copies[entry] = copies.get(entry, -1) + 1
            seat_agents.append(self.agent(entry, copies[entry]))
        for ag, s in zip(seat_agents, job.agent_seeds, strict=True):
            ag.reset(s)
        env = self.env
        env.reset(seed=job.seed)
        raw: Any = env.unwrapped
        n = len(job.lineup)
        decisions = [0] * n
        think = [0.0] * n
        engine = [_is_engine_agent(ag) for ag in seat_agents]
        while not raw.state.is_terminal:
            name = env.agent_selection
            seat = raw.agent_name_mapping[name]
            ag = seat_agents[seat]
            t0 = time.perf_counter()
            if engine[seat]:
                action = ag.choose(raw.state)  # Agent.act, minus the observation
            else:
                action = ag.act(env.observe(name), env)
            think[seat] += time.perf_counter() - t0
            state = raw.state
            if not state.is_legal(int(action)):
                raise RuntimeError(
                    f"agent {self.specs[job.lineup[seat]]!r} in seat {seat} chose illegal "
                    f"action {action} in phase {state.phase.name}"
                )
            env.step(int(action))
            decisions[seat] += 1
        state = raw.state
        scores = state.scores()
        winners = set(state.winners())
        ranks = competition_ranks([s.rank_key for s in scores])
        seats = tuple(
            SeatResult(
                seat=s,
                entry=job.lineup[s],
                board=str(state.boards[s]),
                territories=int(sc.territories),
                resources=int(sc.resources),
                partners=int(sc.partners),
                scenario=int(sc.scenario),
                total=int(sc.total),
                largest_territory=int(sc.largest_territory),
                cows=int(sc.cows),
                rank=ranks[s],
                win=s in winners,
                win_share=(1.0 / len(winners)) if s in winners else 0.0,
                decisions=decisions[s],
                think_seconds=think[s],
            )
            for s, sc in enumerate(scores)
        )
        return GameRecord(
            index=job.index,
            seed=job.seed,
            scenario=state.scenario,
            seats=seats,
            seconds=time.perf_counter() - start,
        )


_RUNNER: _Runner | None = None


def _init_worker(
    specs: Sequence[str],
    players: int,
    mode: str,
    scenario: str | None,
    factory: AgentFactory | None,
) -> None:
    global _RUNNER
    if "torch" in sys.modules:  # pragma: no cover - depends on the agents
        sys.modules["torch"].set_num_threads(1)
    _RUNNER = _Runner(specs, players, mode, scenario, factory)


def _run_job(job: GameJob) -> GameRecord:
    assert _RUNNER is not None, "worker not initialised"
    return _RUNNER.play(job)


# ---------------------------------------------------------------------------- result


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

    # -- views -------------------------------------------------------------------------------
    def game_rows(self) -> list[dict[str, Any]]:
        """One dict per game and seat (the rows of ``games.csv``)."""
        rows = []
        for rec in self.records:
            for s in rec.seats:
                rows.append(
                    {
                        "game": rec.index,
                        "seed": rec.seed,
                        "game_scenario": rec.scenario or "",
                        "seat": s.seat,
                        "board": s.board,
                        "agent": self.labels[s.entry],
                        **{k: getattr(s, k) for k in SCORE_FIELDS},
                        "rank": s.rank,
                        "win": int(s.win),
                        "win_share": _r(s.win_share, 6),
                        "decisions": s.decisions,
                    }
                )
        return rows

    def summary_rows(self) -> list[dict[str, Any]]:
        """One dict per entry (the rows of ``summary.csv``), floats rounded."""
        rows = []
        for s in self.summaries:
            row: dict[str, Any] = {}
            for k, v in asdict(s).items():
                row[k] = _r(v, 2 if k in ("elo", "elo_se") else 4) if isinstance(v, float) else v
            rows.append(row)
        return rows

    def config_dict(self) -> dict[str, Any]:
        return {
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
            per_agent[label] = {
                "decisions": n,
                "think_seconds": round(t, 4),
                "decisions_per_second": round(n / t, 1) if t > 0 else None,
                "ms_per_decision": round(1000 * t / n, 4) if n else None,
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
        head = [
            "agent",
            "games",
            "wins",
            "win rate [95% CI]",
            "score +- 95% CI",
            "terr",
            "res",
            "partn",
            "scen",
            "rank",
            "OS ordinal (mu/sigma)",
            "BT Elo +- SE",
        ]
        order = sorted(range(len(self.summaries)), key=lambda i: (-_nan0(self.summaries[i].elo), i))
        rows = [head]
        for i in order:
            s = self.summaries[i]
            rows.append(
                [
                    s.agent,
                    str(s.games),
                    _fmt_num(s.wins),
                    f"{s.win_rate:.3f} [{s.win_rate_low:.3f}, {s.win_rate_high:.3f}]",
                    f"{s.score_mean:.1f} +- {_nan0(s.score_high - s.score_mean):.1f}",
                    f"{s.territories:.1f}",
                    f"{s.resources:.1f}",
                    f"{s.partners:.1f}",
                    f"{s.scenario:.1f}",
                    f"{s.mean_rank:.2f}",
                    f"{s.openskill_ordinal:.2f} ({s.openskill_mu:.2f}/{s.openskill_sigma:.2f})",
                    f"{s.elo:.0f} +- {_nan0(s.elo_se):.0f}",
                ]
            )
        widths = [max(len(r[c]) for r in rows) for c in range(len(head))]
        lines = []
        for k, r in enumerate(rows):
            cells = [r[0].ljust(widths[0])] + [r[c].rjust(widths[c]) for c in range(1, len(r))]
            lines.append("  ".join(cells).rstrip())
            if k == 0:
                lines.append("  ".join("-" * w for w in widths))
        scen = f", scenario {self.scenario}" if self.scenario else ""
        title = (
            f"Tournament: {self.players} players, {self.mode}{scen}, {len(self.records)} games, "
            f"seed {self.seed} (chance win rate {1 / self.players:.3f}; shared wins count 1/k; "
            f"Elo anchor: {self.anchor or 'mean 1000'})"
        )
        out = [title, *lines]
        k = len(self.labels)
        if k > 1:
            which = "head-to-head win rate" if self.players == 2 else "finished ahead of"
            out += ["", f"pairwise ({which}, row vs column, ties 1/2):"]
            lw = max(len(x) for x in self.labels)
            cw = [max(6, len(x)) for x in self.labels]
            out.append(
                " " * lw
                + "  "
                + "  ".join(x.rjust(w) for x, w in zip(self.labels, cw, strict=True))
            )
            for i, label in enumerate(self.labels):
                cells = []
                for j in range(k):
                    v = self.pairwise[i, j]
                    cells.append(("-" if i == j or math.isnan(v) else f"{v:.3f}").rjust(cw[j]))
                out.append(label.ljust(lw) + "  " + "  ".join(cells))
        return "\n".join(out)

    def format_timing(self) -> str:
        t = self.timing_dict()
        per = ", ".join(f"{label} {v['ms_per_decision']} ms" for label, v in t["agents"].items())
        return (
            f"{t['games']} games, {t['decisions']} decisions in {t['wall_seconds']:.1f} s with "
            f"{t['workers']} worker(s): {t['decisions_per_second']} decisions/s "
            f"({t['decisions_per_second_per_worker']} per worker); per decision: {per}"
        )

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
        (out / "games.csv").write_text(self.games_csv(), encoding="utf-8")
        (out / "summary.csv").write_text(self.summary_csv(), encoding="utf-8")
        (out / "summary.json").write_text(self.summary_json(), encoding="utf-8")
        (out / "timing.json").write_text(
            json.dumps(self.timing_dict(), indent=2) + "\n", encoding="utf-8"
        )
        if plot:
            plot_summary(self, out / "summary.png")
        return out


def _nan0(x: float) -> float:
    return 0.0 if math.isnan(x) else x


def _fmt_num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _csv_text(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return buf.getvalue()


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
    colors = ("#009E73", "#E69F00", "#CC79A7", "#56B4E9")
    for cat, col in zip(CATEGORIES, colors, strict=True):
        vals = np.array([getattr(x, cat) for x in s])
        ax.bar(xs, vals, bottom=bottom, label=cat, color=col)
        bottom += vals
    ax.set_ylim(0, 1.3 * max(float(bottom.max()), 1.0))
    ax.set_title("mean score by category")
    ax.legend(loc="upper right", fontsize=8, ncol=2)
    for ax in axes:
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=8)
    scen = f", {result.scenario}" if result.scenario else ""
    fig.suptitle(f"{result.players} players, {result.mode}{scen}, {len(result.records)} games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


# -------------------------------------------------------------------------------- run


def _jobs(n_entries: int, players: int, games: int, seed: int) -> list[GameJob]:
    return [
        GameJob(
            index=i,
            seed=game_seed(seed, i),
            lineup=lineup,
            agent_seeds=tuple(agent_seed(seed, i, s) for s in range(players)),
        )
        for i, lineup in enumerate(schedule(n_entries, players, games))
    ]


def _play_all(
    jobs: list[GameJob],
    init_args: tuple[Any, ...],
    workers: int,
    progress: bool,
) -> Iterator[GameRecord]:
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc="games", unit="game", disable=not progress, leave=False)
    try:
        if workers <= 1 or len(jobs) <= 1:
            runner = _Runner(*init_args)
            for job in jobs:
                yield runner.play(job)
                bar.update(1)
            return
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        # one BLAS/torch thread per worker unless the user chose otherwise
        saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
        for k, v in saved.items():
            if v is None:
                os.environ[k] = "1"
        try:
            with ctx.Pool(min(workers, len(jobs)), _init_worker, init_args) as pool:
                for rec in pool.imap_unordered(_run_job, jobs, chunksize=1):
                    yield rec
                    bar.update(1)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
    finally:
        bar.close()


def run_tournament(
    agent_specs: Sequence[str],
    players: int = 2,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    mode: str = "base",
    scenario: str | None = None,
    progress: bool = False,
    agent_factory: AgentFactory | None = None,
) -> TournamentResult:
    """Play a tournament (schedule, seeds and statistics in the module doc).

    Args:
        agent_specs: agent specs for :func:`agents.make_agent` (repeats allowed).
        players: seats per game (2-4).
        games: with 2 players, games per pair of entries; with 3-4, games in total.
        seed: master seed (>= 0).
        workers: processes (``1``: play in this process).
        mode, scenario: the game variant (``scenario`` for Legends; ``None`` draws per game).
        progress: show a tqdm progress bar (on stderr).
        agent_factory: ``(spec, seed) -> Agent``; default :func:`agents.make_agent`. With
            several workers it must be a picklable module-level function.

    Returns:
        The :class:`TournamentResult`, games in game order.
    """
    specs = tuple(agent_specs)
    if not specs:
        raise ValueError("agents: expected at least one agent spec")
    if players not in (2, 3, 4):
        raise ValueError(f"players: expected 2, 3 or 4, got {players!r}")
    if games < 1:
        raise ValueError(f"games: expected at least 1, got {games!r}")
    if seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers!r}")
    from moonriver_env.rules import GameConfig

    GameConfig(num_players=players, mode=mode, scenario=scenario)  # validate early
    factory = agent_factory or _default_factory
    for spec in dict.fromkeys(specs):
        factory(spec, 0)  # raise ValueError on a bad spec before starting workers
    labels = tuple(entry_labels(specs))
    jobs = _jobs(len(specs), players, games, seed)
    start = time.perf_counter()
    init_args = (specs, players, mode, scenario, agent_factory)
    records = sorted(_play_all(jobs, init_args, workers, progress), key=lambda r: r.index)
    wall = time.perf_counter() - start
    return _summarise(
        specs, labels, players, games, seed, mode, scenario, records, wall, min(workers, len(jobs))
    )


def _anchor(specs: Sequence[str], labels: Sequence[str]) -> str | None:
    for spec, label in zip(specs, labels, strict=True):
        if spec.split(":")[0].strip().lower() == "random":
            return label
    return None


def _summarise(
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
                territories=_mean([s.territories for s in seats]),
                resources=_mean([s.resources for s in seats]),
                partners=_mean([s.partners for s in seats]),
                scenario=_mean([s.scenario for s in seats]),
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
    )


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if values else math.nan


# -------------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.tournament",
        description="Seat-rotated, seeded round-robin tournament between Moon River agents.",
    )
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated agent specs, e.g. random,greedy,mcts:sims=200 (repeat for self-play)",
    )
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument(
        "--games",
        type=int,
        default=100,
        help="2 players: games per pair of agents; 3-4 players: games in total (default 100)",
    )
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", default="base", choices=("base", "legends"))
    parser.add_argument("--scenario", default=None, help="Legends scenario (default: drawn)")
    parser.add_argument("--out", default=None, help="output directory")
    parser.add_argument("--no-plot", action="store_true", help="skip summary.png")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    specs = split_specs(args.agents)
    if not specs:
        parser.error("--agents: expected at least one agent spec")
    if args.scenario is not None and args.mode != "legends":
        parser.error("--scenario needs --mode legends")
    if args.players > 2:
        slots = len(seat_slots(len(specs), args.players))
        if args.games % slots:
            print(
                f"note: {args.games} games over {slots} (lineup, rotation) slots: seats are "
                f"not exactly balanced (use a multiple of {slots})",
                file=sys.stderr,
            )
    try:
        result = run_tournament(
            specs,
            players=args.players,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            mode=args.mode,
            scenario=args.scenario,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        parser.error(str(exc))
    out = args.out or os.path.join("runs", "tournament-" + time.strftime("%Y%m%d-%H%M%S"))
    result.save(out, plot=not args.no_plot)
    print(result.format_table())
    print()
    print(result.format_timing())
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
