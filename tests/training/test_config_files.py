"""A config that cannot be read, and a ``--set`` that is not one value, are named errors with exit
status 2 that leave nothing behind, in every pipeline that reads a config (issue 50, findings 7
and 8: ``--config`` a folder, not UTF-8, arrays nested 5,000 deep, ``--set 'run.seed=1\\n[x]\\ny=2'``
silently dropping the rest); and a run lock that saw nothing written leaves no folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from training.common.outputs import RunLock

ROOT = Path(__file__).resolve().parents[2]


def _mains() -> dict[str, Callable[[list[str]], int]]:
    from training.az.cli import main as az
    from training.rllib.train import main as rllib
    from training.value.train import main as value

    return {"az": az, "rllib": rllib, "value": value}


BAD_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "folder.toml": (lambda p: p.mkdir(), "cannot be read (Is a directory)"),
    "latin1.toml": (lambda p: p.write_bytes(b"[env]\nmode = '\xe9'\n"), "is not UTF-8 text"),
    "deep.toml": (
        lambda p: p.write_text("v = " + "[" * 5000 + "]" * 5000 + "\n"),
        "arrays or tables nested too deeply",
    ),
    "huge.toml": (
        lambda p: p.write_text("# " + "x" * (1 << 20) + "\n"),
        "is over 1,048,576 bytes; not a config",
    ),
}


@pytest.mark.parametrize("pipeline", ["az", "rllib", "value"])
def test_a_config_that_cannot_be_read_exits_2_leaving_nothing(
    pipeline: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main = _mains()[pipeline]
    for name, (make, message) in BAD_FILES.items():
        make(tmp_path / name)
        rd = tmp_path / "runs" / "r"
        assert main(["--config", str(tmp_path / name), "--run-dir", str(rd)]) == 2, name
        err = capsys.readouterr().err
        assert "config: " in err and name in err and message in err, err
        assert not (tmp_path / "runs").exists(), name  # no run folder, no lock file


SETS = [
    ("run.seed=1\n[x]\ny=2", "run.seed: expected one value, got '1\\n[x]\\ny=2' (more after"),
    ("run.seed=1\nrun.other=3", "run.seed: expected one value"),
    ("run.seed=" + "[" * 5000, "run.seed: arrays nested too deeply"),
]


@pytest.mark.parametrize("pipeline", ["az", "rllib"])
@pytest.mark.parametrize(("item", "message"), SETS)
def test_a_set_that_is_not_one_value_exits_2_leaving_nothing(
    pipeline: str, item: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = {"az": ROOT / "training" / "configs" / "az_tiny.toml", "rllib": None}[pipeline]
    rd = tmp_path / "r"
    argv = [*(["--config", str(config)] if config else []), "--run-dir", str(rd), "--set", item]
    assert _mains()[pipeline](argv) == 2
    assert message in capsys.readouterr().err
    assert not rd.exists()


def test_the_value_pipeline_refuses_the_same_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its --set reads through the same parser (the section named: ``run``)."""
    config = ROOT / "training" / "value" / "configs"
    files = sorted(config.glob("*.toml")) if config.is_dir() else []
    assert files, "the value pipeline ships a config"
    for item, message in SETS:
        rd = tmp_path / "r"
        argv = ["--config", str(files[0]), "--run-dir", str(rd), "--set", item]
        assert _mains()["value"](argv) == 2
        assert message in capsys.readouterr().err
        assert not rd.exists()


def test_a_lock_that_saw_nothing_written_leaves_nothing(tmp_path: Path) -> None:
    made = tmp_path / "a" / "b" / "run"
    with RunLock(made):
        assert sorted(p.name for p in made.iterdir()) == [".lock"]
    assert not (tmp_path / "a").exists()  # the folders it made go with its file
    mine = tmp_path / "mine"
    mine.mkdir()
    with RunLock(mine):
        pass
    assert mine.is_dir() and not any(mine.iterdir())  # a folder it did not make stays
    with RunLock(made):
        (made / "config.toml").write_text("x = 1\n")
    assert sorted(p.name for p in made.iterdir()) == [".lock", "config.toml"]
    with RunLock(made):  # a lock file it did not make stays, with the run
        pass
    assert sorted(p.name for p in made.iterdir()) == [".lock", "config.toml"]
