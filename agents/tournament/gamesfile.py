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
from .records import GameRecord, game_columns, game_rows, record_from_rows

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
        the finished games past the schedule are dropped."""
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
            saved = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
            changed = [k for k in config if saved.get(k) != config[k] and k not in cls.GROWS]
            if changed:
                diff = ", ".join(f"{k}: {saved.get(k)!r} -> {config[k]!r}" for k in changed)
                raise ValueError(
                    f"resume: {str(path)!r} holds a tournament with other arguments ({diff})"
                )
            done = _read_games(path / GAMES_FILE, labels, players, sheet)
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
    path: Path, labels: Sequence[str], players: int, sheet: ScoreSheet
) -> dict[int, GameRecord]:
    """The complete games of a ``games.csv`` (every seat present), by game index."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):  # a line cut off by a hard kill: drop it
        text = text[: text.rfind("\n") + 1]
    by_game: dict[int, list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        if None in row.values() or None in row:  # a line cut short
            continue
        try:
            by_game.setdefault(int(row["game"]), []).append(row)
        except ValueError:
            continue
    done = {}
    for index, rows in by_game.items():
        if sorted(int(r["seat"]) for r in rows) != list(range(players)):
            continue
        try:
            done[index] = record_from_rows(rows, labels, sheet)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"resume: {str(path)!r}: game {index}: {exc}") from None
    return done
