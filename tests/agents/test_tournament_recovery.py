"""Tournament faults lose no finished game (issue 12): games are appended as they finish, an
interrupted tournament resumes to the same files, and an unusable ``--out`` is refused before
any game without writing anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents import RandomAgent
from agents.base import Agent
from agents.tournament import main, run_tournament
from agents.tournament.cli import resume_command
from moonriver_env.rules import GameConfig, GameState

ARGS = {"players": 2, "games": 3, "seed": 4}  # 2 entries x 3 games = 3 games in the pair
SPECS = ["random", "greedy"]


class _Interrupting(RandomAgent):
    """A random agent that presses Ctrl-C at its ``after``-th game."""

    games = 0

    def __init__(self, after: int, seed: int | None = None) -> None:
        super().__init__(seed)
        self.after = after

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        type(self).games += 1
        if type(self).games > self.after:
            raise KeyboardInterrupt


def _factory(after: int):  # type: ignore[no-untyped-def]
    from agents import make_agent

    def make(spec: str, seed: int) -> Agent:
        return _Interrupting(after, seed) if spec == "random" else make_agent(spec, seed=seed)

    return make


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("k", [0, 2])
def test_interrupted_tournament_resumes_to_identical_files(tmp_path: Path, k: int) -> None:
    whole = tmp_path / "whole"
    run_tournament(SPECS, **ARGS, out=whole).save(whole, plot=False)

    part = tmp_path / "part"
    _Interrupting.games = 0
    with pytest.raises(KeyboardInterrupt):
        # the factory's probe build counts as nothing: reset() is called per game only
        run_tournament(SPECS, **ARGS, out=part, agent_factory=_factory(k))
    lines = (part / "games.csv").read_text().splitlines()
    assert len(lines) == 1 + 2 * k  # the header and the k finished games (2 seats each)
    resumed = run_tournament(SPECS, **ARGS, out=part, resume=True)
    assert [r.index for r in resumed.records] == [0, 1, 2]
    resumed.save(part, plot=False)
    a, b = _files(whole), _files(part)
    a.pop("timing.json")
    b.pop("timing.json")
    assert a == b  # games.csv, summary.csv, summary.json, tournament.json byte-identical


def test_resume_drops_a_line_cut_off_and_refuses_other_arguments(tmp_path: Path) -> None:
    out = tmp_path / "t"
    run_tournament(SPECS, **ARGS, out=out).save(out, plot=False)
    whole = (out / "games.csv").read_bytes()
    (out / "games.csv").write_bytes(whole[:-7])  # a hard kill in the middle of the last row
    before = _files(out)
    with pytest.raises(ValueError, match=r"other arguments \(seed: 4 -> 5\)"):
        run_tournament(SPECS, **{**ARGS, "seed": 5}, out=out, resume=True)
    assert _files(out) == before
    run_tournament(SPECS, **ARGS, out=out, resume=True).save(out, plot=False)
    assert (out / "games.csv").read_bytes() == whole


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "expected a JSON object of the tournament's arguments, got list"),
        ("[" * 100_000 + "]" * 100_000, "not JSON"),
        ('{"games": 3', "not JSON"),
        (b"\xff\xfe", "cannot read it"),
    ],
)
def test_resume_with_a_damaged_arguments_file_is_a_named_error(
    tmp_path: Path, text: str | bytes, message: str
) -> None:
    """A ``tournament.json`` that is a list, nested 100,000 deep, cut off or not UTF-8: the
    resume is refused naming the file, nothing changed (issue 50)."""
    out = tmp_path / "t"
    run_tournament(SPECS, **ARGS, out=out).save(out, plot=False)
    target = out / "tournament.json"
    target.write_bytes(text if isinstance(text, bytes) else text.encode())
    before = _files(out)
    with pytest.raises(ValueError, match=rf"^resume: .*tournament.json.* is damaged \(.*{message}"):
        run_tournament(SPECS, **ARGS, out=out, resume=True)
    assert _files(out) == before


def test_existing_or_unwritable_out_refused_before_any_game(tmp_path: Path) -> None:
    out = tmp_path / "t"
    run_tournament(SPECS, **ARGS, out=out).save(out, plot=False)
    before = _files(out)
    played: list[int] = []

    def counting(spec: str, seed: int) -> Agent:
        played.append(seed)
        return RandomAgent(seed)

    with pytest.raises(ValueError, match="already holds a tournament.*--resume.*--force"):
        run_tournament(SPECS, **ARGS, out=out, agent_factory=counting)
    assert _files(out) == before
    with pytest.raises(ValueError, match="no tournament to resume"):
        run_tournament(SPECS, **ARGS, out=tmp_path / "empty", resume=True)
    assert not (tmp_path / "empty").exists()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="is a file"):
        run_tournament(SPECS, **ARGS, out=blocker)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(ValueError, match="cannot write"):
            run_tournament(SPECS, **ARGS, out=locked / "sub")
    assert played == [0, 0]  # only the up-front probe builds per check, never a game
    forced = run_tournament(SPECS, **{**ARGS, "seed": 9}, out=out, force=True)
    forced.save(out, plot=False)
    assert (out / "games.csv").read_bytes() != before["games.csv"]


def test_cli_refuses_existing_out_and_prints_resume_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    argv = f"--agents random,random --games 1 --no-plot --no-progress --out {out}".split()
    assert main(argv) == 0
    with pytest.raises(SystemExit):
        main(argv)
    assert "--resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    cmd = resume_command(["--agents", "random", "--force"], "runs/x")
    assert cmd == "python -m agents.tournament --agents random --out runs/x --resume"


class _TwoPlayerOnly(Agent):
    """Stands for a learned policy: it refuses every game but 2 players."""

    def check_game(self, config: GameConfig) -> None:
        if config.num_players != 2:
            raise ValueError(f"trained for 2 players, base; the game is {config.num_players}")

    def choose(self, state: GameState) -> int:
        raise AssertionError("no move may be asked for")


def test_wrong_game_agent_refused_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="trained for 2 players"):
        run_tournament(
            ["x", "y"],
            players=3,
            games=1,
            out=tmp_path / "t",
            agent_factory=lambda spec, seed: _TwoPlayerOnly(seed),
        )
    assert not (tmp_path / "t").exists()


def test_a_count_of_games_past_the_limit_is_refused_before_memory_is_taken(
    tmp_path: Path,
) -> None:
    """``--games 10**12`` took gigabytes building its schedule before any game (issue 50):
    refused at once naming the count, no file written."""
    import time

    from agents.tournament.games import MAX_GAMES

    start = time.perf_counter()
    with pytest.raises(ValueError, match=rf"^games: .* plays at most {MAX_GAMES:,}"):
        run_tournament(SPECS, **{**ARGS, "games": 10**12}, out=tmp_path / "t")
    with pytest.raises(ValueError, match="^games: "):  # 3 pairs: the total counts
        run_tournament(["random"] * 3, **{**ARGS, "games": MAX_GAMES // 2}, out=tmp_path / "t")
    assert time.perf_counter() - start < 5.0
    assert not (tmp_path / "t").exists()
