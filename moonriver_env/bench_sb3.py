"""MaskablePPO through the batched core (:mod:`moonriver_env.vector.sb3`) beside MaskablePPO
through the single-agent Gymnasium env (``gymnasium.make(entry.gymnasium_id)``), side by side.

    python -m moonriver_env.bench_sb3                      # both games, 3 runs of each route
    python -m moonriver_env.bench_sb3 --games 2p_base --runs 5 --steps 8192

Both routes train sb3-contrib's ``MaskablePPO("MlpPolicy", ...)`` with the same network (SB3's
default MLP), the same hyperparameters and the same samples per update: the single env with
``n_steps`` (default 2048, SB3's), the vector route with ``num_envs`` games of
``n_steps // num_envs`` steps each; ``batch_size`` (default 64) and ``n_epochs`` (default 10;
SB3's defaults) for both, the same opponents for both (``--opponents``, default random), one torch
thread (``--threads``; the machine is shared; the vector env writes its observations with as many
threads, ``make_sb3_vec_env(threads=...)``). A run first learns one update's samples untimed
(the warm-up: the first rollout buffer, torch's first calls), then times ``learn(steps)`` and
reports learner steps per second, learning included; a row is the median of
``--runs`` runs, the routes interleaved so that a change of the machine's load hits both. The last line
per game is the ratio of the medians. Each row also gives the share of its time spent in
MaskablePPO's updates (SB3's own work, the same per sample on both routes: it bounds the ratio)
and the rate of the rollouts alone (collection: the env and the policy's forward passes).

The ceiling line bounds what any environment could give this network. It is measured, not
computed: the same MaskablePPO learns through a third route, :class:`FreeVecEnv`, a ``VecEnv``
that costs nothing (it hands back the vector route's first observations and masks at every
step and ignores the actions), so its rate is SB3's own work alone: the updates, the policy's
forward passes, the rollout buffer and the masks' stacking. Its rate over the single env's is
the ratio no faster env could pass with this network and these hyperparameters. The line also
splits that work: the update time a sample and the policy's own forward pass a row
(``policy(obs, action_masks=...)`` as MaskablePPO's rollout calls it, on ``num_envs`` rows of
the vector route's observations; medians of ``--runs``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv

from moonriver_env.family.batch import MAX_ROW_THREADS
from moonriver_env.games import GAMES, GameSpec, parse_game
from moonriver_env.vector.sb3 import make_sb3_vec_env

__all__ = ["FreeVecEnv", "main", "time_route"]

DEFAULT_GAMES = tuple(
    GameSpec(game=entry.name).text
    for entry in GAMES.values()
    if entry.single_agent_entry_point is not None and "vector_game" in entry.hooks
)
"""Each registered game with both routes (a Gymnasium id and a batched form), in its
default spelling: ``2p_base`` and ``kingdomino_2p_base``."""


def _single_env(game: str, seed: int, opponents: str) -> Any:
    spec = parse_game(game)
    settings = {name: getattr(spec, name) for name in spec.entry.settings}
    env = gymnasium.make(
        spec.entry.gymnasium_id,
        num_players=spec.num_players,
        mode=spec.mode,
        opponents=None if opponents == "random" else opponents,
        **settings,
    )
    env.reset(seed=seed)
    return env


class FreeVecEnv(VecEnv):
    """A ``VecEnv`` that costs nothing: the rows of ``env`` (an SB3 ``VecEnv`` with
    ``action_masks()``) after its ``reset``, handed back at every step, whatever the actions;
    no game ends. What MaskablePPO does through it is its own work alone (module docstring)."""

    def __init__(self, env: Any) -> None:
        self._obs = env.reset()
        self._masks = env.action_masks()
        env.close()  # its rows are all it gives
        self._mask_rows = list(self._masks)
        n = len(self._masks)
        self.render_mode = None  # read by VecEnv's constructor
        self._rewards = np.zeros(n, dtype=np.float32)
        self._dones = np.zeros(n, dtype=bool)
        self._infos: list[dict[str, Any]] = [{} for _ in range(n)]
        super().__init__(n, env.observation_space, env.action_space)

    def reset(self) -> np.ndarray:
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """The actions are ignored."""

    def step_wait(self) -> Any:
        return self._obs, self._rewards, self._dones, self._infos

    def action_masks(self) -> np.ndarray:
        return self._masks

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._rows(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kw: Any) -> list:
        """``"action_masks"``: the rows, as the adapter gives them (MaskablePPO stacks them)."""
        if method_name != "action_masks":
            raise AttributeError(f"FreeVecEnv has no method {method_name!r}")
        return (
            self._mask_rows
            if indices is None
            else [self._mask_rows[i] for i in self._rows(indices)]
        )

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False] * len(self._rows(indices))

    def _rows(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)


def time_route(
    route: str,
    game: str,
    steps: int,
    n_steps: int,
    num_envs: int,
    batch_size: int = 64,
    seed: int = 0,
    opponents: str = "random",
    n_epochs: int = 10,
    threads: int = 1,
) -> tuple[float, float, float]:
    """Learner steps per second of one ``learn(steps)`` through ``route`` (``"single"``,
    ``"vector"`` or ``"free"``: :class:`FreeVecEnv` over the vector route's rows), learning included, the share of the time spent in the updates, and (the
    vector route; 0.0 for the others) the seconds of the policy's forward pass a row."""
    if route == "single":
        env: Any = _single_env(game, seed, opponents)
        per_env = n_steps
    else:
        env = make_sb3_vec_env(
            game, num_envs=num_envs, opponents=opponents, seed=seed, threads=threads
        )
        if route == "free":
            env = FreeVecEnv(env)
        per_env = max(1, n_steps // num_envs)
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=per_env, batch_size=batch_size, n_epochs=n_epochs, seed=seed
    )
    update = [0.0]
    train = model.train

    def timed_train() -> None:
        t = time.perf_counter()
        train()
        update[0] += time.perf_counter() - t

    model.learn(per_env * model.n_envs)  # the warm-up: one update, untimed
    before = model.num_timesteps
    model.train = timed_train  # type: ignore[method-assign]
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    elapsed = time.perf_counter() - start
    forward = _forward_per_row(model, env) if route == "vector" else 0.0
    env.close()
    return (model.num_timesteps - before) / elapsed, update[0] / elapsed, forward


def _forward_per_row(model: Any, env: Any, calls: int = 20) -> float:
    """Seconds a row of the policy's forward pass as MaskablePPO's rollout makes it (the
    observations to a tensor, the masked distribution, the sampled actions back to NumPy), on
    the vector env's own rows; the best of three timings of ``calls`` calls."""
    obs = env.reset()
    masks = env.action_masks()
    policy = model.policy
    best = float("inf")
    with torch.no_grad():
        for _ in range(3):
            t = time.perf_counter()
            for _ in range(calls):
                actions, _values, _logp = policy(policy.obs_to_tensor(obs)[0], action_masks=masks)
                actions.cpu().numpy()
            best = min(best, time.perf_counter() - t)
    return best / (calls * len(masks))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(DEFAULT_GAMES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per run")
    parser.add_argument("--n-steps", type=int, default=2048, help="samples per update")
    parser.add_argument("--batch-size", type=int, default=64, help="minibatch (both routes)")
    parser.add_argument("--n-epochs", type=int, default=10, help="passes over an update's samples")
    parser.add_argument("--num-envs", type=int, default=16, help="games of the vector route")
    parser.add_argument("--opponents", default="random", help="agent spec (both routes)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (0: torch's)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    print(
        f"MaskablePPO MlpPolicy, {args.n_steps} samples per update, batch {args.batch_size}, "
        f"{args.n_epochs} epochs, "
        f"{args.opponents} opponents; {args.steps} steps per run, median of {args.runs} runs, "
        f"torch threads {torch.get_num_threads()}"
    )
    for game in args.games:
        rates: dict[str, list[float]] = {"single": [], "vector": [], "free": []}
        shares: dict[str, list[float]] = {"single": [], "vector": [], "free": []}
        forwards: list[float] = []
        for run in range(args.runs):
            for route in rates:
                rate, share, forward = time_route(
                    route,
                    game,
                    args.steps,
                    args.n_steps,
                    args.num_envs,
                    args.batch_size,
                    run,
                    args.opponents,
                    args.n_epochs,
                    min(torch.get_num_threads(), MAX_ROW_THREADS),
                )
                rates[route].append(rate)
                shares[route].append(share)
                if route == "vector":
                    forwards.append(forward)
        single = statistics.median(rates["single"])
        vector = statistics.median(rates["vector"])
        us = statistics.median(shares["single"])
        uv = statistics.median(shares["vector"])
        print(
            f"{game:24s} single env (gymnasium.make)      {single:9.0f} steps/s"
            f"  (updates {us:.0%} of the time; rollouts alone {single / (1 - us):6.0f}/s)"
        )
        print(
            f"{game:24s} SB3VecEnv, {args.num_envs:3d} games            {vector:9.0f} steps/s"
            f"  (updates {uv:.0%} of the time; rollouts alone {vector / (1 - uv):6.0f}/s)"
        )
        print(f"{game:24s} ratio                            {vector / single:9.2f}x")
        update_per_step = uv / vector
        forward = statistics.median(forwards)
        free = statistics.median(rates["free"])
        print(
            f"{game:24s} ceiling with an env that costs nothing {free / single:.2f}x  ("
            f"{free:.0f} steps/s through FreeVecEnv; updates {update_per_step * 1e3:.3f} ms a "
            f"sample, the policy's forward pass {forward * 1e3:.3f} ms a row)"
        )


if __name__ == "__main__":
    main()
