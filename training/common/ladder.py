"""A saved policy file against the baseline ladder: ``python -m training.evaluate``.

The pipelines evaluate through the one evaluator, :mod:`training.common.evaluation` (its rows,
its ``eval.csv``, its Wilson interval); this module plays a policy *file* of the Moon River
pipelines (a MaskablePPO zip such as the shipped ``ppo_2p_base``, a ``.pt`` policy, an RLlib
checkpoint) through the game runner with its own seeds, so that the figures recorded with it
stay reproducible, and summarises each opponent's games with
:func:`training.common.evaluation.summarize`. Its rows are the evaluator's::

    opponent, games, wins, win_rate, ci_low, ci_high, mean_score, opponent_score

From the command line::

    python -m training.evaluate --model runs/NAME/final_model.zip --opponents random,greedy \\
        --games 400 --seed 0 [--workers 2] [--stochastic] [--out DIR] [--csv runs/NAME/eval.csv] \\
        [--force] [--backend process|ray] [--address HOST:PORT]

prints a table (win rate with its 95% Wilson interval, mean scores), writes ``evaluation.json``
and ``evaluation.png`` (the win rates as bars with their intervals and, when the run's
``eval.csv`` is found beside the model or its parent, the learning curve: win rate against
training steps, one line per opponent) into ``--out`` (default: the run directory of the
model; for a committed model, e.g. a shipped checkpoint, a fresh ``runs/eval-NAME-TIME``).
Existing files are replaced only with ``--force``, committed ones never
(:mod:`training.common.outputs`).

Game ``i`` (against each opponent) is played by :class:`agents.runner.GameRunner` with the
learner (:class:`agents.base.PolicyAgent`) in seat ``i % num_players``, the environment seeded
from ``SeedSequence([seed, i])`` (:func:`learner_env_seed`) and the opponent in the ``k``-th
other seat reset with ``SeedSequence([seed, i, 1 + k])``, so results do not depend on
``--workers`` nor on ``--backend`` (``ray``: the games on Ray actors, each sent the policy, on a
Ray started for the command or the cluster at ``--address``). Win rate: a win counts 1, a
shared win ``1/k``, a loss 0.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import PolicyAgent
from agents.jobs import Backend, BackendError, add_backend_arguments, backend_from_args, run_jobs
from agents.networks.snapshots import load_policy
from agents.policy_games import evaluate_policy
from agents.registry import make_agent
from agents.rllib_agent import CHECKPOINT_META, ModulePolicy, list_checkpoints, load_module
from agents.runner import GameRunner, GameSetup
from agents.seeds import agent_seed, derive_seed, game_seed
from moonriver_env.family.records import win_share
from moonriver_env.games import DEFAULT_GAME, GameSpec, spec_from_args
from training.common.closing import error_bars, style_win_rate_axes
from training.common.evaluation import format_table, summarize
from training.common.outputs import (
    OutputError,
    atomic_path,
    check_writable,
    is_committed,
    write_json,
)
from training.common.progress import progress


def env_kwargs_from_config(env_cfg: Mapping[str, Any]) -> dict[str, Any]:
    """``SingleAgentEnv`` game arguments for evaluation: the training game, reward ignored."""
    return GameSetup.from_config(env_cfg).env_kwargs(rewards=False)


def learner_env_seed(seed: int, index: int) -> int:
    """The AEC reset seed of evaluation game ``index``: the one ``SingleAgentEnv`` gives its
    AEC env on ``reset(seed=game_seed(seed, index))`` (a Generator seeded with it draws a
    63-bit integer), so evaluations keep matching the learner's own view of the game."""
    return int(np.random.default_rng(game_seed(seed, index)).integers(2**63 - 1))


class _Match:
    """One process's learner (:class:`agents.base.PolicyAgent`), opponents and game runner."""

    def __init__(self, policy: Any, setup: GameSetup, deterministic: bool = True) -> None:
        self.learner = PolicyAgent(
            policy, deterministic=deterministic, name="learner", repair=False
        )
        self.runner = GameRunner(setup)
        self.opponents: dict[tuple[str, int], list[Any]] = {}

    def play(self, opponent: str, index: int, seed: int) -> dict[str, Any]:
        """Game ``index``: the learner in seat ``index % n`` (reset with ``derive_seed(seed,
        index, 0)``), opponent ``k`` in the ``k``-th seat after it (``agent_seed(seed, index,
        k)``). The learner's outcome (1 / 0 / 1/k), score and the best other score."""
        n = self.runner.setup.num_players
        key = (opponent, seed)
        if key not in self.opponents:
            self.opponents[key] = [
                make_agent(opponent, seed=agent_seed(seed, 0, k)) for k in range(n - 1)
            ]
        seat = index % n
        agents: list[Any] = [self.learner] * n
        seeds = [derive_seed(seed, index, 0)] * n
        names = ["learner"] * n
        for k, opp in enumerate(self.opponents[key]):
            agents[(seat + 1 + k) % n] = opp
            seeds[(seat + 1 + k) % n] = agent_seed(seed, index, k)
            names[(seat + 1 + k) % n] = opponent
        state = self.runner.play(agents, learner_env_seed(seed, index), seeds, names).state
        winners = state.winners()
        totals = [s.total for s in state.scores()]
        return {
            "game": int(index),
            "seat": seat,
            "outcome": win_share(winners, seat),
            "score": float(totals[seat]),
            "opponent_score": float(max(t for j, t in enumerate(totals) if j != seat)),
        }


def _play(match: _Match, job: tuple[str, int, int]) -> dict[str, Any]:
    return match.play(*job)


def _open_match(path: str, setup: GameSetup, deterministic: bool) -> _Match:
    return _Match(load_model(path, deterministic), setup, deterministic)


def load_model(path: str | Path, deterministic: bool = True) -> Any:
    """The policy of ``--model``: a ``MaskablePPO`` zip or a ``.pt`` snapshot
    (:func:`agents.networks.snapshots.load_policy`), or an RLlib checkpoint directory of
    ``training.rllib.train`` (its learner module, :mod:`agents.rllib_agent`)."""
    p = Path(path)
    if p.is_dir():
        if not (p / CHECKPOINT_META).is_file():
            raise ValueError(f"model: {p} is not a checkpoint of training.rllib.train")
        return ModulePolicy(load_module(p), sample=not deterministic)
    return load_policy(p)


def resolve_model(model: str) -> Path:
    """``--model``: a file or checkpoint directory, or ``rllib:RUN_DIR`` (the run's latest
    checkpoint); a missing ``.zip`` suffix is added."""
    if model.startswith("rllib:"):
        found = list_checkpoints(model.removeprefix("rllib:"))
        if not found:
            raise ValueError(f"--model: no finished checkpoint in {model!r}")
        return found[-1]
    p = Path(model)
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.exists():
        raise ValueError(f"--model: no file {model!r}")
    return p


def play_games(
    policy: Any,
    opponent: str,
    game_ids: Iterable[int],
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    deterministic: bool = True,
) -> list[dict[str, Any]]:
    """Play the games ``game_ids`` of the learner (an SB3 maskable policy, a model with
    ``.policy``, or a callable ``policy(observation_dict, env)``) against ``opponent`` (an
    ``agents.make_agent`` name) in the other seats. One dict per game: ``game``, ``seat``,
    ``outcome`` (1 / 0 / 1/k), ``score``, ``opponent_score`` (best other seat)."""
    match = _Match(policy, GameSetup(**(env_kwargs or {})), deterministic)
    return [match.play(opponent, i, seed) for i in game_ids]


def evaluate_ladder(
    policy: Any,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    deterministic: bool = True,
    workers: int = 1,
    model_path: str | Path | None = None,
    show_progress: bool = False,
    backend: Backend | None = None,
) -> list[dict[str, Any]]:
    """One summary per opponent (:func:`summarize`). ``workers > 1`` needs ``model_path`` (each
    worker process loads the policy itself), unless the ``backend`` is Ray (each actor is sent
    ``policy``: the model file need not be on the cluster's machines). ``show_progress``: a
    bar of the games done."""
    setup = GameSetup(**(env_kwargs or {}))
    jobs = [(opp, i, seed) for opp in opponents for i in range(games)]
    bar = progress(len(jobs), "evaluation games", unit="game", enabled=show_progress)
    try:
        if backend is not None and backend.name == "ray":
            args: tuple[Any, ...] = (policy, setup, deterministic)
            results = run_jobs(
                jobs, _Match, args, _play, workers, lambda _: bar.update(), backend=backend
            )
        elif workers > 1 and model_path is not None:
            args = (str(model_path), setup, deterministic)
            results = run_jobs(
                jobs, _open_match, args, _play, workers=workers, on_result=lambda _: bar.update()
            )
        else:
            args = (policy, setup, deterministic)
            results = run_jobs(jobs, _Match, args, _play, on_result=lambda _: bar.update())
    finally:
        bar.close()
    return [_summary(opp, results[k * games : (k + 1) * games]) for k, opp in enumerate(opponents)]


def _summary(opponent: str, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The opponent's row (:func:`training.common.evaluation.summarize`) from its games."""
    return summarize(
        opponent,
        [r["outcome"] for r in results],
        [r["score"] for r in results],
        [r["opponent_score"] for r in results],
    )


def plot_learning_curve(
    csv_path: str | Path | None,
    out_png: str | Path,
    final: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> Path | None:
    """Win rate (with the Wilson band) against training steps, one line per opponent; with
    ``final`` ({model name: evaluate_ladder rows}) a second panel shows the final evaluation
    as bars with their 95% intervals. Drawn on a bare ``Figure`` (no pyplot, no backend
    switch), so it is safe inside notebooks and headless processes alike. ``csv_path``
    ``None`` (or missing): the final evaluation alone."""
    p = Path(csv_path) if csv_path is not None else None
    series: dict[str, list[tuple[int, float, float, float]]] = {}
    minutes: dict[int, float] = {}  # run wall time (minutes) of each evaluated step
    if p is not None and p.exists():
        with p.open() as f:
            for row in csv.DictReader(f):
                series.setdefault(row["opponent"], []).append(
                    (
                        int(row["step"]),
                        float(row["win_rate"]),
                        float(row["ci_low"]),
                        float(row["ci_high"]),
                    )
                )
                minutes[int(row["step"])] = float(row.get("wall_time") or 0.0) / 60.0
    if not series and not final:
        return None
    from matplotlib.figure import Figure

    panels = int(bool(series)) + int(bool(final))
    fig = Figure(figsize=(7 * panels, 4), layout="constrained")
    axes = list(fig.subplots(1, panels, squeeze=False)[0])
    if series:
        ax = axes.pop(0)
        for name, pts in series.items():
            pts.sort()
            steps = [x[0] for x in pts]
            ax.plot(steps, [x[1] for x in pts], marker="o", ms=3, label=name)
            ax.fill_between(steps, [x[2] for x in pts], [x[3] for x in pts], alpha=0.15)
        label = "training steps"
        if minutes:
            first, last = min(minutes), max(minutes)
            label += f" (run wall time {minutes[first]:.0f} to {minutes[last]:.0f} min"
            if first == 0 and minutes[first] >= 1.0:
                label += "; step 0: the warm-started policy"
            label += ")"
        style_win_rate_axes(ax, label, "win rate", f"Learning curve ({p.parent.name if p else ''})")
    if final:
        ax = axes.pop(0)
        width = 0.8 / len(final)
        for i, (model, rows) in enumerate(final.items()):
            xs = [j + (i - (len(final) - 1) / 2) * width for j in range(len(rows))]
            rates = [r["win_rate"] for r in rows]
            err = error_bars([(r["win_rate"], r["ci_low"], r["ci_high"]) for r in rows])
            ax.bar(xs, rates, width, yerr=err, capsize=3, label=f"{model} model")
            for x, r in zip(xs, rows, strict=True):
                ax.annotate(f"{r['win_rate']:.2f}", (x, r["ci_high"]), ha="center", va="bottom")
        first_rows = next(iter(final.values()))
        ax.set_xticks(range(len(first_rows)), [f"vs {r['opponent']}" for r in first_rows])
        ax.set_ylim(0, 1.1)
        ax.set_ylabel("win rate")
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_title(f"Final evaluation ({first_rows[0]['games']} games per opponent, 95% CI)")
        ax.legend(loc="upper right")
    out = Path(out_png)
    with atomic_path(out) as tmp:
        fig.savefig(tmp, dpi=110)
    return out


def infer_game(model_path: Path) -> dict[str, Any]:
    """The ``[env]`` section of the run's saved ``config.toml`` (the model's directory or a
    parent), else the game whose action count matches the model's action space."""
    for d in [model_path.parent, *model_path.parents][:3]:
        cfg_path = d / "config.toml"
        if cfg_path.exists():
            with cfg_path.open("rb") as f:
                return dict(tomllib.load(f).get("env", {}))
    policy = load_policy(model_path)
    shape = getattr(policy.observation_space, "shape", None)
    size = int(shape[0]) if shape is not None and len(shape) == 1 else None
    try:
        spec = GameSpec.from_num_actions(int(policy.action_space.n), size)
    except ValueError as e:
        raise ValueError(f"model: cannot tell the game of {model_path} ({e})") from None
    return {"num_players": spec.num_players, "mode": spec.mode}


def default_out_dir(model_path: Path, run_dir: Path) -> Path:
    """Where ``--out`` defaults to: the model's run directory, or for a committed model (a
    shipped checkpoint, whose files are the repository's) a fresh ``runs/eval-NAME-TIME``."""
    if not is_committed(model_path):
        return run_dir
    out = Path("runs") / time.strftime(f"eval-{run_dir.name}-%Y%m%d-%H%M%S")
    print(f"{model_path} is committed: writing the evaluation to {out}", flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--model",
        required=True,
        help="MaskablePPO zip, policy .pt snapshot, or rllib:RUN_DIR (training.rllib.train)",
    )
    ap.add_argument("--opponents", default="random,greedy", help="comma-separated agent names")
    ap.add_argument("--games", type=int, default=400, help="games per opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes or Ray actors (results do not depend on it)",
    )
    add_backend_arguments(ap)
    ap.add_argument(
        "--stochastic", action="store_true", help="sample actions (default: most likely)"
    )
    ap.add_argument(
        "--players", type=int, default=None, help="override the game (default: the run's)"
    )
    ap.add_argument("--mode", default=None)
    ap.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"the game (default {DEFAULT_GAME}: the run's); another game's model "
        "(agents.policy_games) takes --players, --mode, --opponents, --games, --seed, "
        "--stochastic",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="output directory (default: the model's run dir; runs/eval-NAME-TIME for a "
        "committed model)",
    )
    ap.add_argument("--csv", default=None, help="eval.csv for the learning curve (default: found)")
    ap.add_argument("--force", action="store_true", help="replace existing evaluation files")
    args = ap.parse_args(argv)
    if args.game != DEFAULT_GAME:
        return _other_game(ap, args)
    try:
        backend = backend_from_args(args)
    except ValueError as e:
        ap.error(str(e))

    try:
        model_path = resolve_model(args.model)
    except ValueError as e:
        ap.error(str(e))
    if args.games < 1:
        ap.error("--games: expected a positive integer")
    opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
    game = infer_game(model_path)
    if args.players is not None:
        game["num_players"] = args.players
    if args.mode is not None:
        game["mode"] = args.mode
    kwargs = env_kwargs_from_config(game)
    run_dir = (
        model_path.parent.parent if model_path.parent.name == "checkpoints" else model_path.parent
    )
    out_dir = Path(args.out) if args.out else default_out_dir(model_path, run_dir)
    json_path, png_path = out_dir / "evaluation.json", out_dir / "evaluation.png"
    try:  # before the games: a refused output costs no time
        for path in (json_path, png_path):
            check_writable(path, args.force)
    except OutputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    policy = load_model(model_path, not args.stochastic)
    try:
        rows = evaluate_ladder(
            policy,
            opponents,
            args.games,
            seed=args.seed,
            env_kwargs=kwargs,
            deterministic=not args.stochastic,
            workers=max(1, args.workers),
            model_path=model_path,
            show_progress=True,
            backend=backend,
        )
    except BackendError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    elapsed = time.time() - t0
    print(
        f"model {model_path} ({kwargs['num_players']} players, {kwargs['mode']}), "
        f"{'stochastic' if args.stochastic else 'deterministic'}, seed {args.seed}"
    )
    print(format_table(rows))
    print(f"{elapsed:.1f} s")
    report = {
        "model": str(model_path),
        "game": kwargs,
        "seed": args.seed,
        "games": args.games,
        "deterministic": not args.stochastic,
        "seconds": round(elapsed, 1),
        "results": rows,
    }
    write_json(json_path, report)
    print(f"wrote {json_path}")
    csv_path = (
        Path(args.csv)
        if args.csv
        else next(
            (d / "eval.csv" for d in (model_path.parent, run_dir) if (d / "eval.csv").exists()),
            None,
        )
    )
    png = plot_learning_curve(csv_path, png_path, {model_path.stem: rows})
    if png is not None:
        print(f"wrote {png}")
    return 0


def _other_game(ap: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--game NAME``: the model against agents in another game (:mod:`agents.policy_games`)."""
    given = [f"--{k}" for k in ("out", "csv") if getattr(args, k) is not None]
    given += ["--force"] * args.force + ["--workers"] * (args.workers != 1)
    if given:
        ap.error(f"--game {args.game}: {', '.join(given)} not taken for this game")
    try:
        spec = spec_from_args(args)
        opponents = [s.strip() for s in args.opponents.split(",") if s.strip()]
        print(evaluate_policy(spec, args.model, opponents, args.games, args.seed, args.stochastic))
    except ValueError as e:
        ap.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
