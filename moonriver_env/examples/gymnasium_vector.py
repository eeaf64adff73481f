"""Gymnasium: ``gymnasium.make("MoonRiver-v0")`` and ``gymnasium.make_vec`` (sync and async),
and sb3-contrib's ``MaskablePPO`` on the registered id, no glue.

``import moonriver_env`` registers the id (the single-agent env: one learner seat, opponents
inside ``step``; keyword arguments pass through, e.g. ``num_players=3,
opponents="heuristic"``). The legal actions are ``info["action_mask"]`` (stacked by the
vector env) and ``env.unwrapped.action_masks()`` (what MaskablePPO reads).

Run: ``python -m moonriver_env.examples.gymnasium_vector --steps 500 --runs 3``
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from moonriver_env.examples import example_arguments, report_rates


def vector_steps(steps: int, mode: str, num_envs: int = 2, seed: int = 0) -> float:
    """Random legal actions through ``make_vec``; return learner steps/s (all envs)."""
    import gymnasium
    import numpy as np

    envs = gymnasium.make_vec("MoonRiver-v0", num_envs=num_envs, vectorization_mode=mode)
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps // num_envs):
        # a finished game has an empty mask: Gymnasium's next step resets it, ignoring the action
        actions = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]]
        _, _, _, _, info = envs.step(np.array(actions))
    rate = (steps // num_envs) * num_envs / (time.perf_counter() - start)
    envs.close()
    return rate


def train_maskable_ppo(steps: int, seed: int = 0) -> float:
    """``MaskablePPO`` on ``gymnasium.make("MoonRiver-v0")``; return training steps/s."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("MoonRiver-v0", num_players=2)
    n_steps = max(32, steps // 2)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=32, n_epochs=1, seed=seed)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    args = example_arguments("gymnasium_vector", argv)
    jobs = {
        "make_vec sync": lambda run: vector_steps(args.steps, "sync", seed=run),
        "make_vec async": lambda run: vector_steps(args.steps, "async", seed=run),
        "MaskablePPO.learn": lambda run: train_maskable_ppo(args.steps, seed=run),
    }
    report_rates("Gymnasium ", jobs, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
