"""Tournament runner, ratings and the terminal play command (fast: random agents only)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from play_sessions import first_legal, scripted_session
from scipy import stats

from agents.play import PlaySession, play
from agents.ratings import (
    bradley_terry,
    competition_ranks,
    mean_interval,
    openskill_ratings,
    pairwise_wins,
    wilson_interval,
)
from agents.tournament import (
    entry_labels,
    main,
    run_tournament,
    schedule,
    seat_slots,
    split_specs,
)
from moonriver_env.moonriver.move_text import format_legal_moves, move_words, parse_move
from moonriver_env.rules import GameConfig, new_game

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------ ratings


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=5e-4)
    assert high == pytest.approx(0.5962, abs=5e-4)
    # integral counts are scipy's binomtest Wilson interval
    ci = stats.binomtest(7, 20).proportion_ci(method="wilson")
    assert wilson_interval(7, 20) == pytest.approx((ci.low, ci.high))
    # the closed form used for fractional counts agrees with it at integers
    frac = wilson_interval(7.0000001, 20)
    assert frac == pytest.approx((ci.low, ci.high), abs=1e-6)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_mean_interval_known_sample() -> None:
    ci = mean_interval([1, 2, 3, 4, 5])
    assert ci.mean == 3.0
    # t_{0.975, 4} = 2.7764; s = sqrt(2.5); half width = 2.7764 * sqrt(2.5 / 5)
    assert ci.half_width == pytest.approx(2.776445 * math.sqrt(0.5), rel=1e-5)
    assert (ci.low, ci.high) == pytest.approx((3 - ci.half_width, 3 + ci.half_width))
    one = mean_interval([4.0])
    assert one.mean == 4.0 and math.isnan(one.half_width)
    assert math.isnan(mean_interval([]).mean)


def test_competition_ranks_share_ties() -> None:
    assert competition_ranks([10, 7, 10, 3]) == [1, 3, 1, 4]
    assert competition_ranks([(50, 6, 2), (50, 6, 3), (50, 6, 3)]) == [3, 1, 1]


def test_pairwise_wins_ties_and_self_play() -> None:
    games = [
        [("a", 1), ("b", 2), ("c", 2)],
        [("a", 1), ("a", 1), ("b", 3)],  # a vs a is not a comparison
    ]
    w = pairwise_wins(games, ["a", "b", "c"])
    assert w[0, 1] == 3 and w[1, 0] == 0
    assert w[0, 2] == 1
    assert w[1, 2] == 0.5 and w[2, 1] == 0.5


def _elo_wins(elo: np.ndarray, games: int, rng: np.random.Generator | None) -> np.ndarray:
    k = len(elo)
    w = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            p = 1.0 / (1.0 + 10 ** ((elo[j] - elo[i]) / 400))
            wins = p * games if rng is None else rng.binomial(games, p)
            w[i, j], w[j, i] = wins, games - wins
    return w


def test_bradley_terry_recovers_known_strengths() -> None:
    elo = np.array([1000.0, 1250.0, 1500.0, 850.0])
    names = ["random", "greedy", "mcts", "weak"]
    # expected counts, no prior: the exact strengths
    exact = bradley_terry(_elo_wins(elo, 1000, None), names, anchor="random", prior_games=0)
    assert exact.elo == pytest.approx(tuple(elo), abs=0.5)
    assert exact.se[0] == 0.0 and all(s > 0 for s in exact.se[1:])
    # sampled outcomes: the order and the gaps within a few standard errors
    rng = np.random.default_rng(0)
    fit = bradley_terry(_elo_wins(elo, 400, rng), names, anchor="random")
    assert fit.elo[0] == 1000.0
    assert list(np.argsort(fit.elo)) == [3, 0, 1, 2]
    for est, true, se in zip(fit.elo, elo, fit.se, strict=True):
        assert abs(est - true) <= max(4 * se, 1e-9) and abs(est - true) < 80
    assert fit.win_probability(2, 0) == pytest.approx(1 / (1 + 10 ** (-500 / 400)), abs=0.05)
    # an unbeaten player stays finite thanks to the prior; without an anchor the mean is 1000
    top = bradley_terry({("a", "b"): 10.0}, ["a", "b"])
    assert all(math.isfinite(x) for x in top.elo)
    assert top.elo[0] > top.elo[1] and sum(top.elo) / 2 == pytest.approx(1000.0)


def test_openskill_ranks_dominant_agent_first() -> None:
    rng = np.random.default_rng(1)
    games = []
    for _ in range(60):
        others = ["b", "c", "d"]
        rng.shuffle(others)
        ranks = [1, *[2 + int(r) for r in rng.integers(0, 2, size=3)]]
        games.append(list(zip(["a", *others], ranks, strict=True)))
    ratings = openskill_ratings(games)
    best = max(ratings, key=lambda p: ratings[p].ordinal)
    assert best == "a"
    assert ratings["a"].games == 60
    assert ratings["a"].ordinal == pytest.approx(ratings["a"].mu - 3 * ratings["a"].sigma)
    # two players always tied share the rating
    tied = openskill_ratings([[("x", 1), ("y", 1), ("z", 3)]] * 10)
    assert tied["x"].mu == pytest.approx(tied["y"].mu)
    assert tied["x"].mu > tied["z"].mu


# ----------------------------------------------------------------------------- schedule


def test_split_specs_and_labels() -> None:
    assert split_specs("random, mcts:sims=20,c=1.4,greedy") == [
        "random",
        "mcts:sims=20,c=1.4",
        "greedy",
    ]
    assert entry_labels(["random", "greedy", "random"]) == ["random#1", "greedy", "random#2"]


def test_schedule_two_players_alternates_seats() -> None:
    lineups = schedule(3, 2, 4)
    assert len(lineups) == 3 * 4
    seats = Counter((entry, seat) for lu in lineups for seat, entry in enumerate(lu))
    assert all(seats[(e, 0)] == seats[(e, 1)] == 4 for e in range(3))
    assert lineups[:4] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert schedule(1, 2, 2) == [(0, 0), (0, 0)]


@pytest.mark.parametrize(("entries", "players"), [(3, 3), (4, 3), (2, 4), (3, 4), (5, 4)])
def test_schedule_multiplayer_rotations_balanced(entries: int, players: int) -> None:
    slots = seat_slots(entries, players)
    lineups = schedule(entries, players, 2 * len(slots))
    seats = Counter((entry, seat) for lu in lineups for seat, entry in enumerate(lu))
    for e in range(entries):
        counts = {seats[(e, s)] for s in range(players)}
        assert len(counts) == 1 and counts.pop() > 0
    assert all(len(set(lu)) > 1 for lu in lineups)


# --------------------------------------------------------------------------- tournament


def test_tournament_reproducible_and_balanced() -> None:
    a = run_tournament(["random", "random"], players=2, games=6, seed=3)
    b = run_tournament(["random", "random"], players=2, games=6, seed=3)
    assert a.games_csv() == b.games_csv()
    assert a.summary_json() == b.summary_json()
    assert a.summary_csv() == b.summary_csv()
    assert a.format_table() == b.format_table()
    c = run_tournament(["random", "random"], players=2, games=6, seed=4)
    assert c.games_csv() != a.games_csv()
    # seats alternate, every game has one row per seat, wins add up to the games
    rows = a.game_rows()
    assert len(rows) == 12 and [r["game"] for r in rows] == sorted(r["game"] for r in rows)
    seat_count = Counter((r["agent"], r["seat"]) for r in rows)
    assert set(seat_count.values()) == {3} and len(seat_count) == 4
    assert sum(s.wins for s in a.summaries) == pytest.approx(6)
    assert len({r["seed"] for r in rows}) == 6
    assert a.anchor == "random#1" and a.summaries[0].elo == 1000.0
    s = a.summaries[0]
    assert s.win_rate_low <= s.win_rate <= s.win_rate_high
    assert s.score_low <= s.score_mean <= s.score_high
    assert s.score_mean == pytest.approx(
        np.mean([r["total"] for r in rows if r["agent"] == "random#1"])
    )


def test_tournament_workers_match_single_process(tmp_path: Path) -> None:
    one = run_tournament(["random", "random"], players=3, games=6, seed=11, workers=1)
    two = run_tournament(["random", "random"], players=3, games=6, seed=11, workers=2)
    assert one.games_csv() == two.games_csv()
    assert one.summary_json() == two.summary_json()
    rows = one.game_rows()
    assert len(rows) == 18 and {r["seat"] for r in rows} == {0, 1, 2}
    out = one.save(tmp_path / "t", plot=True)
    for name in ("games.csv", "summary.csv", "summary.json", "timing.json", "summary.png"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["players"] == 3
    assert [r["agent"] for r in summary["agents"]] == ["random#1", "random#2"]
    assert summary["pairwise"]["labels"] == ["random#1", "random#2"]
    timing = json.loads((out / "timing.json").read_text())
    assert timing["decisions"] == sum(r["decisions"] for r in rows) > 0


def test_tournament_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError):
        run_tournament(["no_such_agent"], games=1)
    with pytest.raises(ValueError):
        run_tournament(["random"], players=5, games=1)
    with pytest.raises(ValueError):
        run_tournament(["random"], games=0)


def test_tournament_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = main(
        "--agents random,random --players 2 --games 2 --seed 0 --no-plot --no-progress "
        f"--mode legends --scenario gold_rush --out {out}".split()
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "win rate [95% CI]" in text and "decisions/s" in text and "pairwise" in text
    assert (out / "games.csv").exists() and not (out / "summary.png").exists()
    assert "gold_rush" in (out / "games.csv").read_text()


# --------------------------------------------------------------------------------- play


def _scripted_game() -> tuple[list[str], list[str], object]:
    """A 2-player game against a random agent: a mistyped move, an illegal move, a bad id and
    the commands first, then the first legal move at every decision."""
    script = iter(["plaec 0+1 a1 N", "stop", "99999", "help", "board", "moves", ""])
    typed: list[str] = []
    out: list[str] = []

    def answer(session: PlaySession) -> str:
        line = next(script, None)
        if line is None:
            line = first_legal(session)
        typed.append(line)
        return line

    session = scripted_session(
        answer, out, players=2, opponents=["random"], human_seats=[0], seed=5
    )
    return typed, out, session.run()


def test_play_scripted_full_game() -> None:
    typed, out, result = _scripted_game()
    assert result.finished and result.reason == "game over"  # type: ignore[attr-defined]
    text = "\n".join(out)
    assert "mistyped move: cannot parse action 'plaec 0+1 a1 N'" in text
    assert "illegal move: 'stop' is not a move of this phase: the phase is SETUP_CLAIM" in text
    assert "Legal now: 4 moves, e.g. 'claim 1'" in text
    assert "no action has id 99999" in text
    assert "Commands:" in text
    assert "Game over after" in text and "territories" in text
    assert ("Winner: " in text) or ("Shared win: " in text)
    assert "\x1b[" not in text  # color off
    assert len(typed) > 20


def test_play_command_on_piped_stdin(tmp_path: Path) -> None:
    typed, out, _ = _scripted_game()
    cmd = [sys.executable, "-m", "agents.play", "--players", "2", "--opponents", "random"]
    cmd += ["--seed", "5", "--no-color", "--save-dir", str(tmp_path)]
    proc = subprocess.run(
        cmd, input="\n".join(typed) + "\n", capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "mistyped move" in proc.stdout and "the phase is SETUP_CLAIM" in proc.stdout
    assert out[-1] in proc.stdout  # the same winners line as the in-process game
    (finished,) = tmp_path.iterdir()  # the finished game is saved too, for the replay
    assert f"Game saved to {finished}; replay it with" in proc.stdout
    # end of input before the game is over: a message, exit 0, no traceback
    proc = subprocess.run(
        cmd, input="claim 1\n", capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "End of input" in proc.stdout
    (saved,) = set(tmp_path.iterdir()) - {finished}  # the unfinished game, named in the message
    assert f"Game saved to {saved}; resume it with" in proc.stdout


def test_play_eof_quit_and_watch(tmp_path: Path) -> None:
    out: list[str] = []

    def eof(prompt: str) -> str:
        raise EOFError

    io = {"output_fn": out.append, "save_dir": tmp_path}
    result = play(opponents=["random"], seed=2, input_fn=eof, **io)
    assert not result.finished and result.reason == "end of input"
    assert "End of input" in out[-2] and result.saved is not None
    assert out[-1].startswith(f"Game saved to {result.saved}")
    out.clear()
    result = play(opponents=["random"], seed=2, input_fn=lambda p: "quit", **io)
    assert result.reason == "quit" and result.saved is not None
    assert len(list(tmp_path.iterdir())) == 2  # a second file, the first one kept
    out.clear()
    result = play(players=3, opponents=["random"], human_seats=[], seed=2, **io)
    assert result.finished and result.decisions > 0
    text = "\n".join(out)
    assert "random (seat 2): " in text and text.count("Moon River  round") > 5


def test_parse_move_and_move_list() -> None:
    state = new_game(GameConfig(num_players=2), seed=0)
    legal = state.legal_action_list()
    assert parse_move(state, move_words(state, legal[0]).upper()) == (legal[0], None)
    assert parse_move(state, str(legal[0])) == (legal[0], None)
    action, msg = parse_move(state, "claim 9")
    assert action is None and msg is not None
    listing = format_legal_moves(state)
    assert listing.strip().startswith("claim ")
