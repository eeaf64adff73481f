"""The command line of the az pipeline::

    python -m training.az --config training/configs/az_2p.toml --run-dir runs/az1 \\
        [--resume] [--set section.key=value ...] [--workers N] [--backend ray --address HOST:PORT]
    python -m training.az --export runs/az1 --out agents/checkpoints/az_2p_base
    python -m training.az --export runs/az1/checkpoints/iter_00000.pt --out DIR
    python -m training.az --export runs/az1 --out DIR --play rollout_temp=0 --play k=8 \\
        --why "argmax rollouts won 0.68 against 0.60 (200 games)"

Training prints one line per iteration and the evaluation tables; ``--resume`` continues a
run directory after its last checkpoint (``--config`` may then be left out; keys of ``[env]``
and ``[net]`` cannot change). ``--export`` copies a run's ``model.pt`` with its provenance,
curves and config into a model folder (what ``az`` ships); ``--play KEY=VALUE`` changes a play
setting of the exported model (the search's ``k``, ``r``, ``depth``, ``max_depth``,
``leaves``, ``rollout_temp``, ``opponent_temp``, ``tau``; training is not affected), at every
table, or at one (``--play kingdomino_2p_mighty_duel:r=12``), and needs ``--why``: the change and the reason are kept in its provenance
(``play_settings``), the run's config stays as trained.
"""

from __future__ import annotations

import argparse
import csv
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from agents.atomic import csv_text
from agents.az.checkpoint import (
    MODEL_FILE,
    TABLE_SEARCH,
    CheckpointError,
    check_table_search,
    load_checkpoint,
    play_settings,
    read_blob,
)
from agents.az.search import BOUNDS, INTEGER_SETTINGS
from agents.jobs import BackendError, add_backend_arguments, backend_from_args
from training.common.config import ConfigError
from training.common.export import (
    MANIFEST,
    build_folder,
    check_out,
    export_provenance,
    listed_files,
)
from training.common.outputs import OutputError, write_json, write_text

from .bars import tables_of
from .evaluate import plot_curve
from .run import start_run


def play_changes(
    pairs: Sequence[str],
) -> tuple[dict[str, int | float], dict[str, dict[str, int | float]]]:
    """``KEY=VALUE`` play settings (``--play``) as a mapping, and ``TABLE:KEY=VALUE`` ones (a
    change at one table, spelt as the games are: ``kingdomino_2p_mighty_duel:r=12``) per
    table; a ``ValueError`` naming the first bad one (an unknown key, a value of the wrong
    kind; ranges: :class:`SearchSettings`; tables: :func:`export`)."""
    out: dict[str, int | float] = {}
    tables: dict[str, dict[str, int | float]] = {}
    for pair in pairs:
        setting, sep, text = pair.partition("=")
        table, colon, key = setting.rpartition(":")
        key = key.strip().removeprefix("search.")
        if not sep or key not in BOUNDS or (colon and not table.strip()):
            raise ValueError(
                f"--play: expected [TABLE:]KEY=VALUE with KEY one of {sorted(BOUNDS)}, got {pair!r}"
            )
        try:
            value = int(text) if key in INTEGER_SETTINGS else float(text)
        except ValueError:
            kind = "an integer" if key in INTEGER_SETTINGS else "a number"
            raise ValueError(f"--play: {key}: expected {kind}, got {text.strip()!r}") from None
        (tables.setdefault(table.strip(), {}) if colon else out)[key] = value
    return out, tables


def export(
    source: Path,
    out: Path,
    force: bool = False,
    play: dict[str, int | float] | None = None,
    why: str | None = None,
    table_play: dict[str, dict[str, int | float]] | None = None,
) -> Path:
    """Copy a run's model into the model folder ``out`` with the run's records: ``source`` is
    the run directory (its ``model.pt``, the latest), one of its model files (a kept
    ``checkpoints/iter_<N>.pt``) or a model folder this wrote (its run and model stay named;
    its evaluations stay unless the play settings change; its seeds stay, and the bars of the
    tables whose play settings stay; its other files stay). ``play``: play settings changed in
    the exported model (its ``search``), with ``why`` (required) recorded beside the change in
    its provenance; ``table_play``: changes at some of the model's tables only (a table it does
    not play is refused). The folder is built beside ``out`` and swapped in whole
    (:func:`~training.common.export.build_folder`): a crash leaves the old folder, and none of
    its files survive a replacement."""
    if source.is_file():
        src = source
        run_dir = source.parent.parent if source.parent.name == "checkpoints" else source.parent
    else:
        src, run_dir = source / "model.pt", source
    net, meta = load_checkpoint(src)  # refuse a damaged model before writing anything
    blob = None
    if play or table_play:
        reason = (why or "").strip()
        if not reason:
            raise ValueError("--why: a changed play setting needs its reason (kept in provenance)")
        search = {**meta["search"], **(play or {})}
        tables = {t: dict(c) for t, c in (meta.get(TABLE_SEARCH) or {}).items()}
        for table, changes in (table_play or {}).items():
            tables[table] = {**tables.get(table, {}), **changes}
        after_meta = {**meta, "search": search, TABLE_SEARCH: tables}
        moved = []
        try:
            check_table_search(after_meta, net.shape, src)  # the tables and the ranges
            own = (play_settings(meta, ""), play_settings(after_meta, ""))  # the model's
            for table in ("", *sorted(set(tables) | set(meta.get(TABLE_SEARCH) or {}))):
                before, after = play_settings(meta, table), play_settings(after_meta, table)
                at = f" at {table}" if table else ""
                moved += [  # at a table: where it plays its own value (not the model's, moved)
                    f"search.{k} {getattr(before, k)} -> {getattr(after, k)}{at}"
                    for k in BOUNDS
                    if getattr(before, k) != getattr(after, k)
                    and (
                        not table
                        or getattr(before, k) != getattr(own[0], k)
                        or getattr(after, k) != getattr(own[1], k)
                    )
                ]
        except (CheckpointError, ValueError) as exc:  # the table's fault, not the file's
            text = re.sub(r"^(game|path): ('[^']*': )?(bad play settings )?", "", str(exc))
            raise ValueError(f"--play: {text}") from None
        if not moved:
            asked = {**(play or {}), **{f"{t}:{k}": v for t, c in (table_play or {}).items()
                                        for k, v in c.items()}}  # fmt: skip
            raise ValueError(f"--play: the model already plays {asked} (nothing changes)")
        weights = read_blob(src)["state_dict"]  # the file's own, kept whole (its checksum)
        blob = {**after_meta, "state_dict": weights}
        if not tables:
            del blob[TABLE_SEARCH]
        note = f"play settings changed at export: {', '.join(moved)} ({reason})"
        earlier = blob["provenance"].get("play_settings")  # a change before: both are kept
        blob["provenance"] = {
            **blob["provenance"],
            "play_settings": f"{earlier}; then {note}" if earlier else note,
        }
    dest = out / MODEL_FILE
    in_place = check_out(out, run_dir, force, exported_files)
    prov = meta["provenance"] if blob is None else blob["provenance"]

    def same_play(table: str) -> bool:  # the tables a bar plays, as they were (bars.py)
        try:
            texts = [t.text for t in tables_of(table)]
        except ValueError:  # a table no game takes: not kept
            return False
        return blob is None or all(play_settings(meta, t) == play_settings(blob, t) for t in texts)

    build_folder(out, lambda build: _fill(build, src, run_dir, prov, blob, in_place, same_play))
    return dest


EXPORTED = (MODEL_FILE, "config.toml", "progress.csv", "eval.csv", "learning_curve.png",
            "provenance.json")  # fmt: skip
"""The files an az export writes (a folder exported before its provenance listed them:
:data:`~training.common.export.MANIFEST`)."""


def exported_files(folder: Path) -> frozenset[str] | None:
    """The names of the files an az export wrote into ``folder``
    (:func:`~training.common.export.listed_files`: :data:`EXPORTED` for one exported before
    the list was kept); ``None`` when ``folder`` is no az export (no ``model.pt``, or no
    provenance naming the run and model it came from)."""
    return listed_files(_export_provenance(folder), EXPORTED)


def _export_provenance(folder: Path) -> dict[str, Any] | None:
    """The ``provenance.json`` of the az model folder ``folder``; ``None`` when ``folder`` is
    no such folder (a run directory, say)."""
    return export_provenance(folder, MODEL_FILE, ("run_dir", "model"))


def _fill(
    build: Path,
    src: Path,
    run_dir: Path,
    prov: dict[str, Any],
    blob: dict[str, Any] | None,
    in_place: bool = False,
    same_play: Callable[[str], bool] = lambda _: True,
) -> None:
    """The model folder's files: the model (``blob`` when its play settings changed), the
    run's config, and its records up to the model (progress up to its iteration, evaluations
    up to its games: eval.csv's step) with the learning curve drawn from them; from a model
    folder exported before, its other files too. Its provenance lists the files the export
    wrote (:data:`~training.common.export.MANIFEST`): in place, the files carried over that
    the export before did not write stay unlisted."""
    if blob is None:
        shutil.copyfile(src, build / MODEL_FILE)
    else:
        torch.save(blob, build / MODEL_FILE)
    if (run_dir / "config.toml").exists():
        shutil.copyfile(run_dir / "config.toml", build / "config.toml")
    _rows_upto(run_dir / "progress.csv", "iteration", prov["iteration"], build)
    if _rows_upto(run_dir / "eval.csv", "step", prov["games"], build):
        try:
            plot_curve(build / "eval.csv", build / "learning_curve.png")
        except (KeyError, TypeError, ValueError) as exc:  # a column missing, a bad cell
            raise ValueError(
                f"--export: {run_dir / 'eval.csv'} is damaged (its curve cannot be drawn: "
                f"{type(exc).__name__}: {exc})"
            ) from None
    written = {p.name for p in build.iterdir()} | {"provenance.json"}
    origin: dict[str, Any] = {"run_dir": str(run_dir), "model": str(src)}
    kept: dict[str, Any] = {}
    before = _export_provenance(run_dir)  # a model folder exported before: where it came from
    if before is None and (run_dir / "provenance.json").is_file():
        raise ValueError(
            f"--export: {run_dir / 'provenance.json'} is damaged (not a JSON object naming the "
            "run_dir and model it came from)"
        )
    if before is not None:
        origin = {k: before.get(k, v) for k, v in origin.items()}
        if blob is None and "evaluations" in before:
            kept["evaluations"] = before["evaluations"]  # the same model, the same play
        if isinstance(before.get("seeds"), dict):  # the same weights: how they were chosen
            kept["seeds"] = before["seeds"]
        bars = [b for b in before.get("bars") or [] if isinstance(b, dict)
                and isinstance(b.get("table"), str) and same_play(b["table"])]  # fmt: skip
        if bars:  # the bars of the tables whose play settings stay (training/az/bars.py)
            kept["bars"] = bars
        ours = exported_files(run_dir) or frozenset()
        for f in run_dir.iterdir():  # and the folder's other files (a curve added to it, say)
            if f.is_file() and not f.is_symlink() and f.name not in written:
                shutil.copyfile(f, build / f.name)
                if not in_place or f.name in ours:  # written by this export into a new folder
                    written.add(f.name)
    listed = {MANIFEST: sorted(written)}
    write_json(build / "provenance.json", {**origin, **prov, **kept, **listed})


def _rows_upto(path: Path, column: str, last: int, out: Path) -> int:
    """Copy the rows of the CSV ``path`` whose ``column`` is at most ``last`` into ``out``
    (same name); how many (0: no such file, nothing written)."""
    if not path.exists():
        return 0
    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = [r for r in reader if int(r[column]) <= int(last)]
            fields = reader.fieldnames or []
    except (KeyError, TypeError, ValueError, csv.Error) as exc:  # a column missing, a bad cell
        raise ValueError(
            f"--export: {path} is damaged (each row needs an integer {column!r}: "
            f"{type(exc).__name__}: {exc})"
        ) from None
    write_text(out / path.name, csv_text(rows, fields))
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.az", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--config", default=None, help="a TOML config (over az_default.toml)")
    parser.add_argument("--run-dir", default=None, help="the run directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run-dir")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--workers", type=int, default=None, help="= --set selfplay.threads=N")
    parser.add_argument(
        "--export", default=None, metavar="RUN_DIR", help="export a run or a kept iter_<N>.pt"
    )
    parser.add_argument("--out", default=None, help="with --export: the model folder")
    parser.add_argument("--force", action="store_true", help="with --export: replace a model")
    parser.add_argument(
        "--play", action="append", default=[], metavar="[TABLE:]KEY=VALUE",
        help="with --export: change a play setting of the exported model (needs --why)",
    )  # fmt: skip
    parser.add_argument("--why", default=None, help="with --play: the reason, kept in provenance")
    add_backend_arguments(parser)
    args = parser.parse_args(argv)
    try:
        if args.export is not None:
            if not args.out:
                parser.error("--export needs --out")
            play, table_play = play_changes(args.play)
            print(export(Path(args.export), Path(args.out), args.force, play, args.why,
                         table_play))  # fmt: skip
            return 0
        if args.play or args.why is not None:
            parser.error("--play and --why go with --export")
        if not args.run_dir:
            parser.error("--run-dir is required")
        if args.config is None and not args.resume:
            parser.error("--config is required for a new run")
        overrides = list(args.set)
        if args.workers is not None:
            overrides.append(f"selfplay.threads={args.workers}")
        asked = backend_from_args(args)  # processes: the core's threads in this process
        backend = asked if asked.name == "ray" else None
        command = " ".join(["python -m training.az", *(sys.argv[1:] if argv is None else argv)])
        run = start_run(args.config, overrides, args.run_dir, args.resume, backend, command)
    except (ConfigError, OutputError, BackendError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a run's iteration in progress is dropped at --resume
        if not args.run_dir or args.export is not None:
            raise
        print(
            f"\ninterrupted: the finished iterations are kept in {args.run_dir}; continue "
            f"with:\n  python -m training.az --run-dir {shlex.quote(args.run_dir)} --resume",
            file=sys.stderr,
        )
        return 130
    print(closing_summary(run))
    return 0


def closing_summary(run: Any) -> str:
    """The plain lines a finished run ends with: what it did and where its files are."""
    rows = [
        ("iterations", f"{max(run.iteration, 0)}"),
        ("games played", f"{run.games:,}"),
        ("positions learned from", f"{run.positions:,}"),
        ("gradient steps", f"{run.train_steps:,}"),
        ("wall time", f"{run.seconds / 60:.1f} min"),
        ("model", str(run.run_dir / "model.pt")),
        ("resume with", f"python -m training.az --run-dir {run.run_dir} --resume"),
    ]
    if (run.run_dir / "learning_curve.png").exists():
        rows.append(("learning curve", str(run.run_dir / "learning_curve.png")))
    width = max(len(k) for k, _ in rows)
    return "\n".join(["az run finished:"] + [f"  {k:<{width}}  {v}" for k, v in rows])
