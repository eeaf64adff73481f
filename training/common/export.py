"""Keep a trained model in the repository, with where it came from.

    python -m training.export --run-dir runs/ppo --name ppo_2p_sparse \\
        --command "python -m training.ppo.ppo --game moonriver_2p_base --minutes 60 --run-dir runs/ppo"

copies the reference PPO run's model (``model.pt`` of :mod:`training.ppo.ppo`, or ``--model
PATH``) to ``agents/checkpoints/NAME/model.pt`` together with the run's settings
(``args.json``, and as ``config.toml``: :func:`run_config`) and ``summary.json`` (steps, wall time, its evaluations with their Wilson
intervals), and writes ``provenance.json``: the command, the budget, the git commit, the
machine and, with ``--evaluation``, a separate evaluation report (``evaluation.json`` of
``python -m training.evaluate``). The model then plays as the agent ``ppo:agents/checkpoints/
NAME/model.pt``. A model over ``--max-mb`` (default 5) is refused: the repository keeps small
checkpoints only. An existing ``NAME`` is refused unless ``--force``, which replaces the whole
folder at once (no stale file of the old export remains).

The other pipelines export with their own commands (``python -m training.az --export``,
``python -m training.value.train --export``) through the same :func:`check_out` and
:func:`build_folder`. The shipped 2-player MaskablePPO model, ``agents/checkpoints/ppo_2p_base``
(agent spec ``ppo``), was exported by the MaskablePPO pipeline this module served before
(:data:`EXPORTED`: its files).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from agents.shipped import CHECKPOINTS
from moonriver_env.bench import cpu_model
from moonriver_env.games import parse_game
from training.common.config import dumps
from training.common.outputs import OutputError, replace_dir, write_json
from training.common.provenance import git_commit


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


RUN_FILES = ("model.pt", "args.json", "summary.json")
"""What a finished run of :mod:`training.ppo.ppo` holds and an export copies."""


def export_checkpoint(
    run_dir: Path,
    name: str,
    command: str,
    *,
    model: Path | None = None,
    dest_root: Path = CHECKPOINTS,
    evaluation: Path | None = None,
    max_mb: float = 5.0,
    commit: str | None = None,
    force: bool = False,
) -> Path:
    """Copy a reference PPO run's model (``model``: default the run's ``model.pt``) and its
    records to ``dest_root/name``; return that folder. An existing ``name`` is refused unless
    it is a model this wrote (:func:`exported_files`) holding nothing else, and ``force`` is
    given (:func:`check_out`); then the whole folder is replaced at once (built beside it,
    then swapped in: none of the old files remain)."""
    for needed in RUN_FILES[1:]:
        if not (run_dir / needed).is_file():
            raise ValueError(
                f"run_dir: no finished run of training.ppo.ppo ({needed}) in {str(run_dir)!r}"
            )
    source = model if model is not None else run_dir / "model.pt"
    if not source.is_file():
        raise ValueError(f"model: no file {str(source)!r}")
    size_mb = source.stat().st_size / 1e6
    if size_mb > max_mb:
        raise ValueError(f"model: {source} is {size_mb:.1f} MB, over the {max_mb} MB limit")
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"name: expected a folder name, got {name!r}")
    if evaluation is not None and not evaluation.is_file():
        raise ValueError(f"evaluation: no file {str(evaluation)!r}")
    final = dest_root / name
    check_out(final, run_dir, force, exported_files, flag="name")
    return build_folder(
        final, lambda dest: _fill(dest, source, run_dir, command, evaluation, commit)
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
"""The files the MaskablePPO pipeline's export wrote (the shipped ``ppo_2p_base``), for a folder
exported before its provenance listed them (:data:`MANIFEST`)."""


def exported_files(folder: Path) -> frozenset[str] | None:
    """The names of the files an export of this module wrote into ``folder``
    (:func:`listed_files`); ``None`` when ``folder`` is no such export (no model file, or no
    provenance naming the model and the command that made it)."""
    for model in ("model.pt", "model.zip"):
        prov = export_provenance(folder, model, ("model", "command"))
        if prov is not None:
            return listed_files(prov, EXPORTED)
    return None


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


def run_config(args: dict[str, Any]) -> str:
    """The ``config.toml`` of an exported run, as every shipped model folder has one: the
    table (``[env]``: the game's name, players, mode and scenario) and the run's settings
    (``[ppo]``: those of ``args.json`` that are plain values)."""
    spec = parse_game(str(args["game"]))
    env: dict[str, Any] = {"game": spec.game, "num_players": spec.num_players, "mode": spec.mode}
    if spec.scenario is not None:
        env["scenario"] = spec.scenario
    plain = {k: v for k, v in args.items() if isinstance(v, (bool, int, float, str))}
    return dumps({"env": env, "ppo": plain})


def _fill(
    dest: Path,
    source: Path,
    run_dir: Path,
    command: str,
    evaluation: Path | None,
    commit: str | None,
) -> None:
    """Write the exported folder's files into ``dest``."""
    shutil.copyfile(source, dest / "model.pt")
    for kept in RUN_FILES[1:]:
        shutil.copyfile(run_dir / kept, dest / kept)
    args = json.loads((run_dir / "args.json").read_text())
    (dest / "config.toml").write_text(run_config(args), encoding="utf-8")
    provenance = {
        "model": str(source),
        "game": args.get("game"),
        "command": command,
        "budget": {k: args.get(k) for k in ("minutes", "total_steps", "num_games", "num_steps")},
        "run_summary": _read_json(run_dir / "summary.json"),
        "git_commit": commit or git_commit(),
        "machine": {
            "python": platform.python_version(),
            "cpu": cpu_model(),
            "cpus": os.cpu_count(),
        },
        "evaluation": _read_json(evaluation) if evaluation is not None else None,
    }
    provenance[MANIFEST] = sorted({p.name for p in dest.iterdir()} | {"provenance.json"})
    write_json(dest / "provenance.json", provenance)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.export", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--run-dir", required=True, help="the run folder of training.ppo.ppo")
    ap.add_argument("--model", default=None, help="a model file (default: the run's model.pt)")
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
            args.name,
            args.command,
            model=Path(args.model) if args.model else None,
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
