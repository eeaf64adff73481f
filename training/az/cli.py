"""The command line of the az pipeline::

    python -m training.az --config training/configs/az_2p.toml --run-dir runs/az1 \\
        [--resume] [--set section.key=value ...] [--workers N] [--backend ray --address HOST:PORT]
    python -m training.az --export runs/az1 --out agents/checkpoints/az_2p_base
    python -m training.az --export runs/az1/checkpoints/iter_00000.pt --out DIR

Training prints one line per iteration and the evaluation tables; ``--resume`` continues a
run directory after its last checkpoint (``--config`` may then be left out; keys of ``[env]``
and ``[net]`` cannot change). ``--export`` copies a run's ``model.pt`` with its provenance,
curves and config into a model folder (what ``az`` ships).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from agents.az.checkpoint import load_checkpoint
from agents.jobs import BackendError, add_backend_arguments, backend_from_args
from training.common.config import ConfigError
from training.common.ladder import plot_learning_curve
from training.common.outputs import OutputError, write_json, write_text

from .run import start_run


def export(source: Path, out: Path, force: bool = False) -> Path:
    """Copy a run's model into the model folder ``out`` with the run's records: ``source`` is
    the run directory (its ``model.pt``, the latest) or one of its model files (a kept
    ``checkpoints/iter_<N>.pt``)."""
    if source.is_file():
        src = source
        run_dir = source.parent.parent if source.parent.name == "checkpoints" else source.parent
    else:
        src, run_dir = source / "model.pt", source
    net, meta = load_checkpoint(src)  # refuse a damaged model before writing anything
    dest = out / "model.pt"
    if dest.exists() and not force:
        raise OutputError(f"--out: {dest} exists; pass --force to replace it")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    if (run_dir / "config.toml").exists():
        shutil.copyfile(run_dir / "config.toml", out / "config.toml")
    # the run's records up to the exported model: its iteration, its positions
    upto = meta["provenance"]
    _rows_upto(run_dir / "progress.csv", "iteration", upto["iteration"], out)
    if _rows_upto(run_dir / "eval.csv", "step", upto["positions"], out):
        plot_learning_curve(out / "eval.csv", out / "learning_curve.png")
    else:
        (out / "learning_curve.png").unlink(missing_ok=True)
    prov = {"run_dir": str(run_dir), "model": str(src), **meta["provenance"]}
    write_json(out / "provenance.json", prov)
    return dest


def _rows_upto(path: Path, column: str, last: int, out: Path) -> int:
    """Copy the rows of the CSV ``path`` whose ``column`` is at most ``last`` into ``out``
    (same name); how many (0: no such file, nothing written)."""
    if not path.exists():
        (out / path.name).unlink(missing_ok=True)
        return 0
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        rows = [r for r in reader if int(r[column]) <= int(last)]
        fields = reader.fieldnames or []
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
    write_text(out / path.name, buf.getvalue())
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.az", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--config", default=None, help="a TOML config (over az_default.toml)")
    parser.add_argument("--run-dir", default=None, help="the run directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--workers", type=int, default=None, help="= --set selfplay.workers=N")
    parser.add_argument(
        "--export", default=None, metavar="RUN_DIR", help="export a run or a kept iter_<N>.pt"
    )
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
