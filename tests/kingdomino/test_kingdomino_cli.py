"""``python -m agents.tournament --game kingdomino`` and ``python -m agents.play --game
kingdomino``."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from agents.play import main as play
from agents.replay import build_replay, load_game
from agents.saved_game import SavedGame
from agents.tournament.cli import main as tournament


def test_tournament_runs_resumes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "--game", "kingdomino", "--variants", "must_place,harmony,middle_kingdom", "--players", "4",
        "--agents", "random,greedy,heuristic,greedy:draft=random", "--games", "4", "--out", str(tmp_path),
    ]  # fmt: skip
    assert tournament(argv) == 0
    out = capsys.readouterr().out
    assert "4 players, harmony+middle_kingdom+must_place" in out and "heuristic" in out
    rows = list(csv.DictReader((tmp_path / "games.csv").open()))
    assert [int(r["game"]) for r in rows] == [g for g in range(4) for _ in range(4)]
    with pytest.raises(SystemExit):
        tournament(argv)  # the file exists and no --resume
    assert tournament([*argv[:-4], "--games", "6", "--out", str(tmp_path), "--resume"]) == 0
    assert len(list(csv.DictReader((tmp_path / "games.csv").open()))) == 6 * 4


@pytest.mark.parametrize(
    "bad",
    [
        ["--variants", "mighty_duel", "--players", "3"],
        ["--variants", "harmonie"],
        ["--agents", "alphazero"],
        ["--mode", "harmony", "--variants", "harmony"],
    ],
)
def test_tournament_bad_arguments(bad: list[str], tmp_path: Path) -> None:
    argv = ["--game", "kingdomino", "--agents", "greedy", "--games", "1", "--out", str(tmp_path)]
    with pytest.raises(SystemExit):
        tournament([*argv, *bad])


def test_play_watch_and_a_human_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--game", "kingdomino", "--players", "3", "--watch", "--opponents", "greedy,random"]
    assert play([*argv, "--delay", "0", "--save-dir", str(tmp_path / "watched")]) == 0
    assert "winners" in capsys.readouterr().out
    typed = iter(["hello", "moves", "pick 1", "quit"])
    lines: list[str] = []
    code = play(
        ["--game", "kingdomino", "--players", "2", "--seed", "4", "--human", "0"]
        + ["--save-dir", str(tmp_path / "left")],
        input_fn=lambda prompt: next(typed),
        output_fn=lines.append,
    )
    assert code == 1
    assert any("not a legal move" in line for line in lines)
    assert any("pick 1" in line for line in lines)
    # a game left is saved as its moves: it replays, unfinished
    (left,) = (tmp_path / "left").iterdir()
    assert f"Game saved to {left}" in lines[-1]
    moves = load_game(left)
    assert moves.final_scores is None and moves.seats[0] == "human (seat 0)"
    assert moves.actions[0] == moves.initial_state().layout.pick_base  # "pick 1"
    assert not build_replay(moves).finished


@pytest.mark.parametrize(("players", "mode"), [(2, "base"), (4, "harmony+middle_kingdom")])
def test_play_saves_a_finished_game_that_replays_to_its_scores(
    tmp_path: Path, players: int, mode: str
) -> None:
    lines: list[str] = []
    argv = ["--game", "kingdomino", "--players", str(players), "--mode", mode, "--watch"]
    argv += ["--delay", "0", "--opponents", "greedy,random", "--seed", "9"]
    argv += ["--save-dir", str(tmp_path)]
    assert play(argv, output_fn=lines.append) == 0
    (path,) = tmp_path.iterdir()
    assert lines[-1] == f"Game saved to {path}; replay it with: python -m agents.replay {path}"
    moves = load_game(path)
    final = moves.final_state()  # checks the recorded scores against the replayed moves
    assert final.is_terminal and moves.mode == mode and moves.seed == 9
    # the same command deals the same game (the seed is the environment's reset seed)
    again: list[str] = []
    play([*argv[:-1], str(tmp_path / "again")], output_fn=again.append)
    assert again[:-1] == lines[:-1]
    replay = build_replay(moves)
    assert [f.total for f in replay.final] == list(final.points())
    assert replay.title.startswith("Kingdomino: greedy (seat 0) vs random (seat 1)")


def test_mode_is_the_variants_in_one_word(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--game", "kingdomino", "--players", "3", "--mode", "harmony+must_place"]
    assert (
        tournament([*argv, "--agents", "greedy,random", "--games", "3", "--out", str(tmp_path)])
        == 0
    )
    assert "3 players, harmony+must_place" in capsys.readouterr().out


def test_moon_river_stays_the_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--agents", "greedy", "--games", "1", "--no-plot", "--no-progress"]
    assert tournament([*argv, "--out", str(tmp_path / "mr")]) == 0
    assert "Tournament: 2 players, base" in capsys.readouterr().out
    assert tournament([*argv, "--game=kingdomino", "--out", str(tmp_path / "kd")]) == 0
    assert "Tournament: Kingdomino, 2 players" in capsys.readouterr().out


def test_maskable_ppo_trains_on_kingdomino_v0_and_training_evaluate_plays_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gymnasium = pytest.importorskip("gymnasium")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from training.evaluate import main as evaluate

    env = gymnasium.make("Kingdomino-v0", num_players=2, opponents="random").unwrapped
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    path = tmp_path / "model.zip"
    model.save(path)
    argv = [
        "--game",
        "kingdomino",
        "--players",
        "2",
        "--model",
        str(path),
        "--opponents",
        "random",
        "--games",
        "2",
    ]
    assert evaluate(argv) == 0
    assert "vs 1 x random: " in capsys.readouterr().out
    with pytest.raises(SystemExit):
        evaluate([*argv[:2], "--players", "4", *argv[4:]])  # a 2-player model, 4 players


def test_play_load_resumes_a_left_game_where_it_stopped(tmp_path: Path) -> None:
    """``--load`` takes a Kingdomino game left unfinished back to its position and seats;
    ``--delay`` and ``--no-color`` are the play command's options for every game."""
    typed = iter(["pick 2", "quit"])
    argv = ["--game", "kingdomino", "--players", "2", "--seed", "5", "--human", "0"]
    argv += ["--delay", "0", "--no-color", "--save-dir", str(tmp_path / "left")]
    assert play(argv, input_fn=lambda prompt: next(typed), output_fn=lambda text: None) == 1
    (left,) = (tmp_path / "left").iterdir()
    saved = SavedGame.load(left)
    assert saved.game == "kingdomino" and saved.agents == {1: "greedy"} and saved.humans == (0,)
    assert saved.actions is not None and saved.decisions >= 1
    lines: list[str] = []
    answers = iter(["quit"])
    resumed = ["--load", str(left), "--delay", "0", "--no-color", "--save-dir", str(tmp_path)]
    assert play(resumed, input_fn=lambda prompt: next(answers), output_fn=lines.append) == 1
    assert lines[0].startswith("Kingdomino: 2 players, base, seed 5, resumed after ")
    (again,) = (p for p in tmp_path.iterdir() if p.is_file())
    back = SavedGame.load(again)
    assert back.state.to_json() == saved.state.to_json() and back.actions == saved.actions
    with pytest.raises(SystemExit):  # the saved game fixes the game
        play(["--load", str(left), "--game", "kingdomino"])
    with pytest.raises(SystemExit):
        play([*argv[:-2], "--delay", "-1"])
