"""What a tournament records: the jobs it schedules, one record per game and seat, and the
summary row of each entry (see :mod:`agents.tournament` for the definitions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from moonriver_env.moonriver.rules import ScoreBreakdown
from moonriver_env.moonriver.rules.scoring import win_share

from ..ratings import competition_ranks
from ..runner import GameOutcome

# The score columns of games.csv: the categories and tie-break keys of the engine's breakdown.
SCORE_FIELDS = tuple(f.name for f in fields(ScoreBreakdown))
CATEGORIES = ("territories", "resources", "partners", "scenario")
# The columns of games.csv (one row per game and seat), in file order.
GAME_COLUMNS = (
    "game",
    "seed",
    "game_scenario",
    "seat",
    "board",
    "agent",
    *SCORE_FIELDS,
    "rank",
    "win",
    "win_share",
    "decisions",
)


@dataclass(frozen=True)
class GameJob:
    """One game of the schedule: its ``index`` in game order, the ``lineup`` (the entry of
    each seat), the game's ``seed`` and each seat's agent seed (:mod:`agents.seeds`)."""

    index: int
    lineup: tuple[int, ...]
    seed: int
    agent_seeds: tuple[int, ...]


@dataclass(frozen=True)
class SeatResult:
    """One seat's result in one game (``think_seconds`` is wall time, not reproducible)."""

    seat: int
    entry: int
    board: str
    score: ScoreBreakdown
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
    moves: tuple[int, ...] | None = None
    """Every action in order, for the games kept with ``--save-games`` (else ``None``)."""


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


def record_game(
    job: GameJob, outcome: GameOutcome, moves: Sequence[int] | None = None
) -> GameRecord:
    """The record of ``job``'s finished game: per seat the score, the finishing rank (tie-breaks
    applied, tied seats share the better rank) and the share of the win; ``moves``: the
    actions played, for a game whose move list is kept."""
    state = outcome.state
    scores = state.scores()
    winners = set(state.winners())
    ranks = competition_ranks([s.rank_key for s in scores])
    seats = tuple(
        SeatResult(
            seat=s,
            entry=job.lineup[s],
            board=str(state.boards[s]),
            score=sc,
            rank=ranks[s],
            win=s in winners,
            win_share=win_share(winners, s),
            decisions=outcome.decisions[s],
            think_seconds=outcome.think_seconds[s],
        )
        for s, sc in enumerate(scores)
    )
    return GameRecord(
        index=job.index,
        seed=job.seed,
        scenario=state.scenario,
        seats=seats,
        seconds=outcome.seconds,
        moves=None if moves is None else tuple(moves),
    )


def game_rows(record: GameRecord, labels: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of ``games.csv`` for one game (one per seat; entries named by ``labels``)."""
    return [
        {
            "game": record.index,
            "seed": record.seed,
            "game_scenario": record.scenario or "",
            "seat": s.seat,
            "board": s.board,
            "agent": labels[s.entry],
            **{k: getattr(s.score, k) for k in SCORE_FIELDS},
            "rank": s.rank,
            "win": int(s.win),
            "win_share": round(s.win_share, 6),
            "decisions": s.decisions,
        }
        for s in record.seats
    ]


def record_from_rows(rows: Sequence[Mapping[str, str]], labels: Sequence[str]) -> GameRecord:
    """The :class:`GameRecord` of one game read back from its ``games.csv`` rows (the inverse
    of :func:`game_rows`; the win share is recomputed exactly, wall times are 0).
    ``ValueError`` if a row does not fit (an unknown agent label, a malformed number)."""
    winners = {int(r["seat"]) for r in rows if int(r["win"])}
    seats = tuple(
        SeatResult(
            seat=int(r["seat"]),
            entry=labels.index(r["agent"]) if r["agent"] in labels else _unknown(r["agent"]),
            board=r["board"],
            score=ScoreBreakdown(**{k: int(r[k]) for k in SCORE_FIELDS}),
            rank=int(r["rank"]),
            win=bool(int(r["win"])),
            win_share=win_share(winners, int(r["seat"])),
            decisions=int(r["decisions"]),
            think_seconds=0.0,
        )
        for r in rows
    )
    first = rows[0]
    return GameRecord(
        index=int(first["game"]),
        seed=int(first["seed"]),
        scenario=first["game_scenario"] or None,
        seats=seats,
        seconds=0.0,
    )


def _unknown(label: str) -> int:
    raise ValueError(f"agent: {label!r} is not an entry of this tournament")
