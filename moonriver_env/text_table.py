"""Plain-text tables for command-line reports (benchmarks, tournaments)."""

from __future__ import annotations

from collections.abc import Sequence


def format_columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """The lines of a table whose first row is the header: the first column left-aligned,
    the others right-aligned, two spaces between columns and a dashed rule under the header."""
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for k, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [row[c].rjust(widths[c]) for c in range(1, len(row))]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines
