"""Agents that play Kingdomino through the shared agent interface (:mod:`agents.base`).

``random`` (uniform), ``greedy`` (the placement and the pick with the largest immediate
gain: the paper's "full greedy"), ``greedy:draft=random`` (greedy placement, random pick: the
paper's "greedy placement, random draft"), ``heuristic`` (one ply on a position value that
adds to the points a penalty for squares that can no longer be filled and a bonus for room
around crowned territories), ``mc`` (flat Monte Carlo over the heuristic's best candidates,
with greedy, heuristic or random playouts) and ``mcts`` (determinized UCT over the decisions).

Every agent reads the engine state behind the environment (:func:`kingdomino_state`) and only
what the table shows: search agents re-deal the unseen dominoes (``redetermine``) before
simulating, never reading the pile's order.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase, new_game
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.rules.components import Domino
from moonriver_env.kingdomino.rules.kingdom import Kingdom, placement_ids
from moonriver_env.kingdomino.rules.scoring import kingdom_points, placement_gains
from moonriver_env.kingdomino.rules.state import DOMINOES
from moonriver_env.kingdomino.vector.search import NativeKingdominoState
from moonriver_env.vector import NATIVE

from .base import Agent, policy_action
from .mcts import TreeNode
from .networks.snapshots import load_model
from .search import Budget, check_budget, check_count
from .spec_params import parse_params, split_spec

__all__ = [
    "KINGDOMINO_AGENT_NAMES",
    "GreedyKingdominoAgent",
    "HeuristicKingdominoAgent",
    "KingdominoAgent",
    "MCTSKingdominoAgent",
    "MonteCarloKingdominoAgent",
    "PolicyKingdominoAgent",
    "RandomKingdominoAgent",
    "kingdomino_state",
]

KINGDOMINO_AGENT_NAMES = ("random", "greedy", "heuristic", "mc", "mcts")
ROLLOUTS = ("greedy", "player_greedy", "random")
ENGINES = ("auto", "native", "python")
"""Where ``mc`` plays its playouts: ``auto`` (the native core when built), or either one."""
VALUES = ("win", "margin")


def kingdomino_state(env: Any) -> KingdominoState:
    """The engine state behind a Kingdomino environment (wrapped, raw or single-agent)."""
    if isinstance(env, KingdominoState):
        return env
    state = getattr(getattr(env, "unwrapped", env), "state", None)
    if state is None:
        state = getattr(getattr(env, "aec", None), "state", None)
    if not isinstance(state, KingdominoState):
        raise TypeError(f"env: expected a Kingdomino environment after reset(), got {env!r}")
    return state


class KingdominoAgent(Agent):
    """Base of the Kingdomino agents: ``act`` reads the engine state and calls ``choose``."""

    def act(self, observation: dict[str, Any], env: Any) -> int:
        return self.choose(kingdomino_state(env))

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        raise NotImplementedError

    def check_game(self, config: Any) -> None:
        if not isinstance(config, KingdominoConfig):
            raise ValueError(
                f"{self.name}: a Kingdomino agent cannot play {type(config).__name__} games"
            )

    def _pick_uniform(self, options: list[int]) -> int:
        return options[int(self.rng.integers(len(options)))] if len(options) > 1 else options[0]


class RandomKingdominoAgent(KingdominoAgent):
    """Uniformly random legal actions (the paper's "true random")."""

    name = "random"

    def act(self, observation: dict[str, Any], env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(legal.size)])

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        return self._pick_uniform(state.legal_action_list())


# -- the greedy values ----------------------------------------------------------------------
def _flags(config: KingdominoConfig) -> tuple[bool, bool]:
    return config.has("harmony"), config.has("middle_kingdom")


def best_gain(kingdom: Kingdom, domino: Domino, config: KingdominoConfig) -> int:
    """The largest immediate gain of placing ``domino`` (0 if it cannot be placed, or when
    discarding is allowed and every placement loses points). Kept in the kingdom's memo: a
    kingdom never changes, and the playouts of a search meet the same kingdoms again."""
    key = ("best_gain", domino.number, config.bonus_flags, config.has("must_place"))
    best = kingdom.memo.get(key)
    if best is None:
        best = max(_gains(kingdom, domino, config)[1], default=0)
        if not config.has("must_place"):
            best = max(best, 0)
        kingdom.memo[key] = best
    return best


def _gains(
    kingdom: Kingdom, domino: Domino, config: KingdominoConfig
) -> tuple[list[int], list[int]]:
    """The placement ids of ``domino`` and their gains (memoised on the kingdom)."""
    key = ("gains", domino.number, config.bonus_flags)
    hit = kingdom.memo.get(key)
    if hit is None:
        shared = (
            kingdom.board.side,
            kingdom.land,
            kingdom.crowns,
            domino.number,
            config.bonus_flags,
        )
        hit = _GAINS.get(shared)
        if hit is None:
            if len(_GAINS) >= GAINS_CACHE_SIZE:
                _GAINS.clear()
            ids = placement_ids(kingdom, domino)
            hit = _GAINS[shared] = (ids, placement_gains(kingdom, domino, ids, *config.bonus_flags))
        kingdom.memo[key] = hit
    return hit


GAINS_CACHE_SIZE = 200_000
"""Entries of :data:`_GAINS` before it is emptied (a few hundred bytes each)."""
_GAINS: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
"""The placements and gains of a domino by the kingdom's content (the board's side and the
squares fix its frame and everything else): the playouts of a search build equal kingdoms again and again, as new
objects, so the per-object memo alone misses them."""


def pick_line(state: KingdominoState) -> list[int]:
    """The line the acting seat picks from (the first line in set-up, else the next)."""
    return state.cur_line if state.phase == Phase.SETUP_PICK else state.next_line


def greedy_placements(state: KingdominoState) -> list[int]:
    """The legal placements (or the discard) with the largest immediate gain."""
    legal = state.legal_action_list()
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    ids, gains = _gains(kingdom, domino, state.config)
    options = list(zip(ids, gains, strict=True))
    if legal[-1] == state.layout.discard:
        options.append((legal[-1], 0))  # the discard
    top = max(g for _, g in options)
    return [a for a, g in options if g == top]


def dead_squares(kingdom: Kingdom, middle: bool) -> int:
    """Empty squares of the still possible frame (the centred one when the Middle Kingdom
    is still held) with no empty neighbour there: no domino can ever fill them."""
    board = kingdom.board
    allowed = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
    if middle and not kingdom.occupied & ~board.centred:
        allowed &= board.centred
    empty = allowed & ~kingdom.occupied
    return empty & ~board.grid.neighbours(empty)


def study_placements(state: KingdominoState) -> list[int]:
    """The placements the CIG 2018 study's greedy players choose among (their published
    code, ``GreedyAlgorithm``): drop those that lose the Middle Kingdom, then those that
    leave a square no domino can fill (each step only if something remains), then keep the
    largest immediate gain."""
    legal = state.legal_action_list()
    harmony, middle = _flags(state.config)
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    discard = state.layout.discard
    ids = [a for a in legal if a != discard]
    if not ids:
        return legal
    cells = state.layout.cells
    after = {a: kingdom.place(domino, a % cells, a // cells) for a in ids}
    if middle and not kingdom.occupied & ~kingdom.board.centred:
        kept = [a for a in ids if not after[a].occupied & ~kingdom.board.centred]
        ids = kept or ids
    kept = [a for a in ids if not dead_squares(after[a], middle)]
    ids = kept or ids
    gains = placement_gains(kingdom, domino, ids, harmony, middle)
    top = max(gains)
    return [a for a, g in zip(ids, gains, strict=True) if g == top]


def greedy_picks(state: KingdominoState) -> list[int]:
    """The legal picks whose domino has the largest :func:`best_gain` in the seat's kingdom."""
    legal = state.legal_action_list()
    line = pick_line(state)
    base = state.layout.pick_base
    kingdom = state.kingdoms[state.seat]
    best: list[int] = []
    best_g = -(10**9)
    for a in legal:
        g = best_gain(kingdom, DOMINOES[line[a - base]], state.config)
        if g > best_g:
            best_g, best = g, [a]
        elif g == best_g:
            best.append(a)
    return best


class GreedyKingdominoAgent(KingdominoAgent):
    """The paper's greedy players: the placement with the largest immediate gain (points
    with the game's bonuses; discarding counts 0), then the pick whose domino has the
    largest best gain in the kingdom as it now stands (``draft="greedy"``, "full greedy"),
    or a uniformly random pick (``draft="random"``). Ties: uniformly at random.
    ``study="true"``: the placement filters of the study's own greedy players first
    (:func:`study_placements`)."""

    name = "greedy"

    def __init__(
        self, seed: int | None = None, draft: str = "greedy", study: str = "false"
    ) -> None:
        super().__init__(seed)
        if draft not in ("greedy", "random"):
            raise ValueError(f"draft: expected 'greedy' or 'random', got {draft!r}")
        if study not in ("true", "false"):
            raise ValueError(f"study: expected 'true' or 'false', got {study!r}")
        self.draft = draft
        self.study = study == "true"

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        if state.phase == Phase.PLACE:
            if self.study:
                return self._pick_uniform(study_placements(state))
            return self._pick_uniform(greedy_placements(state))
        if self.draft == "random":
            return self._pick_uniform(legal)
        return self._pick_uniform(greedy_picks(state))


# -- the heuristic --------------------------------------------------------------------------
def position_value(kingdom: Kingdom, config: KingdominoConfig) -> float:
    """Points (with the game's bonuses), minus 2 per empty square of the still possible
    frame that no domino can reach any more (no empty neighbour: it costs Harmony and
    space), plus 0.5 per crown whose territory still has an empty neighbour in the frame."""
    harmony, middle = _flags(config)
    board = kingdom.board
    grid = board.grid
    allowed = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
    if middle and not kingdom.occupied & ~board.centred:
        allowed &= board.centred  # ruling KR3: keep the castle in the middle
    empty = allowed & ~kingdom.occupied
    dead = empty & ~grid.neighbours(empty)
    value = float(kingdom_points(kingdom, harmony, middle)) - 2.0 * dead.bit_count()
    c1, c2, c3 = kingdom.crowns
    for mask in kingdom.land:
        crowned = mask & c1
        while crowned:
            region = grid.flood(crowned & -crowned, mask)
            if grid.neighbours(region) & empty:
                value += 0.5 * (
                    (region & c1).bit_count()
                    + (region & c2).bit_count()
                    + (region & c3).bit_count()
                )
            crowned &= ~region
    return value


def heuristic_placements(state: KingdominoState) -> list[tuple[float, int]]:
    """``(value, action)`` of every legal placement or discard, best first."""
    cfg = state.config
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    cells = state.layout.cells
    discard = state.layout.discard
    out = []
    for a in state.legal_action_list():
        k = kingdom if a == discard else kingdom.place(domino, a % cells, a // cells)
        out.append((position_value(k, cfg), a))
    out.sort(key=lambda x: -x[0])
    return out


def domino_value(kingdom: Kingdom, domino: Domino, config: KingdominoConfig) -> float:
    """The best :func:`position_value` reachable by placing (or, if allowed, discarding)."""
    cells = kingdom.board.cells
    ids = placement_ids(kingdom, domino)
    values = [position_value(kingdom.place(domino, a % cells, a // cells), config) for a in ids]
    if not ids or not config.has("must_place"):
        values.append(position_value(kingdom, config))
    return max(values)


def heuristic_picks(state: KingdominoState) -> list[tuple[float, int]]:
    """``(value, action)`` of every legal pick, best first."""
    line = pick_line(state)
    base = state.layout.pick_base
    kingdom = state.kingdoms[state.seat]
    out = [
        (domino_value(kingdom, DOMINOES[line[a - base]], state.config), a)
        for a in state.legal_action_list()
    ]
    out.sort(key=lambda x: -x[0])
    return out


class HeuristicKingdominoAgent(KingdominoAgent):
    """One ply on :func:`position_value`: the placement with the best value, the pick whose
    domino reaches the best value. Ties: uniformly at random."""

    name = "heuristic"

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        ranked = (
            heuristic_placements(state) if state.phase == Phase.PLACE else heuristic_picks(state)
        )
        top = ranked[0][0]
        return self._pick_uniform([a for v, a in ranked if v == top])


# -- playouts -------------------------------------------------------------------------------
def playout(state: KingdominoState, policy: str, rng: np.random.Generator, me: int = -1) -> None:
    """Play ``state`` to the end in place: ``"random"`` (uniform), ``"greedy"`` (every seat
    full greedy) or ``"player_greedy"`` (seat ``me`` full greedy, the others random: the
    paper's player-greedy playout)."""
    integers = rng.integers
    while state.phase != Phase.GAME_OVER:
        legal = state.legal_action_list()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        if policy == "random" or (policy == "player_greedy" and state.seat != me):
            state.apply(legal[int(integers(len(legal)))])
            continue
        options = greedy_placements(state) if state.phase == Phase.PLACE else greedy_picks(state)
        state.apply(options[int(integers(len(options)))] if len(options) > 1 else options[0])


def outcome(state: KingdominoState, seat: int, value: str) -> float:
    """A finished game's value for ``seat``: its share of the win, or its margin over the
    best other seat (points), scaled by 1/100."""
    if value == "win":
        winners = state.winners()
        return 1.0 / len(winners) if seat in winners else 0.0
    pts = state.points()
    return (pts[seat] - max(p for s, p in enumerate(pts) if s != seat)) / 100.0


class _SearchKingdominoAgent(KingdominoAgent):
    """Shared arguments of the search agents.

    Args:
        sims: playouts per decision (``0``: only ``time`` limits).
        time: seconds per decision (``None``: only ``sims`` limits).
        rollout: playout policy, one of :data:`ROLLOUTS` (see :func:`playout`).
        value: ``"win"`` (share of the win) or ``"margin"`` (points over the best other).
        k: candidate placements at the root, the heuristic's best ``k`` (``0``: all).
    """

    def __init__(
        self,
        seed: int | None = None,
        sims: int = 200,
        time: float | None = None,
        rollout: str = "player_greedy",
        value: str = "win",
        k: int = 6,
    ) -> None:
        super().__init__(seed)
        check_budget(sims, time)
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout: expected one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if value not in VALUES:
            raise ValueError(f"value: expected one of {', '.join(VALUES)}, got {value!r}")
        check_count("k", k)
        self.sims, self.time, self.rollout, self.value, self.k = sims, time, rollout, value, k
        self.last_sims = 0

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        """A single legal action or a single root candidate is answered at once; otherwise
        :meth:`search` decides within the budget (started before the candidates are ranked)."""
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        budget = Budget(self.sims, self.time)
        cands = self.candidates(state)
        if len(cands) == 1:
            return cands[0]
        return self.search(state, cands, budget)

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        """The action played among ``cands`` (at least two), searched within ``budget``."""
        raise NotImplementedError

    def candidates(self, state: KingdominoState) -> list[int]:
        """The root's candidates, best first by the heuristic."""
        if state.phase == Phase.PLACE:
            ranked = heuristic_placements(state)
            if self.k:
                ranked = ranked[: self.k]
        else:
            ranked = heuristic_picks(state)
        return [a for _, a in ranked]


class MonteCarloKingdominoAgent(_SearchKingdominoAgent):
    """Flat Monte Carlo evaluation (the paper's MCE): each candidate (the heuristic's best
    ``k`` placements; every pick) gets playouts to the end in rounds; each round re-deals the
    unseen dominoes once and plays every candidate from that deal (common random numbers).
    The candidate with the best mean value is played; ties go to the heuristic's order."""

    name = "mc"

    def __init__(self, seed: int | None = None, engine: str = "auto", **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        if engine not in ENGINES:
            raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
        if engine == "native" and not NATIVE:
            raise ValueError(
                "engine: the native core is not available (not built, or switched off)"
            )
        self.engine = engine

    @property
    def native(self) -> bool:
        """Whether the playouts run in the native core (:mod:`moonriver_env.kingdomino.vector.search`)."""
        return NATIVE and self.engine != "python"

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        evaluate = self._native_rounds if self.native else self._python_rounds
        totals, counts = evaluate(state, cands, budget)
        self.last_sims = budget.done
        best = max(
            range(len(cands)),
            key=lambda i: (totals[i] / counts[i] if counts[i] else float("-inf"), -i),
        )
        return cands[best]

    def _python_rounds(
        self, state: KingdominoState, cands: list[int], budget: Budget
    ) -> tuple[list[float], list[int]]:
        """The rounds in Python: the totals and playout counts per candidate."""
        seat = state.seat
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        rng = self.rng
        while budget.more():
            det = state.clone()
            det.redetermine(rng)
            seed = int(rng.integers(2**62))
            for i, a in enumerate(cands):
                sim = det.clone()
                sim.apply(a)
                playout(sim, self.rollout, np.random.default_rng(seed), seat)
                totals[i] += outcome(sim, seat, self.value)
                counts[i] += 1
                budget.done += 1
                if not budget.more():
                    break
        return totals, counts

    def _native_rounds(
        self, state: KingdominoState, cands: list[int], budget: Budget
    ) -> tuple[list[float], list[int]]:
        """The same rounds in the native core, drawing the same numbers from the agent's
        generator: with a playout budget alone, the same totals and counts as
        :meth:`_python_rounds`. With a time budget the rounds go in chunks, each about a
        quarter of the time left (at least one round), until the deadline."""
        native = NativeKingdominoState.from_state(state)
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        rounds = 1
        while budget.more():
            sims = rounds * len(cands)
            if budget.sims > 0:
                sims = min(sims, budget.sims - budget.done)
            start = time.perf_counter()
            got, n = native.monte_carlo(cands, sims, self.rollout, self.value, state.seat, self.rng)
            spent = time.perf_counter() - start
            totals = [t + g for t, g in zip(totals, got, strict=True)]
            counts = [c + k for c, k in zip(counts, n, strict=True)]
            budget.done += sims
            if budget.deadline is not None:
                per_round = max(spent / rounds, 1e-6)
                left = budget.deadline - time.perf_counter()
                rounds = max(1, int(0.25 * left / per_round))
        return totals, counts


class MCTSKingdominoAgent(_SearchKingdominoAgent):
    """Determinized UCT (single-observer information-set MCTS): each iteration re-deals the
    unseen dominoes, descends the tree by UCB1 among the children legal in that deal (the
    root limited to :meth:`candidates`), adds one node and finishes with a playout. A node
    keeps the value of the seat that moved into it (a share of the win, or the margin)."""

    name = "mcts"

    def __init__(self, seed: int | None = None, c: float = 0.7, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        if not c >= 0:
            raise ValueError(f"c: expected a number >= 0, got {c!r}")
        self.c = c

    def search(self, state: KingdominoState, cands: list[int], budget: Budget) -> int:
        root = TreeNode(-1)
        rng = self.rng
        n = state.config.num_players
        while budget.more():
            sim = state.clone()
            sim.redetermine(rng)
            node, path = root, [root]
            options: list[int] = cands
            while sim.phase != Phase.GAME_OVER:
                untried = [a for a in options if a not in node.children]
                if untried:
                    a = untried[int(rng.integers(len(untried)))]
                    child = node.children[a] = TreeNode(sim.seat)
                    sim.apply(a)
                    path.append(child)
                    break
                a = self._select(node, options)
                sim.apply(a)
                node = node.children[a]
                path.append(node)
                options = sim.legal_action_list()
            playout(sim, self.rollout, rng, state.seat)
            values = [outcome(sim, s, self.value) for s in range(n)]
            for nd in path:
                nd.visits += 1
                if nd.mover >= 0:
                    nd.total += values[nd.mover]
            budget.done += 1
        self.last_sims = budget.done
        return max(
            cands,
            key=lambda a: root.children[a].visits if a in root.children else -1,
        )

    def _select(self, node: TreeNode, options: list[int]) -> int:
        log_n = math.log(max(1, sum(node.children[a].visits for a in options)))
        c = self.c
        best, best_u = options[0], float("-inf")
        for a in options:
            ch = node.children[a]
            u = ch.total / ch.visits + c * math.sqrt(log_n / ch.visits)
            if u > best_u:
                best, best_u = a, u
        return best


class PolicyKingdominoAgent(KingdominoAgent):
    """A saved MaskablePPO model (trained through ``Kingdomino-v0``) playing its seat: the
    most likely legal action of the model for the seat's flat observation (``sample=True``:
    drawn from the legal actions' probabilities)."""

    name = "ppo"

    def __init__(self, path: str, seed: int | None = None, sample: bool = False) -> None:
        super().__init__(seed)
        self.path = path
        self.model = load_model(path)
        self.sample = sample
        self._encoders: dict[KingdominoConfig, KingdominoEncoder] = {}
        self._encoder_class = KingdominoEncoder

    def choose(self, state: KingdominoState) -> int:  # type: ignore[override]
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        enc = self._encoders.get(state.config)
        if enc is None:
            enc = self._encoders[state.config] = self._encoder_class(state.config)
            if self.model.observation_space.shape != (enc.size,):
                raise ValueError(
                    f"ppo: the model observes {self.model.observation_space.shape}, this game "
                    f"({state.config.describe()}) gives ({enc.size},)"
                )
        obs = enc.encode_flat(state, state.seat)
        return policy_action(
            self.model.policy, obs, state.legal_action_mask(), not self.sample, self.rng
        )


def make_kingdomino_agent(spec: str, seed: int | None = None) -> KingdominoAgent:
    """Build a Kingdomino agent from a spec: ``"greedy"``, ``"greedy:draft=random"``,
    ``"mc:sims=200,rollout=greedy"``, ``"mcts:time=1"``; ``ValueError`` naming a bad field."""
    name, rest = split_spec(spec, "greedy")
    if name == "ppo":
        if not rest.strip():
            raise ValueError("spec: expected ppo:PATH (a MaskablePPO zip trained on Kingdomino-v0)")
        policy = PolicyKingdominoAgent(rest.strip(), seed=seed)
        policy.spec = spec.strip()  # type: ignore[attr-defined]
        return policy
    types: dict[str, dict[str, type]] = {
        "random": {},
        "greedy": {"draft": str, "study": str},
        "heuristic": {},
        "mc": {"sims": int, "time": float, "rollout": str, "value": str, "k": int, "engine": str},
        "mcts": {"sims": int, "time": float, "rollout": str, "value": str, "k": int, "c": float},
    }
    if name not in types:
        raise ValueError(
            f"spec: unknown Kingdomino agent {name!r} (known: {', '.join(KINGDOMINO_AGENT_NAMES)})"
        )
    params = parse_params(spec, name, rest, types[name])
    factories: dict[str, Any] = {
        "random": RandomKingdominoAgent,
        "greedy": GreedyKingdominoAgent,
        "heuristic": HeuristicKingdominoAgent,
        "mc": MonteCarloKingdominoAgent,
        "mcts": MCTSKingdominoAgent,
    }
    agent: KingdominoAgent = factories[name](seed=seed, **params)
    agent.spec = spec.strip()  # type: ignore[attr-defined]
    return agent


def play_game(
    config: KingdominoConfig, agents: list[KingdominoAgent], seed: int
) -> KingdominoState:
    """Play one game at the engine level (each agent ``choose``s for its seat); the final
    state. Agent ``i`` is reset with seed ``seed * 1000 + i``."""
    for i, agent in enumerate(agents):
        agent.reset(seed * 1000 + i)
    state = new_game(config, seed)
    while state.phase != Phase.GAME_OVER:
        state.apply(agents[state.seat].choose(state))
    return state
