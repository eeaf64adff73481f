"""The PPO run's checkpoints: ``checkpoints/model_<N>_steps.zip`` (+ ``.json``: steps, run
wall time), written atomically, the last ``checkpoint.keep`` kept; which one a resumed run
continues from (an unreadable one, cut short, is skipped for the newest readable one).
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path
from typing import Any

from training.common.config import ConfigError
from training.common.outputs import save_model, write_json

PRETRAIN_WORK = "pretrain"  # the warm start's games and cloning epochs until step 0 is saved
_CKPT_RE = re.compile(r"model_(\d+)_steps\.zip$")


def save_checkpoint(model: Any, ckpt_dir: Path, wall_time: float, keep: int = 0) -> Path:
    """Save ``model`` as ``model_<N>_steps.zip`` (+ ``.json``: steps, run wall time), both
    atomically, and drop the checkpoints beyond the last ``keep``."""
    path = ckpt_dir / f"model_{model.num_timesteps}_steps.zip"
    save_model(model, path)
    meta = {"num_timesteps": int(model.num_timesteps), "wall_time": round(float(wall_time), 2)}
    write_json(path.with_suffix(".json"), meta)
    if keep > 0:
        for old in list_checkpoints(ckpt_dir)[:-keep]:
            old.unlink(missing_ok=True)
            old.with_suffix(".json").unlink(missing_ok=True)
    return path


def list_checkpoints(ckpt_dir: Path) -> list[Path]:
    """Checkpoint zips of a run, oldest (fewest steps) first."""
    if not ckpt_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in ckpt_dir.iterdir() if (m := _CKPT_RE.search(p.name))]
    return [p for _, p in sorted(found)]


def find_checkpoint(run_dir: Path, had_config: bool) -> tuple[Path | None, float]:
    """The checkpoint a resumed run continues from and the run's wall time so far; ``None,
    0`` when none is readable but the run had its ``config.toml`` (``had_config``: it starts
    again, keeping its warm start); ``ConfigError`` when there is nothing to resume."""
    ckpt_dir = run_dir / "checkpoints"
    for path in reversed(list_checkpoints(ckpt_dir)):
        problem = unreadable(path)
        if problem:
            print(
                f"checkpoint {path.name} is unreadable ({problem}); trying an older one", flush=True
            )
            continue
        meta = path.with_suffix(".json")
        try:
            base_time = float(json.loads(meta.read_text()).get("wall_time", 0.0))
        except (OSError, ValueError, AttributeError):
            base_time = 0.0  # the sidecar is lost: the time limit restarts with this session
        return path, base_time
    if had_config:
        print(
            f"no readable checkpoint in {ckpt_dir}: starting the run again"
            + (" (keeping the warm start done so far)" if _warm_start_kept(run_dir) else ""),
            flush=True,
        )
        return None, 0.0
    raise ConfigError(f"--run-dir: no checkpoint in {ckpt_dir} to resume from")


def unreadable(path: Path) -> str:
    """Why the checkpoint zip ``path`` cannot be loaded ("" when it looks whole: a zip whose
    members pass their CRC checks; a write cut short leaves no central directory)."""
    try:
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()
            if bad is not None:
                return f"{bad} is corrupt"
            if "data" not in z.namelist():
                return "not an SB3 model"
    except (OSError, zipfile.BadZipFile) as e:
        return str(e)
    return ""


def _warm_start_kept(run_dir: Path) -> bool:
    return (run_dir / "pretrained.zip").exists() or (run_dir / PRETRAIN_WORK).is_dir()
