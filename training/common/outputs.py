"""Safe outputs of the training commands: atomic writes, the run-directory lock, and the rule
that a command never overwrites a committed file or an existing output unless asked.

* :func:`atomic_path` / :func:`write_text` (from :mod:`agents.atomic`): every file (model zips, ``config.toml``,
  ``eval.csv``, JSON reports, pictures, warm-start artifacts) is written to a temporary file in
  the same directory, flushed to disk and renamed over the target (``os.replace``), so a crash
  or Ctrl-C leaves either the old file or the new one, never a truncated one.
* :class:`RunLock`: one run per run directory (``fcntl.flock`` on ``<run_dir>/.lock``, released
  by the kernel when the holder dies; the file names the holder for the refusal message).
* :func:`check_writable`: refuse to overwrite a file tracked by git or under
  ``agents/checkpoints`` (the shipped models) or any existing output without ``--force``.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import math
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from agents.atomic import atomic_path, fsync_dir, write_bytes, write_text
from agents.shipped import CHECKPOINTS as SHIPPED


class OutputError(ValueError):
    """An output that must not be written (exists, is committed, or is locked by a run)."""


# -- atomic writes (one home: agents.atomic; re-exported for the training commands) ---------
def write_json(path: str | Path, data: Any) -> Path:
    """``data`` as indented JSON, atomically. A float that is not finite (NaN, an infinity:
    no JSON number; ``json.dumps`` would write a bare ``NaN`` token that JSON readers refuse)
    is written as ``null``."""
    return write_text(path, json.dumps(_finite(data), indent=2, allow_nan=False) + "\n")


def _finite(data: Any) -> Any:
    """``data`` with every float that is not finite, at any depth, made ``None``."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_finite(v) for v in data]
    return data


def save_model(model: Any, path: str | Path) -> Path:
    """``model.save`` (an SB3 model) atomically."""
    with atomic_path(path) as tmp:
        model.save(str(tmp))
    return Path(path)


def append_text(path: str | Path, text: str) -> None:
    """Append ``text`` atomically: the old content plus ``text`` replace the file in one
    rename (the files appended to, such as ``eval.csv``, are small)."""
    p = Path(path)
    old = p.read_bytes() if p.exists() else b""
    write_bytes(p, old + text.encode())


# -- the run-directory lock --------------------------------------------------------------------
class RunLock:
    """An exclusive lock on a run directory for as long as a run uses it::

        with RunLock(run_dir):
            ...  # train

    A second holder is refused with :class:`OutputError` naming the holder (pid, host, start
    time). A lock file left by a killed run (no process holds the ``flock`` any more) is taken
    over with a message. A run that wrote nothing (a bad config refused under the lock, say)
    leaves nothing: the lock file and the folders the lock made go again."""

    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / ".lock"
        self._fd: int | None = None
        self._fresh = False  # acquire made the lock file
        self._made: list[Path] = []  # and these folders, deepest first

    def acquire(self) -> None:
        made = [p for p in (self.path.parent, *self.path.parent.parents) if not p.exists()]
        fresh = not self.path.exists()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # a file on the way, /proc, no permission
            raise OutputError(
                f"--run-dir: {self.path.parent} cannot hold a run ({exc.strerror or exc})"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise OutputError(
                f"--run-dir: {self.path.parent} is in use by another run ({holder}); wait for it "
                "to finish or stop it, or choose another --run-dir"
            ) from None
        previous = _read_holder(fd)
        if previous:
            print(
                f"run dir {self.path.parent}: taking over the stale lock of a run that is gone "
                f"({previous})",
                flush=True,
            )
        me = {"pid": os.getpid(), "host": socket.gethostname(), "start": _now()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
        self._fd = fd
        self._fresh, self._made = fresh, made

    def release(self) -> None:
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)  # empty: the next run sees a clean release, not a stale lock
        alone = [p.name for p in self.path.parent.iterdir()] == [self.path.name]
        if self._fresh and alone:
            self.path.unlink()  # nothing written: the lock's own file goes, and its folders
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None
        for p in self._made if self._fresh and alone else ():
            try:
                p.rmdir()  # only while empty
            except OSError:
                break
        self._made = []

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z")


def _read_holder(fd: int) -> str:
    """The holder recorded in a lock file, as text ("" when empty or unreadable)."""
    raw = os.pread(fd, 4096, 0).decode(errors="replace").strip()
    if not raw:
        return ""
    try:
        info = json.loads(raw)
        return f"pid {info['pid']} on {info['host']}, started {info['start']}"
    except (ValueError, KeyError, TypeError):
        return f"lock file says {raw[:80]!r}"


# -- the no-overwrite rule ---------------------------------------------------------------------
def is_committed(path: str | Path) -> bool:
    """``path`` is a shipped checkpoint file or tracked by git."""
    p = Path(path).resolve()
    if p == SHIPPED or SHIPPED in p.parents:
        return True
    if not p.exists():
        return False
    try:
        out = subprocess.run(
            ["git", "ls-files", "--error-unmatch", p.name],
            cwd=p.parent,
            capture_output=True,
            check=False,
        )
    except OSError:
        return False
    return out.returncode == 0


def check_writable(path: str | Path, force: bool = False, flag: str = "--out") -> None:
    """Refuse (:class:`OutputError`) to replace a committed file, even with ``force``, or an
    existing one without it."""
    p = Path(path)
    if is_committed(p):
        raise OutputError(
            f"{flag}: {p} is a committed file (tracked by git or a shipped checkpoint); "
            "write elsewhere"
        )
    if p.exists() and not force:
        raise OutputError(f"{flag}: {p} exists; pass --force to replace it")


def replace_dir(build: Path, dest: Path) -> None:
    """Swap the finished directory ``build`` in as ``dest``, then remove the old ``dest`` (no
    stale file of the old folder survives). Where the system can (Linux's ``renameat2`` with
    ``RENAME_EXCHANGE``) the two are exchanged in one step, so ``dest`` is never missing;
    elsewhere the old one is moved aside first. A ``dest`` that is not a directory (a file,
    a link) is refused (:class:`OutputError`): a folder never replaces a file."""
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise OutputError(f"{dest} is not a folder (a file or a link); a folder never replaces it")
    if dest.exists() and _exchange(build, dest):
        fsync_dir(dest.parent)
        shutil.rmtree(build)  # the old folder, now at the build's name
        return
    old = dest.with_name(f".{dest.name}.old{os.getpid()}")
    if dest.exists():
        os.replace(dest, old)
    os.replace(build, dest)
    fsync_dir(dest.parent)
    shutil.rmtree(old, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Exchange the paths ``a`` and ``b`` atomically (``renameat2(RENAME_EXCHANGE)``); False
    where the C library or the file system has no such call (nothing changed then)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (OSError, AttributeError):
        return False
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return bool(call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0)
