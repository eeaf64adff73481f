"""The 48 Kingdomino dominoes, read from ``data/dominoes.json`` (RULES.md section 13, K1).

The data file keeps its provenance (three public implementations that agree domino for
domino); :func:`load_dominoes` checks it against the rulebook's own summary of squares per
landscape and crowns (seed line 148-155), so a corrupted table is refused at import.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from pathlib import Path

__all__ = [
    "DATA_FILE",
    "LANDSCAPE_LETTERS",
    "MAX_CROWNS",
    "NUM_DOMINOES",
    "ComponentDataError",
    "Domino",
    "Landscape",
    "dominoes",
    "half_text",
    "load_dominoes",
    "parse_half",
]

DATA_FILE = Path(__file__).with_name("data") / "dominoes.json"
NUM_DOMINOES = 48
MAX_CROWNS = 3


class Landscape(IntEnum):
    """The six landscapes; the value indexes the per-landscape bitboards."""

    WHEAT = 0
    FOREST = 1
    LAKE = 2
    GRASSLAND = 3
    SWAMP = 4
    MINE = 5


LANDSCAPE_LETTERS = "WFLGSM"
"""``LANDSCAPE_LETTERS[Landscape.X]`` is the letter of the kingdom text form."""

# The rulebook's summary (seed lines 148-155, the column layout lost in extraction; the
# figures as the component file restates them): squares per landscape and crowns.
PUBLISHED_SUMMARY: dict[str, int] = {
    "W0": 21,
    "W1": 5,
    "F0": 16,
    "F1": 6,
    "L0": 12,
    "L1": 6,
    "G0": 10,
    "G1": 2,
    "G2": 2,
    "S0": 6,
    "S1": 2,
    "S2": 2,
    "M0": 1,
    "M1": 1,
    "M2": 3,
    "M3": 1,
}


class ComponentDataError(ValueError):
    """The domino table is malformed or disagrees with the rulebook's summary."""


@dataclass(frozen=True, slots=True)
class Domino:
    """One domino: its number (on the back) and its two halves (landscape, crowns)."""

    number: int
    land1: Landscape
    crowns1: int
    land2: Landscape
    crowns2: int
    symmetric: bool = field(init=False, repr=False, compare=False)
    """Both halves equal: turning the domino round places the same squares."""

    def __post_init__(self) -> None:
        sym = self.land1 == self.land2 and self.crowns1 == self.crowns2
        object.__setattr__(self, "symmetric", sym)

    def text(self) -> str:
        """``"23:W1-M0"``: number, then the halves in the kingdom text form."""
        return f"{self.number}:{half_text(self.land1, self.crowns1)}-{half_text(self.land2, self.crowns2)}"


def half_text(land: int, crowns: int) -> str:
    """A square in the kingdom text form: landscape letter and crowns (``"S2"``)."""
    return f"{LANDSCAPE_LETTERS[land]}{crowns}"


def parse_half(text: str) -> tuple[Landscape, int]:
    """Inverse of :func:`half_text`; ``ValueError`` naming what is wrong."""
    if (
        len(text) != 2
        or text[0] not in LANDSCAPE_LETTERS
        or not text[1].isdigit()
        or int(text[1]) > MAX_CROWNS
    ):
        raise ValueError(
            f"not a square: {text!r} (expected a landscape letter of {LANDSCAPE_LETTERS} "
            f"and 0-{MAX_CROWNS} crowns, e.g. 'W0' or 'S2')"
        )
    return Landscape(LANDSCAPE_LETTERS.index(text[0])), int(text[1])


def load_dominoes(path: Path | str = DATA_FILE) -> tuple[Domino, ...]:
    """Read and check a domino table; ``ComponentDataError`` naming the bad entry."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ComponentDataError(f"{path}: cannot read the domino table: {exc}") from exc
    entries = raw.get("dominoes") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or len(entries) != NUM_DOMINOES:
        raise ComponentDataError(f"{path}: 'dominoes' must list {NUM_DOMINOES} dominoes")
    out = []
    for i, entry in enumerate(entries):
        where = f"{path}: dominoes[{i}]"
        if not isinstance(entry, dict) or entry.get("number") != i + 1:
            raise ComponentDataError(f"{where}: expected number {i + 1} (the table is in order)")
        halves = entry.get("halves")
        if not isinstance(halves, list) or len(halves) != 2:
            raise ComponentDataError(f"{where}.halves: expected two squares like 'W0'")
        try:
            (l1, c1), (l2, c2) = parse_half(str(halves[0])), parse_half(str(halves[1]))
        except ValueError as exc:
            raise ComponentDataError(f"{where}.halves: {exc}") from None
        out.append(Domino(i + 1, l1, c1, l2, c2))
    counts = Counter(
        half_text(land, crowns)
        for d in out
        for land, crowns in ((d.land1, d.crowns1), (d.land2, d.crowns2))
    )
    if dict(counts) != PUBLISHED_SUMMARY:
        raise ComponentDataError(
            f"{path}: squares per landscape and crowns {dict(sorted(counts.items()))} differ "
            f"from the rulebook's summary {PUBLISHED_SUMMARY}"
        )
    return tuple(out)


@cache
def dominoes() -> tuple[Domino, ...]:
    """The 48 dominoes of the game, index ``number - 1`` (the shipped, checked table)."""
    return load_dominoes()
