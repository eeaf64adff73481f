"""The PPO run's SB3 callbacks: checkpoints (:class:`PruningCheckpointCallback`), the time
limit (:class:`TimeLimitCallback`), the periodic ladder evaluation
(:class:`LadderEvalCallback`: :func:`training.common.ladder.evaluate_ladder` every
``eval.every`` steps, ``eval.csv``, TensorBoard, ``best_model.zip``), the opponent statistics and
self-play snapshots (:mod:`training.ppo.selfplay`), put together by :func:`make_callbacks`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback

from training.common.config import Config
from training.common.ladder import append_csv, env_kwargs_from_config, evaluate_ladder
from training.common.opponents import SnapshotPool
from training.common.outputs import save_model, write_json
from training.common.run import RunClock
from training.ppo.checkpoints import save_checkpoint
from training.ppo.selfplay import OpponentStatsCallback, SnapshotCallback


class TimeLimitCallback(BaseCallback):
    """Stops training once the run's wall clock passes ``limit_s`` seconds."""

    def __init__(self, limit_s: float, clock: RunClock, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.limit_s = float(limit_s)
        self.clock = clock
        self.stopped = False

    def _on_step(self) -> bool:
        if self.clock() >= self.limit_s:
            if not self.stopped and self.verbose:
                print(
                    f"time limit reached after {self.clock():.0f} s at {self.num_timesteps} steps"
                )
            self.stopped = True
            return False
        return True


class PruningCheckpointCallback(CheckpointCallback):
    """``CheckpointCallback`` that also writes ``model_<N>_steps.json`` (step, run wall time)
    beside each checkpoint and keeps only the last ``keep`` checkpoints (0 = all)."""

    def __init__(
        self, save_freq: int, save_path: str, clock: RunClock, keep: int = 0, **kwargs: Any
    ):
        super().__init__(save_freq, save_path, name_prefix="model", **kwargs)
        self.clock = clock
        self.keep = int(keep)

    def _on_step(self) -> bool:
        if self.n_calls % self.save_freq == 0:
            save_checkpoint(self.model, Path(self.save_path), self.clock(), self.keep)
        return True


class LadderEvalCallback(BaseCallback):
    """Every ``every`` steps: play ``games`` games against each ladder opponent (seats
    alternated, ``deterministic`` masked policy), log ``eval/win_rate_<opp>``,
    ``eval/score_<opp>`` and append to ``csv_path``. ``clock()`` gives the run's wall time in
    seconds (resumed runs continue it)."""

    def __init__(
        self,
        every: int,
        opponents: Sequence[str],
        games: int,
        csv_path: str | Path,
        env_kwargs: Mapping[str, Any],
        seed: int = 0,
        deterministic: bool = True,
        clock: Callable[[], float] | None = None,
        verbose: int = 0,
        at_start: bool = False,
        best_opponent: str = "",
        best_path: str | Path | None = None,
    ) -> None:
        super().__init__(verbose)
        self.at_start = at_start
        self.best_opponent = best_opponent
        self.best_path = Path(best_path) if best_path is not None else None
        self.best_win_rate = -1.0
        self.every = int(every)
        self.opponents = list(opponents)
        self.games = int(games)
        self.csv_path = Path(csv_path)
        self.env_kwargs = dict(env_kwargs)
        self.seed = int(seed)
        self.deterministic = deterministic
        self._start = time.time()
        self.clock = clock or (lambda: time.time() - self._start)
        self._last = 0
        self.history: list[tuple[int, list[dict[str, Any]]]] = []

    def _on_training_start(self) -> None:
        self._last = self.num_timesteps
        if self.at_start:
            self.evaluate()

    def _on_step(self) -> bool:
        if self.every > 0 and self.num_timesteps - self._last >= self.every:
            self._last = self.num_timesteps
            self.evaluate()
        return True

    def evaluate(self) -> list[dict[str, Any]]:
        policy = self.model.policy
        was_training = policy.training
        policy.set_training_mode(False)
        t0 = time.time()
        # The same games at every evaluation (common random numbers: differences between
        # evaluations are the policy's, not the deal's) and for every opponent.
        rows = evaluate_ladder(
            policy,
            self.opponents,
            self.games,
            seed=self.seed,
            env_kwargs=self.env_kwargs,
            deterministic=self.deterministic,
            show_progress=self.verbose > 0,
        )
        policy.set_training_mode(was_training)
        for r in rows:
            self.logger.record(f"eval/win_rate_{r['opponent']}", r["win_rate"])
            self.logger.record(f"eval/score_{r['opponent']}", r["mean_score"])
        self.logger.record("eval/seconds", time.time() - t0)
        append_csv(self.csv_path, self.num_timesteps, self.clock(), rows)
        self._save_best(rows)
        self.history.append((self.num_timesteps, rows))
        if self.verbose:
            text = ", ".join(f"{r['opponent']} {r['win_rate']:.2f}" for r in rows)
            print(f"eval @ {self.num_timesteps}: {text}", flush=True)
        self.logger.dump(self.num_timesteps)
        return rows

    def _save_best(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Save the model as ``best_path`` (+ ``.json``) when its win rate against
        ``best_opponent`` beats every earlier evaluation of this run."""
        if self.best_path is None or not self.best_opponent:
            return
        row = next((r for r in rows if r["opponent"] == self.best_opponent), None)
        if row is None:
            return
        meta_path = self.best_path.with_suffix(".json")
        if self.best_win_rate < 0 and meta_path.exists():  # a resumed run: the best so far
            self.best_win_rate = float(json.loads(meta_path.read_text()).get("win_rate", -1.0))
        if row["win_rate"] > self.best_win_rate:
            self.best_win_rate = row["win_rate"]
            save_model(self.model, self.best_path)
            meta = {
                "step": int(self.num_timesteps),
                "opponent": self.best_opponent,
                "win_rate": row["win_rate"],
                "games": row["games"],
            }
            write_json(meta_path, meta)
            if self.verbose:
                print(
                    f"new best model: {row['win_rate']:.2f} against {self.best_opponent}",
                    flush=True,
                )


def make_callbacks(
    cfg: Config, run_dir: Path, clock: RunClock, warm_started: bool
) -> tuple[list[BaseCallback], TimeLimitCallback | None]:
    """Checkpoints, opponent statistics, self-play snapshots, the ladder evaluation (also at
    the start when ``warm_started``: the policy before PPO) and the time limit (returned
    too, to tell whether it stopped the run)."""
    n_envs = cfg["run"]["n_envs"]
    callbacks: list[BaseCallback] = [
        PruningCheckpointCallback(
            max(cfg["checkpoint"]["every"] // n_envs, 1),
            str(run_dir / "checkpoints"),
            clock,
            cfg["checkpoint"]["keep"],
        ),
        OpponentStatsCallback(),
    ]
    if cfg["opponents"]["snapshot"] > 0:
        pool = SnapshotPool(run_dir / "snapshots", cfg["opponents"]["snapshot_keep"])
        callbacks.append(SnapshotCallback(pool, cfg["opponents"]["snapshot_every"]))
    ev = cfg["eval"]
    if ev["every"] > 0:
        callbacks.append(
            LadderEvalCallback(
                ev["every"],
                ev["opponents"],
                ev["games"],
                run_dir / "eval.csv",
                env_kwargs_from_config(cfg["env"]),
                seed=ev["seed"],
                deterministic=ev["deterministic"],
                clock=clock,
                verbose=1,
                at_start=warm_started,
                best_opponent=ev["best_opponent"],
                best_path=run_dir / "best_model.zip",
            )
        )
    limit_s = cfg["run"]["time_limit_minutes"] * 60.0
    time_cb = TimeLimitCallback(limit_s, clock, verbose=1) if limit_s > 0 else None
    if time_cb is not None:
        callbacks.append(time_cb)
    return callbacks, time_cb
