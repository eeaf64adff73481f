"""The ``az`` agent's root search: Gumbel-Top-k candidates, Sequential Halving, completed
Q-values (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022).

For a decision with legal actions ``A`` and prior logits ``l`` (the policy network):

1. **Candidates**: draw ``g(a) ~ Gumbel(0, 1) x gumbel_scale`` and keep the ``m = min(k, |A|,
   sims)`` actions with the largest ``g(a) + l(a)`` (scale 0: the ``m`` most likely actions).
2. **Sequential Halving** over ``sims`` value evaluations: ``ceil(log2 m)`` phases; in a phase
   every remaining candidate is visited ``max(1, floor(sims / (phases x remaining)))`` times (the
   last phase spends what is left), then the better half (by ``g + l + sigma(q)``) goes on. A visit
   plays the candidate on a *fresh determinization* of the state
   (:func:`moonriver_env.moonriver.agents.common.determinize`: the hidden pile and stack re-shuffled
   from a canonical order; the true draw order is never read) and scores the afterstate with the
   value network for the acting seat (read from the afterstate as its next actor sees it, the view
   of every training position, in the value head's entry for the acting seat); the visits of one
   phase share their determinizations between candidates (common random numbers). A finished game is
   scored by its result.
3. **Choice**: the remaining candidate with the largest ``g + l + sigma(q)``.
4. **Improved policy** (the training target): ``softmax(l + sigma(completed q))`` over ``A``,
   where an unvisited action's Q is the mixed value of the root (the network's value mixed with
   the visited Q-values weighted by the prior) and ``sigma(q) = (c_visit + max N) x c_scale x
   q`` of the Q-values rescaled to [0, 1] (mctx's ``qtransform_completed_by_mix_value``;
   ``rescale=False`` keeps them in utility units).

The utility of a value ``(outcome, margin)`` is ``outcome + margin_weight x margin``.
Everything is batched: :func:`gumbel_search` searches many roots at once (the self-play games
of a worker, or the one decision of an agent), with one network call per phase.
:func:`expand_afterstates` is the one place where the engine is stepped: in the native core
when it is built (:class:`moonriver_env.moonriver.vector.search.NativeState`: clone, determinize, apply
and the observation in C, about 11x faster per afterstate than the Python engine, with the same
random draws and the same numbers), else on the Python engine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from moonriver_env.moonriver.agents.common import determinize
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.rules.scoring import win_share
from moonriver_env.moonriver.vector.search import NativeState
from moonriver_env.vector import NATIVE

from .network import MARGIN_SCALE, AzNet


@dataclass(frozen=True)
class SearchSettings:
    """How the root search plays."""

    sims: int = 16
    """Value evaluations per decision; 0 plays the raw policy (no search)."""
    k: int = 8
    """Candidates considered (Gumbel-Top-k)."""
    gumbel_scale: float = 0.0
    """Scale of the Gumbel noise (0: deterministic candidates and choice, for play; 1:
    self-play, the choice is then a sample that follows the improved policy)."""
    c_visit: float = 50.0
    """With ``c_scale``, the Q-value transform ``(c_visit + max N) x c_scale x q``."""
    c_scale: float = 0.1
    margin_weight: float = 0.5
    """The utility is ``outcome + margin_weight x margin`` (margin in
    :data:`~agents.az.network.MARGIN_SCALE` points)."""
    sample: bool = False
    """With ``sims = 0``, draw from the policy instead of taking its most likely action."""
    rescale: bool = True
    """Rescale the completed Q-values to [0, 1] by their min and max (mctx's default); off,
    ``sigma`` reads them in utility units, so that candidates whose values barely differ keep
    their prior order."""

    def __post_init__(self) -> None:
        for name in ("sims", "k"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "sims" else 1):
                low = 0 if name == "sims" else 1
                raise ValueError(f"{name}: expected an integer >= {low}, got {v!r}")
        for name in ("gumbel_scale", "c_visit", "c_scale", "margin_weight"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise ValueError(f"{name}: expected a number >= 0, got {v!r}")


@dataclass
class SearchResult:
    """One searched decision: the action played and, over the legal actions (in id order),
    the prior, the visit counts, the completed Q-values and the improved policy."""

    action: int
    legal: np.ndarray
    prior: np.ndarray
    improved: np.ndarray
    visits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    q: np.ndarray = field(default_factory=lambda: np.zeros(0))
    root_value: float = 0.0
    searched: bool = False


class Evaluator:
    """The network and the encoder of one game, batched: flat observations in, numbers out."""

    def __init__(self, net: AzNet, encoder: ObservationEncoder) -> None:
        self.net = net
        self.encoder = encoder

    def encode(self, states: Sequence[GameState], seats: Sequence[int]) -> np.ndarray:
        """``(B, obs)`` float32: each state seen by its seat."""
        out = np.empty((len(states), self.encoder.flat_size), dtype=np.float32)
        for j, (s, seat) in enumerate(zip(states, seats, strict=True)):
            out[j] = self.encoder.encode_flat(s, seat)
        return out

    def policy_value(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(B, num_actions)`` and value ``(B, n, 2)`` of flat observations."""
        with torch.inference_mode():
            logits, value = self.net(torch.from_numpy(obs))
        return logits.numpy().astype(np.float64), value.numpy().astype(np.float64)

    def value(self, obs: np.ndarray) -> np.ndarray:
        """Value ``(B, n, 2)`` of flat observations."""
        if obs.shape[0] == 0:
            return np.zeros((0, self.net.n, 2))
        with torch.inference_mode():
            return self.net.value(torch.from_numpy(obs)).numpy().astype(np.float64)


def final_value(state: GameState | NativeState, seat: int) -> tuple[float, float]:
    """``(outcome, margin)`` of a finished game for ``seat``: ``2 x win share - 1`` and the
    total less the best other total, in :data:`MARGIN_SCALE` points (the value targets)."""
    totals = [s.total for s in state.scores()]
    best_other = max(t for j, t in enumerate(totals) if j != seat)
    share = win_share(state.winners(), seat)
    return 2.0 * share - 1.0, (totals[seat] - best_other) / MARGIN_SCALE


def utility(value: np.ndarray, margin_weight: float) -> np.ndarray:
    """``outcome + margin_weight x margin`` of values ``(..., 2)``."""
    return value[..., 0] + margin_weight * value[..., 1]


def expand_afterstates(
    roots: Sequence[GameState],
    seats: Sequence[int],
    visits: Sequence[tuple[int, int, int]],
    rngs: Sequence[np.random.Generator],
    evaluator: Evaluator,
    margin_weight: float,
    natives: Mapping[int, NativeState] | None = None,
) -> np.ndarray:
    """The utility for ``seats[r]`` of each visit ``(root r, action, determinization d)``: the
    action played on determinization ``d`` of root ``r`` (drawn here with ``rngs[r]``, the
    same ``(r, d)`` shared by the visits naming it), then the value network (a finished game:
    its result). The one place the search steps the engine: with ``natives`` (the roots in
    the native core) the determinizations, moves and observations are made there, with the
    same random draws and the same numbers as on the Python engine."""
    dets: dict[tuple[int, int], GameState | NativeState] = {}
    rows: list[np.ndarray] = []
    offsets: list[int] = []
    live: list[int] = []
    out = np.zeros(len(visits))
    for j, (r, action, d) in enumerate(visits):
        det = dets.get((r, d))
        if det is None:
            if natives is None:
                det = determinize(roots[r], rngs[r])
            else:
                det = natives[r].clone()
                det.determinize(rngs[r])
            dets[(r, d)] = det
        sim = det.clone()
        sim.apply(action)
        actor = sim.current_seat
        if actor is None:
            out[j] = utility(np.array(final_value(sim, seats[r])), margin_weight)
            continue
        # Seen by the seat to act (the view every training position has); the root seat's
        # value is the entry ``offsets`` places after it.
        if isinstance(sim, NativeState):
            rows.append(sim.observation(actor))
        else:
            rows.append(evaluator.encoder.encode_flat(sim, actor))
        offsets.append((seats[r] - actor) % sim.config.num_players)
        live.append(j)
    if live:
        value = evaluator.value(np.stack(rows))
        mine = value[np.arange(len(live)), np.asarray(offsets)]
        out[live] = utility(mine, margin_weight)
    return out


def _log_softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max()
    return z - math.log(float(np.exp(z).sum()))


def _softmax(x: np.ndarray) -> np.ndarray:
    z = np.exp(x - x.max())
    return z / z.sum()


def completed_q(
    q_sum: np.ndarray, visits: np.ndarray, prior: np.ndarray, root_value: float
) -> np.ndarray:
    """Q-values of every legal action: the mean of the visits, or for an unvisited action the
    mixed value ``(v + sum N x sum_visited(p q) / sum_visited(p)) / (1 + sum N)``."""
    seen = visits > 0
    q = np.where(seen, q_sum / np.maximum(visits, 1), 0.0)
    total = visits.sum()
    if total > 0:
        p = np.maximum(prior, 1e-30)
        mixed = (root_value + total * float((p * q)[seen].sum() / p[seen].sum())) / (1 + total)
    else:
        mixed = root_value
    return np.where(seen, q, mixed)


def sigma(q: np.ndarray, visits: np.ndarray, settings: SearchSettings) -> np.ndarray:
    """``(c_visit + max N) x c_scale x`` the Q-values, rescaled to [0, 1] by their min and max
    (``settings.rescale``) or as they are."""
    if settings.rescale:
        lo, hi = float(q.min()), float(q.max())
        scaled = (q - lo) / max(hi - lo, 1e-8)
    else:
        scaled = q
    return (settings.c_visit + float(visits.max(initial=0))) * settings.c_scale * scaled


class _Root:
    """Search bookkeeping of one root."""

    def __init__(
        self, legal: np.ndarray, logits: np.ndarray, value: float, sims: int,
        settings: SearchSettings, rng: np.random.Generator,
    ) -> None:  # fmt: skip
        self.legal = legal
        self.logits = _log_softmax(logits)
        self.prior = np.exp(self.logits)
        self.value = value
        n = legal.size
        self.gumbel = (
            rng.gumbel(size=n) * settings.gumbel_scale if settings.gumbel_scale else np.zeros(n)
        )
        m = min(settings.k, n, sims)
        order = np.argsort(-(self.gumbel + self.logits), kind="stable")
        self.remaining = [int(i) for i in order[:m]]
        self.phases = max(1, math.ceil(math.log2(m))) if m > 1 else 1
        self.phase = 0
        self.budget = sims
        self.sims = sims
        self.q_sum = np.zeros(n)
        self.visits = np.zeros(n, dtype=np.int64)
        self.next_det = 0

    @property
    def done(self) -> bool:
        return len(self.remaining) <= 1 and self.phase > 0 or self.budget <= 0

    def phase_visits(self) -> int:
        """Visits per remaining candidate in this phase."""
        r = len(self.remaining)
        if self.phase == self.phases - 1 or r <= 2:
            return max(1, self.budget // r)
        return max(1, min(self.sims // (self.phases * r), self.budget // r))

    def scores(self, settings: SearchSettings) -> np.ndarray:
        q = completed_q(self.q_sum, self.visits, self.prior, self.value)
        return self.gumbel + self.logits + sigma(q, self.visits, settings)

    def halve(self, settings: SearchSettings) -> None:
        s = self.scores(settings)
        keep = max(1, math.ceil(len(self.remaining) / 2))
        self.remaining = sorted(self.remaining, key=lambda i: (-s[i], i))[:keep]
        self.phase += 1


def gumbel_search(
    evaluator: Evaluator,
    states: Sequence[GameState],
    settings: SearchSettings,
    rngs: Sequence[np.random.Generator],
    sims: Sequence[int] | None = None,
    native: bool | None = None,
) -> list[SearchResult]:
    """Search each of ``states`` (games in progress, each for its current seat) with
    ``rngs[i]`` (module docstring); ``sims[i]`` overrides ``settings.sims`` per root (the
    self-play's playout caps). One network call for all roots, then one per phase. The
    afterstates are expanded in the native core when it is built (``native``: force one
    engine; both give the same result)."""
    if len(rngs) != len(states):
        raise ValueError(f"rngs: expected {len(states)} generators, got {len(rngs)}")
    budgets = [settings.sims] * len(states) if sims is None else [int(s) for s in sims]
    seats = [s.current_seat for s in states]
    if any(seat is None for s, seat in zip(states, seats, strict=True)):
        raise ValueError("states: a finished game has no decision to search")
    seat_list = [int(s) for s in seats if s is not None]
    legal = [np.asarray(s.legal_action_list(), dtype=np.int64) for s in states]
    logits, value = evaluator.policy_value(evaluator.encode(states, seat_list))
    results: list[SearchResult | None] = [None] * len(states)
    roots: dict[int, _Root] = {}
    for i, acts in enumerate(legal):
        root_value = float(utility(value[i, 0], settings.margin_weight))
        lg = logits[i, acts]
        if acts.size == 1 or budgets[i] == 0:
            prior = _softmax(lg)
            if acts.size == 1:
                a = 0
            elif settings.sample:
                a = int(rngs[i].choice(acts.size, p=prior))
            else:
                a = int(np.argmax(lg))
            results[i] = SearchResult(int(acts[a]), acts, prior, prior, root_value=root_value)
            continue
        roots[i] = _Root(acts, lg, root_value, budgets[i], settings, rngs[i])
    active = [i for i, r in roots.items() if not r.done]
    if native is None:
        native = NATIVE
    if native and not NATIVE:
        raise ValueError("native: the native core is not built")
    natives: dict[int, NativeState] | None = None
    if native and active:  # only the searched roots are expanded
        natives = {i: NativeState.from_state(states[i]) for i in roots}
    while active:
        visits: list[tuple[int, int, int]] = []
        owners: list[tuple[int, int]] = []
        for i in active:
            root = roots[i]
            per = root.phase_visits()
            for _ in range(per):
                d = root.next_det
                root.next_det += 1
                for c in root.remaining:
                    visits.append((i, int(root.legal[c]), d))
                    owners.append((i, c))
            root.budget -= per * len(root.remaining)
        u = expand_afterstates(
            states, seat_list, visits, rngs, evaluator, settings.margin_weight, natives
        )
        for (i, c), val in zip(owners, u, strict=True):
            roots[i].q_sum[c] += val
            roots[i].visits[c] += 1
        for i in active:
            roots[i].halve(settings)
        active = [i for i in active if not roots[i].done]
    for i, root in roots.items():
        s = root.scores(settings)
        best_visits = max(int(root.visits[c]) for c in root.remaining)
        finalists = [c for c in root.remaining if root.visits[c] == best_visits]
        choice = max(finalists, key=lambda c: (s[c], -c))
        q = completed_q(root.q_sum, root.visits, root.prior, root.value)
        improved = _softmax(root.logits + sigma(q, root.visits, settings))
        results[i] = SearchResult(
            int(root.legal[choice]), root.legal, root.prior, improved, root.visits, q,
            root.value, searched=True,
        )  # fmt: skip
    return [r for r in results if r is not None]
