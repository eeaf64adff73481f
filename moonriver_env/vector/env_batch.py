"""The batched form of any registered game, built from its PettingZoo environment: the
fallback for a game without a native core (no ``vector_game`` hook), with the arrays of the
native vector games, the sparse observation included, so that the generic learners
(:mod:`training.ppo.ppo`) train on it unchanged. Slow (one Python environment per game): the
native vector games are what to train on where a game has one.

:func:`batched_game` gives the game's native batched form when it has one, else this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.env_checks import check_seed
from moonriver_env.family.batch import readonly, step_arrays
from moonriver_env.family.sparse import (
    ActionTable,
    action_table,
    observe_forms,
    pack_rows,
    sparse_arrays,
)
from moonriver_env.family.validation import check_int
from moonriver_env.games import GameSpec, parse_game
from moonriver_env.vector.dispatch import vector_game

__all__ = ["EnvVectorGame", "batched_game"]


def batched_game(spec: GameSpec | str, num_games: int = 1024, **kwargs: Any) -> Any:
    """The spec's game, ``num_games`` of it: its native vector game (``vector_game`` hook), or
    for a game without one an :class:`EnvVectorGame`."""
    if isinstance(spec, str):
        spec = parse_game(spec)
    if spec.entry.hook("vector_game") is not None:
        return vector_game(spec, num_games, **kwargs)
    return EnvVectorGame(spec, num_games, **kwargs)


class EnvVectorGame:
    """``num_games`` games of ``spec``, one environment each (module docstring). Game ``i``
    of ``seed=s`` is the environment's game after ``reset(seed=s + i)``; a finished game starts
    the environment's next (seedless) game when ``auto_reset``. The arrays and ``step`` are
    those of :class:`~moonriver_env.vector.VectorGame` (``observation``, ``obs_idx``,
    ``obs_val``, ``obs_nnz``, ``action_mask``, ``legal_ids``, ``num_legal``, ``current_seat``,
    ``rewards``, ``terminated``); the action table has one segment, ``action``."""

    def __init__(self, spec: GameSpec | str, num_games: int = 1024, seed: int | None = None,
                 observe: bool | str = True, auto_reset: bool = True,
                 reward: str = "win") -> None:
        self.spec = spec = parse_game(spec) if isinstance(spec, str) else spec
        forms = observe_forms(observe)
        self.observe, self.sparse = "dense" in forms, "sparse" in forms
        self.num_games = n_games = check_int("num_games", num_games, 1, 1 << 16)
        if not isinstance(auto_reset, bool):
            raise TypeError(f"auto_reset: expected a bool, got {auto_reset!r}")
        self.auto_reset = auto_reset
        self.config = spec.config()
        factory = spec.entry.env_factory()
        settings = {name: getattr(spec, name) for name in spec.entry.settings}
        self._envs = [
            factory(num_players=spec.num_players, mode=spec.mode, reward=reward,
                    obs_type="flat", **settings)
            for _ in range(n_games)
        ]
        self.num_players = n = spec.num_players
        self.num_actions = a = int(self.config.num_actions)
        self.observation_size = d = int(spec.entry.observation_size(self.config))
        self.sparse_width = d
        self.action_table: ActionTable = action_table(
            [("action", (i,)) for i in range(a)], ["action"], {"action": ("id",)},
            {"action": (a,)},
        )
        self._dense = np.zeros((n_games, d), np.float32)
        self._arrays: dict[str, np.ndarray] = {
            "mask": np.zeros((n_games, a), np.int8),
            "legal": np.zeros((n_games, a), np.int16),
            "num_legal": np.zeros(n_games, np.int32),
            "seat": np.zeros(n_games, np.int32),
            "rewards": np.zeros((n_games, n), np.float64),
            "terminated": np.zeros(n_games, bool),
            **(sparse_arrays(n_games, d, d) if self.sparse else {}),
        }
        view = {k: readonly(v) for k, v in self._arrays.items()}
        self.observation = readonly(self._dense) if self.observe else None
        self.action_mask, self.legal_ids = view["mask"], view["legal"]
        self.num_legal, self.current_seat = view["num_legal"], view["seat"]
        self.rewards, self.terminated = view["rewards"], view["terminated"]
        self.obs_idx = view.get("obs_idx")
        self.obs_val = view.get("obs_val")
        self.obs_nnz = view.get("obs_nnz")
        self.reset(seed=int(np.random.default_rng().integers(2**62)) if seed is None else seed)

    def reset(self, seed: int | None = None) -> None:
        """A new game in every slot (with ``seed``: slot ``i``'s environment gets ``seed + i``)."""
        seed = check_seed(seed)
        for i, env in enumerate(self._envs):
            env.reset(seed=None if seed is None else seed + i)
            self._publish(i)
        self._arrays["rewards"][:] = 0.0
        self._arrays["terminated"][:] = False

    def step(self, actions: Sequence[int] | np.ndarray, active: np.ndarray | None = None) -> None:
        """One action per game (for its acting seat); ``ValueError`` naming the first illegal
        one, before any game changes."""
        arr, active = step_arrays(self.num_games, actions, active, ValueError)  # VectorGame's
        on = np.ones(self.num_games, bool) if active is None else active
        playing = [i for i in np.flatnonzero(on).tolist() if self._envs[i].agents]
        for i in playing:
            if not self._envs[i].state.is_legal(int(arr[i])):
                raise ValueError(f"game {i}: action {int(arr[i])} is not legal")
        rewards, terminated = self._arrays["rewards"], self._arrays["terminated"]
        for i in playing:
            env = self._envs[i]
            env.step(int(arr[i]))
            rewards[i] = [env.rewards[a] for a in env.possible_agents]
            terminated[i] = env.state.is_terminal
            if terminated[i] and self.auto_reset:
                env.reset()
            self._publish(i)

    def _publish(self, i: int) -> None:
        env = self._envs[i]
        state = env.state
        over = state.is_terminal
        legal = [] if over else state.legal_action_list()
        arrays = self._arrays
        arrays["mask"][i] = 0
        arrays["mask"][i, legal] = 1
        arrays["legal"][i, : len(legal)] = legal
        arrays["num_legal"][i] = len(legal)
        seat = -1 if over else int(state.current_seat)
        arrays["seat"][i] = seat
        if self.observe or self.sparse:
            self._dense[i] = env.observe(env.possible_agents[max(seat, 0)])
            if self.sparse:
                row = slice(i, i + 1)
                pack_rows(self._dense[row], arrays["obs_idx"][row], arrays["obs_val"][row],
                          arrays["obs_nnz"][row])

    def get_state(self, i: int) -> Any:
        """Game ``i``'s engine state (a copy)."""
        return self._envs[check_int("i", i, 0, self.num_games - 1)].state.clone()
