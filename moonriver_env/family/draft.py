"""The draft of a column (a line of numbered pieces), shared by Moon River and Kingdomino.

Both games lay out a column of pieces drawn from a face-down pile, sorted by the numbers
printed on their backs (lowest at the top), and play a round in the order of the claims on
that column: the claim on the top piece first (Moon River RULES.md section 3; Kingdomino
RULES.md section 13, K3).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["draw_column", "next_claim"]


def draw_column(pile: list[int], size: int, number: Sequence[int]) -> list[int]:
    """Draw ``size`` pieces from the end of ``pile`` (in place) and return them sorted by
    ``number[piece]``, the number on the back, lowest first; equal numbers keep draw order."""
    drawn = [pile.pop() for _ in range(size)]
    return sorted(drawn, key=number.__getitem__)


def next_claim(claims: Sequence[int]) -> int:
    """The position of a column whose claim plays next: the top claimed one (a claim is a
    seat ``>= 0``, ``-1`` for none); ``-1`` when no claim is left."""
    for pos, seat in enumerate(claims):
        if seat >= 0:
            return pos
    return -1
