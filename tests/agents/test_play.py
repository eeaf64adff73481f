"""The play CLI's edges (issue 12): the README's commands seat their agents, several humans,
illegal moves say why and what is legal, a pair in either order, save and resume, Ctrl-C
saves, watching redraws in place and prints the legend once."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from play_sessions import first_legal, scripted_session

from agents import play as play_cli
from agents.play import CLEAR, PlaySession, main, play, seat_specs
from agents.replay import build_replay, load_game
from agents.saved_game import SavedGame
from moonriver_env.moonriver.move_text import (
    explain_illegal,
    format_legal_moves,
    normalise_pair,
    parse_move,
)
from moonriver_env.moonriver.render import ANSI_LEGEND
from moonriver_env.moonriver.rules.actions import Place
from moonriver_env.rules import GameConfig, GameState, Phase, new_game

README = Path(__file__).resolve().parents[2] / "README.md"


class _Built(Exception):
    pass


def _readme_play_commands() -> list[str]:
    """The play commands of the README and of the documentation pages (docs/*.md)."""
    documents = [README, *sorted((README.parent / "docs").glob("*.md"))]
    return [
        line.split("  #")[0].strip()
        for document in documents
        for line in document.read_text(encoding="utf-8").splitlines()
        if line.startswith("python -m agents.play ")
    ]


@pytest.mark.parametrize("command", _readme_play_commands())
def test_readme_play_commands_seat_their_agents(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past argument parsing: the session is built (specs fill the seats, agents accept the
    game); the game itself is not played (every game's command alike)."""
    seen: list[PlaySession] = []

    def stop(self: PlaySession) -> None:
        seen.append(self)
        raise _Built

    monkeypatch.setattr(PlaySession, "run", stop)
    with pytest.raises(_Built):
        main(shlex.split(command)[3:])
    (session,) = seen
    assert len(session.agents) + len(session.humans) == session.players
    if "--watch" in command:
        assert not session.humans and session.delay > 0  # watchable by default


def test_opponents_fill_the_agent_seats_in_order() -> None:
    assert seat_specs(["greedy", "heuristic", "mc"], [0, 1, 2, 3]) == [
        "greedy",
        "heuristic",
        "mc",
        "greedy",
    ]
    assert seat_specs(["random"], [1, 2]) == ["random", "random"]
    assert seat_specs(["random"], []) == []
    with pytest.raises(ValueError, match="opponents: 3 agent specs for 2 agent seat"):
        seat_specs(["a", "b", "c"], [1, 2])


def test_several_humans_share_the_keyboard(capsys: pytest.CaptureFixture[str]) -> None:
    session = PlaySession(players=2, opponents=["greedy"], human_seats=[0, 1])
    assert session.agents == {} and session.names == ["human (seat 0)", "human (seat 1)"]
    with pytest.raises(SystemExit):
        main(["--players", "2", "--human", "0,5"])
    assert "human: seat 5 is not a seat of a 2-player game" in capsys.readouterr().err


def _expand_state() -> GameState:
    """A 2-player game played (first legal move) until a seat with plots on its ranch may
    place a domino."""
    state = new_game(GameConfig(num_players=2), seed=3)
    while not (
        state.occ[state.current_seat]
        and any(isinstance(state.decode(a), Place) for a in state.legal_action_list())
    ):
        state.apply(state.legal_action_list()[0])
    return state


def test_illegal_placement_says_which_rule_and_what_is_legal() -> None:
    state = _expand_state()
    lay = state.layout
    legal = set(state.legal_action_list())
    unconnected = occupied = None
    start, size = lay.segments["place"]
    for a in range(start, start + size):
        if a in legal:
            continue
        why = explain_illegal(state, a)
        if "would touch a matching landscape or a bridge" in why and unconnected is None:
            unconnected = a
        if "is already taken" in why and occupied is None:
            occupied = a
    assert unconnected is not None and occupied is not None
    text = state.action_to_string(unconnected)
    action, msg = parse_move(state, text)
    assert action is None and msg is not None
    assert msg.startswith(f"illegal move: '{text}': neither plot")
    assert "RULES.md section 3" in msg and f"Legal now: {len(legal)} " in msg
    # the wrong kind of move for the phase names the phase and the kinds allowed
    claim = lay.segments["claim"][0]
    why = explain_illegal(state, claim)
    assert f"the phase is {state.phase.name}" in why and "place" in why
    before = state.to_json()
    parse_move(state, text)
    assert state.to_json() == before  # rejection changes nothing


def test_pair_in_either_order_is_the_same_domino() -> None:
    state = _expand_state()
    checked = 0
    for a in state.legal_action_list():
        move = state.decode(a)
        if not isinstance(move, Place):
            continue
        g = state.grid
        other = g.step[move.direction][move.cell]
        opposite = "NESW"[(move.direction + 2) % 4]
        reversed_text = f"place {move.second}+{move.first} {g.cell_name(other)} {opposite}"
        assert parse_move(state, reversed_text) == (a, None)
        assert normalise_pair(state, reversed_text) == state.action_to_string(a)
        checked += 1
    assert checked > 0
    assert normalise_pair(state, "discard 1+0") == "discard 0+1"
    _, msg = parse_move(state, f"place 1+0 a{g.rows} N")
    assert msg is not None and "off the ranch" in msg


def _scripted(lines: list[str], session_kwargs: dict) -> tuple[PlaySession, list[str]]:
    out: list[str] = []
    script = iter(lines)

    def answer(session: PlaySession) -> str:
        line = next(script, None)
        if line is None:
            raise EOFError
        return first_legal(session) if line == "<first>" else line

    return scripted_session(answer, out, **session_kwargs), out


def test_save_command_and_load_resume_the_same_game(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    kwargs = {"players": 3, "opponents": ["random"], "seed": 7, "save_dir": tmp_path / "auto"}
    session, out = _scripted(["<first>", "<first>", f"save {target}", "quit"], kwargs)
    (tmp_path / "auto").mkdir()
    result = session.run()
    assert result.reason == "quit"
    saved = SavedGame.load(target)
    assert saved.agents == {1: "random", 2: "random"} and saved.humans == (0,)
    assert saved.state.to_json() == SavedGame.load(result.saved).state.to_json()
    # resumed: the same position, then the game goes on to the end
    resumed, out2 = _scripted([], {"save_dir": tmp_path / "auto"})
    resumed = PlaySession.resume(target, input_fn=lambda p: _first(resumed), output_fn=out2.append)
    assert resumed.state.to_json() == saved.state.to_json()
    assert resumed.decisions == saved.decisions > 0
    assert resumed.run().finished
    assert any("resumed after" in line for line in out2)


def _first(session: PlaySession) -> str:
    return first_legal(session)


def test_save_asks_before_replacing_and_load_refuses_game_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "keep.json"
    target.write_text("precious")
    session, out = _scripted([f"save {target}", "n", "quit"], {"save_dir": tmp_path})
    session.run()
    assert target.read_text() == "precious" and "Not saved" in "\n".join(out)
    session, out = _scripted([f"save {target}", "y", "quit"], {"save_dir": tmp_path})
    session.run()
    assert SavedGame.load(target).players == 2
    with pytest.raises(SystemExit):
        main(["--load", str(target), "--players", "3"])
    assert "--load: the saved game fixes" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "moonriver-play", "version": 1}))
    with pytest.raises(SystemExit):
        main(["--load", str(bad)])
    assert "missing from the saved game" in capsys.readouterr().err


def test_every_input_is_guarded_and_the_game_goes_on(tmp_path: Path) -> None:
    """A 5,000-digit number and a 5,000-character save name are answered on the screen (they
    raised ValueError and OSError, the game lost); the game goes on and is saved on quit
    (issue 50)."""
    huge, long_name = "9" * 5000, "x" * 5000
    session, out = _scripted(
        [huge, f"save {tmp_path / long_name}", "<first>", "quit"], {"save_dir": tmp_path}
    )
    result = session.run()
    text = "\n".join(out)
    assert result.reason == "quit" and result.decisions >= 1
    assert "not a move: " in text or "no action has id" in text
    assert "save: cannot write" in text and "File name too long" in text
    assert result.saved is not None and SavedGame.load(result.saved).decisions >= 1


def _watch_until(tmp_path: Path, out: list[str], after: int, error: BaseException) -> Any:
    """``play`` watching two agents that move first-legal and raise ``error`` at their
    ``after + 1``-th decision (the result, or the error)."""
    calls = {"n": 0}

    class Breaking:
        def __init__(self, seed: int) -> None:
            self.rng = np.random.default_rng(seed)

        def reset(self, seed: int | None = None) -> None:
            pass

        def choose(self, state: GameState) -> int:
            calls["n"] += 1
            if calls["n"] > after:
                raise error
            return state.legal_action_list()[0]

    return play(
        players=2,
        opponents=["x"],
        human_seats=[],
        seed=1,
        output_fn=out.append,
        save_dir=tmp_path,
        agent_factory=lambda spec, seed: Breaking(seed),  # type: ignore[arg-type,return-value]
    )


def test_an_unexpected_error_saves_the_game_before_it_is_reported(tmp_path: Path) -> None:
    out: list[str] = []
    with pytest.raises(RuntimeError, match="the agent broke"):
        _watch_until(tmp_path, out, 3, RuntimeError("the agent broke"))
    saved = [p for p in tmp_path.iterdir() if p.suffix == ".json"]
    assert len(saved) == 1 and SavedGame.load(saved[0]).decisions == 3
    assert "Unexpected error (RuntimeError); saving the game first." in "\n".join(out)


@pytest.mark.parametrize("delay", ["inf", "nan", "-1"])
def test_a_delay_that_is_not_finite_seconds_is_refused(
    delay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--watch --delay inf`` raised OverflowError in time.sleep (issue 50)."""
    with pytest.raises(SystemExit):
        main(["--watch", "--delay", delay])
    assert "--delay: expected finite seconds >= 0" in capsys.readouterr().err
    with pytest.raises(ValueError, match="^delay: expected finite seconds"):
        PlaySession(players=2, opponents=["random"], human_seats=[], delay=float(delay))


def test_ctrl_c_while_watching_saves_the_game(tmp_path: Path) -> None:
    out: list[str] = []
    result = _watch_until(tmp_path, out, 5, KeyboardInterrupt())
    assert result.reason == "interrupted" and result.decisions == 5
    assert result.saved is not None and SavedGame.load(result.saved).decisions == 5
    assert f"Game saved to {result.saved}" in "\n".join(out)


@pytest.mark.parametrize("redraw", [False, True])
def test_watch_prints_the_legend_once_and_redraws_in_place(redraw: bool) -> None:
    out: list[str] = []
    result = play(
        players=2, opponents=["random"], human_seats=[], seed=3, output_fn=out.append, redraw=redraw
    )
    text = "\n".join(out)
    assert text.count(ANSI_LEGEND[1]) == 1
    boards = text.count("Moon River  round")
    if redraw:
        assert text.count(CLEAR) == result.decisions  # one redraw per decision
    else:
        assert CLEAR not in text
        assert boards < result.decisions / 4  # once per round, not per decision


def test_watch_default_delay_is_watchable() -> None:
    assert play_cli.WATCH_DELAY >= 0.2
    state = new_game(GameConfig(num_players=2), seed=0)
    assert state.phase is not Phase.GAME_OVER


def test_a_finished_game_is_saved_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI saves a finished game too (issue 24): the file replays to the final scores."""
    argv = ["--watch", "--opponents", "greedy,random", "--seed", "3", "--delay", "0"]
    assert main([*argv, "--save-dir", str(tmp_path)]) == 0
    (path,) = tmp_path.iterdir()
    out = capsys.readouterr().out
    assert f"Game saved to {path}; replay it with: python -m agents.replay {path}" in out
    saved = SavedGame.load(path)
    assert saved.state.is_terminal and saved.actions is not None
    replay = build_replay(load_game(path))
    assert replay.finished
    assert [f.total for f in replay.final] == [s.total for s in saved.state.scores()]
    # a session built in code saves nothing unless asked to
    result = play(opponents=["random"], human_seats=(), seed=3, save_dir=tmp_path / "none")
    assert result.finished and result.saved is None and not (tmp_path / "none").exists()


# -- the move words (issue 32): help explains each, claims as the column numbers them, saloon
# spaces unlike board cells ------------------------------------------------------------------
def test_help_explains_every_move_word() -> None:
    from moonriver_env.moonriver.play import HELP
    from moonriver_env.moonriver.rules.actions import TEXT_FORMS

    words = HELP.split("Move words:")[1]
    for name, form in TEXT_FORMS.items():
        lead = " ".join(w for w in form.split() if "{" not in w)  # 'claim', 'cowboy stop', ...
        first = form.split()[0]
        assert f"\n  {first}" in words, f"help never explains {name!r} ({lead!r})"
        assert all(w in words for w in lead.split()), f"help misses a word of {lead!r}"


def _column_entries(state: GameState, title: str) -> list[str]:
    from moonriver_env.moonriver.render import render_ansi

    (line,) = [
        ln for ln in render_ansi(state, color=False, legend=False).splitlines() if title in ln
    ]
    return line.split(title)[1].split()


def test_claim_n_is_the_number_the_column_shows() -> None:
    state = new_game(GameConfig(num_players=2), seed=1)
    entries = _column_entries(state, "column now:")
    numbers, plots = entries[0::2], entries[1::2]
    assert numbers == ["1", "2", "3", "4"]
    assert format_legal_moves(state).strip() == "claim 1/2/3/4"
    action, msg = parse_move(state, "claim 3")
    assert msg is None and action is not None
    seat = state.current_seat
    state.apply(action)
    after = _column_entries(state, "column now:")[1::2]
    assert after[2] == f"{plots[2]}@{seat}" and after[:2] == plots[:2]  # the third plot shown
    for typed, why in (("claim 0", "claims count from 1"), ("claim 5", "plots 1 to 4")):
        action, msg = parse_move(state, typed)
        assert action is None and msg is not None and why in msg, msg
    _, msg = parse_move(state, "claim x")
    assert msg is not None and "'claim N', N from 1 to 4" in msg


def _recruit_state() -> GameState:
    for seed in range(200):
        state = new_game(GameConfig(num_players=2), seed=seed)
        rng = np.random.default_rng(seed)
        while not state.is_terminal:
            if state.phase == Phase.RECRUIT:
                return state
            state.apply(int(rng.choice(state.legal_action_list())))
    raise AssertionError("no game reached a recruit")


def test_recruits_name_the_saloon_space_as_shown_and_the_plots_cell() -> None:
    from moonriver_env.moonriver.move_text import move_words
    from moonriver_env.moonriver.render import render_ansi

    state = _recruit_state()
    saloon = render_ansi(state, color=False, legend=False).splitlines()[2]
    assert saloon.startswith("saloon:")
    cells = [state.grid.cell_name(c) for c in state.piece]
    for a in state.legal_action_list():
        words = move_words(state, a)
        move = state.decode(a)
        assert words == (
            f"recruit s{move.slot + 1} {'cowboy' if move.cowboy else 'specialist'} "
            f"on {cells[move.circle]}"
        )
        assert f"  {move.slot + 1} " in saloon  # the space the saloon line numbers so
        assert parse_move(state, words) == (a, None)
        assert parse_move(state, words.replace(" s", " saloon ", 1).upper()) == (a, None)
        old = state.action_to_string(a)  # the engine's 'recruit c0 s3 cowboy'
        action, msg = parse_move(state, old)
        assert action is None and msg is not None
        assert "old spelling" in msg and "'recruit sN SIDE on CELL'" in msg
    assert "recruit s" in format_legal_moves(state)
    for typed, why in (
        ("recruit s9 cowboy on a1", "1 to 5"),
        ("recruit s1 cowboy on e9", "not a plot"),
    ):
        action, msg = parse_move(state, typed)
        assert action is None and msg is not None and why in msg, msg


@pytest.mark.parametrize(("players", "mode"), [(2, "base"), (4, "legends")])
def test_every_listed_move_reads_back_as_itself(players: int, mode: str) -> None:
    from moonriver_env.moonriver.move_text import move_words

    state = new_game(GameConfig(num_players=players, mode=mode), seed=3)
    rng = np.random.default_rng(3)
    while not state.is_terminal:
        for a in state.legal_action_list():
            assert parse_move(state, move_words(state, a)) == (a, None), move_words(state, a)
        state.apply(int(rng.choice(state.legal_action_list())))


def test_default_outputs_go_under_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """What the play screen and the replay tool write unless told goes under runs/ (ignored by
    git), not the repository root (issue 32)."""
    from agents import play as play_cli
    from agents.replay import __main__ as replay_cli

    for cli_main in (play_cli.main, replay_cli.main):
        with pytest.raises(SystemExit):
            cli_main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "runs/games/" in out and "runs/replay.html" in out
    assert play_cli.DEFAULT_SAVE_DIR.startswith("runs/")
    assert "runs/" in (Path(__file__).resolve().parents[2] / ".gitignore").read_text().split()
