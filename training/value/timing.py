"""Time per decision of an agent over whole games (mean and p95, wall and CPU).

    python -m training.value.timing --agent trained --players 2 --games 10 [--seed 0]

The agent plays seat 0 against heuristic agents, in this process (one thread); every
decision of the agent is timed, forced ones (a single legal action) included, as a
tournament counts them. CPU time (``time.process_time``) is what the machine's load does
not inflate; wall time is what an opponent waits.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents import make_agent
from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
from moonriver_env.moonriver.rules import GameConfig, new_game


def time_decisions(spec: str, players: int, games: int, seed: int = 0) -> dict[str, Any]:
    """Per-decision times (ms) of ``spec`` in seat 0 of ``games`` games (rotating which
    opponents' seeds are used; seat 0 is the agent in every game)."""
    wall: list[float] = []
    cpu: list[float] = []
    agent = make_agent(spec, seed=seed)
    for g in range(games):
        state = new_game(GameConfig(num_players=players), seed=seed * 1000 + g)
        agent.reset(seed * 1000 + g)
        others = [HeuristicAgent(seed=seed * 1000 + g + s) for s in range(players)]
        while not state.is_terminal:
            if state.seat == 0:
                t0, c0 = time.perf_counter(), time.process_time()
                a = agent.choose(state)
                wall.append(1000 * (time.perf_counter() - t0))
                cpu.append(1000 * (time.process_time() - c0))
            else:
                a = others[state.seat].choose(state)
            state.apply(a)
    w, c = np.asarray(wall), np.asarray(cpu)
    return {
        "agent": spec,
        "players": players,
        "games": games,
        "decisions": len(w),
        "wall_ms_mean": round(float(w.mean()), 2),
        "wall_ms_p95": round(float(np.percentile(w, 95)), 2),
        "cpu_ms_mean": round(float(c.mean()), 2),
        "cpu_ms_p95": round(float(np.percentile(c, 95)), 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.value.timing", description=__doc__)
    ap.add_argument("--agent", default="trained")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print(json.dumps(time_decisions(args.agent, args.players, args.games, args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
