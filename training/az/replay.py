"""The replay buffer on disk: one compressed shard per self-play job
(``<run_dir>/replay/it<iteration>_<part>.npz``, written atomically), and in memory the newest
``window`` positions, sampled uniformly, beside the warm start's teacher positions (iteration 0),
which are kept apart and never pushed out: with ``teacher_fraction`` > 0 every batch draws that
share from them, so self-play cannot wash the imitation out (the first run lost it once its
one-hot targets left the window). Without teacher positions a batch is all window.

A resumed run drops the shards of iterations after its checkpoint (their games were played by
a network it no longer has) and reloads the window from the rest.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from agents.atomic import atomic_path

from .selfplay import Positions

REPLAY_DIR = "replay"
_SHARD = re.compile(r"^it(\d{6})_(\d{4})\.npz$")


def shard_path(run_dir: Path, iteration: int, part: int) -> Path:
    """Where the shard of job ``part`` of ``iteration`` lives."""
    return run_dir / REPLAY_DIR / f"it{iteration:06d}_{part:04d}.npz"


def write_shard(run_dir: Path, iteration: int, part: int, positions: Positions) -> Path:
    """Write one shard atomically."""
    path = shard_path(run_dir, iteration, part)
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, **positions.arrays())  # type: ignore[arg-type]
    return path


def list_shards(run_dir: Path) -> list[tuple[int, int, Path]]:
    """``(iteration, part, path)`` of every shard, oldest first."""
    folder = run_dir / REPLAY_DIR
    out = []
    if folder.is_dir():
        for p in folder.iterdir():
            m = _SHARD.match(p.name)
            if m:
                out.append((int(m.group(1)), int(m.group(2)), p))
    return sorted(out)


def drop_after(run_dir: Path, iteration: int) -> int:
    """Delete the shards of iterations after ``iteration``; how many were deleted."""
    gone = 0
    for it, _, p in list_shards(run_dir):
        if it > iteration:
            p.unlink()
            gone += 1
    return gone


def prune_shards(run_dir: Path, buffer: ReplayBuffer) -> int:
    """Delete the self-play shards older than the buffer's window (they will never be read
    again: a resumed run reloads only the window); how many were deleted."""
    keep = sum(1 for _ in buffer.shards)
    selfplay = [p for it, _, p in list_shards(run_dir) if it > 0]
    old = selfplay[: max(0, len(selfplay) - keep)]
    for p in old:
        p.unlink()
    return len(old)


def read_shard(path: Path) -> Positions:
    """A shard's positions (read without pickle; a damaged or foreign file: ``ValueError``
    naming it)."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return Positions.from_arrays({k: data[k] for k in data.files})
    except Exception as exc:  # whatever damaged bytes raise (BadZipFile, zlib.error, ...)
        raise ValueError(
            f"replay shard {str(path)!r} is damaged ({type(exc).__name__}: {exc}); delete it "
            "to go on without its positions"
        ) from None


def shard_games(path: Path) -> int:
    """How many games a shard holds, without reading its positions."""
    with np.load(path, allow_pickle=False) as data:
        return int(data["counts"][0])


class ReplayBuffer:
    """The newest ``window`` positions (whole shards; the oldest shard goes once the rest
    fill the window) and the teacher's positions (all of them, module docstring)."""

    def __init__(self, window: int, teacher_fraction: float = 0.0) -> None:
        if not 0.0 <= teacher_fraction <= 1.0:
            raise ValueError(
                f"teacher_fraction: expected a number in [0, 1], got {teacher_fraction!r}"
            )
        self.window = window
        self.teacher_fraction = teacher_fraction
        self.shards: deque[Positions] = deque()
        self.size = 0
        self.teacher = _Pool()

    def add(self, positions: Positions, teacher: bool = False) -> None:
        """Add a shard: to the teacher's positions (``teacher``) or to the window."""
        if len(positions) == 0:
            return
        if teacher:
            self.teacher.add(positions)
            return
        self.shards.append(positions)
        self.size += len(positions)
        while len(self.shards) > 1 and self.size - len(self.shards[0]) >= self.window:
            self.size -= len(self.shards.popleft())

    @classmethod
    def load(cls, run_dir: Path, window: int, teacher_fraction: float = 0.0) -> ReplayBuffer:
        """The teacher's shards (iteration 0 of a run with a warm start) and the window of
        the self-play shards (newest ones)."""
        buf = cls(window, teacher_fraction)
        chosen: list[Path] = []
        total = 0
        shards = list_shards(run_dir)
        for it, _, p in shards:
            if it == 0:
                buf.teacher.add(read_shard(p))
        for it, _, p in reversed(shards):
            if total >= window or it == 0:
                break
            pos = read_shard(p)
            chosen.append(p)
            total += len(pos)
            buf.shards.appendleft(pos)
            buf.size += len(pos)
        return buf

    def teacher_share(self, batch: int) -> int:
        """How many of a batch of ``batch`` come from the teacher's positions: all of them
        while the window is empty (the warm start), else ``teacher_fraction`` of it."""
        if self.teacher.size == 0:
            return 0
        if self.size == 0:
            return batch
        return int(round(batch * self.teacher_fraction))

    def sample(self, rng: np.random.Generator, batch: int) -> Positions:
        """``batch`` positions drawn uniformly (with replacement): :meth:`teacher_share` of
        them from the teacher's positions, the rest from the window."""
        k = self.teacher_share(batch)
        parts = []
        if k:
            parts.append(self.teacher.sample(rng, k))
        if batch - k:
            parts.append(_Pool(self.shards, self.size).sample(rng, batch - k))
        return Positions.concatenate(parts)


class _Pool:
    """Shards of positions sampled uniformly as one."""

    def __init__(self, shards: Iterable[Positions] = (), size: int = 0) -> None:
        self.shards = list(shards)
        self.size = size

    def add(self, positions: Positions) -> None:
        self.shards.append(positions)
        self.size += len(positions)

    def sample(self, rng: np.random.Generator, batch: int) -> Positions:
        sizes = np.array([len(s) for s in self.shards])
        idx = rng.integers(self.size, size=batch)
        bounds = np.cumsum(sizes)
        which = np.searchsorted(bounds, idx, side="right")
        parts = []
        for k in np.unique(which):
            local = idx[which == k] - (bounds[k] - sizes[k])
            parts.append(self.shards[k].take(local))
        return Positions.concatenate(parts)
