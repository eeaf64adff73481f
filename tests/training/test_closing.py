"""What a long command shows when it ends (issue 32, "the first run speaks"): a plain aligned
table, never raw JSON; the line naming its outputs; a learning curve whose x axis says what it
measures and whose points carry their 95% Wilson intervals."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.ratings import wilson_interval
from training.common.closing import closing_table, outputs_line, plot_win_rates, win_rate_figure

ROWS = [
    {"opponent": "random", "games": 100, "win_rate": 0.97, "ci": (0.915, 0.99), "ok": True},
    {"opponent": "heuristic", "games": 1_200, "win_rate": 0.4, "ci": (0.372, 0.428), "ok": False},
]


def test_the_closing_table_is_aligned_text() -> None:
    text = closing_table(ROWS, ["opponent", "games", ("win_rate", "win rate"), ("ci", "95% CI")])
    assert text.splitlines() == [
        "opponent   games  win rate          95% CI",
        "---------  -----  --------  --------------",
        "random       100     0.970  [0.915, 0.990]",
        "heuristic  1,200     0.400  [0.372, 0.428]",
    ]
    assert "{" not in text and '"' not in text


def test_the_closing_table_refuses_what_it_cannot_show() -> None:
    with pytest.raises(ValueError, match=r"^rows\[1\]: no value for column 'score'"):
        closing_table([{"score": 1}, {"games": 2}], ["score"])
    with pytest.raises(TypeError, match=r"^rows\[0\]\['detail'\]: .*no raw structures"):
        closing_table([{"detail": {"a": 1}}], ["detail"])
    with pytest.raises(ValueError, match="^columns"):
        closing_table(ROWS, [])
    with pytest.raises(ValueError, match="^columns"):
        closing_table(ROWS, "opponent")


def test_the_outputs_line_names_the_path(tmp_path: Path) -> None:
    assert outputs_line(tmp_path / "run") == f"outputs: {tmp_path / 'run'}"


CURVE = [
    {"games": 0, "opponent": "random", "wins": 60, "games_played": 100},
    {"games": 40_000, "opponent": "random", "wins": 97, "games_played": 100},
    {"games": 40_000, "opponent": "heuristic", "wins": 40.5, "games_played": 100},
    {"games": 0, "opponent": "heuristic", "wins": 2, "games_played": 100},
]


def _rows() -> list[dict[str, float]]:
    # the curve's x is "games"; each evaluation played 100 games (the Wilson n)
    return [
        {"x": r["games"], "opponent": r["opponent"], "wins": r["wins"], "games": r["games_played"]}
        for r in CURVE
    ]


def test_the_curve_labels_its_axis_and_draws_wilson_bars() -> None:
    fig = win_rate_figure(_rows(), "x", "teacher games played")
    ax = fig.axes[0]
    assert ax.get_xlabel() == "teacher games played"
    assert "95% Wilson" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["vs random", "vs heuristic"]
    for container, opponent in zip(ax.containers, ("random", "heuristic"), strict=True):
        data_line, _caps, (bars,) = container.lines
        points = sorted((r["x"], r["wins"]) for r in _rows() if r["opponent"] == opponent)
        assert list(data_line.get_xdata()) == [p[0] for p in points]  # sorted by x
        for segment, (_, wins) in zip(bars.get_segments(), points, strict=True):
            low, high = wilson_interval(wins, 100)
            assert segment[0][1] == pytest.approx(low) and segment[1][1] == pytest.approx(high)


def test_the_curve_is_written(tmp_path: Path) -> None:
    out = plot_win_rates(_rows(), tmp_path / "learning_curve.png", "x", "minutes of training")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("rows", "x_label", "message"),
    [
        (_rows(), " ", "^x_label"),
        ([], "games", "^rows: no evaluation"),
        ([{"x": 1, "opponent": "r", "wins": 3}], "games", r"^rows\[0\]: no 'games'"),
        ([{"x": 1, "opponent": "r", "wins": 3, "games": 0}], "games", r"^rows\[0\]\['games'\]"),
        ([{"x": 1, "opponent": "r", "wins": 5, "games": 4}], "games", r"^rows\[0\]\['wins'\]"),
    ],
)
def test_the_curve_refuses_bad_rows(rows: list[dict], x_label: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        win_rate_figure(rows, "x", x_label)
