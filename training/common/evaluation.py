"""The one evaluator of the training pipelines (az, the reference PPO, RLlib, the value
pipeline): a model against each opponent of a ladder, one row per opponent.

The rule, in one place: the model plays one seat and the opponent every other seat, the
model's seat rotating from game to game; a win counts 1, a win shared by ``k`` seats ``1/k``, a
loss 0; the win rate comes with its 95% Wilson interval (:func:`agents.ratings.wilson_interval`)
and the mean scores of the model and of its opponents (:func:`summarize`). Two drivers play the
games:

* :func:`evaluate_agent`: any agent spec (``az:path=...``, ``trained:PATH``, ``ppo:PATH``,
  ``rllib:RUN``) or a live policy wrapped as an agent (``agent_factory``), game by game through
  the tournament runner (:func:`agents.tournament.run_tournament`: its schedule rotates the
  seats, its seeds make a game depend only on ``seed`` and its index, its workers and Ray
  backend give the same games);
* :func:`evaluate_batched`: a batched policy (``decide(vg, rows) -> actions``) on the game's
  batched form (:func:`moonriver_env.vector.env_batch.batched_game`: the core where the game has
  one), all games at once; game ``g`` seats the model at ``g % players``. The reference PPO
  evaluates its live network this way during training.

It names no game: the game is a :class:`~moonriver_env.games.GameSpec` (or its text), the
opponents are agent specs built for that game by the registry. The rows are appended to a run's
``eval.csv`` by :func:`append_csv` and printed by :func:`format_table`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.atomic import csv_text
from agents.ratings import wilson_interval
from agents.registry import make_agent
from agents.tournament.games import run_tournament
from moonriver_env.games import GameSpec, config_entry, parse_game
from moonriver_env.opponents import make_opponent
from moonriver_env.vector.env_batch import batched_game
from training.common.outputs import append_text

CSV_FIELDS = ("step", "wall_time", "opponent", "win_rate", "games", "ci_low", "ci_high",
              "mean_score", "opponent_score")  # fmt: skip
"""The columns of ``eval.csv``: one row per evaluation and opponent."""

Decide = Callable[[Any, np.ndarray], np.ndarray]
"""A batched policy: ``decide(vg, rows)`` -> the actions of the games ``rows`` of the vector
game ``vg``, each for the seat to act there."""


def summarize(
    opponent: str,
    outcomes: Sequence[float],
    scores: Sequence[float] | None = None,
    opponent_scores: Sequence[float] | None = None,
) -> dict[str, Any]:
    """The row of one opponent from the model's per-game outcomes (1 / 1/k / 0) and, where
    known, its scores and the opponents' (mean over the other seats, or the best of them as
    the caller defines): games, wins, win rate, its 95% Wilson interval, the mean scores."""

    def mean(values: Sequence[float] | None) -> float:
        return float(np.mean(values)) if values is not None and len(values) else float("nan")

    return row(opponent, len(outcomes), float(sum(outcomes)), mean(scores), mean(opponent_scores))


def row(
    opponent: str, games: int, wins: float, mean_score: float, opponent_score: float, **more: Any
) -> dict[str, Any]:
    """The row of one opponent: its fields from the model's wins (shared wins counted ``1/k``)
    over ``games`` games, the 95% Wilson interval computed here; ``more`` fields appended."""
    wins = round(wins, 9)
    low, high = wilson_interval(wins, games)
    return {
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "win_rate": wins / games if games else float("nan"),
        "ci_low": low,
        "ci_high": high,
        "mean_score": mean_score,
        "opponent_score": opponent_score,
        **more,
    }


def evaluate_agent(
    agent: str,
    spec: GameSpec | str,
    opponents: Sequence[str],
    games: int,
    seed: int,
    *,
    agent_factory: Callable[[str, int], Any] | None = None,
    workers: int = 1,
    backend: Any = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """One row per opponent (:func:`row`, with the agent's ``ms_per_decision``): the agent
    ``agent`` (a spec, or the name ``agent_factory`` builds: ``(spec, seed) -> Agent``, e.g. a
    live policy) in one seat, the opponent in the others, ``games`` games of ``spec`` through
    the tournament runner (2 players: seats alternated; more: rotated)."""
    game = spec if isinstance(spec, GameSpec) else parse_game(spec)
    rows = []
    for opp in opponents:
        result = run_tournament(
            [agent] + [opp] * (game.num_players - 1), players=game.num_players, games=games,
            seed=seed, workers=workers, game=game.game, mode=game.mode, scenario=game.scenario,
            progress=progress, backend=backend,
            agent_factory=_factory(agent, agent_factory, game.game) if agent_factory else None,
        )  # fmt: skip
        me, others = result.summaries[0], result.summaries[1:]
        seats = [s for rec in result.records for s in rec.seats if s.entry == 0]
        decisions = sum(s.decisions for s in seats)
        rows.append(
            row(opp, me.games, me.wins, me.score_mean,
                sum(o.score_mean for o in others) / len(others),
                ms_per_decision=1000 * sum(s.think_seconds for s in seats) / max(decisions, 1))
        )  # fmt: skip
    return rows


def _factory(name: str, make: Callable[[str, int], Any], game: str) -> Callable[[str, int], Any]:
    """``make`` for the evaluated agent's name, the registry (for ``game``) for every other
    spec."""

    def build(spec: str, seed: int) -> Any:
        return make(spec, seed) if spec == name else make_agent(spec, seed=seed, game=game)

    return build


def evaluate_batched(
    decide: Decide, spec: GameSpec | str, opponent: str, games: int, seed: int
) -> dict[str, Any]:
    """The row of ``opponent`` (:func:`summarize`): the batched policy ``decide`` in seat ``g %
    players`` of game ``g``, the agent ``opponent`` (built for the game, deciding for many games
    at once where it has ``choose_batch``) in the others; ``games`` games of ``spec``'s batched
    form dealt from ``seed``, played together to their ends. The outcome is read from the
    final rewards (the best reward wins); the batched form's score columns differ from game to
    game, so the row's mean scores are NaN."""
    text = spec.text if isinstance(spec, GameSpec) else spec
    vg = batched_game(text, num_games=games, seed=seed, observe="sparse", auto_reset=False)
    n = vg.num_players
    mine = np.arange(games) % n
    agent = make_opponent(opponent, seed, game=vg_game_name_of(vg))
    batch = getattr(agent, "choose_batch", None)
    outcome = np.zeros(games)
    over = np.zeros(games, bool)
    while not over.all():
        seat = vg.current_seat
        active = ~over
        actions = np.zeros(games, np.int64)
        learner = np.flatnonzero(active & (seat == mine))
        if learner.size:
            actions[learner] = decide(vg, learner)
        theirs = np.flatnonzero(active & (seat != mine))
        if theirs.size and batch is not None:
            actions[theirs] = batch(vg, theirs)
        else:
            for g in theirs.tolist():
                actions[g] = agent.choose(vg.get_state(g))
        vg.step(actions, active)
        ended = np.flatnonzero(active & vg.terminated)
        for g in ended.tolist():
            r = vg.rewards[g]
            best = np.flatnonzero(r >= r.max() - 1e-9)
            outcome[g] = 1.0 / len(best) if mine[g] in best else 0.0
        over[ended] = True
    return summarize(opponent, outcome.tolist())


def vg_game_name_of(vg: Any) -> str:
    """The registered game's name of a vector game (through the registry)."""
    entry = config_entry(vg.config)
    if entry is None:
        raise ValueError("the vector game's config belongs to no registered game")
    return entry.name


def append_csv(
    path: str | Path, step: int, wall_time: float, rows: Sequence[Mapping[str, Any]]
) -> None:
    """Append one row per opponent to ``path`` (header first in a new file), atomically: a
    crash leaves the file with all of this evaluation's rows or none."""
    p = Path(path)
    lines = [
        {
            "step": int(step),
            "wall_time": round(float(wall_time), 1),
            "opponent": r["opponent"],
            "win_rate": round(r["win_rate"], 4),
            "games": r["games"],
            "ci_low": round(r["ci_low"], 4),
            "ci_high": round(r["ci_high"], 4),
            "mean_score": round(r["mean_score"], 2),
            "opponent_score": round(r["opponent_score"], 2),
        }
        for r in rows
    ]
    append_text(p, csv_text(lines, CSV_FIELDS, header=not p.exists()))


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as a text table: opponent, games, win rate, its interval, the mean scores."""
    head = (
        f"{'opponent':<12}{'games':>7}{'win rate':>10}{'95% CI':>18}{'score':>9}{'opp. score':>12}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        ci = f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        lines.append(
            f"{r['opponent']:<12}{r['games']:>7}{r['win_rate']:>10.3f}{ci:>18}"
            f"{r['mean_score']:>9.1f}{r['opponent_score']:>12.1f}"
        )
    return "\n".join(lines)
