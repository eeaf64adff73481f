"""``python -m agents.tournament --game kingdomino`` on workers: the same seed gives the same
files and table for any number of workers and either backend; the games kept with
``--save-games`` replay to the tournament's final scores (one seed -> game mapping,
:func:`agents.move_list.deal`); a resumed tournament ends with the files of an uninterrupted
one; the files are Moon River's (games.csv, summary.json, summary.csv), a shared win counted
1/k."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from agents.jobs import Backend
from agents.move_list import MoveList
from agents.ray_backend import start_local
from agents.replay import build_replay, load_game
from agents.seeds import game_seed
from agents.tournament import run_tournament
from agents.tournament.cli import main as tournament

SPECS = ["greedy", "random", "heuristic"]


def run_kingdomino_tournament(
    specs: list[str],
    players: int,
    variants: tuple[str, ...],
    games: int,
    seed: int,
    out: Path,
    **kwargs: object,
) -> str:
    """The tournament's table, its files saved in ``out``."""
    mode = "+".join(variants) or "base"
    result = run_tournament(
        specs, players, games, seed, game="kingdomino", mode=mode, out=out, **kwargs
    )  # type: ignore[arg-type]
    result.save(out, plot=False)
    return result.format_table()


def _games(out: Path) -> list[dict[str, list[str]]]:
    """The rows of games.csv gathered per game: each column's values in seat order."""
    by_game: dict[int, dict[str, list[str]]] = {}
    for row in csv.DictReader((out / "games.csv").open()):
        game = by_game.setdefault(int(row["game"]), {})
        for key, value in row.items():
            game.setdefault(key, []).append(value)
    return [by_game[g] for g in sorted(by_game)]


def _run(out: Path, workers: int, **kwargs: object) -> tuple[str, bytes]:
    table = run_kingdomino_tournament(
        SPECS, 3, ("must_place", "harmony"), 6, 11, out, workers=workers, save_games=6, **kwargs
    )
    return table, (out / "games.csv").read_bytes()


def _moves(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "moves").iterdir())}


def test_same_seed_same_table_and_files_for_any_worker_count(tmp_path: Path) -> None:
    one = _run(tmp_path / "w1", workers=1)
    two = _run(tmp_path / "w2", workers=2)
    assert one[0] == two[0] and one[1] == two[1]
    assert _moves(tmp_path / "w1").keys() == _moves(tmp_path / "w2").keys()
    # the move lists differ only in the folder they name as their source
    w1, w2 = (str(tmp_path / w).encode() for w in ("w1", "w2"))
    for name, data in _moves(tmp_path / "w1").items():
        assert data.replace(w1, w2) == _moves(tmp_path / "w2")[name]
    other = _run(tmp_path / "other", workers=1, backend=Backend("process"))
    assert other[1] == one[1]
    games = _games(tmp_path / "w1")
    assert [int(g["game"][0]) for g in games] == list(range(6))
    assert [int(g["seed"][0]) for g in games] == [game_seed(11, g) for g in range(6)]
    assert len({tuple(g["total"]) for g in games}) > 1  # different deals


def test_ray_backend_gives_the_same_files(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        start_local(2, logging_level="WARNING")
    try:
        with_ray = _run(tmp_path / "ray", workers=2, backend=Backend("ray"))
    finally:
        if started:
            ray.shutdown()
    assert with_ray == _run(tmp_path / "process", workers=2)


@pytest.mark.parametrize(
    ("players", "variants"),
    [
        (2, ()),
        (2, ("mighty_duel", "harmony")),
        (3, ("must_place",)),
        (4, ("must_place", "harmony", "middle_kingdom")),
        (2, ("dynasty",)),
    ],
)
def test_saved_games_replay_to_the_tournaments_final_scores(
    tmp_path: Path, players: int, variants: tuple[str, ...]
) -> None:
    run_kingdomino_tournament(["greedy", "random"], players, variants, 4, 3, tmp_path, save_games=3)
    rows = _games(tmp_path)
    kept = sorted((tmp_path / "moves").iterdir())
    assert [p.name for p in kept] == [f"game-{g}.json" for g in range(3)]
    for g in range(3):
        moves = load_game(tmp_path, g)
        assert moves.game == "kingdomino" and moves.seed == int(rows[g]["seed"][0])
        replay = build_replay(moves)
        assert replay.finished
        points = [int(p) for p in rows[g]["total"]]
        assert [f.total for f in replay.final] == list(moves.final_scores or ()) == points
        winners = [s for s, w in enumerate(rows[g]["win"]) if w == "1"]
        assert [f.seat for f in replay.final if f.winner] == winners
        # the seats are labelled by the lineup's agents
        assert moves.seats == tuple(rows[g]["agent"])


def test_a_changed_move_list_does_not_replay(tmp_path: Path) -> None:
    run_kingdomino_tournament(["greedy", "random"], 2, (), 1, 0, tmp_path, save_games=1)
    moves = MoveList.load(tmp_path / "moves" / "game-0.json")
    other = MoveList.from_dict({**_raw(moves), "seed": moves.seed + 1})
    with pytest.raises(ValueError, match="move|scores"):
        build_replay(other)


def _raw(moves: MoveList) -> dict[str, object]:
    raw: dict[str, object] = json.loads(moves.to_json())
    return raw


def test_resume_and_more_games_end_with_the_files_of_one_run(tmp_path: Path) -> None:
    argv = ["--game", "kingdomino", "--players", "3", "--agents", ",".join(SPECS), "--seed", "2"]
    assert tournament([*argv, "--games", "5", "--out", str(tmp_path / "a")]) == 0
    assert tournament([*argv, "--games", "3", "--out", str(tmp_path / "b")]) == 0
    csv_b = tmp_path / "b" / "games.csv"
    lines = csv_b.read_text().splitlines(keepends=True)
    csv_b.write_text("".join(lines[:-1]) + lines[-1][:5])  # the last game cut off mid-line
    assert tournament([*argv, "--games", "5", "--out", str(tmp_path / "b"), "--resume"]) == 0
    assert csv_b.read_bytes() == (tmp_path / "a" / "games.csv").read_bytes()
    with pytest.raises(SystemExit):  # other agents: refused, nothing changed
        tournament([*argv[:-3], "--agents", "greedy", "--seed", "2", "--games", "5",
                    "--out", str(tmp_path / "b"), "--resume"])  # fmt: skip
    assert csv_b.read_bytes() == (tmp_path / "a" / "games.csv").read_bytes()


@pytest.mark.parametrize(
    "bad",
    [["--workers", "0"], ["--save-games", "-1"], ["--backend", "nowhere"], ["--seed", "-1"]],
)
def test_bad_arguments_are_refused_before_any_file(bad: list[str], tmp_path: Path) -> None:
    argv = ["--game", "kingdomino", "--agents", "greedy,random", "--games", "2"]
    with pytest.raises(SystemExit):
        tournament([*argv, "--out", str(tmp_path / "t"), *bad])
    assert not (tmp_path / "t").exists()


def test_the_command_writes_moon_rivers_summary_and_counts_a_shared_win_one_half(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t"
    out.mkdir()
    (out / "summary.json").write_text("{}")  # an older tournament's file: --force replaces it
    argv = ["--game", "kingdomino", "--agents", "random,greedy", "--games", "46", "--seed", "5"]
    argv += ["--out", str(out), "--no-plot", "--no-progress", "--force"]
    assert tournament(argv) == 0
    assert "Kingdomino, 2 players, base" in capsys.readouterr().out
    assert {p.name for p in out.iterdir()} == {
        "tournament.json", "games.csv", "summary.csv", "summary.json", "timing.json",
    }  # fmt: skip
    shared = [g for g in _games(out) if "0.5" in g["win_share"]]
    assert [g["game"][0] for g in shared] == ["45"]  # the one tie of these games
    assert shared[0]["win"] == ["1", "1"] and shared[0]["rank"] == ["1", "1"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["game"] == "kingdomino"
    rows = {r["agent"]: r for r in summary["agents"]}
    assert sum(r["wins"] for r in rows.values()) == 46
    assert all(r["shared_wins"] == 1 for r in rows.values())
    assert all(r["wins"] % 1 == 0.5 for r in rows.values())  # the shared win: 1/2 each
    assert "territories" in (out / "summary.csv").read_text().splitlines()[0]
    assert not (out / "summary.png").exists()
