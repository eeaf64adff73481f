"""Progress bars show what bounds the work (issue 24, "the first ten minutes"): a phase with a
time budget is a bar of seconds with the items beside it, not a count of 100,000 games with an
ETA of hours; in a piped log a bar is plain lines, without carriage returns or cursor codes."""

from __future__ import annotations

import io
import time

import pytest
from tqdm import tqdm

from training.common.progress import LogLines, TimedBar, progress


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


def test_the_run_states_its_budget_and_what_varies() -> None:
    from training.ppo.config import DEFAULT_CONFIG, load_config
    from training.ppo.train import describe_budget

    short = describe_budget(load_config(DEFAULT_CONFIG))
    assert "100,000 heuristic games or 1.5 min of wall time" in short
    assert "PPO 30,000 steps" in short and "depend on the machine's speed" in short
    fixed = describe_budget(
        load_config(
            DEFAULT_CONFIG,
            ["pretrain.collect_minutes=0", "pretrain.max_minutes=0", "run.time_limit_minutes=0"],
        )
    )
    assert fixed.endswith("(fixed amounts of work)")


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
