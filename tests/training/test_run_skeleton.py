"""The run skeleton every pipeline shares (training/common/run.py), the model-folder export
(training/common/export.py, ``build_folder``), and that training/common needs no one
pipeline's library (SB3) to evaluate through the ladder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from training.common.config import ConfigError, Schema, dumps, integer
from training.common.export import build_folder
from training.common.outputs import OutputError
from training.common.run import (
    RUN_CONFIG,
    begin_run,
    budget_fraction,
    budget_spent,
    holds_run,
    iterate,
    resolve_config,
)

ROOT = Path(__file__).resolve().parents[2]


def _no_cross_check(cfg: dict) -> None:
    if cfg["run"]["steps"] > 100:
        raise ConfigError("run.steps: at most 100 in this toy schema")


@pytest.fixture
def toy(tmp_path: Path) -> Schema:
    defaults = tmp_path / "toy_default.toml"
    defaults.write_text("[run]\nsteps = 10\n[net]\nwidth = 4\n")
    keys = {"run": {"steps": integer(1)}, "net": {"width": integer(1)}}
    return Schema(keys, defaults, _no_cross_check, fixed_on_resume=("net",))


def test_a_new_run_writes_its_config_and_a_second_new_run_is_refused(
    toy: Schema, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    lines: list[str] = []
    cfg = resolve_config(toy, run_dir, False, None, ["run.steps=20"], log=lines.append)
    assert begin_run(toy, run_dir, cfg, False, log=lines.append) is None
    assert toy.load(run_dir / RUN_CONFIG) == cfg == {"run": {"steps": 20}, "net": {"width": 4}}
    assert lines == ["config: toy_default.toml with\n  run.steps = 20  (was 10)"]
    assert holds_run(run_dir)
    with pytest.raises(OutputError, match=r"^--run-dir: .* already holds a run; pass --resume"):
        begin_run(toy, run_dir, cfg, False, log=lines.append)


def test_a_checkpoint_alone_makes_a_run(toy: Schema, tmp_path: Path) -> None:
    (tmp_path / "checkpoints").mkdir()
    assert not holds_run(tmp_path)
    (tmp_path / "checkpoints" / "latest.pt").write_bytes(b"")
    assert holds_run(tmp_path)


def test_resume_reads_the_saved_config_and_refuses_a_fixed_section(
    toy: Schema, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    with pytest.raises(OutputError, match="^--resume: no run in"):
        resolve_config(toy, run_dir, True, None, [])
    run_dir.mkdir()
    (run_dir / RUN_CONFIG).write_text(dumps(toy.load(None, ["run.steps=30"])))
    lines: list[str] = []
    other = tmp_path / "other.toml"
    other.write_text("[run]\nsteps = 50\n")
    cfg = resolve_config(toy, run_dir, True, other, ["run.steps=40"], log=lines.append)
    assert cfg["run"]["steps"] == 40  # the saved config, --set on top; --config ignored
    assert lines == [f"--resume: using {run_dir / RUN_CONFIG}, not {other}"]
    az_like = resolve_config(toy, run_dir, True, other, [], config_on_resume=True)
    assert az_like["run"]["steps"] == 50
    seen: list[object] = []
    before = begin_run(toy, run_dir, cfg, True, prepare=seen.append, log=lines.append)
    assert before == seen[0] == {"run": {"steps": 30}, "net": {"width": 4}}
    assert toy.load(run_dir / RUN_CONFIG)["run"]["steps"] == 40
    wider = resolve_config(toy, run_dir, True, None, ["net.width=8"])
    with pytest.raises(ConfigError, match=r"^net\.width: cannot change on --resume"):
        begin_run(toy, run_dir, wider, True, prepare=seen.append, log=lines.append)
    assert len(seen) == 1  # refused before the pipeline's clean-up
    assert toy.load(run_dir / RUN_CONFIG)["net"]["width"] == 4  # nothing written


def test_a_bad_value_is_a_named_error(toy: Schema, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^run\.steps: at most 100"):
        resolve_config(toy, tmp_path, False, None, ["run.steps=101"])
    with pytest.raises(ConfigError, match=r"^net\.depth: unknown key"):
        resolve_config(toy, tmp_path, False, None, ["net.depth=2"])


def test_iterate_runs_the_periodic_actions_until_the_budget_is_spent() -> None:
    done_at = 7
    count = [0]
    calls: list[tuple[str, int]] = []

    def step() -> int:
        count[0] += 1
        return count[0]

    iterate(
        step,
        lambda: budget_spent(count[0], done_at, 0.0, 0.0) is not None,
        [(3, lambda it: calls.append(("eval", it))), (0, lambda it: calls.append(("never", it))),
         (2, lambda it: calls.append(("save", it)))],
    )  # fmt: skip
    assert count[0] == done_at
    assert calls == [("save", 2), ("eval", 3), ("save", 4), ("eval", 6), ("save", 6)]


def test_budget_spent_names_the_budget() -> None:
    assert budget_spent(3, 3, 0.0, 1.0) == "iterations"
    assert budget_spent(2, 3, 60.0, 1.0) == "minutes"
    assert budget_spent(2, 0, 59.0, 1.0) is None
    assert budget_spent(10**6, 0, 10**6, 0.0) is None  # 0: no limit


def test_budget_fraction_is_the_larger_share_spent() -> None:
    assert budget_fraction(1, 4, 30.0, 1.0) == 0.5  # the minutes are further on
    assert budget_fraction(3, 4, 30.0, 1.0) == 0.75
    assert budget_fraction(3, 4, 30.0, 0.0) == 0.75  # 0: no limit
    assert budget_fraction(0, 0, 90.0, 1.0) == 1.0  # at most the whole
    assert budget_fraction(-1, 4, 0.0, 0.0) == 0.0  # a run not started


def test_build_folder_replaces_the_whole_folder_or_nothing(tmp_path: Path) -> None:
    out = tmp_path / "models" / "m"
    build_folder(out, lambda d: (d / "a.txt").write_text("1"))
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]
    assert out.stat().st_mode & 0o777 == 0o755

    def failing(d: Path) -> None:
        (d / "b.txt").write_text("2")
        raise RuntimeError("cut short")

    with pytest.raises(RuntimeError):
        build_folder(out, failing)
    assert sorted(p.name for p in out.parent.iterdir()) == ["m"]  # no build left behind
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]
    build_folder(out, lambda d: (d / "b.txt").write_text("2"))
    assert sorted(p.name for p in out.iterdir()) == ["b.txt"]  # none of the old files remain


def test_the_common_base_and_az_evaluate_without_sb3() -> None:
    """training/common (and the az pipeline, which evaluates through its ladder) import with
    stable_baselines3 and sb3_contrib unavailable."""
    code = (
        "import sys\n"
        "sys.modules['stable_baselines3'] = None\n"
        "sys.modules['sb3_contrib'] = None\n"
        "import training.common.config, training.common.run, training.common.ladder\n"
        "import training.common.export, training.common.outputs, training.common.provenance\n"
        "import training.az.run\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def _ppo_run(root: Path) -> Path:
    """A run folder as ``training.export`` reads it (a reference PPO run's settings, summary
    and model file)."""
    run = root / "run"
    run.mkdir(parents=True)
    (run / "args.json").write_text('{"game": "moonriver_2p_base", "total_steps": 100}')
    (run / "summary.json").write_text('{"steps": 100}')
    (run / "model.pt").write_bytes(b"weights")
    return run


def test_the_ppo_export_replaces_only_its_own_folder(tmp_path: Path) -> None:
    """``training.export`` (issue 50): a folder that is no export, a file, the run or a folder
    holding it are refused even with --force and stay as they were; its export lists its
    files, and --force replaces it while it holds nothing else. The shipped MaskablePPO folder
    is recognised as an export of its files."""
    from agents.shipped import CHECKPOINTS
    from training.common.export import EXPORTED, MANIFEST, export_checkpoint, exported_files

    run = _ppo_run(tmp_path)
    dest = tmp_path / "models"
    (dest / "mine").mkdir(parents=True)
    (dest / "mine" / "notes.txt").write_text("mine")
    (dest / "afile").write_text("a file")

    def export(name: str, root: Path = dest) -> Path:
        return export_checkpoint(run, name, "c", dest_root=root, commit="x", force=True)

    with pytest.raises(OutputError, match="holds no model exported before"):
        export("mine")
    with pytest.raises(OutputError, match="is a file or a link"):
        export("afile")
    with pytest.raises(OutputError, match="is the run directory"):
        export("run", tmp_path)
    with pytest.raises(OutputError, match="contains"):
        export(tmp_path.name, tmp_path.parent)
    assert (dest / "mine" / "notes.txt").read_text() == "mine"
    assert (dest / "afile").read_text() == "a file"
    assert (run / "model.pt").read_bytes() == b"weights"
    out = export("new")
    listed = set(json.loads((out / "provenance.json").read_text())[MANIFEST])
    assert listed == {p.name for p in out.iterdir()} == exported_files(out)
    export("new")  # its own export: replaced
    (out / "notes.txt").write_text("added")
    with pytest.raises(OutputError, match="did not write \\('notes.txt'\\)"):
        export("new")
    assert exported_files(CHECKPOINTS / "ppo_2p_base") == set(EXPORTED)
    assert {p.name for p in (CHECKPOINTS / "ppo_2p_base").iterdir()} <= set(EXPORTED)
