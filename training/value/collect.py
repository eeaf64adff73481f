"""The games a value is learned from (stage 1 of :mod:`training.value.train`).

``collect.labels = "outcome"``: games of heuristic agents, kept for their final margins
(:func:`play_outcome_game`). ``collect.labels = "rollout"``, labelled self-play games: every
decision with more than one legal action is searched like the ``mc`` agent
(:class:`~moonriver_env.moonriver.agents.montecarlo.MonteCarloAgent`) but from *completed
afterstates*: the candidates are the heuristic's ``k`` best one-ply actions; each round draws one
determinization, applies every candidate, plays the acting seat's pending effects with the
rule-based choices (:func:`~moonriver_env.moonriver.agents.evaluation.complete_effects`, exactly
what the agent sees before it evaluates) and rolls out ``depth`` decisions with the heuristic
rollout policy (the same futures for every candidate). The mean leaf value of each candidate for the
acting seat is its label. The game then goes on with the best candidate (a random one with
probability ``explore``).

A game is one JSON line: its seed, every action, the labels (rollout: decision index,
candidates, mean values, heuristic one-ply values; outcome: none) and the final scores and
margins. The first round's
determinization of decision ``i`` is ``default_rng([seed, i])``, so the labelled afterstates
can be rebuilt by replay (:mod:`.dataset`) and files stay small. Worker ``w`` of ``W`` plays
game indices ``w, w + W, ...`` and appends to ``games/worker<w>.jsonl``; a rerun skips the
games already written (resumable); the run lock (:class:`training.common.outputs.RunLock`,
held by :mod:`.train`) refuses a second writer.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.jobs import Backend, run_jobs
from moonriver_env.games import GameSpec
from moonriver_env.moonriver.agents.common import determinize
from moonriver_env.moonriver.agents.evaluation import complete_effects, final_margin, make_context
from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
from moonriver_env.moonriver.agents.montecarlo import MonteCarloAgent
from moonriver_env.moonriver.rules import GameState, new_game

Config = dict[str, dict[str, Any]]


def game_seed(seed: int, index: int) -> int:
    """The engine seed of game ``index`` of a run seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> 2)


def decision_rng(seed: int, decision: int) -> np.random.Generator:
    """The generator of the recorded (first-round) determinization of a decision."""
    return np.random.default_rng([seed, decision])


def label_decision(
    state: GameState,
    cands: list[int],
    det_rng: np.random.Generator,
    mc: MonteCarloAgent,
    rounds: int,
) -> list[float]:
    """Mean rollout value (acting seat, points) of each candidate's completed afterstate."""
    seat = state.seat
    ctx = make_context(state)
    totals = [0.0] * len(cands)
    for r in range(rounds):
        det = determinize(state, det_rng if r == 0 else mc.rng)
        rseed = int(mc.rng.integers(2**62))
        for j, a in enumerate(cands):
            sim = det.clone()
            sim.apply(a)
            complete_effects(sim, seat, ctx)
            totals[j] += mc.simulate(sim, random.Random(rseed))[seat]
    return [t / rounds for t in totals]


def game_record(
    index: int,
    seed: int,
    actions: list[int],
    labels: list[dict[str, Any]],
    state: GameState,
    t0: float,
) -> dict[str, Any]:
    """The JSON line of a finished game (module docstring); ``t0`` its ``perf_counter`` start."""
    n = state.config.num_players
    return {
        "index": index,
        "seed": seed,
        "actions": actions,
        "labels": labels,
        "scores": [s.total for s in state.scores()],
        "margins": [final_margin(state, s) for s in range(n)],
        "seconds": round(time.perf_counter() - t0, 2),
    }


def play_labelled_game(cfg: Config, index: int) -> dict[str, Any]:
    """One self-play game with its labels (module docstring)."""
    col = cfg["collect"]
    seed = game_seed(cfg["run"]["seed"], index)
    config = GameSpec.from_section(cfg["env"]).config()
    state = new_game(config, seed=seed)
    prior_agent = HeuristicAgent(seed=seed + 1)
    mc = MonteCarloAgent(seed=seed + 2, sims=1, depth=col["depth"], k=col["k"])
    explore = np.random.default_rng(seed + 3)
    actions: list[int] = []
    labels: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    while not state.is_terminal:
        legal = state.legal_action_list()
        a = legal[0]
        if len(legal) > 1:
            prior = prior_agent.action_values(state, make_context(state))
            cands = sorted(legal, key=lambda x: (-prior[x], x))[: col["k"]]
            i = len(actions)
            values = label_decision(state, cands, decision_rng(seed, i), mc, col["rounds"])
            labels.append(
                {
                    "i": i,
                    "c": cands,
                    "v": [round(v, 3) for v in values],
                    "p": [round(prior[x], 3) for x in cands],
                }
            )
            if explore.random() < col["explore"]:
                a = cands[int(explore.integers(len(cands)))]
            else:
                a = cands[int(np.argmax(values))]
        state.apply(a)
        actions.append(a)
    return game_record(index, seed, actions, labels, state, t0)


def play_outcome_game(cfg: Config, index: int) -> dict[str, Any]:
    """One game of heuristic agents in every seat, kept for its outcome (``collect.labels =
    "outcome"``): at each decision with a choice, with probability ``explore`` the acting seat
    plays a random one of the heuristic's ``k`` best one-ply actions instead of its choice (so
    the data covers more than the heuristic's own line). No search: a game costs what the
    heuristic costs, and the labels are the final margins (:func:`final_margin` of every seat),
    read by :mod:`.dataset` at ``collect.states`` sampled positions."""
    col = cfg["collect"]
    seed = game_seed(cfg["run"]["seed"], index)
    config = GameSpec.from_section(cfg["env"]).config()
    state = new_game(config, seed=seed)
    agents = [HeuristicAgent(seed=seed + 1 + s) for s in range(config.num_players)]
    explore = np.random.default_rng(seed + 3)
    actions: list[int] = []
    t0 = time.perf_counter()
    while not state.is_terminal:
        legal = state.legal_action_list()
        agent = agents[state.seat]
        if len(legal) == 1:
            a = legal[0]
        elif explore.random() < col["explore"]:
            prior = agent.action_values(state)
            cands = sorted(legal, key=lambda x: (-prior[x], x))[: col["k"]]
            a = cands[int(explore.integers(len(cands)))]
        else:
            a = agent.choose(state)
        state.apply(a)
        actions.append(a)
    return game_record(index, seed, actions, [], state, t0)


def play_game(cfg: Config, index: int) -> dict[str, Any]:
    """Game ``index`` of the run, as ``collect.labels`` asks."""
    if cfg["collect"]["labels"] == "outcome":
        return play_outcome_game(cfg, index)
    return play_labelled_game(cfg, index)


def read_games(run_dir: Path) -> list[dict[str, Any]]:
    """Every complete game line written so far (a torn last line is ignored), by index."""
    games: dict[int, dict[str, Any]] = {}
    for path in sorted((run_dir / "games").glob("worker*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                g = json.loads(line)
            except json.JSONDecodeError:
                continue
            games[g["index"]] = g
    return [games[i] for i in sorted(games)]


def _worker_setup(cfg: Config, run_dir: Path, workers: int, deadline: float) -> tuple[Any, ...]:
    return cfg, run_dir, workers, deadline


def _worker(setup: tuple[Config, Path, int, float], w: int) -> int:
    """Worker ``w``: plays game indices ``w, w + W, ...`` not yet written, appending each to
    ``games/worker<w>.jsonl``; returns how many it played."""
    cfg, run_dir, workers, deadline = setup
    path = run_dir / "games" / f"worker{w}.jsonl"
    done = {g["index"] for g in read_games(run_dir)}
    total = cfg["collect"]["games"]
    played = 0
    with path.open("a") as f:
        for index in range(w, total, workers):
            if index in done:
                continue
            if time.time() > deadline:
                break
            g = play_game(cfg, index)
            f.write(json.dumps(g, separators=(",", ":")) + "\n")
            f.flush()
            played += 1
            print(
                f"[collect w{w}] game {index} ({len(g['labels'] or g['actions'])} decisions, "
                f"{g['seconds']} s)",
                flush=True,
            )
    return played


def collect(cfg: Config, run_dir: Path, backend: Backend | None = None) -> list[dict[str, Any]]:
    """Play the missing games of the run (resumable) and return all of them. The workers run
    through :func:`agents.jobs.run_jobs` (processes here, or Ray actors on this machine's file
    system: each appends its own file); the caller holds the run directory's lock."""
    (run_dir / "games").mkdir(parents=True, exist_ok=True)
    col = cfg["collect"]
    have = len(read_games(run_dir))
    if have >= col["games"]:
        return read_games(run_dir)
    deadline = time.time() + col["minutes"] * 60 if col["minutes"] > 0 else float("inf")
    workers = cfg["run"]["workers"]
    print(f"[collect] {have}/{col['games']} games done; {workers} worker(s)", flush=True)
    t0 = time.time()
    setup = (cfg, run_dir, workers, deadline)
    played = sum(run_jobs(range(workers), _worker_setup, setup, _worker, workers, backend=backend))
    games = read_games(run_dir)
    rate = played / max(time.time() - t0, 1e-9)
    print(f"[collect] {len(games)} games ({played} new, {rate:.3f} games/s)", file=sys.stderr)
    return games
