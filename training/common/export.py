"""Keep a trained model in the repository, with where it came from.

    python -m training.export --run-dir runs/full1 --model best --name ppo_2p_base \\
        --command "python -m training.train --full --run-dir runs/full1" \\
        --evaluation runs/full1/evaluation.json

copies the run's model (``best``: ``best_model.zip``, ``final``: ``final_model.zip``, or a
path) to ``agents/checkpoints/NAME/model.zip`` together with the run's ``config.toml`` (so
``training.common.ladder.infer_game`` knows its game), ``eval.csv``, ``learning_curve.png`` and the
evaluation's ``evaluation.png`` (when ``--evaluation`` names one beside it), and
writes ``provenance.json``: the command and budget that produced it (the run's config and
``summary.json``: steps, wall time, warm start), the git commit, the machine, the run's final
evaluation and, with ``--evaluation``, a separate evaluation report (``training.common.ladder``'s
``evaluation.json``). A model over ``--max-mb`` (default 5) is refused: the repository keeps
small checkpoints only. An existing ``NAME`` is refused unless ``--force``, which replaces the
whole folder at once (no stale file of the old export, e.g. its ``evaluation.png``, remains).

The shipped 2-player checkpoint is ``agents/checkpoints/ppo_2p_base`` (agent spec ``ppo``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from agents.shipped import CHECKPOINTS
from moonriver_env.bench import cpu_model
from training.common.outputs import OutputError, replace_dir, write_json
from training.common.provenance import git_commit


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def export_checkpoint(
    run_dir: Path,
    model: str,
    name: str,
    command: str,
    *,
    dest_root: Path = CHECKPOINTS,
    evaluation: Path | None = None,
    max_mb: float = 5.0,
    commit: str | None = None,
    force: bool = False,
) -> Path:
    """Copy a run's model and its records to ``dest_root/name``; return that folder. An
    existing ``name`` is refused unless it is a model this wrote (:func:`exported_files`)
    holding nothing else, and ``force`` is given (:func:`check_out`); then the whole folder is
    replaced at once (built beside it, then swapped in: none of the old files remain)."""
    if not (run_dir / "config.toml").is_file():
        raise ValueError(f"run_dir: no training run (config.toml) in {str(run_dir)!r}")
    source = {"best": run_dir / "best_model.zip", "final": run_dir / "final_model.zip"}.get(
        model, Path(model)
    )
    if not source.exists():
        raise ValueError(f"model: no file {str(source)!r}")
    size_mb = source.stat().st_size / 1e6
    if size_mb > max_mb:
        raise ValueError(f"model: {source} is {size_mb:.1f} MB, over the {max_mb} MB limit")
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name: expected a folder name, got {name!r}")
    if evaluation is not None and not evaluation.exists():
        raise ValueError(f"evaluation: no file {str(evaluation)!r}")
    final = dest_root / name
    check_out(final, run_dir, force, exported_files, flag="name")
    return build_folder(
        final, lambda dest: _fill(dest, source, run_dir, model, command, evaluation, commit)
    )


MANIFEST = "exported_files"
"""The key of an exported model folder's ``provenance.json`` that lists the files the export
wrote there: the files a later export with ``--force`` may replace (:func:`check_out`)."""


def check_out(
    out: Path,
    source: Path,
    force: bool,
    ours: Callable[[Path], Collection[str] | None],
    flag: str = "--out",
) -> bool:
    """Refuse (:class:`~training.common.outputs.OutputError`, nothing changed) a destination
    ``out`` for an export of the folder ``source`` (a run directory or a model folder exported
    before) where the export would replace what it did not write: ``out`` a file or a link;
    ``out`` the run directory, a folder inside ``source`` or one that contains it; a
    non-empty ``out`` that is not an export (``ours(out)``: the names of the files an export
    wrote there, ``None`` for anything else) or holds other entries than those; an export
    without ``force``. ``out`` may be ``source`` itself when ``source`` is an export (a
    re-export in place, with ``force``): its other plain files are carried into the new one.
    Returns whether the export is in place."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise OutputError(
            f"{flag}: {out} is a file or a link, not a model folder; an export writes a folder "
            "and never replaces a file: choose a new or empty folder"
        )
    where, src = out.resolve(), source.resolve()
    if where in src.parents:
        raise OutputError(
            f"{flag}: {out} contains {source}, the source of the export; an export never writes "
            "over its source: choose a folder outside it"
        )
    if src in where.parents:
        raise OutputError(
            f"{flag}: {out} is inside {source}, the source of the export; an export never "
            "writes into its source: choose a folder outside it"
        )
    in_place = where == src
    if in_place and ours(source) is None:
        raise OutputError(
            f"{flag}: {out} is the run directory being exported; an export never writes over "
            "its run: choose a new or empty folder"
        )
    entries = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if not entries:
        return in_place
    written = ours(out)
    if written is None:
        raise OutputError(
            f"{flag}: {out} is not empty and holds no model exported before ({_names(entries)}); "
            "an export replaces only a folder it wrote: choose a new or empty folder"
        )
    if not force:
        raise OutputError(f"{flag}: {out} holds an exported model; pass --force to replace it")
    others = [n for n in entries if n not in written]
    if in_place:  # carried into the new folder: only plain files can be
        others = [n for n in others if (out / n).is_symlink() or not (out / n).is_file()]
    if others:
        raise OutputError(
            f"{flag}: {out} holds entries the export did not write ({_names(others)}); "
            "--force replaces only an export's own files: move them out or choose another folder"
        )
    return in_place


def _names(names: Sequence[str], most: int = 5) -> str:
    """Some of ``names``, quoted, for a message."""
    shown = ", ".join(repr(n) for n in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def build_folder(out: Path, fill: Callable[[Path], object]) -> Path:
    """The model folder ``out`` made whole at once: ``fill(build)`` writes its files into a
    fresh folder beside it, which then replaces ``out``
    (:func:`~training.common.outputs.replace_dir`: none of an old folder's files remain); a
    failure leaves the old folder and no build. Returns ``out``."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=f".{out.name}.build", dir=out.parent))
    except OSError as exc:  # a file on the way, no permission
        raise OutputError(f"{out}: cannot be written ({exc.strerror or exc})") from None
    try:
        fill(build)
        os.chmod(build, 0o755)  # mkdtemp makes it private
        replace_dir(build, out)
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    return out


EXPORTED = ("model.zip", "config.toml", "eval.csv", "learning_curve.png", "evaluation.png",
            "provenance.json")  # fmt: skip
"""The files :func:`export_checkpoint` writes (a folder exported before its provenance listed
them: :data:`MANIFEST`)."""


def exported_files(folder: Path) -> frozenset[str] | None:
    """The names of the files :func:`export_checkpoint` wrote into ``folder``
    (:func:`listed_files`); ``None`` when ``folder`` is no such export (no ``model.zip``, or
    no provenance naming the model and the command that made it)."""
    return listed_files(export_provenance(folder, "model.zip", ("model", "command")), EXPORTED)


def export_provenance(folder: Path, model: str, keys: Collection[str]) -> dict[str, Any] | None:
    """The ``provenance.json`` of the model folder ``folder`` when it is an export: the model
    file ``model`` beside it and a JSON object holding ``keys``; ``None`` otherwise (a run
    directory, a damaged file)."""
    path = folder / "provenance.json"
    if not (folder / model).is_file() or not path.is_file():
        return None
    try:
        prov = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return prov if isinstance(prov, dict) and set(keys) <= prov.keys() else None


def listed_files(prov: dict[str, Any] | None, before: Sequence[str]) -> frozenset[str] | None:
    """The files an export's provenance ``prov`` lists as written (:data:`MANIFEST`; ``before``
    for an export written before the list was kept); ``None`` for no export or a list that
    is not one of names."""
    if prov is None:
        return None
    listed = prov.get(MANIFEST, list(before))
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        return None
    return frozenset(listed)


def _fill(
    dest: Path,
    source: Path,
    run_dir: Path,
    model: str,
    command: str,
    evaluation: Path | None,
    commit: str | None,
) -> None:
    """Write the exported folder's files into ``dest``."""
    shutil.copyfile(source, dest / "model.zip")
    shutil.copyfile(run_dir / "config.toml", dest / "config.toml")
    for extra in ("eval.csv", "learning_curve.png"):
        if (run_dir / extra).exists():
            shutil.copyfile(run_dir / extra, dest / extra)
    if evaluation is not None and (evaluation.parent / "evaluation.png").exists():
        shutil.copyfile(evaluation.parent / "evaluation.png", dest / "evaluation.png")
    with (run_dir / "config.toml").open("rb") as f:
        config = tomllib.load(f)
    best = _read_json(run_dir / "best_model.json")
    provenance = {
        "model": f"{model} ({source.name})",
        "model_step": best.get("step") if model == "best" and best else None,
        "command": command,
        "budget": {
            "time_limit_minutes": config["run"]["time_limit_minutes"],
            "total_timesteps": config["run"]["total_timesteps"],
            "n_envs": config["run"]["n_envs"],
        },
        "run_summary": _read_json(run_dir / "summary.json"),
        "git_commit": commit or git_commit(),
        "machine": {
            "python": platform.python_version(),
            "cpu": cpu_model(),
            "cpus": os.cpu_count(),
        },
        "final_eval": _read_json(run_dir / "final_eval.json"),
        "evaluation": _read_json(evaluation) if evaluation is not None else None,
    }
    provenance[MANIFEST] = sorted({p.name for p in dest.iterdir()} | {"provenance.json"})
    write_json(dest / "provenance.json", provenance)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.export", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--run-dir", required=True, help="the training run's directory")
    ap.add_argument("--model", default="best", help="best, final, or a model path")
    ap.add_argument("--name", required=True, help="folder under agents/checkpoints/")
    ap.add_argument("--command", required=True, help="the command that produced the run")
    ap.add_argument("--evaluation", default=None, help="an evaluation.json to keep with it")
    ap.add_argument("--dest", default=str(CHECKPOINTS), help="default: agents/checkpoints")
    ap.add_argument("--max-mb", type=float, default=5.0)
    ap.add_argument("--commit", default=None, help="the code's commit at training (default: HEAD)")
    ap.add_argument("--force", action="store_true", help="replace an existing NAME folder")
    args = ap.parse_args(argv)
    try:
        dest = export_checkpoint(
            Path(args.run_dir),
            args.model,
            args.name,
            args.command,
            dest_root=Path(args.dest),
            evaluation=Path(args.evaluation) if args.evaluation else None,
            max_mb=args.max_mb,
            commit=args.commit,
            force=args.force,
        )
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {dest}: " + ", ".join(sorted(p.name for p in dest.iterdir())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
