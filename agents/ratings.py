"""Statistics for comparing agents: confidence intervals and ratings.

- :func:`wilson_interval`: Wilson score interval of a win rate (``scipy.stats.binomtest``;
  the same closed form for fractional win counts, e.g. shared wins counted as ``1/k``).
- :func:`mean_interval`: mean with a Student-t confidence interval.
- :func:`competition_ranks`: ranks with ties sharing the best rank ("1224" ranking).
- :func:`openskill_ratings`: OpenSkill (Weng-Lin, Plackett-Luce) ratings from ranked games.
- :func:`pairwise_wins`: pairwise win counts from ranked games (ties count half to each side).
- :func:`bradley_terry`: maximum-likelihood (slightly regularised) Bradley-Terry strengths on
  pairwise outcomes, on the Elo scale and anchored (``random = 1000`` in the tournament).

A *ranked game* here is a sequence of ``(player, rank)`` pairs, one per seat; rank 1 is the
best and tied seats share a rank. A player may occupy several seats of one game (self-play).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy import optimize, stats

__all__ = [
    "ELO_SCALE",
    "BradleyTerryResult",
    "MeanInterval",
    "SkillRating",
    "bradley_terry",
    "competition_ranks",
    "mean_interval",
    "openskill_ratings",
    "pairwise_wins",
    "wilson_interval",
]

P = TypeVar("P", bound=Hashable)

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry log-strength: a gap of 400 Elo is 10:1 odds."""


# ------------------------------------------------------------------------ intervals


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a success probability.

    Args:
        successes: number of successes; may be fractional (shared wins counted as ``1/k``),
            in which case the Wilson closed form is evaluated at that count.
        trials: number of trials (``0`` gives ``(nan, nan)``).
        confidence: confidence level.

    Returns:
        ``(low, high)``. For integral counts this is exactly
        ``scipy.stats.binomtest(k, n).proportion_ci(confidence, method="wilson")``.
    """
    if trials < 0 or successes < 0 or successes > trials:
        raise ValueError(f"successes: expected 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return (math.nan, math.nan)
    if float(successes).is_integer():
        ci = stats.binomtest(int(successes), trials).proportion_ci(
            confidence_level=confidence, method="wilson"
        )
        return (float(ci.low), float(ci.high))
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    n = float(trials)
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    return (max(0.0, center - half), min(1.0, center + half))


@dataclass(frozen=True)
class MeanInterval:
    """A sample mean with its confidence interval ``[low, high]`` (``mean +- half_width``)."""

    mean: float
    low: float
    high: float
    half_width: float
    n: int


def mean_interval(values: Iterable[float], confidence: float = 0.95) -> MeanInterval:
    """Mean of ``values`` with a Student-t confidence interval.

    The half width is ``t_{(1+c)/2, n-1} * s / sqrt(n)`` with the sample standard deviation
    ``s`` (``ddof=1``). With one value the interval is ``nan``; with none the mean is too.
    """
    x = np.asarray(list(values), dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    if n == 1:
        return MeanInterval(mean, math.nan, math.nan, math.nan, 1)
    sem = float(x.std(ddof=1)) / math.sqrt(n)
    half = float(stats.t.ppf(0.5 + confidence / 2.0, n - 1)) * sem
    return MeanInterval(mean, mean - half, mean + half, half, n)


# ---------------------------------------------------------------------------- ranks


def competition_ranks(keys: Sequence[Sequence[float]] | Sequence[float]) -> list[int]:
    """Rank seats by ``keys`` (higher is better): ``1 +`` the number of strictly better seats,
    so tied seats share the best rank of their group (``[10, 7, 10, 3] -> [1, 3, 1, 4]``).
    Keys may be tuples (compared lexicographically, e.g. the game's tie-breaks)."""
    return [1 + sum(other > key for other in keys) for key in keys]  # type: ignore[operator]


# ------------------------------------------------------------------------- openskill


@dataclass(frozen=True)
class SkillRating:
    """An OpenSkill rating: mean ``mu``, uncertainty ``sigma`` and the conservative
    ``ordinal = mu - 3 sigma`` used for leaderboards."""

    mu: float
    sigma: float
    ordinal: float
    games: int


def openskill_ratings(
    games: Iterable[Sequence[tuple[P, int]]],
    players: Sequence[P] | None = None,
) -> dict[P, SkillRating]:
    """OpenSkill Plackett-Luce ratings after playing ``games`` in order.

    Args:
        games: ranked games; each is one ``(player, rank)`` per seat, rank 1 best, ties share
            a rank. Every seat is a one-player team.
        players: players to report (also those with no game); default: every player seen,
            in order of first appearance.

    Returns:
        One :class:`SkillRating` per player (default prior ``mu = 25``, ``sigma = 25/3``).

    A player seated more than once in a game (self-play) enters the update once per seat
    with its current rating; its new ``mu`` and ``sigma`` are the averages over its seats.
    Games with a single distinct player carry no information and are skipped.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[P, tuple[float, float]] = {}
    counts: dict[P, int] = {}
    order: list[P] = list(players) if players is not None else []
    for p in order:
        ratings[p] = (model.mu, model.sigma)
        counts[p] = 0
    for game in games:
        seats = list(game)
        for p, _ in seats:
            if p not in ratings:
                ratings[p] = (model.mu, model.sigma)
                counts[p] = 0
                order.append(p)
        if len({p for p, _ in seats}) < 2:
            continue
        teams = [[model.rating(mu=ratings[p][0], sigma=ratings[p][1])] for p, _ in seats]
        new = model.rate(teams, ranks=[float(r) for _, r in seats])
        updates: dict[P, list[tuple[float, float]]] = {}
        for (p, _), team in zip(seats, new, strict=True):
            updates.setdefault(p, []).append((float(team[0].mu), float(team[0].sigma)))
        for p, ups in updates.items():
            ratings[p] = (
                sum(u[0] for u in ups) / len(ups),
                sum(u[1] for u in ups) / len(ups),
            )
            counts[p] += 1
    return {
        p: SkillRating(
            mu=ratings[p][0],
            sigma=ratings[p][1],
            ordinal=ratings[p][0] - 3.0 * ratings[p][1],
            games=counts[p],
        )
        for p in order
    }


# -------------------------------------------------------------------- bradley-terry


def pairwise_wins(games: Iterable[Sequence[tuple[P, int]]], players: Sequence[P]) -> np.ndarray:
    """Pairwise outcomes of ranked games: ``W[i, j]`` = how often ``players[i]`` finished ahead
    of ``players[j]``, a tie counting ``1/2`` to each. Every pair of seats held by different
    players is one comparison (an N-player game gives up to ``N(N-1)/2``); seats of the same
    player are not compared. ``W + W.T`` is the number of comparisons."""
    index = {p: i for i, p in enumerate(players)}
    w = np.zeros((len(players), len(players)), dtype=np.float64)
    for game in games:
        seats = list(game)
        for a in range(len(seats)):
            for b in range(a + 1, len(seats)):
                (pa, ra), (pb, rb) = seats[a], seats[b]
                if pa == pb:
                    continue
                i, j = index[pa], index[pb]
                if ra < rb:
                    w[i, j] += 1.0
                elif rb < ra:
                    w[j, i] += 1.0
                else:
                    w[i, j] += 0.5
                    w[j, i] += 0.5
    return w


@dataclass(frozen=True)
class BradleyTerryResult:
    """Bradley-Terry fit: ``P(i beats j) = 1 / (1 + 10^((elo_j - elo_i) / 400))``.

    ``elo[i]`` are the ratings (anchored), ``se[i]`` their standard errors relative to the
    anchor (``0`` for the anchor itself; relative to the mean when there is no anchor), from
    the inverse Hessian of the (penalised) log-likelihood."""

    players: tuple[Hashable, ...]
    elo: tuple[float, ...]
    se: tuple[float, ...]
    anchor: Hashable | None

    def win_probability(self, i: int, j: int) -> float:
        """Model probability that ``players[i]`` beats ``players[j]``."""
        return 1.0 / (1.0 + 10.0 ** ((self.elo[j] - self.elo[i]) / 400.0))


def bradley_terry(
    wins: np.ndarray | Mapping[tuple[P, P], float],
    players: Sequence[P],
    *,
    anchor: P | None = None,
    anchor_rating: float = 1000.0,
    prior_games: float = 1.0,
) -> BradleyTerryResult:
    """Fit Bradley-Terry strengths by maximum likelihood.

    Args:
        wins: ``W[i, j]`` = wins of ``players[i]`` over ``players[j]`` (fractions allowed, a
            tie as ``1/2`` each), as a square array or a mapping ``(winner, loser) -> count``.
        players: the players, in the order of the array's rows.
        anchor: the player rated exactly ``anchor_rating``; ``None``: the mean is.
        anchor_rating: the anchor's rating (default 1000).
        prior_games: regularisation, in virtual games: every player is credited
            ``prior_games / 2`` wins and losses against a virtual opponent of average
            strength. It keeps ratings finite for unbeaten or winless players and connects
            disjoint groups; ``0`` gives the plain MLE (which needs a strongly connected
            comparison graph).

    Returns:
        A :class:`BradleyTerryResult`, ratings on the Elo scale (``400 / ln 10`` per unit of
        log-strength).
    """
    k = len(players)
    if isinstance(wins, Mapping):
        index = {p: i for i, p in enumerate(players)}
        w = np.zeros((k, k), dtype=np.float64)
        for (a, b), v in wins.items():
            w[index[a], index[b]] += float(v)
    else:
        w = np.asarray(wins, dtype=np.float64)
    if w.shape != (k, k):
        raise ValueError(f"wins: expected a {k}x{k} array, got shape {w.shape}")
    if (w < 0).any():
        raise ValueError("wins: counts must be non-negative")
    if anchor is not None and anchor not in players:
        raise ValueError(f"anchor: {anchor!r} is not a player")
    if k == 0:
        return BradleyTerryResult((), (), (), anchor)
    w = w.copy()
    np.fill_diagonal(w, 0.0)
    n = w + w.T  # comparisons per pair
    half = prior_games / 2.0

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        d = theta[:, None] - theta[None, :]
        # -sum W_ij log sigmoid(theta_i - theta_j), stable via logaddexp
        nll = float((w * np.logaddexp(0.0, -d)).sum())
        p = 1.0 / (1.0 + np.exp(-d))  # P(i beats j)
        grad = -(w - n * p).sum(axis=1)
        if half:
            nll += half * float((np.logaddexp(0.0, -theta) + np.logaddexp(0.0, theta)).sum())
            grad += half * (2.0 / (1.0 + np.exp(-theta)) - 1.0)
        return nll, grad

    theta0 = np.zeros(k)
    if prior_games == 0:
        # the plain likelihood is invariant to a common shift: fix theta[0] = 0
        def fixed(t: np.ndarray) -> tuple[float, np.ndarray]:
            full = np.concatenate([[0.0], t])
            f, g = objective(full)
            return f, g[1:]

        res = optimize.minimize(fixed, theta0[1:], jac=True, method="BFGS", options={"gtol": 1e-9})
        theta = np.concatenate([[0.0], res.x])
    else:
        res = optimize.minimize(objective, theta0, jac=True, method="BFGS", options={"gtol": 1e-9})
        theta = np.asarray(res.x, dtype=np.float64)

    # Hessian of the penalised negative log-likelihood
    d = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-d))
    c = n * p * (1.0 - p)
    hess = -c
    np.fill_diagonal(hess, c.sum(axis=1) - np.diag(c))
    if half:
        s = 1.0 / (1.0 + np.exp(-theta))
        hess += np.diag(prior_games * s * (1.0 - s))
    # contrast matrix: rating minus the anchor (or minus the mean)
    if anchor is not None:
        anchor_index = list(players).index(anchor)
        contrast = np.eye(k)
        contrast[:, anchor_index] -= 1.0
    else:
        contrast = np.eye(k) - np.full((k, k), 1.0 / k)
    rel = contrast @ theta
    se = np.full(k, math.nan)
    if prior_games == 0:
        # parametrised with theta[0] fixed: invert the reduced Hessian
        cov = np.zeros((k, k))
        try:
            cov[1:, 1:] = np.linalg.inv(hess[1:, 1:])
            var = np.einsum("ij,jk,ik->i", contrast, cov, contrast)
            se = np.sqrt(np.maximum(var, 0.0))
        except np.linalg.LinAlgError:
            pass
    else:
        try:
            cov = np.linalg.inv(hess)
            var = np.einsum("ij,jk,ik->i", contrast, cov, contrast)
            se = np.sqrt(np.maximum(var, 0.0))
        except np.linalg.LinAlgError:
            pass
    elo = anchor_rating + ELO_SCALE * rel
    return BradleyTerryResult(
        players=tuple(players),
        elo=tuple(float(x) for x in elo),
        se=tuple(float(x) * ELO_SCALE for x in se),
        anchor=anchor,
    )
