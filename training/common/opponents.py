"""Opponents of the learner shared by the training pipelines: baseline agents by name, the pool
of the learner's past snapshots (``<run_dir>/snapshots/snapshot_<step>.pt``, written with
:func:`agents.networks.snapshots.save_policy`, the last ``keep`` of them), a snapshot played as
an opponent (:class:`SnapshotPolicy`), and the per-episode draw of an opponent per seat with
the configured weights (:class:`OpponentSampler`).

The roles' names come from :mod:`moonriver_env.opponents` (one home).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.atomic import atomic_path
from agents.base import PolicyAgent
from agents.networks.snapshots import load_policy, save_policy
from agents.registry import make_agent
from moonriver_env.opponents import BASELINES, SNAPSHOT

__all__ = [
    "BASELINES",
    "KINDS",
    "OpponentSampler",
    "SnapshotPolicy",
    "SnapshotPool",
    "make_baseline",
]

KINDS = (*BASELINES, SNAPSHOT)
"""The opponent kinds a sampler draws from."""
SNAPSHOT_FILE = re.compile(r"snapshot_(\d+)\.pt$")


def make_baseline(name: str, seed: int | None = None) -> Any:
    """A baseline agent (any agent spec) built by the ``agents`` registry."""
    return make_agent(name, seed=seed)


# -- snapshots ---------------------------------------------------------------------------------
class SnapshotPool:
    """The snapshot files of a run directory (``snapshot_<step>.pt``), oldest first."""

    def __init__(self, directory: str | Path, keep: int = 5) -> None:
        self.directory = Path(directory)
        self.keep = int(keep)

    def paths(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        found = []
        for p in self.directory.iterdir():
            m = SNAPSHOT_FILE.search(p.name)
            if m:
                found.append((int(m.group(1)), p))
        return [p for _, p in sorted(found)]

    def add(self, policy: Any, step: int) -> Path:
        """Save ``policy`` (an SB3 policy) as the snapshot of ``step``; drop the oldest beyond
        ``keep``. The file is written under a temporary name and renamed (atomic)."""
        path = self.directory / f"snapshot_{int(step)}.pt"
        with atomic_path(path) as tmp:
            save_policy(policy, tmp)
        for old in self.paths()[: -self.keep]:
            old.unlink(missing_ok=True)
        return path


class SnapshotPolicy(PolicyAgent):
    """A loaded snapshot as an opponent: :class:`agents.base.PolicyAgent` sampling its moves by
    default (``deterministic=False``) with its own Generator, so runs are reproducible."""

    def __init__(
        self,
        policy: Any,
        deterministic: bool = False,
        seed: int | None = None,
        name: str = "snapshot",
    ) -> None:
        super().__init__(policy, seed=seed, deterministic=deterministic, name=name)

    @classmethod
    def from_path(  # type: ignore[override]
        cls, path: str | Path, deterministic: bool = False, seed: int | None = None
    ) -> SnapshotPolicy:
        """A snapshot (or any file :func:`load_policy` reads)."""
        return cls(load_policy(path), deterministic, seed, name=Path(path).stem)


# -- sampling ----------------------------------------------------------------------------------
class OpponentSampler:
    """Draws an opponent per episode and seat with weights over ``random``, ``greedy``,
    ``heuristic`` and ``snapshot`` (a uniformly drawn member of the pool).

    Baseline agents are created once per kind and seat slot and ``reset`` with a fresh seed per
    episode; snapshots are loaded on first use and cached (at most ``cache`` of them).
    """

    def __init__(
        self,
        weights: Mapping[str, float],
        pool_dir: str | Path | None = None,
        deterministic: bool = False,
        seed: int | None = None,
        cache: int = 8,
    ) -> None:
        unknown = set(weights) - set(KINDS)
        if unknown:
            raise ValueError(f"weights: unknown opponent kind {sorted(unknown)[0]!r}")
        self.weights = {k: float(weights.get(k, 0.0)) for k in KINDS}
        if sum(self.weights[k] for k in BASELINES) <= 0:
            raise ValueError("weights: at least one baseline weight must be positive")
        self.pool = SnapshotPool(pool_dir) if pool_dir is not None else None
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.cache_size = cache
        self._baselines: dict[tuple[str, int], Any] = {}
        self._snapshots: dict[Path, Any] = {}
        self._failed: set[Path] = set()
        self._torch_ready = False

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def sample(self, slots: int = 1) -> list[tuple[str, Any]]:
        """``slots`` opponents as ``(name, policy)``; each policy is reset for a new game."""
        paths = self.pool.paths() if self.pool is not None and self.weights["snapshot"] > 0 else []
        kinds = [k for k in KINDS if self.weights[k] > 0 and (k != "snapshot" or paths)]
        w = np.array([self.weights[k] for k in kinds])
        out = []
        for slot in range(slots):
            kind = kinds[int(self.rng.choice(len(kinds), p=w / w.sum()))]
            seed = int(self.rng.integers(2**63 - 1))
            if kind == "snapshot":
                path = paths[int(self.rng.integers(len(paths)))]
                policy = self._snapshot(path)
                if policy is not None:
                    policy.reset(seed)
                    out.append(("snapshot", policy))
                    continue
                kind = BASELINES[int(np.argmax([self.weights[k] for k in BASELINES]))]
            agent = self._baselines.get((kind, slot))
            if agent is None:
                agent = self._baselines[(kind, slot)] = make_baseline(kind, seed=seed)
            agent.reset(seed)
            out.append((kind, agent))
        return out

    def _snapshot(self, path: Path) -> SnapshotPolicy | None:
        policy = self._snapshots.get(path)
        if policy is not None:
            return SnapshotPolicy(policy, self.deterministic, name=path.stem)
        if path in self._failed:
            return None
        if not self._torch_ready:
            import torch

            torch.set_num_threads(1)
            self._torch_ready = True
        try:
            loaded = load_policy(path)
        except FileNotFoundError:  # pruned meanwhile: play a baseline this episode
            return None
        except Exception as e:  # noqa: BLE001 - a bad snapshot must not kill the env process
            self._failed.add(path)
            print(f"warning: cannot load snapshot {path}: {e!r}", file=sys.stderr, flush=True)
            return None
        self._snapshots[path] = loaded
        while len(self._snapshots) > self.cache_size:
            self._snapshots.pop(next(iter(self._snapshots)))
        return SnapshotPolicy(loaded, self.deterministic, name=path.stem)
