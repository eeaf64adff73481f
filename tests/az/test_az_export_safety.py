"""``python -m training.az --export RUN --out DIR`` replaces only what an export wrote (issue
50): a folder that is no export, a file, the run itself, a folder inside the run or one that
holds it are refused with exit status 2 and nothing on disk changes, with or without
``--force``; an export lists the files it wrote in its provenance, and ``--force`` replaces an
export only when it holds nothing else; the new folder is built beside and swapped in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.az import load_checkpoint
from training.az.cli import EXPORTED, export, exported_files
from training.az.cli import main as az_main
from training.az.run import start_run
from training.common.export import MANIFEST
from training.common.outputs import OutputError, replace_dir

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "training" / "configs" / "az_tiny.toml"
SMALL = ["net.hidden1=8", "net.hidden2=4", "run.iterations=1", "eval.every=0",
         "eval.final=false"]  # fmt: skip


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_export") / "run"
    start_run(TINY, SMALL, rd, resume=False, command="test", log=lambda _: None)
    return rd


@pytest.fixture
def run(trained: Path, tmp_path: Path) -> Path:
    """A copy of the tiny run in ``tmp_path/work/run`` (the test's own)."""
    rd = tmp_path / "work" / "run"
    shutil.copytree(trained, rd)
    return rd


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root`` (hidden ones too): a file's bytes, None for a folder."""
    return {
        str(p.relative_to(root)): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def refused(args: list[str], root: Path, capsys: pytest.CaptureFixture[str], message: str) -> None:
    """``args`` exit with status 2 and ``message`` on stderr, and nothing under ``root``
    changes (no file gone, added or hidden)."""
    before = tree(root)
    assert az_main(args) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert tree(root) == before


@pytest.mark.parametrize("force", [False, True])
def test_a_folder_that_is_no_export_is_never_emptied(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    out = tmp_path / "mine"
    (out / "sub").mkdir(parents=True)
    (out / "keep").write_text("mine")
    (out / "sub" / "deep.txt").write_text("mine too")
    args = ["--export", str(run), "--out", str(out), *(["--force"] if force else [])]
    refused(args, tmp_path, capsys, "holds no model exported before ('keep', 'sub')")


@pytest.mark.parametrize("force", [False, True])
def test_an_out_that_is_a_file_or_a_link_stays(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    flag = ["--force"] if force else []
    target = tmp_path / "notes.txt"
    target.write_text("my notes")
    refused(["--export", str(run), "--out", str(target), *flag], tmp_path, capsys,
            "is a file or a link")  # fmt: skip
    assert not list(tmp_path.glob(".notes.txt*"))  # not hidden aside either
    refused(["--export", str(run), "--out", str(target / "sub"), *flag], tmp_path, capsys,
            "cannot be written")  # fmt: skip
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "work")
    refused(["--export", str(run), "--out", str(link), *flag], tmp_path, capsys,
            "is a file or a link")  # fmt: skip


@pytest.mark.parametrize("force", [False, True])
def test_the_run_a_folder_inside_it_or_one_holding_it_are_refused(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    """--out RUN would delete its checkpoints and replay (no resume), --out its parent the
    run itself; a folder inside the run would write into it. The kept iteration's file as
    the source protects its run the same way."""
    flag = ["--force"] if force else []
    kept = run / "checkpoints" / "iter_00000.pt"
    cases = [
        (run, run, "is the run directory being exported"),
        (run, run.parent, f"contains {run}"),
        (run, tmp_path, f"contains {run}"),
        (run, run / "export", f"is inside {run}"),
        (run, run / "checkpoints", f"is inside {run}"),
        (kept, run, "is the run directory being exported"),
        (kept, run.parent, f"contains {run}"),
        (kept, run / "checkpoints", f"is inside {run}"),
    ]
    for source, out, message in cases:
        refused(["--export", str(source), "--out", str(out), *flag], tmp_path, capsys, message)
    assert (run / "checkpoints" / "latest.pt").is_file() and (run / "replay").is_dir()
    # the run still resumes: its checkpoint is whole
    assert load_checkpoint(run / "checkpoints" / "latest.pt")[1]["provenance"]["iteration"] == 1


def test_an_export_lists_its_files_and_force_replaces_only_those(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "model"
    out.mkdir()  # an empty folder is taken
    assert az_main(["--export", str(run), "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    prov = json.loads((out / "provenance.json").read_text())
    assert prov[MANIFEST] == names and exported_files(out) == set(names)
    assert set(names) <= set(EXPORTED)
    refused(["--export", str(run), "--out", str(out)], tmp_path, capsys, "pass --force")
    (out / "notes.md").write_text("what I measured")
    refused(["--export", str(run), "--out", str(out), "--force"], tmp_path, capsys,
            "did not write ('notes.md')")  # fmt: skip
    (out / "notes.md").unlink()
    (out / "extra").mkdir()
    refused(["--export", str(run), "--out", str(out), "--force"], tmp_path, capsys,
            "did not write ('extra')")  # fmt: skip
    (out / "extra").rmdir()
    assert az_main(["--export", str(run), "--out", str(out), "--force"]) == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no build left
    # an export from before the manifest (the shipped folders): its known files only
    del prov[MANIFEST]
    (out / "provenance.json").write_text(json.dumps(prov))
    assert exported_files(out) == set(EXPORTED)
    assert az_main(["--export", str(run), "--out", str(out), "--force"]) == 0


def test_in_place_re_export_keeps_the_files_added_by_hand_unlisted(
    run: Path, tmp_path: Path
) -> None:
    """A model folder re-exported over itself (new play settings) carries the files added to
    it, and they stay its owner's: a later export elsewhere with --force still refuses
    them."""
    out = tmp_path / "model"
    assert az_main(["--export", str(run), "--out", str(out)]) == 0
    (out / "curve.csv").write_text("hours,win_rate\n")
    args = ["--export", str(out), "--out", str(out), "--force", "--play", "k=2", "--why", "x"]
    assert az_main(args) == 0
    assert (out / "curve.csv").read_text() == "hours,win_rate\n"
    assert "curve.csv" not in exported_files(out)  # type: ignore[operator]
    with pytest.raises(OutputError, match="'curve.csv'"):
        export(run, out, force=True)


def test_damaged_records_are_named_errors(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run's progress.csv without its column or with a bad cell, and a model folder's
    damaged provenance.json: exit status 2 naming the file, nothing written."""
    (run / "progress.csv").write_text("iteration,loss\nabc,1\n")
    refused(["--export", str(run), "--out", str(tmp_path / "a")], tmp_path, capsys,
            "progress.csv is damaged")  # fmt: skip
    (run / "progress.csv").write_text("loss\n1\n")
    refused(["--export", str(run), "--out", str(tmp_path / "a")], tmp_path, capsys,
            "progress.csv is damaged")  # fmt: skip
    (run / "progress.csv").unlink()
    good = (run / "eval.csv").read_text() if (run / "eval.csv").exists() else None
    (run / "eval.csv").write_text("step,wall_time,opponent\n0,0.1,random\n")  # no win_rate
    refused(["--export", str(run), "--out", str(tmp_path / "a")], tmp_path, capsys,
            "eval.csv is damaged (its curve cannot be drawn")  # fmt: skip
    if good is None:
        (run / "eval.csv").unlink()
    else:
        (run / "eval.csv").write_text(good)
    folder = tmp_path / "folder"
    assert az_main(["--export", str(run), "--out", str(folder)]) == 0
    (folder / "provenance.json").write_text("{not json")
    refused(["--export", str(folder / "model.pt"), "--out", str(tmp_path / "b")], tmp_path,
            capsys, "provenance.json is damaged")  # fmt: skip


def test_replace_dir_swaps_folders_and_never_replaces_a_file(tmp_path: Path) -> None:
    dest, build = tmp_path / "dest", tmp_path / "build"
    dest.mkdir()
    (dest / "old").write_text("old")
    build.mkdir()
    (build / "new").write_text("new")
    replace_dir(build, dest)
    assert [p.name for p in dest.iterdir()] == ["new"] and not build.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dest"]
    build.mkdir()
    target = tmp_path / "file"
    target.write_text("a file")
    with pytest.raises(OutputError, match="not a folder"):
        replace_dir(build, target)
    assert target.read_text() == "a file" and build.is_dir()
