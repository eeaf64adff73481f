"""The browser replay without a browser (issue 24): move lists kept by tournaments and saved
games, the page written from them (self-contained, deterministic, the engine's scores), and
bad input (a named error, no file written)."""

from __future__ import annotations

import base64
import csv
import gzip
import itertools
import json
import re
from pathlib import Path

import pytest
from replay_games import (
    four_player_moves,
    saved_game_file,
    small_kingdomino_tournament,
    small_tournament,
)

from agents.move_list import MoveList, MoveListError
from agents.replay import ReplayError, build_replay, load_game, replay_html, write_replay
from agents.replay.__main__ import main
from agents.saved_game import SavedGame


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_tournament(tmp_path_factory.mktemp("tournament") / "t")


@pytest.fixture(scope="module")
def kingdomino_tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return small_kingdomino_tournament(tmp_path_factory.mktemp("kingdomino") / "t")


def _page_data(page: str) -> dict:
    packed = re.search(r'id="replay-data">([^<]*)<', page)
    assert packed is not None
    return json.loads(gzip.decompress(base64.b64decode(packed.group(1))))


def _csv_totals(folder: Path, game: int) -> list[int]:
    with open(folder / "games.csv", newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if int(r["game"]) == game]
    return [int(r["total"]) for r in sorted(rows, key=lambda r: int(r["seat"]))]


def test_tournament_keeps_the_move_lists_of_its_first_games(tournament: Path) -> None:
    kept = sorted(p.name for p in (tournament / "moves").iterdir())
    assert kept == ["game-0.json", "game-1.json"]
    for game in (0, 1):
        moves = load_game(tournament, game)
        state = moves.final_state()
        assert state.is_terminal
        # the moves replay to the scores the tournament recorded
        assert [s.total for s in state.scores()] == _csv_totals(tournament, game)
        assert list(moves.final_scores or ()) == _csv_totals(tournament, game)
        assert sorted(moves.seats) == ["greedy", "heuristic"]


def test_page_shows_every_position_and_the_engines_final_scores(tournament: Path) -> None:
    moves = load_game(tournament, 1)
    page = replay_html(moves)
    data = _page_data(page)
    assert len(data["frames"]) == len(moves.actions) + 1
    # each move in words, in the engine's text form
    state = moves.initial_state()
    first = moves.actions[0]
    seat = state.current_seat
    assert data["frames"][1]["m"] == f"{moves.seats[seat]}: {state.action_to_string(first)}"
    final = moves.final_state()
    totals = [s.total for s in final.scores()]
    shown = [int(t) for t in re.findall(r'data-total="(\d+)"', page)]
    assert shown == totals
    assert [row[-1] for row in data["frames"][-1]["s"]] == totals
    winners = set(final.winners())
    assert page.count("class=winner") == len(winners)


def test_page_is_self_contained_and_deterministic(tournament: Path) -> None:
    moves = load_game(tournament, 0)
    page = replay_html(moves)
    assert page == replay_html(moves)
    # nothing fetched: no external script, style, image or link
    assert not re.search(r"<(script|link|img|iframe)[^>]*(src|href)=", page)
    assert "url(" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    # every symbol a piece uses is defined once on the page
    data = _page_data(page)
    used = {u for piece in data["pieces"] for u in re.findall(r'href="#(\w+)"', piece)}
    defined = re.findall(r'<symbol id="(\w+)"', page)
    assert used and used <= set(defined) and len(defined) == len(set(defined))


def test_pieces_are_shared_between_positions(tournament: Path) -> None:
    replay = build_replay(load_game(tournament, 0))
    n = len(replay.frames)
    places = len(replay.frames[0].pieces)
    assert places == 3  # two ranches and the table
    assert len(replay.pieces) < n * places  # unchanged ranches are stored once
    changed = sum(a.pieces != b.pieces for a, b in itertools.pairwise(replay.frames))
    assert changed == n - 1  # every move changes something shown


def test_four_player_replay() -> None:
    moves = four_player_moves()
    replay = build_replay(moves)
    assert len(replay.frames[0].pieces) == 5
    assert [f.total for f in replay.final] == list(moves.final_scores or ())
    assert replay.finished


def test_saved_game_keeps_its_moves_and_replays(tmp_path: Path) -> None:
    path, session = saved_game_file(tmp_path, decisions=30)
    saved = SavedGame.load(path)
    assert saved.actions is not None and len(saved.actions) == saved.decisions
    moves = load_game(path)
    assert moves.final_state().to_json() == session.state.to_json()
    out = tmp_path / "saved.html"
    assert main([str(path), "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "unfinished" in page
    totals = [int(t) for t in re.findall(r'data-total="(\d+)"', page)]
    assert totals == [s.total for s in session.state.scores()]


def test_saved_game_round_trips_its_moves(tmp_path: Path) -> None:
    path, _ = saved_game_file(tmp_path, decisions=10)
    text = path.read_text(encoding="utf-8")
    assert SavedGame.from_json(text).to_json() == text
    raw = json.loads(text)
    raw["actions"] = ["x"]
    with pytest.raises(ValueError, match="actions"):
        SavedGame.from_json(json.dumps(raw))


# ------------------------------------------------------------------------------ bad input


def _bad_inputs(tournament: Path, tmp: Path) -> dict[str, tuple[list[str], str]]:
    """name -> (command-line arguments, what the error names)."""
    good = (tournament / "moves" / "game-0.json").read_text(encoding="utf-8")
    raw = json.loads(good)
    cases: dict[str, tuple[list[str], str]] = {}

    def file(name: str, text: str) -> str:
        p = tmp / name
        p.write_text(text, encoding="utf-8")
        return str(p)

    cases["truncated"] = ([file("cut.json", good[: len(good) // 2])], "not JSON")
    cases["corrupt"] = ([file("noise.json", "\x00garbage")], "not JSON")
    cases["other JSON"] = ([file("other.json", '{"a": 1}')], "not a game file")
    illegal = dict(raw, actions=[10**6, *raw["actions"][1:]])
    cases["illegal move"] = ([file("illegal.json", json.dumps(illegal))], "move 1")
    short = dict(raw, actions=raw["actions"][:-5])
    cases["scores differ"] = ([file("short.json", json.dumps(short))], "the file records")
    no_seats = {k: v for k, v in raw.items() if k != "seats"}
    cases["missing key"] = ([file("noseats.json", json.dumps(no_seats))], "seats")
    cases["missing file"] = ([str(tmp / "absent.json")], "cannot read")
    cases["index out of range"] = ([str(tournament), "--game", "2"], "out of range")
    cases["no index"] = ([str(tournament), "--game", "-1"], "out of range")
    cases["index needed"] = ([str(tournament)], "--game N")
    empty = tmp / "empty-tournament"
    empty.mkdir()
    (empty / "tournament.json").write_text("{}", encoding="utf-8")
    cases["no saved games"] = ([str(empty), "--game", "0"], "--save-games")
    cases["not a tournament"] = ([str(tmp / "empty-dir-" / ".."), "--game", "0"], "tournament")
    cases["index with a file"] = ([file("g.json", good), "--game", "0"], "--game")
    return cases


@pytest.mark.parametrize("game", ["tournament", "kingdomino_tournament"])
def test_bad_input_names_the_problem_and_writes_nothing(
    game: str, request: pytest.FixtureRequest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tournament: Path = request.getfixturevalue(game)
    (tmp_path / "empty-dir-").mkdir()
    out = tmp_path / "replay.html"
    out.write_text("the old page", encoding="utf-8")
    for name, (args, expected) in _bad_inputs(tournament, tmp_path).items():
        assert main([*args, "-o", str(out)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("replay: ") and expected in err, (name, err)
        assert out.read_text(encoding="utf-8") == "the old page", name
        fresh = tmp_path / f"fresh-{len(name)}.html"
        with pytest.raises(ReplayError):
            write_replay(args[0], fresh, game=int(args[2]) if len(args) > 2 else None)
        assert not fresh.exists(), name
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".html") == ["replay.html"]


def test_saved_game_whose_moves_do_not_lead_to_its_position(tmp_path: Path) -> None:
    path, _ = saved_game_file(tmp_path, decisions=20)
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["actions"] = raw["actions"][:-2]
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ReplayError, match="do not lead to the saved position"):
        load_game(path)
    del raw["actions"]
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(ReplayError, match="does not hold its moves"):
        load_game(path)


def test_move_list_round_trip_and_errors() -> None:
    moves = four_player_moves()
    assert MoveList.from_json(moves.to_json()) == moves
    with pytest.raises(MoveListError, match="version"):
        MoveList.from_json(json.dumps(dict(json.loads(moves.to_json()), version=9)))
    with pytest.raises(MoveListError, match="seats"):
        MoveList.from_json(json.dumps(dict(json.loads(moves.to_json()), seats=["a"])))
    with pytest.raises(MoveListError, match=r"actions\[0\]"):
        MoveList.from_json(json.dumps(dict(json.loads(moves.to_json()), actions=[True])))


def test_tournament_save_games_arguments(tmp_path: Path) -> None:
    from agents.tournament import run_tournament

    with pytest.raises(ValueError, match="save_games"):
        run_tournament(["greedy", "random"], games=1, save_games=1)  # no out
    with pytest.raises(ValueError, match="save_games"):
        run_tournament(["greedy", "random"], games=1, save_games=-1, out=tmp_path / "x")
    out = small_tournament(tmp_path / "t", games=2, save_games=5)  # more than played: all
    assert sorted(p.name for p in (out / "moves").iterdir()) == ["game-0.json", "game-1.json"]
    # --force replaces the old move lists with the new tournament's
    result = run_tournament(["greedy", "random"], games=1, seed=1, out=out, force=True)
    result.save(out, plot=False)
    assert not (out / "moves").exists()
