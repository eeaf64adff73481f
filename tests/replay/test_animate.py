"""The animation command (issue 24): a real game between agents as an animated GIF or WebP
made from the environment's rgb_array frames; the same command makes the same file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from agents.animate import frames, main, play_game, save_animation
from agents.move_list import MoveList
from moonriver_env import moonriver_v0


def test_frames_are_the_envs_rgb_array_pictures() -> None:
    moves = play_game(["greedy", "random"], seed=4)
    pictures = frames(moves, every=25)
    n = len(moves.actions)
    assert len(pictures) == 1 + (n - 1) // 25 + 1  # start, every 25 decisions, the end
    env = moonriver_v0.env(render_mode="rgb_array")
    env.reset(seed=4)
    first = env.render()
    assert first.shape == pictures[0].shape and first.dtype == np.uint8
    # the env's frame (labelled "seat i") and ours (labelled with the agents) show the same table
    assert (first != pictures[0]).mean() < 0.05
    per_turn = frames(moves)
    assert len(per_turn) > len(pictures)


def test_command_writes_a_deterministic_gif_and_the_move_list(tmp_path: Path) -> None:
    out = tmp_path / "game.gif"
    args = ["--agents", "greedy,random", "--seed", "2", "--every", "30", "-o", str(out)]
    assert main([*args, "--moves", str(tmp_path / "game.json")]) == 0
    first = out.read_bytes()
    with Image.open(out) as image:
        assert image.format == "GIF" and image.n_frames > 3
        assert image.info.get("loop") == 0
    assert main(args) == 0
    assert out.read_bytes() == first  # same command, same file
    moves = MoveList.load(tmp_path / "game.json")
    assert moves.seats == ("greedy", "random")
    assert moves.final_state().is_terminal


def test_webp_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    moves = play_game(["random"], players=3, seed=1)
    assert moves.seats == ("random", "random", "random")
    path = save_animation(frames(moves, every=60), tmp_path / "g.webp")
    with Image.open(path) as image:
        assert image.format == "WEBP" and image.n_frames > 1
    with pytest.raises(ValueError, match="gif or .webp"):
        save_animation(frames(moves, every=60), tmp_path / "g.png")
    assert not (tmp_path / "g.png").exists()
    with pytest.raises(SystemExit):
        main(["--agents", "greedy", "-o", str(tmp_path / "x.mp4")])
    with pytest.raises(SystemExit):
        main(["--agents", "greedy,random,mc", "-o", str(tmp_path / "x.gif")])
    assert "3 agent specs for 2 agent seat" in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


def test_the_pictures_come_from_the_games_render_hook() -> None:
    """The frames are drawn by the game's registry entry (its ``render`` hook): a game without
    one is refused by name before any picture is drawn."""
    from moonriver_env.games import game_entry

    assert game_entry("moonriver").hook("render") is not None
    assert game_entry("kingdomino").hook("render") is None
    moves = MoveList(players=4, mode="base", scenario=None, seed=1, seats=("random",) * 4,
                     actions=(), game="kingdomino")  # fmt: skip
    with pytest.raises(ValueError, match="^game: Kingdomino has no picture to animate"):
        frames(moves)
