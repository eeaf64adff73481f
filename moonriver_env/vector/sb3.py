"""Stable-Baselines3 on the native core: :class:`SB3VecEnv`, a ``VecEnv`` over
:class:`~moonriver_env.vector.gym_env.GameVectorEnv` (every game with a batched form), whose
``action_masks()`` sb3-contrib's MaskablePPO reads without a wrapper.

    from sb3_contrib import MaskablePPO
    from moonriver_env.vector.sb3 import make_sb3_vec_env

    venv = make_sb3_vec_env("2p_base", num_envs=16, opponents="heuristic", seed=0)
    model = MaskablePPO("MlpPolicy", venv, seed=0).learn(100_000)

MaskablePPO finds the masks as on any ``VecEnv`` (``has_attr("action_masks")``, then
``np.stack(env_method("action_masks"))``): :meth:`SB3VecEnv.env_method` answers
``"action_masks"`` with one mask row per game: the rows of the last ``step``'s (or ``reset``'s)
``infos["action_mask"]`` (the same arrays), read again from the env if it has been stepped or
reset since other than through this adapter.

SB3's conventions: ``reset()`` returns the observations only (``reset_infos`` holds the
infos; the seed given by ``seed(s)`` is used by the next ``reset``, which deals game ``i`` as
``reset(seed=s + i)``); ``step_wait`` returns ``(obs, rewards, dones, infos)``, ``infos`` a list
of one dict per game with ``action_mask``, ``learner_seat``, and, for a game that ended in this
step, ``"episode"`` (``r``: the learner's return, ``l``: its decisions, ``t``: seconds since
the adapter was built, as SB3's ``Monitor`` writes it, so ``ep_rew_mean`` is logged with no
``VecMonitor``) and ``"TimeLimit.truncated": False``. A finished game restarts in the same
step (SB3's autoreset); the returned observation is the next game's first. A game ends only
by its rules, so ``"terminal_observation"`` is not given (SB3 reads it only for truncated
episodes). Illegal actions raise the game's ``IllegalActionError`` and change nothing.

Self-play against a snapshot of the learner: ``policy_opponent(model)`` is a batched opponent
(the vector env's ``opponents=``) that plays an SB3 model's masked choices for the opponents'
seats, each from its own observation; give it a frozen copy (``MaskablePPO.load(path)``) to
play a snapshot, or the learning model itself to play against its current self.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from moonriver_env.games import GameSpec
from moonriver_env.vector.gym_env import BatchPolicy, GameVectorEnv, Opponents

__all__ = ["SB3VecEnv", "make_sb3_vec_env", "policy_opponent"]


class SB3VecEnv(VecEnv):
    """An SB3 ``VecEnv`` over a :class:`GameVectorEnv` (module docstring).

    Args:
        env: the Gymnasium vector env it plays (its ``num_envs`` games are this ``VecEnv``'s).
    """

    def __init__(self, env: GameVectorEnv) -> None:
        if not isinstance(env, GameVectorEnv):
            raise TypeError(f"env: expected a GameVectorEnv, got {type(env).__name__}")
        self.env = env
        self._actions: np.ndarray | None = None
        self._returns = np.zeros(env.num_envs, dtype=np.float64)
        self._lengths = np.zeros(env.num_envs, dtype=np.int64)
        self._t0 = time.time()
        self._masks = env.action_masks()  # the masks env_method gives: the last step's
        self._masks_at = env.calls  # ... after that many of the env's calls
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    # -- VecEnv API ----------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs, infos = self.env.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self.reset_infos = self._split(infos)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait: call step_async first")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        dones = terminated | truncated
        self._returns += rewards
        self._lengths += 1
        out = self._split(infos)
        for i in np.flatnonzero(dones).tolist():
            out[i]["episode"] = {
                "r": float(self._returns[i]),
                "l": int(self._lengths[i]),
                "t": round(time.time() - self._t0, 6),
            }
            out[i]["TimeLimit.truncated"] = bool(truncated[i])
        if dones.any():
            self._returns[dones] = 0.0
            self._lengths[dones] = 0
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, (N, A) bool (a new array)."""
        return self._current_masks().copy()

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per game of ``indices``."""
        value = getattr(self.env, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set the attribute on the vector env (it is one object for all games)."""
        setattr(self.env, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """``"action_masks"``: one mask row per game of ``indices`` (what MaskablePPO
        stacks); another method is called once on the vector env and its result given for
        each game of ``indices``."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self._current_masks()
            return list(masks) if indices is None else [masks[i] for i in rows]
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False] * len(self._indices(indices))

    # -- helpers -------------------------------------------------------------------------------
    def _indices(self, indices: VecEnvIndices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def _current_masks(self) -> np.ndarray:
        """The last step's (or reset's) masks, what ``infos["action_mask"]`` holds; read
        again when the env has been stepped or reset since by another caller."""
        if self._masks_at != self.env.calls:
            self._masks, self._masks_at = self.env.action_masks(), self.env.calls
        return self._masks

    def _split(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        self._masks, self._masks_at = infos["action_mask"], self.env.calls
        masks = self._masks
        seats = infos["learner_seat"].tolist()
        return [{"action_mask": m, "learner_seat": s} for m, s in zip(masks, seats, strict=True)]


def make_sb3_vec_env(
    game: GameSpec | str = "2p_base",
    num_envs: int = 16,
    opponents: Opponents = "random",
    learner_seat: int | str = "random",
    seed: int | None = None,
    **kwargs: Any,
) -> SB3VecEnv:
    """The :class:`SB3VecEnv` of :func:`~moonriver_env.vector.gym_env.make_vector_env`'s env
    (same arguments); ``seed`` also seeds its first ``reset``."""
    venv = SB3VecEnv(GameVectorEnv(game, num_envs, opponents, learner_seat, seed, **kwargs))
    if seed is not None:
        venv.seed(seed)
    return venv


def policy_opponent(model: Any, deterministic: bool = False) -> BatchPolicy:
    """A batched opponent (``opponents=`` of the vector env) that plays ``model`` (an SB3
    model with ``predict``; MaskablePPO's takes ``action_masks``) from each acting opponent's
    own observation and mask."""

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        actions, _ = model.predict(observations, action_masks=masks, deterministic=deterministic)
        return np.asarray(actions, dtype=np.int64)

    return policy
