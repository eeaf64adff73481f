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
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tqdm import tqdm

LOG_SECONDS = 30.0
"""How often a bar writes a line when stderr is not a terminal."""


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


class LogLines:
    """A progress "bar" for logs: a plain line every :data:`LOG_SECONDS` and at the end
    (``desc: 120/400 games, 45 s``); same calls as a ``tqdm`` bar."""

    def __init__(
        self,
        total: int,
        desc: str,
        unit: str,
        stream: TextIO,
        deadline: float | None = None,
        every: float = LOG_SECONDS,
    ) -> None:
        self.total, self.desc, self.unit, self.stream = total, desc, unit, stream
        self.deadline = deadline
        self.every = every
        self.n = 0
        self.start = self.last = time.time()
        self.extra = ""
        self.closed = False

    def _line(self, end: bool = False) -> str:
        elapsed = time.time() - self.start
        text = f"{self.desc}: {self.n:,}/{self.total:,} {_plural(self.unit)}, {elapsed:.0f} s"
        if self.deadline is not None:
            text += f" of a {self.deadline - self.start:.0f} s budget"
        if self.extra:
            text += f", {self.extra}"
        return text + (" (done)" if end else "")

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.time()
        if now - self.last >= self.every:
            self.last = now
            print(self._line(), file=self.stream, flush=True)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.extra = text

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            print(self._line(end=True), file=self.stream, flush=True)


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
