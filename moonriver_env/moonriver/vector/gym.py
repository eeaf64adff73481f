"""Moon River's Gymnasium ``VectorEnv``: :class:`~moonriver_env.vector.gym_env.GameVectorEnv`
(the one written for every game with a batched form; its docstring says the steps, the rewards,
the autoreset and the seeds) built from ``moonriver_v0.env``'s arguments.

``MoonRiverVectorEnv(num_envs, opponents="random", learner_seat="random", seed=None, **game)``
is ``make_vector_env(spec, num_envs, ...)`` for the spec of ``**game`` (``num_players``,
``mode``, ``scenario``, ``reward``, ``dense_reward``, ...; checked by
:class:`~moonriver_env.vector.VectorGame`). Illegal actions raise
:class:`~moonriver_env.moonriver.rules.IllegalActionError` (naming the game), changing nothing.
"""

from __future__ import annotations

from typing import Any

from moonriver_env.games import GameSpec
from moonriver_env.moonriver.vector.game import VectorGame
from moonriver_env.vector.gym_env import GameVectorEnv, Opponents, observes

__all__ = ["MoonRiverVectorEnv"]


class MoonRiverVectorEnv(GameVectorEnv):
    """``num_envs`` single-agent Moon River games on the native core (module docstring).

    Args:
        num_envs: games played together.
        opponents: ``"random"``, an agent spec of the ``agents`` package or a batched policy.
        learner_seat: a seat, ``"random"`` (drawn per game from the seed) or ``"rotate"``.
        seed: the games of ``reset(seed=s)`` are VectorGame's (``env.reset(seed=s + i)``).
        threads: the threads the core writes the learner's observations with.
        **game: the game and reward arguments of ``moonriver_v0.env`` (checked there).
    """

    def __init__(
        self,
        num_envs: int = 64,
        opponents: Opponents = "random",
        learner_seat: int | str = "random",
        seed: int | None = None,
        threads: int = 1,
        **game: Any,
    ) -> None:
        vg = VectorGame(num_games=num_envs, seed=seed, observe=observes(opponents), **game)
        self._setup(vg, GameSpec.from_config(vg.config), opponents, learner_seat, seed, threads)
