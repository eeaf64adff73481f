"""Tianshou: two routes, both without glue in the environment.

1. Multi-agent: ``tianshou.env.PettingZooEnv(moonriver_v0.env())`` with a ``MultiAgentPolicy``
   and a ``Collector``. It runs, but its credit is wrong for this game: Tianshou files each
   transition under the agent that moved, with the reward vector of that step; one agent may
   move several times in a row here and the rewards come at the end, so an agent's final
   reward is often stored in the other agent's transition. Fine for collecting data, not for
   learning from its rewards.
2. Single agent (the sound route): ``gymnasium.make("MoonRiver-v0")`` in a ``DummyVectorEnv``
   with a masked policy (the legal actions are ``info["action_mask"]``, which the Collector
   hands to the policy as ``batch.info.action_mask``). Opponents move inside the env, and every
   reward the learner's seat earns reaches the learner's next transition.

Run: ``python -m moonriver_env.examples.tianshou_collect --steps 500 --runs 3``
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from moonriver_env import moonriver_v0
from moonriver_env.examples import example_arguments


def masked_random_policy(action_space: Any) -> Any:
    """A Tianshou policy choosing uniformly among ``batch.info.action_mask`` (route 2)."""
    import numpy as np
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.data import Batch

    class MaskedRandomPolicy(Policy):
        def forward(self, batch: Any, state: Any = None, **kwargs: Any) -> Any:
            mask = np.asarray(batch.info.action_mask, dtype=bool)
            logits = np.where(mask, np.random.rand(*mask.shape), -np.inf)
            return Batch(act=logits.argmax(axis=-1))

    return MaskedRandomPolicy(action_space=action_space)


def collect_multi_agent(steps: int, seed: int = 0) -> tuple[float, Any]:
    """Route 1: PettingZooEnv + MultiAgentPolicy of masked random policies."""
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    env = PettingZooEnv(moonriver_v0.env(num_players=2))
    policy = MultiAgentPolicy(
        {
            agent: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy
            for agent in env.agents
        }
    )
    envs = DummyVectorEnv([lambda: PettingZooEnv(moonriver_v0.env(num_players=2))])
    envs.seed(seed)
    collector = Collector(policy, envs, VectorReplayBuffer(steps + 1, 1))  # type: ignore[var-annotated]
    collector.reset()
    start = time.perf_counter()
    stats = collector.collect(n_step=steps)
    return steps / (time.perf_counter() - start), stats


def collect_single_agent(steps: int, seed: int = 0) -> tuple[float, Any]:
    """Route 2: the Gymnasium single-agent env (random opponents) + a masked policy."""
    import gymnasium
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([lambda: gymnasium.make("MoonRiver-v0") for _ in range(2)])
    envs.seed(seed)
    policy = masked_random_policy(envs.action_space[0])
    collector = Collector(policy, envs, VectorReplayBuffer(steps + 2, 2))  # type: ignore[var-annotated]
    collector.reset()
    start = time.perf_counter()
    stats = collector.collect(n_step=steps)
    return steps / (time.perf_counter() - start), stats


def main(argv: Sequence[str] | None = None) -> int:
    args = example_arguments("tianshou_collect", argv)
    for name, collect in (
        ("multi-agent PettingZooEnv", collect_multi_agent),
        ("single-agent MoonRiver-v0", collect_single_agent),
    ):
        rates = []
        for run in range(args.runs):
            rate, stats = collect(args.steps, seed=run)
            rates.append(rate)
            print(
                f"{name} run {run}: {stats.n_collected_steps} steps, "
                f"{stats.n_collected_episodes} episodes, {rate:,.0f} steps/s"
            )
        print(f"Tianshou {name}: median {statistics.median(rates):,.0f} steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
