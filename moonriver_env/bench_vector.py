"""Benchmark VectorGame (the native core) beside OpenSpiel's and PettingZoo's connect four.

Usage::

    python -m moonriver_env.bench_vector [--game NAME] [--seconds S] [--runs R]
                                         [--num-games N] [--players 2 4] [--mode base]
                                         [--cpu C] [--json PATH]

Every row plays uniformly random legal actions on one CPU (the process is pinned on Linux) and
reports decisions (steps) per second, the median over ``R`` timed runs of ``S`` seconds each,
with the min and max; the runs of all rows are interleaved so a busy machine slows them alike,
and every ratio is to an anchor measured in the same process:

- ``openspiel connect_four``: pyspiel's C++ game driven from a Python loop
  (``legal_actions()``, a random pick, ``apply_action``; a new state when the game ends), and
  the same with ``observation_tensor()`` read at every step;
- ``pettingzoo connect_four_v3``: the PettingZoo AEC loop of ``moonriver_env.bench_env``;
- ``VectorGame``: ``N`` games per :meth:`~moonriver_env.vector.VectorGame.step`, the actions
  drawn in NumPy, uniformly among each game's legal ids (``legal_ids[i, :num_legal[i]]``, the
  ids the mask marks), with ``observe=False`` (rules and masks), with the observation and
  with the sparse observation (``observe="sparse"``: its non-zero entries, written by the
  core); a
  last row draws from the int8 masks themselves (``flatnonzero`` of the masks, a binary search
  for each game's run, a uniform pick in it), costlier in NumPy, not in the core. Finished games restart inside ``step`` (auto reset).
- ``native clone``: the time to copy one game state in the core (``moonriver_env._native``).

``--game`` is any registered game with a batched form (its entry's ``vector_game`` hook):
``--game kingdomino`` measures :class:`~moonriver_env.vector.KingdominoVectorGame` the same
way (``--mode``: ``base`` or the variants, ``harmony+middle_kingdom``). The clone row copies
the game's core search state (its ``native_state`` hook: :class:`~moonriver_env.moonriver.vector.search.NativeState`,
:class:`~moonriver_env.kingdomino.vector.search.NativeKingdominoState`); a game with
``bench_playouts`` (Kingdomino: ``random`` and ``greedy``, the ``mc`` agent's rollouts) adds its
playouts per second to the end of a game from the set-up, and one with ``bench_mc_agent``
(Moon River: ``mc:sims=64``) the CPU time per decision of that agent with native and with
Python simulations.

The bars: at least 1,000,000 decisions/s without the observation, at least 200,000 steps/s
with the dense observation, at least 1,000,000 steps/s with the sparse one (Moon River 2p),
one core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.bench import (
    add_players_argument,
    cpu_model,
    machine_line,
    pin_to_one_cpu,
    players_of,
)
from moonriver_env.bench_env import run_loop
from moonriver_env.family.native import NATIVE
from moonriver_env.games import DEFAULT_GAME, GAMES, GameSpec, parse_game
from moonriver_env.opponents import make_opponent
from moonriver_env.text_table import format_columns
from moonriver_env.vector.dispatch import vector_game

Runner = Callable[[float], float]
"""Plays for about ``seconds`` and returns decisions per second."""


def per_second(batch: Callable[[], int]) -> Runner:
    """A runner that repeats ``batch`` (which returns how many decisions it made) until the
    time is up."""

    def run(seconds: float) -> float:
        done = 0
        start = time.perf_counter()
        end = start + seconds
        while True:
            done += batch()
            now = time.perf_counter()
            if now >= end:
                return done / (now - start)

    return run


def openspiel_runner(observe: bool) -> Runner:
    import pyspiel

    game = pyspiel.load_game("connect_four")
    chooser = random.Random(0)
    state = game.new_initial_state()

    def batch() -> int:
        nonlocal state
        for _ in range(1000):
            if state.is_terminal():
                state = game.new_initial_state()
            if observe:
                state.observation_tensor()
            state.apply_action(chooser.choice(state.legal_actions()))
        return 1000

    return per_second(batch)


def pettingzoo_runner() -> Runner:
    from pettingzoo.classic import connect_four_v3

    env = connect_four_v3.env()
    seed = iter(range(10**9))

    def run(seconds: float) -> float:
        steps = 2000
        start = time.perf_counter()
        while True:
            run_loop(env, steps, seed=next(seed))
            if time.perf_counter() - start >= seconds / 4:
                break
            steps *= 2
        return run_loop(env, steps, seed=next(seed))

    return run


def game_spec(game: str, players: int, mode: str) -> str:
    """The :func:`~moonriver_env.games.parse_game` text of the benchmarked game."""
    return GameSpec(game=game, num_players=players, mode=mode).text


def vector_runner(spec: str, num_games: int, observe: bool | str, draw: str) -> Runner:
    vg = vector_game(spec, num_games=num_games, seed=0, observe=observe)
    rng = np.random.default_rng(0)
    rows = np.arange(num_games)
    row_starts = rows * vg.num_actions

    def actions() -> np.ndarray:
        if draw == "list":
            pick = (rng.random(num_games) * vg.num_legal).astype(np.int64)
            return vg.legal_ids[rows, pick].astype(np.int64)
        # Straight from the int8 masks: every marked id (flat, ascending), each game's run of
        # them found by a binary search, then a uniform pick inside the run.
        hits = np.flatnonzero(vg.action_mask.view(np.bool_))
        first = np.searchsorted(hits, row_starts)
        counts = np.searchsorted(hits, row_starts + vg.num_actions) - first
        pick = first + (rng.random(num_games) * counts).astype(np.int64)
        return hits[pick] - row_starts

    def batch() -> int:
        for _ in range(10):
            vg.step(actions())
        return 10 * num_games

    return per_second(batch)


def native_state(spec: str) -> Any:
    """A new game of ``spec`` in the core (its game's ``native_state`` hook), for the clone
    and playout rows."""
    game = parse_game(spec)
    return game.entry.hook("native_state")(game.config(), seed=0)


def clone_runner(spec: str) -> Runner:
    state = native_state(spec)
    return per_second(lambda: state.time_clones(100_000))


def playout_runner(spec: str, policy: str) -> Runner:
    """Playouts of ``policy`` per second, each from the set-up to the end (a game with
    ``bench_playouts``: its search state's ``rollout(policy, seed=, seat=)``)."""
    start = native_state(spec)
    seeds = iter(range(10**9))

    def batch() -> int:
        for _ in range(20):
            start.clone().rollout(policy, seed=next(seeds), seat=0)
        return 20

    return per_second(batch)


def mc_decision_times(spec: str, games: int, agent_spec: str) -> dict[str, float]:
    """CPU milliseconds per decision of ``agent_spec`` (the game's ``bench_mc_agent``,
    ``mc:sims=64``; every decision of ``games`` games of ``spec``, the single-action ones
    included), simulating natively and in Python: the same games, as both make the same
    decisions. The agent comes through the agents' plug (:mod:`moonriver_env.opponents`)."""
    game = parse_game(spec)
    config = game.config()
    new_game = game.entry.hook("new_game")
    out: dict[str, float] = {}
    for label, native in (("native", True), ("python", False)):
        spent, decisions = 0.0, 0
        for g in range(games):
            agent = make_opponent(agent_spec, seed=g, game=game.game)
            agent.native = native
            state = new_game(config, seed=g)
            while not state.is_terminal:
                start = time.process_time()
                action = agent.choose(state)
                spent += time.process_time() - start
                state.apply(action)
                decisions += 1
        out[label] = 1000.0 * spent / decisions
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m moonriver_env.bench_vector")
    parser.add_argument("--game", default=DEFAULT_GAME, choices=tuple(GAMES))
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per run (2)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per row (5)")
    parser.add_argument("--num-games", type=int, default=256, help="VectorGame games (256)")
    add_players_argument(parser)
    parser.add_argument(
        "--mode",
        default="base",
        help="the game's mode (default base; a game whose modes combine joins them with +)",
    )
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (Linux)")
    parser.add_argument("--json", metavar="PATH", help="also save the results as JSON")
    parser.add_argument(
        "--mc-games",
        type=int,
        default=1,
        help="games for the game's mc timing (bench_mc_agent; 1; 0: skip)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1 or args.seconds <= 0 or args.num_games < 1:
        parser.error("--runs, --seconds and --num-games must be positive")
    entry = GAMES[args.game]
    vector_class = entry.hook("vector_game")
    if vector_class is None:
        parser.error(f"game: {entry.title} has no batched game (no native core)")
    args.players = players_of(args)
    try:
        specs = {n: game_spec(args.game, n, args.mode) for n in args.players}
        for spec in specs.values():
            parse_game(spec)
    except ValueError as exc:
        parser.error(str(exc))
    cpu = pin_to_one_cpu(args.cpu)
    name = vector_class.__name__  # "VectorGame", "KingdominoVectorGame"
    print(f"{name} benchmark: random legal actions, one CPU, decisions (steps) per second")
    print(machine_line(cpu) + ("" if NATIVE else " -- NATIVE CORE NOT BUILT: Python engine"))
    print(f"{args.runs} runs x {args.seconds:g} s per row, interleaved; N = {args.num_games}\n")
    sys.stdout.flush()
    rows: dict[str, Runner] = {
        "openspiel connect_four": openspiel_runner(False),
        "openspiel connect_four + observation_tensor": openspiel_runner(True),
        "pettingzoo connect_four_v3 (AEC loop)": pettingzoo_runner(),
    }
    for n, spec in specs.items():
        for observe, suffix in ((False, ""), (True, " + observation"),
                                ("sparse", " + sparse observation")):
            label = f"{name} {n}p {args.mode}{suffix}"
            rows[label] = vector_runner(spec, args.num_games, observe, "list")
    n0 = args.players[0]
    rows[f"{name} {n0}p {args.mode}, actions drawn from the masks"] = vector_runner(
        specs[n0], args.num_games, False, "mask"
    )
    if NATIVE:
        rows[f"native clone ({n0}p state copies)"] = clone_runner(specs[n0])
        for policy in entry.hook("bench_playouts") or ():
            rows[f"native {policy} playouts ({n0}p, set-up to end)"] = playout_runner(
                specs[n0], policy
            )
    for run in rows.values():  # warm-up
        run(0.2)
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(args.runs):
        for name, run in rows.items():
            rates[name].append(run(args.seconds))
    anchor = statistics.median(rates["openspiel connect_four"])
    anchor_obs = statistics.median(rates["openspiel connect_four + observation_tensor"])
    table: list[list[str]] = []
    results: list[dict[str, Any]] = []
    for name, values in rates.items():
        med = statistics.median(values)
        with_obs = "observation" in name
        ref = anchor_obs if with_obs else anchor
        table.append(
            [
                name,
                f"{med:,.0f}",
                f"{min(values):,.0f}",
                f"{max(values):,.0f}",
                f"{med / ref:.2f}" if not name.startswith("native ") else "",
            ]
        )
        results.append(
            {
                "row": name,
                "median": med,
                "min": min(values),
                "max": max(values),
                "runs": values,
                "ratio_to_openspiel": med / ref,
            }
        )
    header = ["row", "per second (median)", "min", "max", "vs OpenSpiel c4"]
    print("\n".join(format_columns([header, *table])))
    print(
        "\n(ratios: rows with an observation to OpenSpiel with observation_tensor(), the "
        "others to OpenSpiel without; a clone row counts copies, a playout row whole games)"
    )
    mc: dict[str, float] = {}
    mc_agent = entry.hook("bench_mc_agent")
    if args.mc_games > 0 and NATIVE and mc_agent is not None:
        mc = mc_decision_times(specs[args.players[0]], args.mc_games, mc_agent)
        print(
            f"\n{mc_agent}, {args.players[0]}p {args.mode}, CPU ms per decision over "
            f"{args.mc_games} game(s): native simulations {mc['native']:.2f}, Python "
            f"{mc['python']:.2f} ({mc['python'] / mc['native']:.1f}x; the same decisions)"
        )
    if args.json:
        report = {
            "game": args.game,
            "mode": args.mode,
            "mc_ms_per_decision": mc,
            "cpu_model": cpu_model(),
            "native": NATIVE,
            "num_games": args.num_games,
            "seconds": args.seconds,
            "runs": args.runs,
            "results": results,
        }
        Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
