"""One command per ``trained`` model: collect, encode, fit, evaluate, export.

    python -m training.value.train --config training/value/configs/value_2p_base.toml \\
        --run-dir runs/value_2p_base [--resume] [--export] [--set section.key=value ...]
    python -m training.value.train --config training/value/configs/value_4p_base.toml --search-only

Every stage writes what it finished into the run directory and a rerun continues from there
(``--resume`` is the explicit form; without it a run directory holding another config is
refused): ``games/*.jsonl`` (collected games), ``data/`` (encoded afterstates per game),
``fit_state.pt`` (epochs), ``model.pt`` + ``curve.csv`` + ``learning_curve.png``,
``eval.json``. ``--export`` copies the model, config, curve and ``provenance.json`` to
``agents/checkpoints/trained_<n>p_<mode>/``, where the ``trained`` agent finds it.
``--stage collect`` stops after the games (to collect while building something else).
``--search-only`` rewrites only the exported model's ``[search]`` settings (how it plays) from
the config, after the config's other sections are checked against the exported model's.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.atomic import atomic_path, csv_text, write_text
from agents.jobs import Backend, add_backend_arguments, backend_from_args
from agents.shipped import CHECKPOINTS
from moonriver_env.games import GameSpec
from moonriver_env.moonriver.agents.trained import (
    MODEL_FILE,
    ValueNet,
    game_name,
    input_size,
    load_model,
    save_model,
)
from moonriver_env.moonriver.encoding import ObservationEncoder
from training.common.config import ConfigError
from training.common.export import build_folder, check_out
from training.common.outputs import RunLock, write_json
from training.common.provenance import command_line, git_commit
from training.value.collect import collect
from training.value.config import dumps, load_value_config
from training.value.dataset import build_samples
from training.value.fit import fit, tune_prior_weight

Config = dict[str, dict[str, Any]]


def split_games(cfg: Config, indices: list[int]) -> tuple[set[int], set[int]]:
    """``(train, held_out)`` game indices: a seeded shuffle, ``holdout_fraction`` held out."""
    rng = np.random.default_rng([cfg["run"]["seed"], 7])
    order = rng.permutation(indices).tolist()
    n_held = max(1, round(cfg["train"]["holdout_fraction"] * len(order))) if len(order) > 1 else 0
    return set(order[n_held:]), set(order[:n_held])


def model_meta(cfg: Config, enc: ObservationEncoder) -> dict[str, Any]:
    """What the agent needs besides the weights
    (:func:`moonriver_env.moonriver.agents.trained.load_model`)."""
    return {
        "num_players": cfg["env"]["num_players"],
        "mode": cfg["env"]["mode"],
        "input_size": input_size(enc),
        "extra": cfg["env"]["num_players"] + 1,
        "hidden": list(cfg["model"]["hidden"]),
        "dropout": cfg["model"]["dropout"],
        "target_scale": cfg["train"]["target_scale"],
        "search": dict(cfg["search"]),
    }


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str) -> None:
    """Held-out loss (vs the constant baseline) and regret per epoch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ep = [r["epoch"] for r in curve]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(ep, [r["mse"] for r in curve], "o-", label="held-out MSE")
    a1.plot(ep, [r["baseline_mse"] for r in curve], "--", label="constant baseline")
    rollout = any(r["rel_baseline"] for r in curve)  # rollout labels: candidates to compare
    if rollout:
        a1.plot(ep, [r["rel_mse"] for r in curve], "o-", label="within-decision MSE")
        a1.plot(ep, [r["rel_baseline"] for r in curve], "--", label="within-decision baseline")
    a1.set_xlabel("epoch")
    a1.set_ylabel("points^2")
    a1.legend()
    if rollout:
        a2.plot(ep, [r["regret"] for r in curve], "o-", label="network's choice")
        a2.plot(ep, [r["prior_regret"] for r in curve], "--", label="heuristic's choice")
        a2.set_ylabel("held-out regret (label points lost per decision)")
    else:  # outcome labels: one row per position and seat, nothing to compare within
        a2.plot(ep, [r["corr"] for r in curve], "o-", label="held-out correlation")
        a2.set_ylabel("correlation of prediction and final margin")
    kept = [r["epoch"] for r in curve if r.get("kept")]
    for ax in (a1, a2):
        for e in kept:
            ax.axvline(e, color="grey", linestyle=":", label="kept (least held-out MSE)")
    a2.set_xlabel("epoch")
    a2.legend()
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=80, format="png")
    plt.close(fig)


def evaluate(cfg: Config, run_dir: Path, backend: Backend | None = None) -> dict[str, Any]:
    """Seat-rotated games of the run's model against ``eval.opponent`` (2 players: one each;
    more: one model against opponents in every other seat), through the one evaluator of the
    pipelines (:func:`training.common.evaluation.evaluate_agent`)."""
    from training.common.evaluation import evaluate_agent

    n = cfg["env"]["num_players"]
    opp = cfg["eval"]["opponent"]
    me = f"trained:{run_dir / MODEL_FILE}"
    [row] = evaluate_agent(
        me, GameSpec.from_section(cfg["env"]), [opp], cfg["eval"]["games"],
        cfg["run"]["seed"] + 1, workers=cfg["run"]["workers"], backend=backend,
    )  # fmt: skip
    return {
        "agents": [me] + [opp] * (n - 1),
        "games": row["games"],
        "wins": row["wins"],
        "win_rate": row["win_rate"],
        "wilson95": [row["ci_low"], row["ci_high"]],
        "ms_per_decision": row["ms_per_decision"],
        "seed": cfg["run"]["seed"] + 1,
    }


def update_search(cfg: Config, config_path: str) -> Path:
    """Rewrite the search settings (``[search]``: how the agent plays, not what it learned) of
    the exported model of ``cfg``'s game from ``cfg``, in the model, its ``config.toml`` and
    ``provenance.json`` (which records the command and commit under ``search_updates``). The
    weights are untouched; a full run of the same config gives the same settings."""
    config = GameSpec.from_section(cfg["env"]).config()
    dest = CHECKPOINTS / f"trained_{game_name(config.num_players, config.mode)}"
    net, meta = load_model(dest / MODEL_FILE)
    saved = load_value_config(dest / "config.toml")
    for section in ("env", "collect", "model", "train"):
        if saved[section] != cfg[section]:
            raise SystemExit(
                f"--search-only: [{section}] of {config_path} differs from the exported model's "
                f"({dest / 'config.toml'}): that needs a new run, not a search update"
            )
    meta["search"] = dict(cfg["search"])
    save_model(dest / MODEL_FILE, net, meta)
    saved["search"] = dict(cfg["search"])
    write_text(dest / "config.toml", dumps(saved))
    prov_path = dest / "provenance.json"
    prov = json.loads(prov_path.read_text())
    prov["search"] = meta["search"]
    prov.setdefault("search_updates", []).append(
        {
            "command": command_line("training.value.train"),
            "git_commit": git_commit(),
            "search": meta["search"],
        }
    )
    write_json(prov_path, prov)
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.value.train",
        description="Collect, encode, fit, evaluate and export a trained value model.",
    )
    ap.add_argument("--config", required=True, help="a value TOML config")
    ap.add_argument("--run-dir", help="where the run's files go (required but with --search-only)")
    ap.add_argument("--stage", choices=("collect", "all"), default="all")
    ap.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    ap.add_argument("--export", action="store_true", help="copy the model to the checkpoints")
    ap.add_argument("--set", action="append", default=[], help="section.key=value override")
    add_backend_arguments(ap)
    ap.add_argument(
        "--search-only",
        action="store_true",
        help="only rewrite the exported model's [search] settings from --config",
    )
    args = ap.parse_args(argv)
    t_start = time.time()
    try:
        cfg = load_value_config(args.config, tuple(args.set))
    except ConfigError as e:  # a bad or unreadable config: named, exit status 2
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.search_only:
        print(f"[train] search settings updated in {update_search(cfg, args.config)}")
        return 0
    if args.run_dir is None:
        ap.error("--run-dir is required (unless --search-only)")
    run_dir = Path(args.run_dir)
    backend = backend_from_args(args)
    with backend.session(cfg["run"]["workers"]), RunLock(run_dir):
        return _run(args, cfg, run_dir, backend, t_start)


def _run(
    args: argparse.Namespace, cfg: Config, run_dir: Path, backend: Backend, t_start: float
) -> int:
    """The stages of :func:`main` in ``run_dir`` (its lock held)."""
    saved = run_dir / "config.toml"
    if saved.exists() and not args.resume:
        old = load_value_config(saved)
        if {s: v for s, v in old.items() if s not in ("run", "eval")} != {
            s: v for s, v in cfg.items() if s not in ("run", "eval")
        }:
            raise SystemExit(f"{run_dir}: holds a run with another config (use --resume)")
    write_text(saved, dumps(cfg))
    games = collect(cfg, run_dir, backend)
    if args.stage == "collect":
        return 0
    torch.set_num_threads(cfg["run"]["torch_threads"] or torch.get_num_threads())
    config = GameSpec.from_section(cfg["env"]).config()
    train_ids, held_ids = split_games(cfg, [g["index"] for g in games])
    k = cfg["collect"]["k"]
    outcome = cfg["collect"]["labels"] == "outcome"
    states = cfg["collect"]["states"] if outcome else None
    data = build_samples(games, config, k, run_dir / "data", states)
    in_train = np.isin(data.game, list(train_ids))
    train_s = data.select(np.flatnonzero(in_train))
    held_s = data.select(np.flatnonzero(~in_train))
    print(
        f"[train] {len(train_ids)} games / {train_s.decisions} decisions / {len(train_s.y)} "
        f"afterstates to train on; {len(held_ids)} games held out",
        flush=True,
    )
    enc = ObservationEncoder(config)
    meta = model_meta(cfg, enc)
    net = ValueNet(meta["input_size"], meta["extra"], meta["hidden"], meta["dropout"])
    curve = fit(cfg, train_s, held_s, net, run_dir / "fit_state.pt")
    tuned: dict[str, float] = {}
    if cfg["search"]["tune_prior_weight"] and cfg["search"]["rounds"] == 0 and held_s.decisions:
        w, regrets = tune_prior_weight(net, held_s, cfg["train"]["target_scale"])
        meta["search"]["prior_weight"] = w
        tuned = {str(x): float(r) for x, r in regrets.items()}
        print(f"[train] prior_weight {w} (held-out regret by weight: {tuned})", flush=True)
    save_model(run_dir / MODEL_FILE, net, meta)
    write_text(run_dir / "curve.csv", csv_text(curve, list(curve[-1])))
    plot_curve(
        curve,
        run_dir / "learning_curve.png",
        f"trained {game_name(config.num_players, config.mode)}",
    )
    ev_path = run_dir / "eval.json"
    if cfg["eval"]["games"] and not ev_path.exists():
        write_text(ev_path, json.dumps(evaluate(cfg, run_dir, backend), indent=2))
    provenance = {
        "command": command_line("training.value.train"),
        "config": args.config,
        "git_commit": git_commit(),
        "machine": {"platform": platform.platform(), "cpus": __import__("os").cpu_count()},
        "games_collected": len(games),
        "collect_game_minutes": round(sum(g["seconds"] for g in games) / 60, 1),
        "train": {
            "games": len(train_ids),
            "decisions": train_s.decisions,
            "afterstates": len(train_s.y),
        },
        "held_out": {
            "games": len(held_ids),
            "decisions": held_s.decisions,
            **next(r for r in curve if r["kept"]),
        },
        "search": meta["search"],
        "held_out_regret_by_prior_weight": tuned,
        "evaluation": json.loads(ev_path.read_text()) if ev_path.exists() else None,
        "wall_minutes_this_invocation": round((time.time() - t_start) / 60, 1),
    }
    write_json(run_dir / "provenance.json", provenance)
    if args.export:
        dest = CHECKPOINTS / f"trained_{game_name(config.num_players, config.mode)}"
        check_out(dest, run_dir, True, exported_files, flag="--export")
        build_folder(dest, lambda build: _copy_export(run_dir, build))
        print(f"[train] exported to {dest}", flush=True)
    return 0


EXPORTED = (MODEL_FILE, "config.toml", "curve.csv", "learning_curve.png", "provenance.json")
"""The files of a run that make its model folder (``--export``)."""


def exported_files(folder: Path) -> frozenset[str] | None:
    """:data:`EXPORTED` when ``folder`` is a model folder ``--export`` wrote (its model and
    provenance, and no other file: a run directory holds more), else ``None``: ``--export``
    replaces only such a folder (:func:`~training.common.export.check_out`)."""
    names = {p.name for p in folder.iterdir()} if folder.is_dir() else set()
    if not {MODEL_FILE, "provenance.json"} <= names or not names <= set(EXPORTED):
        return None
    return frozenset(EXPORTED)


def _copy_export(run_dir: Path, build: Path) -> None:
    for name in EXPORTED:
        shutil.copy2(run_dir / name, build / name)


if __name__ == "__main__":
    raise SystemExit(main())
