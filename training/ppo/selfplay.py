"""Self-play environments of the PPO pipeline: the learner against opponents drawn per episode
(:class:`training.common.opponents.OpponentSampler`: baselines and past snapshots).

* :class:`SelfPlayEnv` is a :class:`~moonriver_env.single_agent.SingleAgentEnv` that asks its sampler
  for new opponents on every ``reset`` and reports ``info["opponent"]`` (and at the end of a game
  ``info["outcome"]``: 1 win, 0 loss, 1/k shared win).
* :class:`SnapshotCallback` adds the learner to the pool every ``every`` steps;
  :class:`OpponentStatsCallback` logs the training win rate against each opponent kind.

Environments run in ``SubprocVecEnv`` workers; each worker reads the pool directory itself, so the
only thing shared with the learner process is the files (written atomically).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.runner import GameSetup
from moonriver_env.env_checks import check_seed
from moonriver_env.moonriver.env import win_share
from moonriver_env.single_agent import SingleAgentEnv
from training.common.opponents import KINDS, SNAPSHOT_FILE, OpponentSampler, SnapshotPool

__all__ = [
    "OpponentStatsCallback",
    "SelfPlayEnv",
    "SnapshotCallback",
    "make_selfplay_env",
]


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
            m = SNAPSHOT_FILE.search(existing[-1].name)
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
