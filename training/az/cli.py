"""The command line of the az pipeline::

    python -m training.az --config training/configs/az_2p.toml --run-dir runs/az1 \\
        [--resume] [--set section.key=value ...] [--workers N] [--backend ray --address HOST:PORT]
    python -m training.az --export runs/az1 --out agents/checkpoints/az_2p_base

Training prints one line per iteration and the evaluation tables; ``--resume`` continues a
run directory after its last checkpoint (``--config`` may then be left out; keys of ``[env]``
and ``[net]`` cannot change). ``--export`` copies a run's ``model.pt`` with its provenance,
curves and config into a model folder (what ``az`` ships).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.az.checkpoint import load_checkpoint
from agents.jobs import BackendError, add_backend_arguments, backend_from_args
from training.common.config import ConfigError
from training.common.outputs import OutputError, write_json

from .run import start_run


def export(run_dir: Path, out: Path, force: bool = False) -> Path:
    """Copy ``run_dir``'s ``model.pt`` and its records into the model folder ``out``."""
    src = run_dir / "model.pt"
    net, meta = load_checkpoint(src)  # refuse a damaged model before writing anything
    dest = out / "model.pt"
    if dest.exists() and not force:
        raise OutputError(f"--out: {dest} exists; pass --force to replace it")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    for name in ("eval.csv", "progress.csv", "learning_curve.png", "config.toml"):
        if (run_dir / name).exists():
            shutil.copyfile(run_dir / name, out / name)
    write_json(out / "provenance.json", {"run_dir": str(run_dir), **meta["provenance"]})
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.az", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--config", default=None, help="a TOML config (over az_default.toml)")
    parser.add_argument("--run-dir", default=None, help="the run directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--workers", type=int, default=None, help="= --set selfplay.workers=N")
    parser.add_argument("--export", default=None, metavar="RUN_DIR", help="export a run's model")
    parser.add_argument("--out", default=None, help="with --export: the model folder")
    parser.add_argument("--force", action="store_true", help="with --export: replace a model")
    add_backend_arguments(parser)
    args = parser.parse_args(argv)
    try:
        if args.export is not None:
            if not args.out:
                parser.error("--export needs --out")
            print(export(Path(args.export), Path(args.out), args.force))
            return 0
        if not args.run_dir:
            parser.error("--run-dir is required")
        if args.config is None and not args.resume:
            parser.error("--config is required for a new run")
        overrides = list(args.set)
        if args.workers is not None:
            overrides.append(f"selfplay.workers={args.workers}")
        backend = backend_from_args(args)
        command = " ".join(["python -m training.az", *(sys.argv[1:] if argv is None else argv)])
        run = start_run(args.config, overrides, args.run_dir, args.resume, backend, command)
    except (ConfigError, OutputError, BackendError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps({"iteration": run.iteration, "games": run.games, "positions": run.positions}))
    return 0
