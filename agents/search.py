"""What every game's search agents share: the budget of a decision, the checks of its
arguments and the node of a determinized UCT tree. A game's search agents live in its folder
(``moonriver_env/<game>/agents/``)."""

from __future__ import annotations

import time

__all__ = ["Budget", "TreeNode", "check_budget", "check_count", "check_search"]


class Budget:
    """Stops a search after ``sims`` simulations or ``seconds`` of wall time (whichever comes
    first; ``sims <= 0`` or ``seconds`` ``None`` disables that limit)."""

    def __init__(self, sims: int, seconds: float | None) -> None:
        self.sims = sims
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.done = 0

    def more(self) -> bool:
        if self.sims > 0 and self.done >= self.sims:
            return False
        return self.deadline is None or time.perf_counter() < self.deadline


def check_count(name: str, value: object) -> None:
    """``ValueError`` naming ``name`` unless ``value`` is an integer >= 0 (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name}: expected an integer >= 0, got {value!r}")


def check_budget(sims: int, seconds: float | None) -> None:
    """The arguments of a :class:`Budget` as every search agent takes them (every game):
    ``ValueError`` naming ``sims`` or ``time`` unless one of them limits the search."""
    check_count("sims", sims)
    if seconds is not None and (isinstance(seconds, bool) or not seconds > 0):
        raise ValueError(f"time: expected a positive number of seconds or None, got {seconds!r}")
    if sims == 0 and seconds is None:
        raise ValueError("sims: 0 needs a time budget (time=SECONDS)")


def check_search(
    sims: int, seconds: float | None, k: int, **choices: tuple[str, tuple[str, ...]]
) -> None:
    """The arguments every game's search agents share: the budget (:func:`check_budget`), the
    root's candidate count ``k`` and each named choice, ``name=(value, allowed)`` (the rollout
    policy, the value of a finished game); ``ValueError`` naming the bad one."""
    check_budget(sims, seconds)
    for name, (value, allowed) in choices.items():
        if value not in allowed:
            raise ValueError(f"{name}: expected one of {', '.join(allowed)}, got {value!r}")
    check_count("k", k)


class TreeNode:
    """A node of a determinized UCT tree (every game's ``mcts``): its children by action, its
    visits and the sum of the values of ``mover``, the seat whose action led here."""

    __slots__ = ("children", "visits", "total", "mover")

    def __init__(self, mover: int) -> None:
        self.children: dict[int, TreeNode] = {}
        self.visits = 0
        self.total = 0.0
        self.mover = mover  # the seat whose action led here (values are from its view)
