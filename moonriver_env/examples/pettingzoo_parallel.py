"""PettingZoo's ``turn_based_aec_to_parallel`` and SuperSuit's frame stacking, no glue.

``turn_based_aec_to_parallel(moonriver_v0.env())`` gives a ParallelEnv in which every agent
observes every step and only the agent to act has legal actions (the others' actions are
ignored). SuperSuit's ``frame_stack_v2`` stacks Box observations only: use
``obs_type="flat"`` (the mask is then in ``infos[agent]["action_mask"]``); with the default
dict observation it refuses with an ``AssertionError``.

Run: ``python -m moonriver_env.examples.pettingzoo_parallel --steps 500 --runs 3``
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from moonriver_env import moonriver_v0
from moonriver_env.examples import example_arguments, report_rates


def parallel_steps(steps: int, seed: int = 0) -> float:
    """Random legal actions through the parallel conversion; return parallel steps/s."""
    import numpy as np
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    env = turn_based_aec_to_parallel(moonriver_v0.env(num_players=2))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        if not env.agents:
            obs, _ = env.reset()
        actions = {
            agent: int(rng.choice(np.flatnonzero(o["action_mask"])))
            if o["action_mask"].any()
            else 0
            for agent, o in obs.items()
        }
        obs, _, _, _, _ = env.step(actions)
    return steps / (time.perf_counter() - start)


def frame_stack_steps(steps: int, seed: int = 0) -> float:
    """Random legal actions through SuperSuit's ``frame_stack_v2`` on the flat observation."""
    import numpy as np
    import supersuit

    env = supersuit.frame_stack_v2(moonriver_v0.env(num_players=2, obs_type="flat"), 4)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            _obs, _, term, trunc, info = env.last()
            mask = info["action_mask"]
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            done += 1
            if done >= steps:
                break
        else:
            env.reset()
    return done / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    args = example_arguments("pettingzoo_parallel", argv)
    jobs = {
        "turn_based_aec_to_parallel": lambda run: parallel_steps(args.steps, seed=run),
        "supersuit frame_stack_v2": lambda run: frame_stack_steps(args.steps, seed=run),
    }
    report_rates("", jobs, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
