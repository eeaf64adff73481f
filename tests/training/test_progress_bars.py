"""Progress bars show what bounds the work (issue 24, "the first ten minutes"): a phase with a
time budget is a bar of seconds with the items beside it, not a count of 100,000 games with an
ETA of hours; in a piped log a bar is plain lines, without carriage returns or cursor codes."""

from __future__ import annotations

import io
import time

import pytest
from tqdm import tqdm

from training.common.progress import (
    LogLines,
    PhaseBar,
    TimedBar,
    eta_seconds,
    format_duration,
    phase,
    progress,
)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_bars_are_plain_lines() -> None:
    out = io.StringIO()
    first = progress(400, "teacher games", unit="game", stream=out)
    second = progress(10, "cloning", unit="batch", stream=out)  # two open at once
    assert isinstance(first, LogLines) and isinstance(second, LogLines)
    first.every = second.every = 0.0  # a line per update, for the test
    for _ in range(3):
        first.update(1)
        second.update(2)
    second.close()
    first.close()
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[-1] == lines[-1].strip() and lines[-1].startswith("teacher games: 3/400 games")
    assert lines[-1].endswith("(done)")
    assert "cloning: 6/10 batches, 0 s (done)" in lines
    assert len(lines) == 3 + 3 + 2  # a line per update (every=0) and one at each close


def test_a_time_budget_is_a_bar_of_seconds() -> None:
    out = _Terminal()
    bar = progress(100_000, "teacher games", unit="game", deadline=time.time() + 90, stream=out)
    assert isinstance(bar, TimedBar)
    assert bar.bar.total == 90.0 or abs(bar.bar.total - 90.0) < 1.0  # seconds, not games
    bar.update(5)
    bar.update(0)  # a game the budget skipped: no game
    assert bar.n == 5
    assert bar.bar.n < 5  # the position is the seconds spent, not the games
    assert "5/100,000 games" in bar.bar.postfix
    bar.close()


def test_timed_bar_is_full_when_the_count_ends_the_work() -> None:
    out = _Terminal()
    bar = progress(3, "cloning", unit="batch", deadline=time.time() + 60, stream=out)
    for _ in range(3):
        bar.update(1)
    bar.close()
    assert bar.bar.n == bar.bar.total


def test_without_a_budget_a_terminal_gets_a_count_bar() -> None:
    bar = progress(10, "evaluation games", unit="game", stream=_Terminal())
    assert isinstance(bar, tqdm) and bar.total == 10
    bar.close()
    silent = progress(10, "evaluation games", enabled=False, stream=io.StringIO())
    silent.update(1)
    silent.close()


def test_an_imported_ipykernel_is_not_a_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that merely imported ipykernel (a test worker, a script) still writes plain
    lines when piped; only a running kernel's shell counts as a notebook."""
    import sys
    import types

    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    assert isinstance(progress(5, "games", unit="game", stream=io.StringIO()), LogLines)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert isinstance(progress(5, "games", unit="game"), LogLines)

    class ZMQInteractiveShell:  # the kernel's shell, by name
        pass

    fake = types.ModuleType("IPython")
    fake.get_ipython = ZMQInteractiveShell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert not isinstance(progress(5, "games", unit="game"), LogLines)


# -- phases: the total is what is done, with elapsed time and an ETA (issue 32) ----------------
class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_piped_phase_prints_elapsed_and_eta_lines() -> None:
    out, clock = io.StringIO(), _Clock()
    reporter = phase("teacher games", 100, unit="game", stream=out, every=60, clock=clock)
    assert isinstance(reporter, LogLines)
    for _ in range(10):
        clock.now += 6.0  # a game every 6 s: a line once a minute
        reporter.update(1)
    assert out.getvalue().splitlines() == ["teacher games: 10/100 games, 1.0 min, ETA 9.0 min"]
    assert "\r" not in out.getvalue()


def test_a_phase_a_budget_ends_early_closes_at_the_real_count() -> None:
    out, clock = io.StringIO(), _Clock()
    with phase("learning", 55_589, unit="step", stream=out, clock=clock) as reporter:
        for _ in range(1_800):
            clock.now += 0.1
            reporter.update(1)
    assert reporter.total == 1_800
    assert out.getvalue().splitlines()[-1] == "learning: 1,800/1,800 steps, 3.0 min (done)"


def test_a_phase_stopped_by_an_error_says_so() -> None:
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt), phase("evaluation", 300, "game", stream=out) as r:
        r.update(7)
        raise KeyboardInterrupt
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("evaluation: 7/300 games") and last.endswith("(stopped)")


def test_the_eta_never_passes_the_deadline() -> None:
    clock = _Clock()
    reporter = phase(
        "learning", 1_000, "step", deadline=clock.now + 120, stream=io.StringIO(), clock=clock
    )
    clock.now += 60
    reporter.update(10)  # at this rate 99 minutes are left, but the budget ends in one
    assert reporter.eta() == pytest.approx(60.0)
    assert eta_seconds(0, 10, 0.0) is None
    assert eta_seconds(5, 10, 10.0) == pytest.approx(10.0)


def test_a_terminal_phase_is_a_bar_with_elapsed_and_eta() -> None:
    out, clock = _Terminal(), _Clock()
    reporter = phase("evaluation", 300, unit="game", stream=out, clock=clock)
    assert isinstance(reporter, PhaseBar)
    clock.now += 30
    reporter.update(100)
    assert "30 s elapsed, ETA 1.0 min" in reporter.bar.postfix
    reporter.set_total(150)
    assert reporter.bar.total == 150
    reporter.finish()
    assert reporter.bar.n == reporter.bar.total == 100
    assert "100/100 games" in out.getvalue()


@pytest.mark.parametrize("stream", [io.StringIO, _Terminal])
def test_a_phase_refuses_bad_counts(stream: type[io.StringIO]) -> None:
    with pytest.raises(ValueError, match="^total"):
        phase("learning", -1, stream=stream())
    reporter = phase("learning", 10, stream=stream())
    reporter.update(4)
    with pytest.raises(ValueError, match="^total: 'learning' has done 4"):
        reporter.set_total(3)
    with pytest.raises(ValueError, match="^n"):
        reporter.update(-1)
    reporter.close()
    with pytest.raises(ValueError, match="closed"):
        reporter.update(1)


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0 s"), (59.4, "59 s"), (90, "1.5 min"), (3900, "1 h 05 min")]
)
def test_durations_read_like_speech(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text
    with pytest.raises(ValueError, match="^seconds"):
        format_duration(-1)
