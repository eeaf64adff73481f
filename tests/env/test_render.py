"""The renderers (moonriver_env/moonriver/render/): ANSI text, RGB frames, the human display.

Frames and texts are checked on snapshots of seeded random games for every player count and
mode, and on a hand-made ranch whose text is written out cell by cell. The exact output of
one seeded game per mode is pinned by hashes, so a change of any pixel or character shows.
"""

from __future__ import annotations

import hashlib
import random
import re
from functools import cache

import numpy as np
import pytest
from positions import position

from moonriver_env.moonriver.render import (
    ANSI_LEGEND,
    can_display,
    render_ansi,
    render_rgb,
    score_table,
    show_human,
)
from moonriver_env.rules import GameConfig, GameState, Phase, new_game

CONFIGS = [(n, mode) for mode in ("base", "legends") for n in (2, 3, 4)]
SNAPSHOT_STEPS = (0, 12, 60, 10_000)  # 10_000: played to the end
# A grid row of the plain text: row number, then 5 cells (a separator, then a 4-char code).
GRID_ROW = re.compile(r"^\s?(\d{1,2})((?:[ >](?: \.  |[DCMFKA][ 1-9+][ dtgrfW][ $b0-9xo*+])){5})$")


@cache
def snapshots(num_players: int, mode: str, seed: int = 0) -> tuple[GameState, ...]:
    """Clones of a seeded random game after each of SNAPSHOT_STEPS actions."""
    state = new_game(GameConfig(num_players=num_players, mode=mode), seed=seed)
    rng = random.Random(seed)
    out = []
    step = 0
    for target in SNAPSHOT_STEPS:
        while step < target and not state.is_terminal:
            legal = state.legal_action_list()
            state.apply(legal[rng.randrange(len(legal))])
            step += 1
        out.append(state.clone())
    assert out[-1].is_terminal
    return tuple(out)


def grid_codes(text: str, rows: int) -> list[list[str]]:
    """The cell codes of every ranch of a stacked plain view: one list per ranch, indexed by
    cell (``row * 5 + col``, row 0 = the river)."""
    ranches: list[list[str]] = []
    current: dict[int, list[str]] = {}
    for line in text.splitlines():
        m = GRID_ROW.match(line.ljust(27))  # lines are right-stripped
        if m is None:
            continue
        row = int(m[1])
        codes = [m[2][i * 5 + 1 : i * 5 + 5] for i in range(5)]
        current[row] = codes
        if row == 1:
            assert sorted(current) == list(range(1, rows + 1)), "rows printed top to bottom"
            ranches.append([code for r in range(1, rows + 1) for code in current[r]])
            current = {}
    return ranches


# ------------------------------------------------------------------------------------ RGB


@pytest.mark.parametrize(("num_players", "mode"), CONFIGS)
def test_rgb_frames(num_players: int, mode: str) -> None:
    frames = []
    for state in snapshots(num_players, mode):
        frame = render_rgb(state)
        assert frame.dtype == np.uint8
        assert frame.ndim == 3 and frame.shape[2] == 3
        assert 300 <= frame.shape[0] <= 800 and 500 <= frame.shape[1] <= 1000
        packed = frame.astype(np.int32) @ np.array([1 << 16, 1 << 8, 1], dtype=np.int32)
        assert len(np.unique(packed)) > 100, "a legible picture has many colours"
        again = render_rgb(state.clone())
        assert np.array_equal(frame, again), "deterministic for a state"
        frames.append(frame)
    for before, after in zip(frames, frames[1:], strict=False):
        assert before.shape != after.shape or not np.array_equal(before, after)


def test_rgb_size_and_scale() -> None:
    state = snapshots(4, "base")[2]
    frame = render_rgb(state)
    height, width, _ = frame.shape
    assert 800 <= width <= 1000 and 380 <= height <= 560  # about 900 x 500
    big = render_rgb(state, scale=2)
    assert big.shape == (2 * height, 2 * width, 3)
    with pytest.raises(ValueError, match="scale"):
        render_rgb(state, scale=0)


def test_rgb_seat_names_change_only_labels() -> None:
    state = snapshots(3, "base")[2]
    plain = render_rgb(state)
    named = render_rgb(state, seat_names=["Ann", "Bea", "a very long name for one seat"])
    assert named.shape == plain.shape and not np.array_equal(named, plain)
    with pytest.raises(ValueError, match="seat_names"):
        render_rgb(state, seat_names=["only one"])


def test_rgb_highlights_acting_seat() -> None:
    """The acting seat's ranch is drawn on a highlighted background."""
    state = snapshots(4, "base")[2]
    frame = render_rgb(state)
    acting_bg = np.array([255, 241, 190], dtype=np.uint8)
    assert np.all(frame == acting_bg, axis=2).sum() > 500


# ----------------------------------------------------------------------------------- ANSI


@pytest.mark.parametrize(("num_players", "mode"), CONFIGS)
def test_ansi_plain_text(num_players: int, mode: str) -> None:
    for state in snapshots(num_players, mode):
        text = render_ansi(state, color=False)
        assert "\x1b[" not in text
        for seat in range(num_players):
            assert f"seat {seat} [{state.boards[seat]}]" in text
        assert f"round {state.round}" in text
        for line in ANSI_LEGEND:
            assert line in text
        assert "a    b    c    d    e" in text
        rows = state.grid.rows
        for row in range(1, rows + 1):
            assert re.search(rf"^\s?{row} ", text, re.MULTILINE), f"row label {row}"
        assert max(len(line) for line in text.splitlines()) <= 160
        if state.scenario is not None:
            assert state.scenario.replace("_", " ") in text
        if state.is_terminal:
            assert "GAME OVER" in text
        else:
            assert f"phase {state.phase.name}" in text


@pytest.mark.parametrize(("num_players", "mode"), CONFIGS)
def test_ansi_cells_match_state(num_players: int, mode: str) -> None:
    """Stacked view (narrow width): every cell code shows the landscape and the cows."""
    letters = "DCMFKA"
    for state in snapshots(num_players, mode):
        text = render_ansi(state, color=False, width=40)
        ranches = grid_codes(text, state.grid.rows)
        assert len(ranches) == num_players
        for seat, codes in enumerate(ranches):
            for cell, code in enumerate(codes):
                kind = state.kinds[seat][cell]
                if kind < 0:
                    assert code == " .  ", state.grid.cell_name(cell)
                    continue
                assert code[0] == letters[state.kind_table.land[kind]]
                cows = state.cows[seat][cell]
                assert code[1] == (str(cows) if cows else " ")
                assert (code[2] != " ") == (state.partners[seat][cell] >= 0)


def test_ansi_color_has_escape_codes() -> None:
    state = snapshots(4, "legends")[2]
    text = render_ansi(state, color=True)
    assert "\x1b[48;5;" in text and "\x1b[0m" in text
    plain = [line.rstrip() for line in re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()]
    assert plain == render_ansi(state, color=False).splitlines()


def test_ansi_side_by_side_or_stacked() -> None:
    state = snapshots(4, "base")[2]
    wide = render_ansi(state, color=False)
    assert len([line for line in wide.splitlines() if "a    b    c" in line]) == 1
    narrow = render_ansi(state, color=False, width=70)
    assert len([line for line in narrow.splitlines() if "a    b    c" in line]) == 2
    assert max(len(line) for line in narrow.splitlines()[4 : -len(ANSI_LEGEND)]) <= 70


def test_ansi_seat_names() -> None:
    state = snapshots(2, "base")[1]
    text = render_ansi(state, color=False, seat_names=["Ann", "Bob"])
    assert "Ann [camp]" in text and "Bob [camp]" in text
    long = render_ansi(state, color=False, seat_names=["x" * 60, "Bob"])
    assert max(len(line) for line in long.splitlines()) <= 160


def test_ansi_counts_cows_after_a_few_actions() -> None:
    """Setup plus a few actions of a seeded game: the cow digits add up to the cows."""
    state = new_game(GameConfig(num_players=3), seed=4)
    rng = random.Random(4)
    while sum(map(sum, state.cows)) < 3:
        legal = state.legal_action_list()
        state.apply(legal[rng.randrange(len(legal))])
    text = render_ansi(state, color=False, width=40)
    shown = sum(
        int(code[1]) for codes in grid_codes(text, 5) for code in codes if code[1].isdigit()
    )
    assert shown == sum(map(sum, state.cows)) >= 3
    assert f"cows in supply: {state.supply}" in text


def test_ansi_hand_made_ranch() -> None:
    """A hand-made ranch, written out cell by cell (RULES.md sections 1 and 4)."""
    state = position(
        ranch="""
            . . . . .
            . . . . .
            . . . . .
            23 . . . .
            1 13c2pGs 6c1 21 24pDc
        """,
        held=[2, 14],
        phase=Phase.EXPAND,
    )
    text = render_ansi(state, color=False, width=40)
    lines = text.splitlines()
    start = lines.index("> seat 0 [camp]")
    block = lines[start : start + 10]
    assert block[2:] == [
        "   a    b    c    d    e",
        " 5  .    .    .    .    .",
        " 4  .    .    .    .    .",
        " 3  .    .    .    .    .",
        " 2 A     .    .    .    .",
        " 1 D    M2go C1   K  3 A Wo",
        "  ~====~~~~~~====~~~~~~====",
        "  hold 2/3: D$ Mcc",
    ]
    score = state.scores()[0]
    assert block[1] == (
        f"  {score.total} pts: T{score.territories} R{score.resources} "
        f"P{score.partners} S{score.scenario}"
    )


def test_ansi_marks_the_piece_being_resolved() -> None:
    state = new_game(GameConfig(num_players=4), seed=2)
    rng = random.Random(2)
    while state.phase not in (Phase.RECRUIT, Phase.SKULL):
        legal = state.legal_action_list()
        state.apply(legal[rng.randrange(len(legal))])
    text = render_ansi(state, color=False)
    names = " ".join(state.grid.cell_name(c) for c in sorted(state.piece))
    assert f"piece: {names}" in text
    grid_lines = [line for line in text.splitlines() if re.match(r"^\s?\d", line)]
    assert sum(line.count(">") for line in grid_lines) == len(state.piece)


# ---------------------------------------------------------------------------------- pins

# sha256 prefixes of render_ansi (colour), score_table and render_rgb (default scale; frames
# re-pinned for issue 12: cow heads and hollow circle rings, glyphs sized by the square) for
# each of SNAPSHOT_STEPS of the seed-0 game: (ansi, score table, frame height x width, frame).
# The ansi texts re-pinned for issue 32: the column lines number their plots as 'claim N' does.
# Made with Pillow 13: frames depend on Pillow's bundled font, so they are compared only
# under the Pillow major version they were made with; the texts always.
PINNED = {
    (2, "base"): [
        ("2e96426f0f6bd92f", "796b8cc5417627b5", (626, 646), "aeeb50ec167d64bb"),
        ("a6d9097a19183dec", "55934e72c103b511", (626, 646), "f20890106a64bfdc"),
        ("dc93e8eeddb79207", "a96f9a73fa5a2cdc", (626, 646), "9eed1392eaa5b1f0"),
        ("489d94ee6b428234", "54000af671bc27db", (626, 646), "ddf9f7956308e631"),
    ],
    (4, "legends"): [
        ("277e93c5d67cd468", "e5dce03f61fa40b7", (471, 870), "ffe1c8b9a6f5f52e"),
        ("8e1cd5588d808d6a", "5dab90c96e70cc84", (471, 870), "3ba0d785fbf382f5"),
        ("8301407147d049f6", "817458c78bd074b2", (471, 870), "a95d843a6ecb2187"),
        ("7b4c62a4fde52380", "ad34e6f193257d19", (471, 870), "09e8b792209d0dfe"),
    ],
}
PINNED_PILLOW_MAJOR = "13"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@pytest.mark.parametrize(("num_players", "mode"), sorted(PINNED))
def test_renders_pinned(num_players: int, mode: str) -> None:
    """Same texts and frames as when pinned: change the pins only for a wanted new look."""
    import PIL

    same_pillow = PIL.__version__.split(".")[0] == PINNED_PILLOW_MAJOR
    for step, state, (ansi, table, shape, frame_hash) in zip(
        SNAPSHOT_STEPS, snapshots(num_players, mode), PINNED[num_players, mode], strict=True
    ):
        assert digest(render_ansi(state).encode()) == ansi, f"ansi text after {step} actions"
        assert digest(score_table(state).encode()) == table, f"score table after {step} actions"
        if same_pillow:
            frame = render_rgb(state)
            assert frame.shape[:2] == shape, f"frame size after {step} actions"
            assert digest(frame.tobytes()) == frame_hash, f"frame after {step} actions"


# ---------------------------------------------------------------------------------- human


def test_show_human_headless(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert can_display() is False
    state = snapshots(2, "legends")[1]
    shown = show_human(render_rgb(state), render_ansi(state, color=False))
    assert shown is False
    out = capsys.readouterr().out
    assert "seat 0" in out and f"round {state.round}" in out
    assert show_human(render_rgb(state)) is False
    assert "no display" in capsys.readouterr().out


def test_show_human_with_a_display_but_no_gui(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DISPLAY variable without a usable GUI backend still falls back to text."""
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setenv("MPLBACKEND", "agg")
    state = snapshots(3, "base")[1]
    assert show_human(render_rgb(state), "text view") is False
    assert "text view" in capsys.readouterr().out
