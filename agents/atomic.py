"""Atomic file writes: the one home of "write beside, fsync, rename over".

Every file the project writes for later reading (saved games, tournament results, self-play
snapshots, the training run's models, configs and reports) goes through :func:`atomic_path`: the
content is written to a temporary file in the target's directory, flushed to disk and renamed
over the target (``os.replace``), so a crash or Ctrl-C leaves either the old file or the new one,
never a truncated one. A writer killed mid-write (SIGKILL) cannot remove its temporary file; the
next write of the same target does, once no writer holds it. :func:`csv_text` is the one way
those CSV files' text is made. It lives in ``agents`` because both ``agents`` and ``training``
(which imports ``agents``) need it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from glob import escape as glob_escape
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Flush a directory's entries (a rename is durable only once its directory is synced)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temporary(target: Path, pid: int) -> Path:
    """The temporary file of ``target`` for the writer ``pid`` (its suffix kept last)."""
    return target.with_name(f".{target.stem}.tmp{pid}{PARTIAL}{target.suffix}")


PARTIAL = ".partial"
"""What marks this module's temporary files (before the target's suffix)."""


def _remove_stale_temporaries(target: Path) -> None:
    """Remove the temporary files of ``target`` that writers killed mid-write left behind (a
    SIGKILL or a power loss skips their clean-up): only names this module makes for this
    target, and only files no writer holds. A writer holds an exclusive ``flock`` on its file
    while it writes, which the kernel drops when the writer dies, in any process namespace or
    container on the host. Best effort: a file that cannot be opened or removed stays."""
    if fcntl is None:  # no flock (Windows): nothing is known of the others' files
        return
    head, tail = re.escape(f".{target.stem}.tmp"), re.escape(PARTIAL + target.suffix)
    name = re.compile(f"{head}[0-9]+{tail}")
    for old in target.parent.glob(glob_escape(f".{target.stem}.tmp") + "*"):
        if not name.fullmatch(old.name) or old == _temporary(target, os.getpid()):
            continue
        try:
            fd = os.open(old, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            old.unlink()  # no one holds it: its writer is gone
        except OSError:  # held (BlockingIOError): a writer is at work; or not removable
            pass
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` (same suffix, so writers that add or read one keep
    working) to write to; on success it is fsynced and renamed to ``path``, on error removed.
    The target's directory is created if missing. The temporary file exists (empty) when it
    is handed out, and this writer holds a lock on it until the end, so that a later write
    of the same target can tell a killed writer's file from one still being written."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(target)
    tmp = _temporary(target, os.getpid())
    held = None if fcntl is None else os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        if held is not None:
            with contextlib.suppress(OSError):  # this process's other write of the target
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, target)
        fsync_dir(target.parent)
    finally:
        if held is not None:
            os.close(held)
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
