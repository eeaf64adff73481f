"""TorchRL: ``PettingZooWrapper(env=moonriver_v0.env(), use_mask=True)``, no glue.

Every agent is its own group (TorchRL's default for AEC envs); the acting agent's legal actions
are the mask of its action spec, so ``env.rollout`` with random actions plays legal moves only.
Infos arrive as tensors under ``(agent, "info")``: ``phase``, ``score``, ``scores``, ``winners``.

Run: ``python -m moonriver_env.examples.torchrl_rollout --steps 500 --runs 3``
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from moonriver_env import moonriver_v0
from moonriver_env.examples import example_arguments
from moonriver_env.moonriver.rules import Phase

PHASE_GAME_OVER = int(Phase.GAME_OVER)  # the code infos carry once the game is over


def rollout(steps: int, seed: int = 0) -> tuple[float, int]:
    """Play ``steps`` random legal steps through TorchRL; return (steps/s, games finished)."""
    from torchrl.envs import PettingZooWrapper

    env = PettingZooWrapper(env=moonriver_v0.env(num_players=2), use_mask=True, seed=seed)
    start = time.perf_counter()
    data = env.rollout(steps, break_when_any_done=False)  # random actions within the mask
    rate = steps / (time.perf_counter() - start)
    # games that ended: the "done" of a step where the engine reached GAME_OVER
    over = data["next", "player_0", "info", "phase"] == PHASE_GAME_OVER
    finished = int((data["next", "done"].squeeze(-1) & over.squeeze(-1)).sum())
    env.close()
    return rate, finished


def main(argv: Sequence[str] | None = None) -> int:
    args = example_arguments("torchrl_rollout", argv)
    rates = []
    for run in range(args.runs):
        rate, finished = rollout(args.steps, seed=run)
        rates.append(rate)
        print(f"run {run}: {args.steps} steps, {finished} games finished, {rate:,.0f} steps/s")
    print(f"TorchRL PettingZooWrapper: median {statistics.median(rates):,.0f} steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
