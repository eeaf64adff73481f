"""Opponents for self-play training: a pool of past snapshots of the learner mixed with the
baseline agents, sampled per episode.

* :class:`SnapshotPool` keeps policy snapshots in ``<run_dir>/snapshots/snapshot_<step>.pt``
  (``policy.save``: state_dict + constructor arguments), the last ``keep`` of them.
* :class:`SnapshotPolicy` plays a snapshot as a ``SingleAgentEnv`` opponent (an
  :class:`agents.base.PolicyAgent`): CPU, one torch thread, the action mask applied, sampling
  (``deterministic=False``, with the opponent's own NumPy Generator, so runs are reproducible)
  or the most likely legal action.
* :class:`OpponentSampler` draws, per episode and per opponent seat, ``random`` / ``greedy`` /
  ``heuristic`` (``agents.make_agent``) or ``snapshot`` (a uniformly drawn pool member) with the
  configured weights; while the pool is empty the snapshot weight is dropped.
* :class:`SelfPlayEnv` is a :class:`~moonriver_env.wrappers.SingleAgentEnv` that asks its sampler
  for new opponents on every ``reset`` and reports ``info["opponent"]`` (and at the end of a game
  ``info["outcome"]``: 1 win, 0 loss, 1/k shared win).
* :class:`SnapshotCallback` adds the learner to the pool every ``every`` steps;
  :class:`OpponentStatsCallback` logs the training win rate against each opponent kind.

Environments run in ``SubprocVecEnv`` workers; each worker reads the pool directory itself, so the
only thing shared with the learner process is the files (written atomically).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.atomic import atomic_path
from agents.base import PolicyAgent, policy_action
from agents.networks.snapshots import load_policy, save_policy
from agents.registry import make_agent
from agents.runner import GameSetup
from moonriver_env.aec import win_share
from moonriver_env.env_args import check_seed
from moonriver_env.wrappers import SingleAgentEnv

__all__ = [
    "BASELINES",
    "KINDS",
    "OpponentSampler",
    "OpponentStatsCallback",
    "SelfPlayEnv",
    "SnapshotCallback",
    "SnapshotPolicy",
    "SnapshotPool",
    "make_baseline",
    "make_selfplay_env",
    "policy_action",
]

BASELINES = ("random", "greedy", "heuristic")
KINDS = (*BASELINES, "snapshot")
_SNAPSHOT_RE = re.compile(r"snapshot_(\d+)\.pt$")


def make_baseline(name: str, seed: int | None = None) -> Any:
    """A baseline agent from the ``agents`` package."""
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
            m = _SNAPSHOT_RE.search(p.name)
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


class SelfPlayEnv(SingleAgentEnv):
    """``SingleAgentEnv`` whose opponents are drawn by an :class:`OpponentSampler` at every
    reset. ``info["opponent"]`` names them (``"greedy"``, ``"snapshot"``, ...; ``"+"``-joined
    with 3-4 players); at the end of a game ``info["outcome"]`` is the learner's share of the
    win (1, 0 or 1/k)."""

    def __init__(self, sampler: OpponentSampler, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sampler = sampler
        self.opponent_name = ""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        seed = check_seed(seed)  # before the sampler moves: a bad seed changes nothing
        if seed is not None:
            self.sampler.seed(seed + 7919)
        drawn = self.sampler.sample(self.aec.config.num_players - 1)
        self.opponents = [policy for _, policy in drawn]
        self.opponent_name = "+".join(sorted({name for name, _ in drawn}))
        return super().reset(seed=seed, options=options)

    def engine_view(self) -> tuple[int | None, int, np.ndarray]:
        """``(seat to act, learner seat, the engine's legal-action mask)`` straight from the
        rules engine, bypassing the AEC env (for checking ``action_masks()``)."""
        state = self.aec.state
        assert state is not None
        return state.current_seat, self.learner_seat, state.legal_action_mask()

    def _info(self, illegal_action: bool = False) -> dict[str, Any]:
        info = super()._info(illegal_action)
        info["opponent"] = self.opponent_name
        if info["winners"].any():  # the game is over
            info["outcome"] = win_share(info["winners"], self.learner_seat)
        return info


def make_selfplay_env(
    env_cfg: Mapping[str, Any],
    opp_cfg: Mapping[str, Any],
    pool_dir: str | Path | None,
    seed: int | None = None,
) -> SelfPlayEnv:
    """A :class:`SelfPlayEnv` from the ``[env]`` and ``[opponents]`` config sections."""
    sampler = OpponentSampler(
        {k: opp_cfg[k] for k in KINDS},
        pool_dir=pool_dir,
        deterministic=bool(opp_cfg["snapshot_deterministic"]),
        seed=seed,
    )
    return SelfPlayEnv(
        sampler,
        learner_seat=env_cfg["learner_seat"],
        obs_type="flat",
        illegal_penalty=float(env_cfg["illegal_penalty"]),
        **GameSetup.from_config(env_cfg).env_kwargs(),
    )


# -- callbacks ---------------------------------------------------------------------------------
class SnapshotCallback(BaseCallback):
    """Adds the learner's policy to the pool every ``every`` environment steps (and once at the
    start when the pool is empty, so self-play has an opponent from the first snapshot period
    on only if ``at_start``)."""

    def __init__(self, pool: SnapshotPool, every: int, at_start: bool = False, verbose: int = 0):
        super().__init__(verbose)
        self.pool = pool
        self.every = int(every)
        self.at_start = at_start
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps
        existing = self.pool.paths()
        if existing:
            m = _SNAPSHOT_RE.search(existing[-1].name)
            if m:
                self._last = max(self._last, int(m.group(1)))
        if self.at_start and not existing:
            self.pool.add(self.model.policy, self.num_timesteps)

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps
            path = self.pool.add(self.model.policy, self.num_timesteps)
            if self.verbose:
                print(f"snapshot: {path}")
        return True


class OpponentStatsCallback(BaseCallback):
    """Logs ``train/win_<opponent>`` (mean outcome of the last ``window`` finished training
    games against that opponent kind) and ``train/games_<opponent>`` at every rollout end."""

    def __init__(self, window: int = 200, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.window = window
        self.outcomes: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=self.window))
        self.counts: dict[str, int] = defaultdict(int)

    def _on_step(self) -> bool:
        infos: Sequence[dict[str, Any]] = self.locals.get("infos", ())
        dones = self.locals.get("dones")
        for i, info in enumerate(infos):
            if dones is not None and not dones[i]:
                continue
            if "outcome" in info:
                name = info.get("opponent", "?")
                self.outcomes[name].append(float(info["outcome"]))
                self.counts[name] += 1
        return True

    def _on_rollout_end(self) -> None:
        for name, values in self.outcomes.items():
            if values:
                self.logger.record(f"train/win_{name}", float(np.mean(values)))
                self.logger.record(f"train/games_{name}", self.counts[name])
