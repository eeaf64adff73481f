"""Progress bars for the long phases of the training commands (teacher games, cloning,
evaluation games): plain ``tqdm`` on stderr, which shows in a terminal and in a notebook alike
(``tqdm.auto`` would need ipywidgets there).

A bar shows what bounds the work. A phase with a wall-time budget (``deadline``) that ends it
long before its count (the warm start's teacher games: at most 100,000 games *or* 1.5 minutes)
is a bar of seconds, with the items done beside it, so it neither shows an ETA of hours for
the count nor jumps to 100 % when the budget skips the rest. Where stderr is neither a terminal
nor a notebook (a piped log, CI), a bar is plain lines, one every :data:`LOG_SECONDS` and one at
the end: no carriage returns, no cursor movements (two bars open at once would otherwise leave
``ESC[A`` codes in the log).

A *phase* (:func:`phase`: "teacher games", "learning", "evaluation") is a bar whose total is
what will actually be done: a budget that ends the phase early calls ``set_total`` with the
real count (or ``finish``), so the bar closes full at that count rather than at a planned
total it never reached. It shows the time elapsed and an ETA (the rate so far over what is
left, never past the phase's deadline), in a terminal as a bar, elsewhere as plain lines.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

from tqdm import tqdm

__all__ = [
    "LOG_SECONDS",
    "LogLines",
    "PhaseBar",
    "TimedBar",
    "eta_seconds",
    "format_duration",
    "phase",
    "progress",
]

LOG_SECONDS = 30.0
"""How often a bar writes a line when stderr is not a terminal."""


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"3.2 min"``, ``"1 h 05 min"``: a duration as a person reads it."""
    if seconds != seconds or seconds < 0:  # NaN or negative: no duration
        raise ValueError(f"seconds: expected a duration >= 0, got {seconds!r}")
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


def eta_seconds(
    done: int, total: int, elapsed: float, budget_left: float | None = None
) -> float | None:
    """Seconds until ``total`` items at the rate so far (``done`` in ``elapsed`` seconds), never
    more than ``budget_left`` (the phase's deadline ends it then); ``None`` before the first
    item when there is no budget to bound it."""
    left = None
    if done > 0 and elapsed > 0:
        left = max(0, total - done) * elapsed / done
    if budget_left is not None:
        left = max(0.0, budget_left) if left is None else min(left, max(0.0, budget_left))
    return left


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name}: expected a whole number >= 0, got {value!r}")
    return value


def _plural(unit: str) -> str:
    return unit + ("es" if unit.endswith(("s", "sh", "ch", "x")) else "s")


def _interactive(stream: TextIO) -> bool:
    """A terminal, or the standard streams of a running Jupyter kernel (its stderr is no TTY
    but shows carriage returns). ``ipykernel`` merely imported (a test process that imported
    it earlier) is not a kernel: the IPython shell must be the kernel's."""
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return True
    if stream is not sys.stderr and stream is not sys.stdout:
        return False
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    return type(shell).__name__ == "ZMQInteractiveShell"


class TimedBar:
    """A bar over a wall-time budget: its position is the seconds spent (of the budget), its
    postfix the items done (``update(n)`` counts items). The work ends at the budget or after
    ``total`` items, whichever comes first (the bar is full then); same calls as a ``tqdm``
    bar."""

    def __init__(self, total: int, deadline: float, desc: str, unit: str, bar: Any) -> None:
        self.total = total
        self.n = 0
        self.unit = unit
        self.start = time.time()
        self.budget = max(1.0, deadline - self.start)
        self.bar = bar
        self.extra = ""

    def _show(self) -> None:
        elapsed = min(time.time() - self.start, self.budget)
        rate = self.n / elapsed if elapsed > 0 else 0.0
        note = f"{self.n:,}/{self.total:,} {_plural(self.unit)}, {rate:.1f} {self.unit}/s"
        self.bar.set_postfix_str(note + (f", {self.extra}" if self.extra else ""), refresh=False)
        self.bar.update(round(elapsed, 1) - self.bar.n)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._show()

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.extra = text
        if refresh:
            self._show()

    def close(self) -> None:
        self._show()
        if self.n >= self.total:  # the count ended the work before the budget: full
            self.bar.update(self.bar.total - self.bar.n)
        self.bar.close()


class _PhaseCalls:
    """What a phase adds to a bar's calls: ``set_total`` to the real count, ``finish`` (the
    phase ended: the total is the count done, then close) and ``with`` (an exception closes it
    as stopped, not done)."""

    def __init__(
        self, total: int, desc: str, unit: str, deadline: float | None, clock: Callable[[], float]
    ) -> None:
        self.total, self.desc, self.unit = _check_count("total", total), desc, unit
        self.deadline = deadline
        self.clock = clock
        self.n = 0
        self.start = clock()
        self.extra = ""
        self.stopped = False

    def eta(self) -> float | None:
        """Seconds left (:func:`eta_seconds`), ``None`` while unknown."""
        now = self.clock()
        left = None if self.deadline is None else self.deadline - now
        return eta_seconds(self.n, self.total, now - self.start, left)

    def _apply_total(self) -> None:
        pass

    def set_total(self, total: int) -> None:
        """The phase will do ``total`` items in all (a budget ended it early, or it learned
        its size); not fewer than those already done."""
        _check_count("total", total)
        if total < self.n:
            raise ValueError(f"total: {self.desc!r} has done {self.n:,} already, got {total:,}")
        self.total = total
        self._apply_total()

    def finish(self) -> None:
        """The phase is over at the count done: the bar closes full at that count."""
        self.set_total(self.n)
        self.close()

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is None:
            self.finish()
        else:
            self.stopped = True
            self.close()


class LogLines(_PhaseCalls):
    """A progress "bar" for logs: a plain line every :data:`LOG_SECONDS` and at the end
    (``desc: 120/400 games, 45 s, ETA 1.5 min``); same calls as a ``tqdm`` bar, and a phase's
    (``set_total``, ``finish``)."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        stream: TextIO,
        deadline: float | None = None,
        every: float = LOG_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(total, desc, unit, deadline, clock)
        self.stream = stream
        self.every = every
        self.last = self.start
        self.closed = False

    def _line(self, end: bool = False) -> str:
        elapsed = self.clock() - self.start
        text = f"{self.desc}: {self.n:,}/{self.total:,} {_plural(self.unit)}, {format_duration(elapsed)}"
        if self.deadline is not None:
            text += f" of a {format_duration(max(0.0, self.deadline - self.start))} budget"
        if not end:
            eta = self.eta()
            text += f", ETA {format_duration(eta) if eta is not None else 'unknown'}"
        if self.extra:
            text += f", {self.extra}"
        return text + ((" (stopped)" if self.stopped else " (done)") if end else "")

    def update(self, n: int = 1) -> None:
        _check_count("n", n)
        if self.closed:
            raise ValueError(f"{self.desc!r} is closed: no more updates")
        self.n += n
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            print(self._line(), file=self.stream, flush=True)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.extra = text

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            print(self._line(end=True), file=self.stream, flush=True)


class PhaseBar(_PhaseCalls):
    """A phase in a terminal: a ``tqdm`` bar of the items whose suffix is the time elapsed and
    the ETA of :func:`eta_seconds` (bounded by the deadline, which tqdm's own would not be)."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        stream: TextIO,
        deadline: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(total, desc, unit, deadline, clock)
        self.bar = tqdm(
            total=total,
            desc=desc,
            unit=unit,
            file=stream,
            mininterval=1.0,
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
            + _plural(unit)
            + "{postfix}",
        )
        self._show()

    def _show(self, refresh: bool = False) -> None:
        eta = self.eta()
        note = f"{format_duration(self.clock() - self.start)} elapsed, ETA "
        note += format_duration(eta) if eta is not None else "unknown"
        self.bar.set_postfix_str(note + (f", {self.extra}" if self.extra else ""), refresh=refresh)

    def update(self, n: int = 1) -> None:
        _check_count("n", n)
        if self.bar.disable:
            raise ValueError(f"{self.desc!r} is closed: no more updates")
        self.n += n
        self._show()
        self.bar.update(n)

    def _apply_total(self) -> None:
        self.bar.total = self.total
        self._show(refresh=True)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.extra = text
        self._show(refresh)

    def close(self) -> None:
        if not self.bar.disable:
            self._show(refresh=True)
            self.bar.close()


def progress(
    total: int,
    desc: str,
    unit: str = "it",
    enabled: bool = True,
    deadline: float | None = None,
    stream: TextIO | None = None,
) -> Any:
    """A bar of ``total`` steps (``bar.update(n)``, ``bar.set_postfix_str(text)``,
    ``bar.close()``); ``enabled=False`` gives one that shows nothing (the same calls work).

    Args:
        total: the items the phase does at most.
        desc, unit: what the bar says (``"teacher games"``, ``"game"``).
        enabled: ``False`` for a silent bar.
        deadline: the phase's wall-time budget as a ``time.time()`` instant, if it has one:
            the bar then measures time, with the items done beside it (:class:`TimedBar`).
        stream: where to write (default stderr); not a terminal or a notebook: plain lines
            (:class:`LogLines`).
    """
    out = sys.stderr if stream is None else stream
    if enabled and not _interactive(out):
        return LogLines(total, desc, unit, out, deadline)
    if deadline is not None and enabled:
        bar = tqdm(
            total=round(max(1.0, deadline - time.time()), 1),
            desc=f"{desc} (time budget)",
            unit="s",
            file=out,
            mininterval=1.0,
            dynamic_ncols=True,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.0f}/{total:.0f} s{postfix}",
        )
        return TimedBar(total, deadline, desc, unit, bar)
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=out,
        mininterval=1.0,
        dynamic_ncols=True,
        disable=not enabled,
    )


def phase(
    desc: str,
    total: int,
    unit: str = "it",
    deadline: float | None = None,
    stream: TextIO | None = None,
    every: float = LOG_SECONDS,
    clock: Callable[[], float] = time.time,
) -> LogLines | PhaseBar:
    """A reporter for one phase of a long command (``"teacher games"``, ``"learning"``,
    ``"evaluation"``): ``update(n)`` per item done, ``set_total(count)`` when a budget ends
    it early (or ``finish()``, or leave a ``with`` block), ``set_postfix_str(text)`` for a
    note. It shows the items done of the total, the time elapsed and the ETA; in a terminal
    (or a notebook) as a bar (:class:`PhaseBar`), elsewhere as a plain line every ``every``
    seconds and one at the end (:class:`LogLines`).

    Args:
        desc, unit: what it says (``"learning"``, ``"step"``).
        total: the items the phase will do (revise it with ``set_total``).
        deadline: the phase's wall-time budget as a ``clock()`` instant: the ETA never goes
            past it.
        stream: where to write (default stderr).
        every: seconds between two plain lines.
        clock: the time source (``time.time``; tests pass their own).
    """
    out = sys.stderr if stream is None else stream
    if _interactive(out):
        return PhaseBar(total, desc, unit, out, deadline, clock)
    return LogLines(total, desc, unit, out, deadline, every, clock)
