"""A tournament's output directory while it runs: every finished game is appended to
``games.csv`` (and flushed) as it arrives, so an interrupted tournament loses no finished game
and ``--resume`` plays only the missing ones.

The directory holds ``tournament.json`` (the arguments that fix the games: game, agents,
players, games, seed, mode, scenario) from the start; ``--resume`` refuses other arguments,
except more (or fewer) games: the games already played keep their lineups (the tournament
checks them) and ``tournament.json`` then names the new count. Games are
appended in the order they finish; :meth:`TournamentResult.save` rewrites ``games.csv`` in game
order at the end, so an interrupted and resumed tournament ends with the same files as an
uninterrupted one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from moonriver_env.family.records import ScoreSheet

from ..atomic import atomic_path, write_text
from ..file_format import parse_json, read_text
from .records import GameRecord, game_columns, game_rows, record_from_rows, win_share
from .schedule import schedule

CONFIG_FILE = "tournament.json"
GAMES_FILE = "games.csv"
MOVES_DIR = "moves"
"""The folder of the move lists kept with ``--save-games`` (``game-<index>.json``)."""
# What a finished tournament writes next to games.csv (replaced by --force).
OUTPUT_FILES = (
    CONFIG_FILE,
    GAMES_FILE,
    "summary.csv",
    "summary.json",
    "timing.json",
    "summary.png",
)


def read_arguments(path: Path) -> dict[str, Any]:
    """The arguments a tournament saved in ``path`` (``tournament.json``); a ``ValueError``
    naming the file when it is no JSON object (a list, deep nesting, damage, too large)."""
    try:
        saved = parse_json(read_text(path, ValueError), "tournament's arguments", ValueError)
    except ValueError as exc:
        raise ValueError(f"resume: {str(path)!r} is damaged ({exc})") from None
    if not isinstance(saved, dict):
        raise ValueError(
            f"resume: {str(path)!r} is damaged (expected a JSON object of the tournament's "
            f"arguments, got {type(saved).__name__})"
        )
    return saved


class GamesFileError(ValueError):
    """A tournament's ``games.csv`` that cannot be resumed: the message names the file and the
    line (a missing or other header, a malformed row, a game past the tournament's games, a
    row twice, a row that contradicts its game's others)."""


class GamesFile:
    """The ``games.csv`` of a running tournament: :meth:`open` checks the directory up front
    (before any game), :attr:`done` holds the games already finished (``resume``),
    :meth:`append` writes one more game."""

    GROWS = ("games",)
    """The arguments a resumed tournament may change (the games already played stay)."""

    def __init__(
        self, out: Path, labels: Sequence[str], done: dict[int, GameRecord], sheet: ScoreSheet
    ) -> None:
        self.out = out
        self.labels = list(labels)
        self.columns = game_columns(sheet)
        self.done = done
        self._file: IO[str] | None = None
        self._writer: csv.DictWriter[str] | None = None

    @classmethod
    def open(
        cls,
        out: str | os.PathLike[str],
        config: Mapping[str, Any],
        labels: Sequence[str],
        players: int,
        sheet: ScoreSheet,
        resume: bool = False,
        force: bool = False,
        lineups: Sequence[tuple[int, ...]] | None = None,
    ) -> GamesFile:
        """Check ``out`` and start (or, with ``resume``, continue) its ``games.csv``.

        Raises ``ValueError`` naming the problem, without writing anything, if ``out`` holds
        a tournament's files and neither ``resume`` nor ``force`` is given, if ``resume``
        finds no tournament there or one with other arguments, or if ``out`` is not a
        writable directory. ``lineups``: the lineup of every game of the schedule; a resumed
        game with another lineup (the count of games changed the schedule) is refused, and
        the finished games past the schedule are dropped. A ``games.csv`` that does not fit
        (:func:`_read_games`: rows past the games of the run that wrote it, a row twice, rows
        that contradict their game, a missing header, a directory) raises
        :class:`GamesFileError` naming the file and the line, again before anything is
        written."""
        path = Path(out)
        if resume and force:
            raise ValueError("out: give --resume or --force, not both")
        if path.exists() and not path.is_dir():
            raise ValueError(f"out: {str(path)!r} is a file, not a directory")
        existing = [n for n in OUTPUT_FILES if (path / n).exists()]
        done: dict[int, GameRecord] = {}
        if resume:
            if not (path / CONFIG_FILE).exists():
                raise ValueError(f"out: no tournament to resume in {str(path)!r} ({CONFIG_FILE})")
            saved = read_arguments(path / CONFIG_FILE)
            changed = [k for k in config if saved.get(k) != config[k] and k not in cls.GROWS]
            if changed:
                diff = ", ".join(f"{k}: {saved.get(k)!r} -> {config[k]!r}" for k in changed)
                raise ValueError(
                    f"resume: {str(path)!r} holds a tournament with other arguments ({diff})"
                )
            saved_games = saved.get("games")
            limit = (
                len(schedule(len(labels), players, saved_games))
                if isinstance(saved_games, int) and saved_games >= 1
                else None
            )
            done = _read_games(path / GAMES_FILE, labels, players, sheet, limit)
            if lineups is not None:
                done = {g: r for g, r in done.items() if g < len(lineups)}
                for g, record in done.items():
                    seats = sorted(record.seats, key=lambda s: s.seat)
                    if tuple(s.entry for s in seats) != tuple(lineups[g]):
                        raise ValueError(
                            f"resume: game {g} of {str(path)!r} has another lineup "
                            "(a count of games that changes the schedule)"
                        )
        elif existing and not force:
            raise ValueError(
                f"out: {str(path)!r} already holds a tournament ({', '.join(existing)}); "
                "add --resume to continue it or --force to replace it"
            )
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not os.access(path, os.W_OK):
                raise PermissionError(f"cannot write in {str(path)!r}")
            if resume:
                write_text(path / CONFIG_FILE, json.dumps(dict(config), indent=2) + "\n")
            else:
                for name in existing:
                    (path / name).unlink()
                shutil.rmtree(path / MOVES_DIR, ignore_errors=True)  # the old games' move lists
                write_text(path / CONFIG_FILE, json.dumps(dict(config), indent=2) + "\n")
        except OSError as exc:
            raise ValueError(f"out: cannot write the results to {str(path)!r} ({exc})") from None
        games = cls(path, labels, done, sheet)
        games._start(rewrite=resume)
        return games

    def _start(self, rewrite: bool) -> None:
        """Open games.csv for appending; on resume first rewrite it with the complete games
        read back (a game cut off mid-write by a hard kill is dropped and played again)."""
        target = self.out / GAMES_FILE
        if rewrite:
            with atomic_path(target) as tmp, tmp.open("w", encoding="utf-8", newline="") as f:
                writer = self._new_writer(f)
                for index in sorted(self.done):
                    writer.writerows(game_rows(self.done[index], self.labels))
        self._file = target.open("a", encoding="utf-8", newline="")
        if self._file.tell() == 0:
            self._writer = self._new_writer(self._file)
            self._file.flush()

    def _new_writer(self, f: IO[str]) -> csv.DictWriter[str]:
        writer = csv.DictWriter(f, fieldnames=self.columns, lineterminator="\n")
        writer.writeheader()
        return writer

    def append(self, record: GameRecord) -> None:
        """Write one finished game and flush it to the file."""
        assert self._file is not None, "games file closed"
        if self._writer is None:
            self._writer = csv.DictWriter(self._file, fieldnames=self.columns, lineterminator="\n")
        self._writer.writerows(game_rows(record, self.labels))
        self._file.flush()
        self.done[record.index] = record

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _read_games(
    path: Path, labels: Sequence[str], players: int, sheet: ScoreSheet, limit: int | None = None
) -> dict[int, GameRecord]:
    """The complete games of a ``games.csv`` (every seat present), by game index.

    A last line cut off by a hard kill, and a last game missing some of its seats, are dropped
    (played again). Anything else that does not fit raises :class:`GamesFileError` naming the
    file and the line: a missing or other header, a malformed row, a game index at or past
    ``limit`` (the games of the run that wrote the file), a seat twice, or a row that
    contradicts the others of its game (:func:`_check_game`)."""
    if not path.exists():
        return {}
    name = str(path)
    if path.is_dir():
        raise GamesFileError(f"{name!r}: a directory, not a games file")
    text = read_text(path, GamesFileError)
    if not text.endswith("\n"):  # a line cut off by a hard kill: drop it
        text = text[: text.rfind("\n") + 1]
    if not text:
        return {}
    columns = game_columns(sheet)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except csv.Error as exc:
        raise GamesFileError(f"{name!r}, line 1: not a CSV header ({exc})") from None
    if tuple(header) != columns:
        raise GamesFileError(
            f"{name!r}, line 1: expected the header {','.join(columns)!r}, got {','.join(header)!r}"
        )
    by_game: dict[int, dict[int, tuple[int, dict[str, str]]]] = {}
    last = None  # the game of the last row: the one a hard kill may have cut off
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise GamesFileError(f"{name!r}, line {reader.line_num}: {exc}") from None
        line = reader.line_num
        where = f"{name!r}, line {line}"
        if len(fields) != len(columns):
            raise GamesFileError(f"{where}: expected {len(columns)} fields, got {len(fields)}")
        row = dict(zip(columns, fields, strict=True))
        try:
            game, seat = int(row["game"]), int(row["seat"])
        except ValueError:
            raise GamesFileError(
                f"{where}: game and seat must be integers, got {row['game']!r}, {row['seat']!r}"
            ) from None
        if game < 0 or (limit is not None and game >= limit):
            raise GamesFileError(
                f"{where}: game {game} is not a game of this tournament (games 0-{limit - 1})"
                if limit
                else f"{where}: game {game} is not a game of this tournament"
            )
        if not 0 <= seat < players:
            raise GamesFileError(f"{where}: seat {seat} of a {players}-player game")
        seats = by_game.setdefault(game, {})
        if seat in seats:
            raise GamesFileError(
                f"{where}: game {game}, seat {seat} again (first on line {seats[seat][0]})"
            )
        seats[seat] = (line, row)
        last = game
    done = {}
    for index, seats in by_game.items():
        if len(seats) != players:
            if index == last:  # the last game, cut off mid-write by a hard kill
                continue
            first = min(line for line, _ in seats.values())
            raise GamesFileError(
                f"{name!r}, line {first}: game {index} has {len(seats)} of its {players} seats"
            )
        lines = [seats[s][0] for s in range(players)]
        rows = [seats[s][1] for s in range(players)]
        try:
            record = record_from_rows(rows, labels, sheet)
        except (ValueError, KeyError, TypeError) as exc:
            raise GamesFileError(f"{name!r}, line {lines[0]}: game {index}: {exc}") from None
        _check_game(name, index, lines, rows, record)
        done[index] = record
    return done


def _check_game(
    name: str,
    index: int,
    lines: Sequence[int],
    rows: Sequence[Mapping[str, str]],
    record: GameRecord,
) -> None:
    """:class:`GamesFileError` for a game whose rows contradict each other: another seed or
    game column, a win flag other than 0/1, no winner, a winner below the best total or
    rank 1, a rank that disagrees with the totals, a win share other than 1/k of k winners."""
    seats = sorted(record.seats, key=lambda s: s.seat)
    for line, row in zip(lines[1:], rows[1:], strict=True):
        for key in ("seed", *(k for k in row if k in record.text)):
            if row[key] != rows[0][key]:
                raise GamesFileError(
                    f"{name!r}, line {line}: game {index}: {key} {row[key]!r} differs from "
                    f"line {lines[0]} ({rows[0][key]!r})"
                )
    best = max(s.total for s in seats)
    winners = [s.seat for s in seats if s.win]
    rows_of = list(zip(seats, lines, rows, strict=True))
    for s, line, row in rows_of:  # the win flags and ranks first: the shares follow from them
        where = f"{name!r}, line {line}: game {index}, seat {s.seat}"
        if row["win"] not in ("0", "1"):
            raise GamesFileError(f"{where}: win must be 0 or 1, got {row['win']!r}")
        if not 1 <= s.rank <= len(seats):
            raise GamesFileError(f"{where}: rank {s.rank} of {len(seats)} seats")
        if s.win and (s.total != best or s.rank != 1):
            raise GamesFileError(
                f"{where}: marked a winner with total {s.total} and rank {s.rank} "
                f"(the best total is {best})"
            )
        for o in seats:
            if o.total > s.total and o.rank >= s.rank:
                raise GamesFileError(
                    f"{where}: rank {s.rank} with total {s.total}, but seat {o.seat} has "
                    f"total {o.total} and rank {o.rank}"
                )
    for s, line, row in rows_of:
        try:
            share = float(row["win_share"])
        except ValueError:
            share = float("nan")
        expected = win_share(winners, s.seat)
        if not abs(share - expected) <= 1e-6:
            raise GamesFileError(
                f"{name!r}, line {line}: game {index}, seat {s.seat}: win_share "
                f"{row['win_share']!r}, expected {round(expected, 6)} ({len(winners)} winner(s))"
            )
    if not winners:
        raise GamesFileError(f"{name!r}, line {lines[0]}: game {index} has no winner")
