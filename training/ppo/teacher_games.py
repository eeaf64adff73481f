"""The teacher's games of the warm start and of the cloning diagnosis: the hook that records
each decision of a game played by :class:`agents.runner.GameRunner` (observation, mask,
teacher action, the rewards each seat received after it), the heuristic teacher that keeps its
one-ply values, and its tie sets. :mod:`training.ppo.pretrain` and :mod:`training.ppo.teacher_data`
both build on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
from moonriver_env.seat_rewards import SeatRewards

TIE_EPS = 1e-9  # the heuristic's own tie tolerance (HeuristicAgent.choose)


class RecordingHeuristic(HeuristicAgent):
    """The heuristic agent, keeping the one-ply values of its last decision
    (``last_values``; ``None`` when it had a single legal action). Plays exactly as
    :class:`~moonriver_env.moonriver.agents.heuristic.HeuristicAgent` (same Generator draws)."""

    last_values: dict[int, float] | None = None

    def choose(self, state: Any) -> int:
        self.last_values = None
        return super().choose(state)

    def action_values(
        self, state: Any, ctx: Any = None, actions: list[int] | None = None
    ) -> dict[int, float]:
        values = super().action_values(state, ctx, actions)
        self.last_values = values
        return values


def best_set(values: Mapping[int, float]) -> list[int]:
    """The actions within :data:`TIE_EPS` of the best value (the teacher's tie set)."""
    top = max(values.values())
    return sorted(a for a, v in values.items() if v >= top - TIE_EPS)


def tie_bits(values: Mapping[int, float] | None, action: int, n_actions: int) -> np.ndarray:
    """The packed bits of the tie set of ``values`` (``{action}`` for ``None``: a single
    legal action)."""
    best = np.zeros(n_actions, dtype=bool)
    best[best_set(values) if values is not None else action] = True
    return np.packbits(best)


class TeacherGame:
    """Records one teacher game (a :class:`agents.runner.DecisionHook`): every decision's
    observation, mask and teacher action, and the rewards each seat received after it; with
    probability ``explore`` a random legal action is played instead of the teacher's. With
    ``teachers`` (one per seat, :class:`RecordingHeuristic`) also the
    teacher's tie set (``best``: every action valued as high as its choice)."""

    def __init__(
        self,
        game: int,
        num_players: int,
        explore: float,
        rng: np.random.Generator,
        teachers: list[Any] | None = None,
    ):
        self.game = game
        self.explore = explore
        self.rng = rng
        self.teachers = teachers
        self.best: list[np.ndarray] = []
        self.obs: list[np.ndarray] = []
        self.mask: list[np.ndarray] = []
        self.action: list[int] = []
        # per seat: indices (into this game's samples) of its decisions and the rewards after
        # each but its last (that one's: ``credit``, a seat credited from its first decision)
        self.decisions: list[list[int]] = [[] for _ in range(num_players)]
        self.rewards: list[list[float]] = [[] for _ in range(num_players)]
        self.credit = SeatRewards(num_players)

    def before_step(self, env: Any, seat: int, action: int) -> int:
        ob = env.observe(env.possible_agents[seat])
        if self.teachers is not None:
            self.best.append(
                tie_bits(self.teachers[seat].last_values, action, ob["action_mask"].size)
            )
        self.obs.append(ob["observation"].astype(np.float16))
        self.mask.append(np.packbits(ob["action_mask"].astype(bool)))
        self.action.append(action)
        if self.decisions[seat]:
            self.rewards[seat].append(self.credit.take(seat))
        self.decisions[seat].append(len(self.action) - 1)
        self.credit.credit(seat)
        if self.explore <= 0 or self.rng.random() >= self.explore:
            return action
        legal = np.flatnonzero(ob["action_mask"])
        return int(legal[self.rng.integers(legal.size)])

    def after_step(self, env: Any) -> None:
        self.credit.bank(env.rewards, env.possible_agents)

    def samples(self, gamma: float) -> dict[str, np.ndarray]:
        """The arrays of :func:`play_teacher_games` for this game (returns discounted)."""
        ret = np.zeros(len(self.action), dtype=np.float32)
        for seat, decisions in enumerate(self.decisions):
            rewards = self.rewards[seat] + [self.credit.totals[seat]] if decisions else []
            acc = 0.0
            for idx, r in zip(reversed(decisions), reversed(rewards), strict=True):
                acc = r + gamma * acc
                ret[idx] = acc
        out = {
            "obs": np.stack(self.obs),
            "mask": np.stack(self.mask),
            "action": np.asarray(self.action, dtype=np.int64),
            "ret": ret,
            "game": np.full(len(self.action), self.game, dtype=np.int32),
        }
        if self.teachers is not None:
            out["best"] = np.stack(self.best)
        return out


def unpack(bits: np.ndarray, n_actions: int) -> np.ndarray:
    """Boolean ``(N, n_actions)`` from the packed rows the samples store (``mask``, ``best``:
    ``np.packbits`` of each decision's action flags)."""
    return np.unpackbits(bits, axis=1, count=n_actions).astype(bool)


def concatenate_samples(parts: list[dict[str, np.ndarray] | None]) -> dict[str, np.ndarray]:
    """One game-samples dict from several (``None`` parts: games not played)."""
    played = [p for p in parts if p is not None]
    if not played:
        return {
            "obs": np.zeros((0, 0), np.float16),
            "mask": np.zeros((0, 0), np.uint8),
            "action": np.zeros(0, np.int64),
            "ret": np.zeros(0, np.float32),
            "game": np.zeros(0, np.int32),
        }
    return {k: np.concatenate([p[k] for p in played]) for k in played[0]}
