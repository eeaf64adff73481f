"""A fixed teacher dataset for diagnosing behaviour cloning (``python -m training.imitation``).

The same games and samples as the warm start's teacher games (:mod:`training.ppo.pretrain`:
``obs``, ``mask``, ``action``, ``ret``, ``game``; same seeds, so the file also works as
``pretrain.data``), plus what the teacher knew when it chose, so that agreement can be judged
against what is achievable:

* ``best`` (packed bits over the actions): the teacher's tie set, every legal action whose
  one-ply value equals the best
  (:meth:`moonriver_env.moonriver.agents.heuristic.HeuristicAgent.choose` draws among them uniformly
  at random, so an exact-match metric is capped below 1 by ties);
* ``alt`` (packed bits): the best actions by the same evaluation on a *second*, independent
  determinization of the hidden draw pile and partner stack: where it differs from ``best``
  the teacher's choice depends on a hidden draw the observation cannot show;
* ``value`` / ``value_action`` / ``value_start``: the teacher's one-ply value of every legal
  action (ragged: the values of sample ``i`` are ``value[value_start[i]:value_start[i + 1]]``
  for the actions ``value_action[...]``), for the regret of a predicted move;
* ``phase`` (the engine :class:`~moonriver_env.moonriver.rules.Phase`), ``n_legal``.

A decision with one legal action (rare with ``auto_resolve``) has ``best = alt = {action}``
and no values.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.jobs import run_jobs
from agents.runner import GameRunner, GameSetup
from agents.seeds import agent_seed, derive_seed, game_seed
from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
from training.common.outputs import atomic_path
from training.common.progress import progress
from training.ppo.teacher_games import (
    RecordingHeuristic,
    TeacherGame,
    concatenate_samples,
    tie_bits,
)


class _DiagnosisGame(TeacherGame):
    """A :class:`training.ppo.teacher_games.TeacherGame` that also records the teacher's values, tie
    set and the best set on a second determinization (``probe``: another heuristic agent)."""

    def __init__(
        self,
        game: int,
        teachers: list[RecordingHeuristic],
        probe: HeuristicAgent,
        explore: float,
        rng: np.random.Generator,
    ) -> None:
        super().__init__(game, len(teachers), explore, rng, teachers)
        self.probe = probe
        self.alt: list[np.ndarray] = []
        self.phase: list[int] = []
        self.n_legal: list[int] = []
        self.value_action: list[np.ndarray] = []
        self.value: list[np.ndarray] = []

    def before_step(self, env: Any, seat: int, action: int) -> int:
        state = env.state
        n_actions = state.layout.num_actions
        assert self.teachers is not None
        values = self.teachers[seat].last_values
        if values is None:
            self.alt.append(tie_bits(None, action, n_actions))
            self.value_action.append(np.zeros(0, np.int16))
            self.value.append(np.zeros(0, np.float32))
        else:
            self.alt.append(tie_bits(self.probe.action_values(state), action, n_actions))
            self.value_action.append(np.fromiter(values, np.int16, len(values)))
            self.value.append(np.fromiter(values.values(), np.float32, len(values)))
        self.phase.append(int(state.phase))
        self.n_legal.append(len(state.legal_action_list()))
        return super().before_step(env, seat, action)

    def samples(self, gamma: float) -> dict[str, np.ndarray]:
        out = super().samples(gamma)
        counts = np.array([len(v) for v in self.value], dtype=np.int64)
        out.update(
            alt=np.stack(self.alt),
            phase=np.asarray(self.phase, dtype=np.int8),
            n_legal=np.asarray(self.n_legal, dtype=np.int16),
            value_action=np.concatenate(self.value_action),
            value=np.concatenate(self.value),
            value_count=counts,
        )
        return out


class _DiagnosisTable:
    """One process's runner, recording teachers (one per seat) and probe."""

    def __init__(self, env_cfg: Mapping[str, Any], seed: int) -> None:
        self.runner = GameRunner(GameSetup.from_config(env_cfg))
        n = self.runner.setup.num_players
        self.teachers = [RecordingHeuristic(seed=derive_seed(seed, 0, s)) for s in range(n)]
        self.probe = HeuristicAgent()

    def play(self, job: tuple[int, int, float, float]) -> dict[str, np.ndarray]:
        game, seed, gamma, explore = job
        n = len(self.teachers)
        self.probe.reset(derive_seed(seed, game, 98))
        record = _DiagnosisGame(
            game,
            self.teachers,
            self.probe,
            explore,
            np.random.default_rng(derive_seed(seed, game, 99)),
        )
        seeds = [agent_seed(seed, game, s) for s in range(n)]
        self.runner.play(
            self.teachers, game_seed(seed, game), seeds, ["heuristic"] * n, hook=record
        )
        return record.samples(gamma)


def _play(table: _DiagnosisTable, job: tuple[int, int, float, float]) -> dict[str, np.ndarray]:
    return table.play(job)


def _merge(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Concatenate games (given in game order: ``run_jobs`` returns them in job order),
    turning the ragged value counts into offsets."""
    data = concatenate_samples(parts)  # type: ignore[arg-type]
    counts = data.pop("value_count")
    data["value_start"] = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return data


def collect_diagnosis(
    env_cfg: Mapping[str, Any],
    games: int,
    seed: int,
    gamma: float,
    *,
    explore: float = 0.0,
    workers: int = 1,
) -> dict[str, np.ndarray]:
    """The samples of heuristic self-play games ``0..games-1`` (see the module docstring)."""
    jobs = [(g, seed, gamma, explore) for g in range(games)]
    bar = progress(len(jobs), "teacher games (heuristic, recorded)", unit="game")
    try:
        parts = run_jobs(
            jobs, _DiagnosisTable, (dict(env_cfg), seed), _play, workers,
            lambda _: bar.update(1), context="forkserver",
        )  # fmt: skip
    finally:
        bar.close()
    return _merge(parts)


def load_or_collect(
    path: Path,
    games: int,
    seed: int,
    env_cfg: Mapping[str, Any],
    gamma: float,
    explore: float,
    workers: int,
) -> dict[str, np.ndarray]:
    """The dataset at ``path`` (``.npz``), collected and written there first if missing."""
    if not path.exists():
        t0 = time.time()
        data = collect_diagnosis(env_cfg, games, seed, gamma, explore=explore, workers=workers)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            np.savez(tmp, **data)  # type: ignore[arg-type]
        print(f"imitation: {len(data['action'])} decisions of {games} games in "
              f"{time.time() - t0:.0f} s -> {path}", flush=True)  # fmt: skip
        return data
    with np.load(path) as f:
        return {k: f[k] for k in f.files}
