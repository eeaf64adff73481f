"""Issue 32: a tournament's ``games.csv`` is checked on resume (rows past the run's games, a row
twice, rows that contradict their game, a missing header, a directory in its place), and the
replay tool answers a bad move list or ``-o`` with one line; both CLIs exit 2 without a
traceback and a rejected resume leaves the folder as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agents.replay.__main__ import main as replay_main
from agents.tournament.cli import main as tournament_main

RUN = ["--agents", "random,random", "--games", "2", "--no-plot", "--no-progress"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny tournament (2 random agents, 2 games), its first game's moves kept."""
    out = tmp_path_factory.mktemp("records") / "t"
    assert tournament_main([*RUN, "--out", str(out), "--save-games", "1"]) == 0
    return out


def _copy(finished: Path, tmp_path: Path) -> Path:
    out = tmp_path / "t"
    shutil.copytree(finished, out)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _lines(out: Path) -> list[str]:
    return (out / "games.csv").read_text(encoding="utf-8").splitlines()


def _rows(out: Path) -> tuple[list[str], list[dict[str, str]]]:
    lines = _lines(out)
    header = lines[0].split(",")
    return header, [dict(zip(header, line.split(","), strict=True)) for line in lines[1:]]


def _write_rows(out: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    text = "\n".join([",".join(header), *(",".join(r[k] for k in header) for r in rows)]) + "\n"
    (out / "games.csv").write_text(text, encoding="utf-8")


def _refused_resume(out: Path, capsys: pytest.CaptureFixture[str], *expected: str) -> str:
    """Resume ``out``: exit 2, one line on stderr naming games.csv (and ``expected``), no
    traceback, nothing in the folder changed."""
    before = _files(out)
    capsys.readouterr()
    assert tournament_main([*RUN, "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert "games.csv" in err, err
    for text in expected:
        assert text in err, err
    assert _files(out) == before
    return err


def test_rows_past_the_runs_games_are_refused(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(finished, tmp_path)
    header, rows = _rows(out)
    extra = [dict(r, game="2") for r in rows[:2]]  # a third game of a 2-game run
    _write_rows(out, header, [*rows, *extra])
    _refused_resume(out, capsys, "line 6", "game 2")


def test_a_row_twice_is_refused(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(finished, tmp_path)
    header, rows = _rows(out)
    _write_rows(out, header, [rows[0], rows[1], rows[0], rows[2], rows[3]])
    _refused_resume(out, capsys, "line 4", "again")


@pytest.mark.parametrize(
    ("column", "value", "named"),
    [
        ("win", "1", "winner"),  # a loser's win flag: once taken for a shared win
        ("win_share", "0.5", "win_share"),
        ("rank", "1", "rank"),
    ],
)
def test_a_losers_row_that_disagrees_with_the_scores_is_refused(
    column: str,
    value: str,
    named: str,
    finished: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _copy(finished, tmp_path)
    header, rows = _rows(out)
    loser = next(i for i, r in enumerate(rows) if r["win"] == "0")
    rows[loser][column] = value
    _write_rows(out, header, rows)
    _refused_resume(out, capsys, f"line {loser + 2}", named)


def test_a_games_file_without_its_header_is_refused(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(finished, tmp_path)
    (out / "games.csv").write_text("\n".join(_lines(out)[1:]) + "\n", encoding="utf-8")
    _refused_resume(out, capsys, "line 1", "header")


def test_a_directory_in_place_of_the_games_file_is_refused(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(finished, tmp_path)
    (out / "games.csv").unlink()
    (out / "games.csv").mkdir()
    _refused_resume(out, capsys, "directory")


# ------------------------------------------------------------------------------ replay


def _replay_refused(args: list[str], capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    capsys.readouterr()
    assert replay_main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("replay: "), err
    for text in expected:
        assert text in err, err


def _move_list(finished: Path, tmp_path: Path, **changes: object) -> Path:
    raw = json.loads((finished / "moves" / "game-0.json").read_text(encoding="utf-8"))
    path = tmp_path / "moves.json"
    path.write_text(json.dumps({**raw, **changes}), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "named"),
    [({"seed": -1}, "seed"), ({"mode": "zzz"}, "zzz")],
    ids=["negative seed", "unknown mode"],
)
def test_replay_of_a_bad_move_list(
    change: dict[str, object],
    named: str,
    finished: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _move_list(finished, tmp_path, **change)
    out = tmp_path / "replay.html"
    _replay_refused([str(path), "-o", str(out)], capsys, "moves.json", named)
    assert not out.exists()


def test_replay_into_a_directory(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pages"
    out.mkdir()
    game = str(finished / "moves" / "game-0.json")
    _replay_refused([game, "-o", str(out)], capsys, "pages", "directory")
    assert list(out.iterdir()) == []
