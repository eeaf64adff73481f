"""Atomic file writes: the one home of "write beside, fsync, rename over".

Every file the project writes for later reading (saved games, tournament results, self-play
snapshots, the training run's models, configs and reports) goes through :func:`atomic_path`: the
content is written to a temporary file in the target's directory, flushed to disk and renamed
over the target (``os.replace``), so a crash or Ctrl-C leaves either the old file or the new one,
never a truncated one. A writer killed mid-write (SIGKILL) cannot remove its temporary file; the
next write of the same target does. :func:`csv_text` is the one way those CSV files' text is made. It lives
in ``agents`` because both ``agents`` and ``training`` (which imports ``agents``) need it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from glob import escape as glob_escape
from pathlib import Path
from typing import Any


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Flush a directory's entries (a rename is durable only once its directory is synced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary files of ``target`` that writers killed mid-write left behind (a
    SIGKILL or power loss skips the clean-up): only names this module makes for this target,
    and only those whose writing process no longer exists, so a concurrent writer's file stays."""
    head, tail = f".{target.stem}.tmp", target.suffix
    for old in target.parent.glob(f"{glob_escape(head)}*{glob_escape(tail)}"):
        pid = old.name[len(head) : len(old.name) - len(tail)]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            old.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, so writers that add or read one keep
    working) to write to; on success it is fsynced and renamed to ``path``, on error removed.
    The target's directory is created if missing."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(target)
    tmp = target.with_name(f".{target.stem}.tmp{os.getpid()}{target.suffix}")
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
        fsync_dir(target.parent)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def csv_text(rows: Iterable[Mapping[str, Any]], fields: Sequence[str], header: bool = True) -> str:
    """The CSV text of ``rows`` (dicts with the keys ``fields``, in that order; ``None`` is
    written empty), the header line first unless ``header`` is false (rows appended to a file
    that has one). Lines end in ``\\n``."""
    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(fields), lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
