"""The differential check: VectorGame against the PettingZoo env, decision for decision.

``python -m moonriver_env.moonriver.vector.check --games N`` plays N games in every config of
:data:`CONFIGS` through a :class:`VectorGame` and, beside it, through ``moonriver_v0.raw_env``
reset with ``seed + i`` (and seedless resets after each finished game, as VectorGame's auto
reset). At every decision it compares the legal ids, the mask, the acting seat and the
observation (``np.array_equal``); after every step the rewards of every seat, the end and
the score breakdowns; every few decisions the whole state as JSON (the generator's state
included), and now and then it moves the env's state into the VectorGame with ``set_state``.
Actions come from a few policies (uniform, and biased ones that favour placements and
partners, or stopping and skipping), so rare branches are reached. Exit status 1 on the first
difference, with the game, the decision and what differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from moonriver_env.moonriver.vector.game import VectorGame

CONFIGS: dict[str, dict[str, Any]] = {
    "2p-base": {"num_players": 2},
    "3p-base": {"num_players": 3},
    "4p-base": {"num_players": 4},
    "2p-legends": {"num_players": 2, "mode": "legends", "scenario": "random", "boards": "random"},
    "3p-legends": {"num_players": 3, "mode": "legends", "scenario": None, "boards": "random"},
    "4p-legends": {"num_players": 4, "mode": "legends", "scenario": "outlaws"},
    "2p-legends-fixed": {
        "num_players": 2,
        "mode": "legends",
        "scenario": "timber_rafting",
        "boards": ("big_jo", "mary"),
    },
    "3p-legends-gold": {"num_players": 3, "mode": "legends", "scenario": "gold_rush"},
    "4p-legends-city": {"num_players": 4, "mode": "legends", "scenario": "moon_river_city"},
    "3p-auto-resolve": {"num_players": 3, "auto_resolve": True},
    "2p-score-dense": {"num_players": 2, "reward": "score", "dense_reward": 0.5},
    "4p-score-diff": {"num_players": 4, "reward": "score_diff", "mode": "legends"},
}
"""Every player count, both modes, every scenario, random and fixed boards, auto-resolve and
every reward mode (dense too)."""

# Segments the "busy" policy favours (they lead to symbols, partners and bonus tiles) and
# those the "idle" policy favours (stop and skip at once).
_BUSY = ("place", "recruit", "cowboy_move", "desperado_swap", "thief_steal", "bonus_place")
_IDLE = ("stop", "cowboy_stop", "desperado_skip", "thief_skip", "bonus_remove")
POLICIES = ("uniform", "busy", "idle")


class Mismatch(AssertionError):
    """VectorGame and the env disagree (the message says where and how)."""


def _policy(name: str, layout: Any, rng: np.random.Generator) -> Callable[[list[int]], int]:
    favoured = {"busy": _BUSY, "idle": _IDLE}.get(name, ())
    segment_of = [seg for seg, _ in layout.located]

    def choose(legal: list[int]) -> int:
        if favoured and rng.random() < 0.8:
            pick = [a for a in legal if segment_of[a] in favoured]
            if pick:
                return int(pick[rng.integers(len(pick))])
        return int(legal[rng.integers(len(legal))])

    return choose


@dataclass
class Report:
    """What a comparison covered."""

    games: int = 0
    decisions: int = 0
    states_compared: int = 0


def compare(
    name: str,
    kwargs: dict[str, Any],
    *,
    num_games: int,
    seed: int,
    policy: str = "uniform",
    decisions: int | None = None,
    state_every: int = 25,
    backend: str | None = None,
) -> Report:
    """Play ``num_games`` games (one slot each, in lockstep) through a VectorGame and the env;
    raise :class:`Mismatch` at the first difference. ``decisions`` caps the steps (default:
    until every slot has finished one game)."""
    from moonriver_env.moonriver.env import SCORE_COLUMNS, raw_env

    vg = VectorGame(num_games=num_games, seed=seed, backend=backend, **kwargs)
    game_kwargs = {k: v for k, v in kwargs.items()}
    envs = [raw_env(obs_type="flat", **game_kwargs) for _ in range(num_games)]
    for i, env in enumerate(envs):
        env.reset(seed=seed + i)
    rng = np.random.default_rng(seed)
    choose = _policy(policy, vg.config.layout, rng)
    report = Report()
    finished = np.zeros(num_games, dtype=bool)
    step = 0

    def fail(i: int, what: str) -> None:
        raise Mismatch(f"{name} seed {seed + i} ({policy}) decision {step}: {what}")

    while True:
        actions = np.zeros(num_games, dtype=np.int64)
        for i, env in enumerate(envs):
            state = env.state
            assert state is not None
            legal = state.legal_action_list()
            got = vg.legal_ids[i, : vg.num_legal[i]].tolist()
            if got != legal:
                fail(i, f"legal ids differ: env {legal[:20]}..., vector {got[:20]}...")
            seat = state.current_seat
            if int(vg.current_seat[i]) != seat:
                fail(i, f"seat differs: env {seat}, vector {int(vg.current_seat[i])}")
            agent = env.agent_selection
            if not np.array_equal(env.action_mask(agent), vg.action_mask[i]):
                fail(i, "masks differ")
            if vg.observation is not None:
                obs = env.observe(agent)
                if not np.array_equal(obs, vg.observation[i]):
                    where = np.flatnonzero(obs != vg.observation[i])[:10].tolist()
                    fail(i, f"observations differ at {where}")
            if step % state_every == 0:
                report.states_compared += 1
                if vg.get_state(i).to_json() != state.to_json():
                    fail(i, "get_state JSON differs")
                if step % (4 * state_every) == 0:
                    vg.set_state(i, state.clone())  # the env's state, moved in
            actions[i] = choose(legal)
        vg.step(actions)
        step += 1
        report.decisions += num_games
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            rewards = [env.rewards[a] for a in env.possible_agents]
            if vg.rewards[i].tolist() != rewards:
                fail(i, f"rewards differ: env {rewards}, vector {vg.rewards[i].tolist()}")
            done = all(env.terminations.values())
            if bool(vg.terminated[i]) != done:
                fail(i, f"termination differs: env {done}")
            if done:
                table = env.infos[env.possible_agents[0]]["scores"]
                if not np.array_equal(table, vg.scores[i]):
                    fail(i, f"scores differ ({SCORE_COLUMNS}): env {table}, vector {vg.scores[i]}")
                if not vg.scores[i].any() and table.any():
                    fail(i, "scores missing")
                report.games += 1
                finished[i] = True
                env.reset()  # the next game of the same seed generator, as the auto reset
            elif vg.scores[i].any():
                fail(i, "scores written before the end")
        if decisions is not None and step >= decisions:
            return report
        if decisions is None and finished.all():
            return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m moonriver_env.moonriver.vector.check",
        description="Compare VectorGame with the PettingZoo env, decision for decision.",
    )
    parser.add_argument("--games", type=int, default=10, help="games per config and policy")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--configs", nargs="*", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--policies", nargs="*", default=list(POLICIES), choices=POLICIES)
    parser.add_argument("--backend", choices=("native", "python"), default=None)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games: expected at least 1")
    total = Report()
    start = time.perf_counter()
    for name in args.configs:
        for k, policy in enumerate(args.policies):
            seed = args.seed + 1000 * k
            try:
                rep = compare(
                    name,
                    CONFIGS[name],
                    num_games=args.games,
                    seed=seed,
                    policy=policy,
                    backend=args.backend,
                )
            except Mismatch as exc:
                print(f"MISMATCH {exc}")
                return 1
            total.games += rep.games
            total.decisions += rep.decisions
            total.states_compared += rep.states_compared
            print(
                f"{name:18s} {policy:8s} seeds {seed}..{seed + args.games - 1}: "
                f"{rep.games} games, {rep.decisions} decisions equal"
            )
    print(
        f"all equal: {total.games} games, {total.decisions} decisions, "
        f"{total.states_compared} states compared as JSON, "
        f"{time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
