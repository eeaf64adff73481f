"""What a tournament records: the jobs it schedules, one record per game and seat, and the
summary row of each entry (see :mod:`agents.tournament` for the definitions).

The score columns are the game's (its ``records`` hook, a
:class:`~moonriver_env.family.records.ScoreSheet`); everything else is the same for every
game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from moonriver_env.family.records import ScoreSheet, win_share
from moonriver_env.games import GameSpec

from ..ratings import competition_ranks
from ..runner import GameOutcome


def score_sheet(spec: GameSpec) -> ScoreSheet:
    """The score columns of ``spec``'s game (its entry's ``records`` hook)."""
    sheet = spec.entry.hook("records")
    if not isinstance(sheet, ScoreSheet):
        raise ValueError(f"game: {spec.entry.title} declares no score columns (records hook)")
    return sheet


def game_columns(sheet: ScoreSheet) -> tuple[str, ...]:
    """The columns of a game's ``games.csv`` (one row per game and seat), in file order."""
    return (
        "game",
        "seed",
        *sheet.game_columns,
        "seat",
        *sheet.seat_columns,
        "agent",
        *sheet.score_columns,
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
    """One seat's result in one game (``think_seconds`` is wall time, ``think_cpu_seconds``
    the deciding thread's CPU time: neither reproducible);
    ``text`` and ``score``: the game's seat columns and score columns."""

    seat: int
    entry: int
    text: Mapping[str, str]
    score: Mapping[str, int]
    rank: int
    win: bool
    win_share: float
    decisions: int
    think_seconds: float
    think_cpu_seconds: float = 0.0

    @property
    def total(self) -> int:
        """The seat's points."""
        return self.score["total"]


@dataclass(frozen=True)
class GameRecord:
    index: int
    seed: int
    text: Mapping[str, str]
    """The game's text columns (Moon River: ``game_scenario``)."""
    seats: tuple[SeatResult, ...]
    seconds: float
    moves: tuple[int, ...] | None = None
    """Every action in order, for the games kept with ``--save-games`` (else ``None``)."""


@dataclass(frozen=True)
class AgentSummary:
    """Summary row of one entry (see the module doc for the definitions); ``categories``:
    the mean of each of the game's score categories, written where the row places them."""

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
    mean_rank: float
    openskill_mu: float
    openskill_sigma: float
    openskill_ordinal: float
    elo: float
    elo_se: float
    decisions: int
    categories: Mapping[str, float] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        """The fields in ``summary.csv`` order: the categories after the score."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            if name == "categories":
                continue
            out[name] = getattr(self, name)
            if name == "score_high":
                out.update(self.categories)
        return out


def record_game(
    job: GameJob, outcome: GameOutcome, sheet: ScoreSheet, moves: Sequence[int] | None = None
) -> GameRecord:
    """The record of ``job``'s finished game: per seat the score, the finishing rank (tie-breaks
    applied, tied seats share the better rank) and the share of the win; ``moves``: the
    actions played, for a game whose move list is kept."""
    state = outcome.state
    text, sheets = sheet.read(state)
    winners = set(state.winners())
    ranks = competition_ranks([s.rank_key for s in sheets])
    seats = tuple(
        SeatResult(
            seat=s,
            entry=job.lineup[s],
            text=dict(sh.text),
            score=dict(sh.scores),
            rank=ranks[s],
            win=s in winners,
            win_share=win_share(winners, s),
            decisions=outcome.decisions[s],
            think_seconds=outcome.think_seconds[s],
            think_cpu_seconds=(outcome.think_cpu_seconds or outcome.think_seconds)[s],
        )
        for s, sh in enumerate(sheets)
    )
    return GameRecord(
        index=job.index,
        seed=job.seed,
        text=dict(text),
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
            **record.text,
            "seat": s.seat,
            **s.text,
            "agent": labels[s.entry],
            **s.score,
            "rank": s.rank,
            "win": int(s.win),
            "win_share": round(s.win_share, 6),
            "decisions": s.decisions,
        }
        for s in record.seats
    ]


def record_from_rows(
    rows: Sequence[Mapping[str, str]], labels: Sequence[str], sheet: ScoreSheet
) -> GameRecord:
    """The :class:`GameRecord` of one game read back from its ``games.csv`` rows (the inverse
    of :func:`game_rows`; the win share is recomputed exactly, wall times are 0).
    ``ValueError`` if a row does not fit (an unknown agent label, a malformed number)."""
    winners = {int(r["seat"]) for r in rows if int(r["win"])}
    seats = tuple(
        SeatResult(
            seat=int(r["seat"]),
            entry=labels.index(r["agent"]) if r["agent"] in labels else _unknown(r["agent"]),
            text={k: r[k] for k in sheet.seat_columns},
            score={k: int(r[k]) for k in sheet.score_columns},
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
        text={k: first[k] for k in sheet.game_columns},
        seats=seats,
        seconds=0.0,
    )


def _unknown(label: str) -> int:
    raise ValueError(f"agent: {label!r} is not an entry of this tournament")
