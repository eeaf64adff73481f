"""What a long command shows when it ends: a plain table of its results
(:func:`closing_table`, aligned text, never raw JSON), the line that names where its outputs
are (:func:`outputs_line`) and the learning curve (:func:`plot_win_rates`: win rate against
whatever x axis the caller says it measured, games played or minutes, with each point's 95%
Wilson interval as an error bar, one series per opponent).

Generic: no game and no pipeline is named here; a pipeline passes its rows.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.ratings import wilson_interval
from training.common.outputs import atomic_path

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["closing_table", "error_bars", "outputs_line", "plot_win_rates", "win_rate_figure"]

Column = str | tuple[str, str]
"""A table column: a row key (also its heading) or ``(key, heading)``."""


def _cell(value: Any, key: str, row: int) -> str:
    """One value as the table writes it: whole numbers with thousands separators, other numbers
    with 3 decimals, a ``(low, high)`` pair as ``[low, high]``, text as it is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        return "nan" if math.isnan(float(value)) else f"{float(value):.3f}"
    if isinstance(value, str):
        return value
    if (
        isinstance(value, Sequence)
        and len(value) == 2
        and all(isinstance(v, numbers.Real) for v in value)
    ):
        return f"[{_cell(value[0], key, row)}, {_cell(value[1], key, row)}]"
    raise TypeError(
        f"rows[{row}][{key!r}]: expected a number, text or a (low, high) pair, got "
        f"{type(value).__name__} (the closing table shows no raw structures)"
    )


def closing_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[Column]) -> str:
    """``rows`` as an aligned text table of ``columns`` (a key, or ``(key, heading)``): a
    heading line, a rule, a line per row; numbers right-aligned, text left-aligned.

    ``ValueError`` for no columns or a row without one of them; ``TypeError`` for a value that
    is neither a number, text nor a ``(low, high)`` pair."""
    if isinstance(columns, str) or not columns:
        raise ValueError(f"columns: expected a sequence of column keys, got {columns!r}")
    keys = [c if isinstance(c, str) else c[0] for c in columns]
    heads = [c if isinstance(c, str) else c[1] for c in columns]
    cells: list[list[str]] = []
    numeric = [True] * len(keys)
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise TypeError(f"rows[{i}]: expected a mapping of column keys to values")
        missing = [k for k in keys if k not in row]
        if missing:
            raise ValueError(f"rows[{i}]: no value for column {missing[0]!r}")
        cells.append([_cell(row[k], k, i) for k in keys])
        for j, k in enumerate(keys):
            if isinstance(row[k], str):
                numeric[j] = False
    widths = [max([len(h)] + [len(r[j]) for r in cells]) for j, h in enumerate(heads)]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ]
        return "  ".join(parts).rstrip()

    out = [line(heads), "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in cells)
    return "\n".join(out)


def outputs_line(path: str | Path) -> str:
    """The closing line that says where a command's outputs are."""
    return f"outputs: {Path(path)}"


def _series(
    rows: Sequence[Mapping[str, Any]], x: str
) -> dict[str, list[tuple[float, float, float, float]]]:
    """Per opponent, sorted by ``x``: ``(x, win rate, low, high)`` of each row (``wins`` may be
    fractional: a shared win counts ``1/k``)."""
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for i, row in enumerate(rows):
        for key in (x, "opponent", "wins", "games"):
            if key not in row:
                raise ValueError(f"rows[{i}]: no {key!r}")
        games = row["games"]
        if isinstance(games, bool) or not isinstance(games, numbers.Integral) or games <= 0:
            raise ValueError(f"rows[{i}]['games']: expected a whole number > 0, got {games!r}")
        try:
            low, high = wilson_interval(float(row["wins"]), int(games))
        except ValueError as e:
            raise ValueError(f"rows[{i}]['wins']: {e}") from None
        out.setdefault(str(row["opponent"]), []).append(
            (float(row[x]), float(row["wins"]) / int(games), low, high)
        )
    for points in out.values():
        points.sort()
    return out


def error_bars(points: Sequence[Sequence[float]]) -> list[list[float]]:
    """Matplotlib's ``yerr`` (below, above) of ``(rate, low, high)`` points, clamped at 0: the
    interval holds the rate, but a rounded bound may sit a hair inside it."""
    return [[max(0.0, r - lo) for r, lo, _ in points], [max(0.0, hi - r) for r, _, hi in points]]


def style_win_rate_axes(ax: Any, x_label: str, y_label: str, title: str) -> None:
    """The look of a win-rate plot: its labels and title, 0 to 1, a dashed line at 0.5, a
    light grid, the legend."""
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_ylim(0, 1)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(title)


def win_rate_figure(
    rows: Sequence[Mapping[str, Any]], x: str, x_label: str, title: str = "Learning curve"
) -> Figure:
    """The figure of :func:`plot_win_rates` (a bare ``Figure``: no pyplot, no backend
    switch, safe in notebooks and headless processes)."""
    if not x_label.strip():
        raise ValueError("x_label: say what the x axis measures (e.g. 'games played')")
    series = _series(rows, x)
    if not series:
        raise ValueError("rows: no evaluation to plot")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for opponent, points in series.items():
        xs = [p[0] for p in points]
        rates = [p[1] for p in points]
        err = error_bars([p[1:] for p in points])
        ax.errorbar(xs, rates, yerr=err, marker="o", ms=3, capsize=3, label=f"vs {opponent}")
    style_win_rate_axes(ax, x_label, "win rate (bars: 95% Wilson interval)", title)
    return fig


def plot_win_rates(
    rows: Sequence[Mapping[str, Any]],
    out_png: str | Path,
    x: str,
    x_label: str,
    title: str = "Learning curve",
) -> Path:
    """Plot win rate against ``rows[i][x]``, one series per opponent, each point with its 95%
    Wilson interval as an error bar, into ``out_png`` (written atomically).

    Args:
        rows: one per evaluation and opponent: ``x``, ``opponent``, ``wins`` (a shared win
            counts ``1/k``) and ``games``.
        x: the key of the x value (``"games"``, ``"minutes"``).
        x_label: what the x axis measures, as the plot says it (``"teacher games played"``,
            ``"minutes of training"``): the caller names it, so the plot says what it plots.
        title: the plot's title.
    """
    fig = win_rate_figure(rows, x, x_label, title)
    out = Path(out_png)
    with atomic_path(out) as tmp:
        fig.savefig(tmp, dpi=110)
    return out
