"""A Gymnasium ``VectorEnv`` on the native core: one learner seat per game against baseline
opponents, for single-agent training (e.g. MaskablePPO through an SB3 vec-env adapter).

``MoonRiverVectorEnv(num_envs, opponents="random", learner_seat="random", ...)`` plays
``num_envs`` games of one config in a :class:`~moonriver_env.vector.VectorGame`. Every
``step`` takes the learner's action in every game, then plays the opponents (all seats but
the learner's) until the learner is to act again; the reward is everything the learner's seat
received meanwhile (as :class:`~moonriver_env.single_agent.SingleAgentEnv` credits it). A game that
ends restarts in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``: the observation is
the next game's first; the finished game's last observation is not kept, as a finished game
is terminated, never truncated), with a new learner seat when ``learner_seat="random"``.

Opponents: ``"random"`` (uniform over the legal ids, drawn in NumPy: the whole loop stays in
the core) or an agent spec of the ``agents`` package (``"heuristic"``, ``"greedy"``; each
decision of such an agent reads the game as a ``GameState``, at Python speed).
Illegal actions raise :class:`~moonriver_env.moonriver.rules.IllegalActionError` (naming the game).
``infos["action_mask"]`` (N, A) and :meth:`action_masks` give the learner's legal actions.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from moonriver_env.env_checks import check_seat, check_seed
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.vector.game import VectorGame
from moonriver_env.opponents import make_opponent

__all__ = ["MoonRiverVectorEnv"]


class MoonRiverVectorEnv(VectorEnv):
    """``num_envs`` single-agent games on the native core (see the module docstring).

    Args:
        num_envs: games played together.
        opponents: ``"random"`` or an agent spec of the ``agents`` package.
        learner_seat: a seat, or ``"random"`` (drawn per game from the seed).
        seed: the games of ``reset(seed=s)`` are VectorGame's (``env.reset(seed=s + i)``).
        **game: the game and reward arguments of ``moonriver_v0.env`` (checked there).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 64,
        opponents: str = "random",
        learner_seat: int | str = "random",
        seed: int | None = None,
        **game: Any,
    ) -> None:
        self.vg = VectorGame(num_games=num_envs, seed=seed, **game)
        self.num_envs = num_envs
        n = self.vg.num_players
        self._learner_cfg = check_seat("learner_seat", learner_seat, n)
        if not isinstance(opponents, str):
            raise TypeError(f"opponents: expected 'random' or an agent spec, got {opponents!r}")
        self._agent = None
        if opponents != "random":
            self._agent = make_opponent(opponents, seed=seed)  # the agents' plug
        self.opponents = opponents
        enc = ObservationEncoder(self.vg.config)
        high = np.concatenate([enc.plane_high.ravel(), enc.feature_high]).astype(np.float32)
        self.single_observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.vg.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng(seed)
        self._seats = np.zeros(num_envs, dtype=np.int32)
        self._carry = np.zeros(num_envs, dtype=np.float64)
        self._rows = np.arange(num_envs)
        self._scores = np.zeros_like(self.vg.scores)

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.vg.reset(seed=seed)
        self._draw_seats(np.ones(self.num_envs, dtype=bool))
        this, later, _ = self._play_opponents(np.zeros(self.num_envs, dtype=bool))
        self._carry[:] = this + later
        return self._obs(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        vg = self.vg
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        vg.step(actions)
        rewards = self._carry.copy()
        self._carry[:] = 0.0
        rewards += vg.rewards[self._rows, self._seats]
        ended = vg.terminated.copy()
        self._scores[:] = vg.scores
        self._draw_seats(ended)
        # Opponents play until the learner is to act; what a game's seat receives after its
        # game ended in this step belongs to the next episode.
        this, later, ended = self._play_opponents(ended)
        rewards += this
        self._carry += later
        infos = self._infos()
        infos["scores"] = self._scores.copy()
        return self._obs(), rewards, ended, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, (N, A) bool."""
        return self.vg.action_mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # -- helpers -----------------------------------------------------------------------------
    def _draw_seats(self, which: np.ndarray) -> None:
        n = self.vg.num_players
        if self._learner_cfg == "random":
            drawn = self._rng.integers(n, size=self.num_envs)
        else:
            drawn = np.full(self.num_envs, int(self._learner_cfg))
        self._seats = np.where(which, drawn, self._seats).astype(np.int32)

    def _play_opponents(self, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Opponent moves until the learner is to act in every game. Returns the learner's
        rewards for the episode of this step, those for the next (games that ended already),
        and which games ended (``ended``, or on an opponent's move)."""
        vg = self.vg
        this = np.zeros(self.num_envs, dtype=np.float64)
        later = np.zeros(self.num_envs, dtype=np.float64)
        ended = ended.copy()
        while True:
            waiting = vg.current_seat != self._seats
            if not waiting.any():
                return this, later, ended
            vg.step(self._opponent_actions(waiting), waiting)
            got = np.where(waiting, vg.rewards[self._rows, self._seats], 0.0)
            this += np.where(ended, 0.0, got)
            later += np.where(ended, got, 0.0)
            newly = waiting & vg.terminated
            if newly.any():  # a game ended on an opponent's move: the next game's seat
                self._scores[newly] = vg.scores[newly]
                self._draw_seats(newly)
                ended |= newly

    def _opponent_actions(self, waiting: np.ndarray) -> np.ndarray:
        vg = self.vg
        if self._agent is None:
            pick = (self._rng.random(self.num_envs) * vg.num_legal).astype(np.int64)
            return vg.legal_ids[self._rows, pick].astype(np.int64)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for i in np.flatnonzero(waiting):
            actions[i] = self._agent.choose(vg.get_state(int(i)))
        return actions

    def _obs(self) -> np.ndarray:
        assert self.vg.observation is not None
        return self.vg.observation.copy()

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self.vg.action_mask.copy(), "learner_seat": self._seats.copy()}
