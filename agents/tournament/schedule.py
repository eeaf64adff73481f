"""The tournament's entries and schedule: agent lists, labels and the seat lineup of every
game (see :mod:`agents.tournament`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def split_specs(text: str) -> list[str]:
    """Split a comma-separated agent list; a piece with ``=`` but no ``:`` continues the
    previous spec's parameters (``mcts:sims=200,c=1.4,random`` -> two specs)."""
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def entry_labels(specs: Sequence[str]) -> list[str]:
    """Unique labels: a spec listed more than once becomes ``spec#1``, ``spec#2``, ..."""
    counts: dict[str, int] = {}
    for s in specs:
        counts[s] = counts.get(s, 0) + 1
    seen: dict[str, int] = {}
    labels = []
    for s in specs:
        if counts[s] > 1:
            seen[s] = seen.get(s, 0) + 1
            labels.append(f"{s}#{seen[s]}")
        else:
            labels.append(s)
    return labels


def seat_slots(num_entries: int, players: int) -> list[tuple[int, ...]]:
    """The (lineup, cyclic rotation) slots of a 3-4 player tournament, in schedule order."""
    if num_entries >= players:
        lineups = list(itertools.combinations(range(num_entries), players))
    else:
        lineups = [
            c
            for c in itertools.combinations_with_replacement(range(num_entries), players)
            if num_entries == 1 or len(set(c)) > 1
        ]
    return [lu[r:] + lu[:r] for lu in lineups for r in range(players)]


def schedule(num_entries: int, players: int, games: int) -> list[tuple[int, ...]]:
    """The seat lineup (entry index per seat) of every game, in game order (see module doc)."""
    if num_entries < 1:
        raise ValueError("agents: expected at least one agent")
    if players == 2:
        pairs = list(itertools.combinations(range(num_entries), 2)) or [(0, 0)]
        return [(a, b) if g % 2 == 0 else (b, a) for a, b in pairs for g in range(games)]
    slots = seat_slots(num_entries, players)
    return [slots[i % len(slots)] for i in range(games)]
