"""How a seat's reward accumulates between its decisions: the one home of per-seat credit.

A seat's reward for one of its decisions is everything the seat receives from that decision
until its next one (its own move, the other seats' moves, the end of the game). Every learner
built on the PettingZoo env reads its rewards this way: the single-agent env
(:class:`~moonriver_env.single_agent.SingleAgentEnv`), the RLlib env, the in-process self-play
games of the PPO pipeline and the recorded teacher games.

:class:`SeatRewards` keeps, for each *credited* seat, the running total since its last decision:
after every step of the game :meth:`SeatRewards.bank` adds the step's reward of each credited
seat to its total (``total += reward``, in the order of the steps, starting from ``0.0``);
:meth:`SeatRewards.take` hands a seat's total over and starts the next one from ``0.0``. A seat
that is not credited (not yet :meth:`SeatRewards.credit`-ed since the last
:meth:`SeatRewards.reset`) receives nothing: the learners differ only in which seats they credit
and when (from the start of the game, or from the seat's first decision). ``game_totals``
keeps each credited seat's reward of the whole game the same way (one sum over the game's
steps, not a sum of the taken totals).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SeatRewards", "rank_rewards"]


def rank_rewards(keys: Sequence[Any]) -> list[float]:
    """Zero-sum rank rewards from each seat's rank key (higher ranks first, equal keys tie):
    (seats beaten - seats beating you) / (n - 1); with 2 players +1, -1, or 0 for a tie."""
    n = len(keys)
    return [(sum(k > o for o in keys) - sum(k < o for o in keys)) / (n - 1) for k in keys]


class SeatRewards:
    """Each credited seat's reward since its last decision (module docstring), for a game of
    ``num_players`` seats."""

    __slots__ = ("_credited", "game_totals", "num_players", "totals")

    def __init__(self, num_players: int) -> None:
        self.num_players = n = int(num_players)
        self.totals = [0.0] * n
        """Each seat's reward since its last :meth:`take` (``0.0`` for a seat not credited)."""
        self.game_totals = [0.0] * n
        """Each seat's reward since :meth:`reset` while credited."""
        self._credited: list[int] = []

    def reset(self, credited: Sequence[int] = ()) -> None:
        """A new game (or a fresh start): every total back to ``0.0``; only ``credited`` seats
        receive rewards until :meth:`credit` adds more."""
        self.totals = [0.0] * self.num_players
        self.game_totals = [0.0] * self.num_players
        self._credited = []
        for seat in credited:
            self.credit(seat)

    def credit(self, seat: int) -> None:
        """From now on ``seat`` receives its rewards (a no-op if it already does)."""
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat: expected 0..{self.num_players - 1}, got {seat}")
        if seat not in self._credited:
            self._credited.append(seat)

    def stop(self) -> None:
        """No seat receives rewards from now on until :meth:`credit`-ed again (the totals stay:
        :meth:`take` them first)."""
        self._credited = []

    def is_credited(self, seat: int) -> bool:
        """Whether ``seat`` receives its rewards."""
        return seat in self._credited

    def bank(self, rewards: Mapping[str, Any], agents: Sequence[str]) -> None:
        """Add one step's ``rewards`` (by agent name; ``agents``: the names by seat, the env's
        ``possible_agents``; a name missing from ``rewards`` counts ``0.0``) to the credited
        seats' totals."""
        totals, game = self.totals, self.game_totals
        for seat in self._credited:
            r = float(rewards.get(agents[seat], 0.0))
            totals[seat] += r
            game[seat] += r

    def take(self, seat: int) -> float:
        """``seat``'s reward since its last decision; its next total starts from ``0.0``."""
        r = self.totals[seat]
        self.totals[seat] = 0.0
        return r
