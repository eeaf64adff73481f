"""``python -m training.az --resume`` on a damaged run answers with a named error and exit
status 2, never a traceback (issue 50): ``latest.pt`` replaced by a model file (no optimizer),
by another game's network or with ``env.game`` edited (another shape), with garbage optimizer
state; a truncated replay shard; ``checkpoints/`` a file; a ``--run-dir`` that is a file."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from az_models import SPECS, write_model

from training.az.cli import main as az_main
from training.az.run import start_run

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "training" / "configs" / "az_tiny.toml"
SMALL = ["net.hidden1=8", "net.hidden2=4", "eval.every=0", "eval.final=false"]


@pytest.fixture(scope="module")
def one_iteration(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_resume") / "run"
    start_run(TINY, [*SMALL, "run.iterations=1"], rd, resume=False, command="t", log=print)
    return rd


def _model_as_latest(rd: Path) -> None:
    shutil.copyfile(rd / "model.pt", rd / "checkpoints" / "latest.pt")


def _other_game(rd: Path) -> None:
    write_model(rd / "checkpoints" / "latest.pt", SPECS["kd4"])


def _game_edited(rd: Path) -> None:
    text = (rd / "config.toml").read_text()
    (rd / "config.toml").write_text(text.replace('game = "moonriver"', 'game = "kingdomino"'))


def _garbage_optimizer(rd: Path) -> None:
    path = rd / "checkpoints" / "latest.pt"
    blob = torch.load(path, weights_only=True)
    blob["optimizer"] = {"state": 5, "param_groups": "x"}
    torch.save(blob, path)


def _truncated_shard(rd: Path) -> None:
    shard = sorted((rd / "replay").glob("*.npz"))[-1]
    shard.write_bytes(shard.read_bytes()[:300])


def _checkpoints_a_file(rd: Path) -> None:
    shutil.rmtree(rd / "checkpoints")
    (rd / "checkpoints").write_text("not a folder")


CASES: dict[str, tuple[Callable[[Path], None], str]] = {
    "model file as latest": (_model_as_latest, "is a model file, not a run checkpoint"),
    "another game's latest": (_other_game, "game='kingdomino'"),
    "env.game edited": (_game_edited, "its config.toml changed"),
    "garbage optimizer": (_garbage_optimizer, "its optimizer state or counters are damaged"),
    "truncated shard": (_truncated_shard, "is damaged (BadZipFile"),
    "checkpoints a file": (_checkpoints_a_file, "is a file, not the run's checkpoints folder"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_run_resumes_with_a_named_error(
    case: str, one_iteration: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damage, message = CASES[case]
    rd = tmp_path / "run"
    shutil.copytree(one_iteration, rd)
    damage(rd)
    models = {p: p.read_bytes() for p in sorted(rd.rglob("*.pt"))}
    assert az_main(["--run-dir", str(rd), "--resume", "--set", "run.iterations=2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err
    assert "Traceback" not in err
    assert {p: p.read_bytes() for p in sorted(rd.rglob("*.pt"))} == models  # nothing written


def test_a_run_dir_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "file"
    target.write_text("mine")
    assert az_main(["--config", str(TINY), "--run-dir", str(target)]) == 2
    assert "is a file, not a run directory" in capsys.readouterr().err
    assert target.read_text() == "mine"


@pytest.mark.parametrize("where", ["under a file", "under /proc"])
def test_a_run_dir_that_cannot_hold_a_run_is_refused(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run lock's folder cannot be made: a named error, exit status 2 (issue 50)."""
    blocker = tmp_path / "file"
    blocker.write_text("mine")
    rd = blocker / "run" if where == "under a file" else Path("/proc/no-such-process/run")
    assert az_main(["--config", str(TINY), "--run-dir", str(rd)]) == 2
    assert f"--run-dir: {rd} cannot hold a run" in capsys.readouterr().err
    assert blocker.read_text() == "mine"


def test_the_time_budget_holds_whatever_the_games_say(
    one_iteration: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An iteration asked for many games under run.max_minutes plays them in parts and starts
    none after the budget is spent (issue 50: selfplay.games = 10**9 ignored the budget);
    without a budget the games are one part, as before."""
    import time

    from training.az import run as az_run
    from training.az.config import load_az_config

    monkeypatch.setattr(az_run, "SELFPLAY_PART_GAMES", 4)
    rd = tmp_path / "run"
    shutil.copytree(one_iteration, rd)
    lines: list[str] = []
    run = az_run.Run(load_az_config(rd / "config.toml"), rd, "t", log=lines.append)
    assert run.restore()
    shards = run.play(2, 10_000, deadline=time.perf_counter())
    assert sum(p.games for p in shards) == 4  # the first part only
    assert any("run.max_minutes spent after 4 of 10000 games" in line for line in lines)
    shards = run.play(3, 6)
    assert len(shards) == 1 and shards[0].games == 6
