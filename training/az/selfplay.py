"""Games that make training data: self-play with the Gumbel search, and a teacher's games for
the warm start (iteration 0).

A batch of games is played in lockstep (:func:`play_selfplay`): at every step the decisions of
all unfinished games are searched together (one network call for the roots, one per Sequential
Halving phase), so the network always sees a batch. The engine is stepped only through the
search (:func:`agents.az.search.expand_afterstates`, in the native core when it is built:
that is where nearly all the moves are) and ``GameState.apply`` here (one move per decision,
on the Python engine: the search's roots and the recorded observations need the state).

Playout cap randomisation (Wu, 2019): each decision gets the full search (``sims``) with
probability ``full_fraction`` and its improved policy becomes a policy target; the others get
a fast search (``fast_sims``; 0: a sample of the raw policy) and give only value targets.

Every decision with more than one legal action becomes a position (:class:`Positions`): the
observation of the acting seat, the legal actions and the policy target over them, and the
value targets of every seat, from the observer on (own first): outcome ``2 x win share - 1``
and the final margin over the best other seat in :data:`agents.az.MARGIN_SCALE` points.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.az.network import AzNet, NetShape
from agents.az.search import Evaluator, SearchSettings, final_value, gumbel_search
from agents.registry import make_agent, parse_spec
from agents.seeds import derive_seed
from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
from moonriver_env.moonriver.agents.montecarlo import MonteCarloAgent
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, GameState, new_game
from moonriver_env.moonriver.vector.search import NativeState
from moonriver_env.vector import NATIVE

OBS_DTYPE = np.float16  # observations are small counts and scaled scores: half precision


@dataclass
class Positions:
    """Training positions (ragged legal actions: those of position ``i`` are
    ``legal[legal_ptr[i]:legal_ptr[i + 1]]`` with the policy target ``target[...]``)."""

    obs: np.ndarray  # (N, obs) float16
    legal_ptr: np.ndarray  # (N + 1,) int64
    legal: np.ndarray  # (M,) int32
    target: np.ndarray  # (M,) float32
    has_policy: np.ndarray  # (N,) bool
    outcome: np.ndarray  # (N, n) float32
    margin: np.ndarray  # (N, n) float32
    games: int = 0

    def __len__(self) -> int:
        return int(self.obs.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays by name (what a replay shard stores)."""
        return {
            "obs": self.obs,
            "legal_ptr": self.legal_ptr,
            "legal": self.legal,
            "target": self.target,
            "has_policy": self.has_policy,
            "outcome": self.outcome,
            "margin": self.margin,
            "games": np.asarray(self.games, dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, a: Mapping[str, np.ndarray]) -> Positions:
        return cls(
            a["obs"], a["legal_ptr"], a["legal"], a["target"], a["has_policy"],
            a["outcome"], a["margin"], int(a["games"]),
        )  # fmt: skip

    @classmethod
    def concatenate(cls, parts: Sequence[Positions], obs_size: int, n: int) -> Positions:
        """One :class:`Positions` of ``parts`` in order."""
        if not parts:
            return cls(
                np.zeros((0, obs_size), OBS_DTYPE), np.zeros(1, np.int64), np.zeros(0, np.int32),
                np.zeros(0, np.float32), np.zeros(0, bool), np.zeros((0, n), np.float32),
                np.zeros((0, n), np.float32),
            )  # fmt: skip
        ptrs = [parts[0].legal_ptr]
        offset = int(parts[0].legal_ptr[-1])
        for p in parts[1:]:
            ptrs.append(p.legal_ptr[1:] + offset)
            offset += int(p.legal_ptr[-1])
        return cls(
            np.concatenate([p.obs for p in parts]),
            np.concatenate(ptrs),
            np.concatenate([p.legal for p in parts]),
            np.concatenate([p.target for p in parts]),
            np.concatenate([p.has_policy for p in parts]),
            np.concatenate([p.outcome for p in parts]),
            np.concatenate([p.margin for p in parts]),
            sum(p.games for p in parts),
        )


class _Recorder:
    """Collects the decisions of one game; the value targets are filled in at its end."""

    def __init__(self) -> None:
        self.obs: list[np.ndarray] = []
        self.seats: list[int] = []
        self.legal: list[np.ndarray] = []
        self.target: list[np.ndarray] = []
        self.has_policy: list[bool] = []

    def add(
        self, obs: np.ndarray, seat: int, legal: np.ndarray, target: np.ndarray, policy: bool
    ) -> None:
        self.obs.append(obs.astype(OBS_DTYPE))
        self.seats.append(seat)
        self.legal.append(legal.astype(np.int32))
        self.target.append(target.astype(np.float32))
        self.has_policy.append(policy)

    def finish(self, state: GameState | NativeState, obs_size: int) -> Positions:
        n = state.config.num_players
        finals = [final_value(state, s) for s in range(n)]
        k = len(self.obs)
        outcome = np.zeros((k, n), np.float32)
        margin = np.zeros((k, n), np.float32)
        for i, seat in enumerate(self.seats):
            for j in range(n):
                o, m = finals[(seat + j) % n]
                outcome[i, j], margin[i, j] = o, m
        sizes = [a.size for a in self.legal]
        ptr = np.zeros(k + 1, np.int64)
        ptr[1:] = np.cumsum(sizes)
        return Positions(
            np.stack(self.obs) if k else np.zeros((0, obs_size), OBS_DTYPE),
            ptr,
            np.concatenate(self.legal) if k else np.zeros(0, np.int32),
            np.concatenate(self.target) if k else np.zeros(0, np.float32),
            np.asarray(self.has_policy, bool),
            outcome,
            margin,
            games=1,
        )


def play_selfplay(
    evaluator: Evaluator,
    config: GameConfig,
    seeds: Sequence[int],
    settings: SearchSettings,
    fast_sims: int,
    full_fraction: float,
) -> Positions:
    """Self-play games, one per seed (the game's deal and the search's randomness both derive
    from it), played in lockstep; the positions of all of them in seed order."""
    states = [new_game(config, seed=int(s)) for s in seeds]
    rngs = [np.random.default_rng(derive_seed(int(s), 1)) for s in seeds]
    caps = [np.random.default_rng(derive_seed(int(s), 2)) for s in seeds]
    recorders = [_Recorder() for _ in seeds]
    play = SearchSettings(**{**settings.__dict__, "sample": True})
    enc = evaluator.encoder
    while True:
        live = [i for i, s in enumerate(states) if not s.is_terminal]
        if not live:
            break
        full = [bool(caps[i].random() < full_fraction) for i in live]
        sims = [settings.sims if f else fast_sims for f in full]
        results = gumbel_search(
            evaluator, [states[i] for i in live], play, [rngs[i] for i in live], sims
        )
        for i, f, res in zip(live, full, results, strict=True):
            s = states[i]
            if res.legal.size > 1:
                seat = s.current_seat
                assert seat is not None
                target = res.improved if (f and res.searched) else res.prior
                recorders[i].add(enc.encode_flat(s, seat), seat, res.legal, target, f)
            s.apply(res.action)
    parts = [r.finish(s, enc.flat_size) for r, s in zip(recorders, states, strict=True)]
    return Positions.concatenate(parts, enc.flat_size, config.num_players)


TEACHER_KEYS = ("teacher", "explore", "target", "temperature", "keep")
"""The ``[warmstart]`` keys that decide the teacher's games: :func:`play_teacher`'s keyword
arguments, a teacher job's fields, what ``warmstart.reuse`` must share."""

TEACHER_TARGETS = ("move", "values")
"""What a teacher position's policy target is (``warmstart.target``): the teacher's move
(one-hot), or the softmax of the teacher's values divided by a temperature in points: the
heuristic's one-ply values of every legal action (every action ranked, not only the best), or
flat Monte Carlo's mean values of its root candidates (the other actions get none)."""

VALUE_TEACHERS = ("heuristic", "mc")
"""The agents whose values can be a policy target (``target="values"``)."""


def teacher_target(
    legal: np.ndarray, action: int, values: Sequence[float] | None, temperature: float
) -> np.ndarray:
    """The policy target of a teacher decision (:data:`TEACHER_TARGETS`; ``values`` None: the
    move)."""
    if values is None:
        return (legal == action).astype(np.float32)
    v = np.asarray(values, dtype=np.float64) / temperature  # -inf: no probability
    p = np.exp(v - v.max())
    return (p / p.sum()).astype(np.float32)


def play_teacher(
    config: GameConfig,
    seeds: Sequence[int],
    teacher: str,
    explore: float,
    target: str = "move",
    temperature: float = 1.0,
    keep: float = 1.0,
) -> Positions:
    """Games of ``teacher`` (an agent spec) in every seat, one per seed; the policy target is
    the teacher's move (one-hot; ``target="values"``: the heuristic's or flat Monte Carlo's
    values, see :data:`TEACHER_TARGETS`) even where a random move (probability ``explore``) is
    played instead. Each decision is recorded with probability ``keep`` (fewer positions per game:
    more games, so more outcomes, in the same memory).

    A ``"heuristic"`` teacher plays in the native core when it is built: the same games,
    positions and targets as on the Python engine (``tests/training/test_az.py``), about 25
    times faster."""
    if target not in TEACHER_TARGETS:
        raise ValueError(f"target: expected one of {TEACHER_TARGETS}, got {target!r}")
    enc = ObservationEncoder(config)
    n = config.num_players
    native = teacher == "heuristic" and NATIVE
    if target == "values" and parse_spec(teacher)[0] not in VALUE_TEACHERS:
        raise ValueError(
            f"target 'values' needs one of {VALUE_TEACHERS} as teacher, got {teacher!r}"
        )
    parts = []
    for seed in seeds:
        agents = [make_agent(teacher, seed=derive_seed(int(seed), 3, k)) for k in range(n)]
        rng = np.random.default_rng(derive_seed(int(seed), 4))
        kept = np.random.default_rng(derive_seed(int(seed), 5))
        state: GameState | NativeState
        state = NativeState(config, seed=int(seed)) if native else new_game(config, seed=int(seed))
        rec = _Recorder()
        while not state.is_terminal:
            seat = state.current_seat
            assert seat is not None
            legal_list = state.legal_action_list()
            legal = np.asarray(legal_list, dtype=np.int64)
            values: list[float] | None = None
            agent = agents[seat]
            if len(legal_list) == 1:
                action = legal_list[0]
            elif isinstance(state, NativeState):
                assert isinstance(agent, HeuristicAgent)
                det = state.clone()
                det.determinize(agent.rng)
                values = det.action_values(legal_list, agent.evaluator.w.as_list())
                action = agent.pick(legal_list, dict(zip(legal_list, values, strict=True)))
            elif isinstance(agent, HeuristicAgent) and target == "values":
                scores = agent.action_values(state)
                values = [scores[a] for a in legal_list]
                action = agent.pick(legal_list, scores)
            else:
                action = int(agent.choose(state))
                if isinstance(agent, MonteCarloAgent) and target == "values" and agent.last_values:
                    means = agent.last_values  # its root candidates' means; none: the move
                    values = [means.get(a, -np.inf) for a in legal_list]
            if legal.size > 1:
                if kept.random() < keep:
                    obs = (
                        state.observation(seat)
                        if isinstance(state, NativeState)
                        else enc.encode_flat(state, seat)
                    )
                    soft = values if target == "values" else None
                    rec.add(
                        obs, seat, legal, teacher_target(legal, action, soft, temperature), True
                    )
                if rng.random() < explore:
                    action = int(legal[rng.integers(legal.size)])
            state.apply(action)
        parts.append(rec.finish(state, enc.flat_size))
    return Positions.concatenate(parts, enc.flat_size, n)


# -- worker side of run_jobs ---------------------------------------------------------------
def model_bytes(net: AzNet) -> bytes:
    """The weights as bytes (sent to workers, wherever they run)."""
    buf = io.BytesIO()
    torch.save(net.state_dict(), buf)
    return buf.getvalue()


class Worker:
    """A self-play worker: the network of the latest iteration it was sent."""

    def __init__(self, shape: Mapping[str, Any], threads: int = 1) -> None:
        torch.set_num_threads(threads)
        self.shape = NetShape(**shape)
        self.config = GameConfig(num_players=self.shape.num_players, mode=self.shape.mode)
        self.net = AzNet(self.shape).eval()
        self.evaluator = Evaluator(self.net, ObservationEncoder(self.config))
        self.iteration: int | None = None

    def run(self, job: Mapping[str, Any]) -> Positions:
        """One job: ``{"kind": "selfplay", "iteration", "weights", "seeds", "settings",
        "fast_sims", "full_fraction"}`` or ``{"kind": "teacher", "seeds", "teacher",
        "explore", "target", "temperature", "keep"}``."""
        if job["kind"] == "teacher":
            kw = {k: job[k] for k in TEACHER_KEYS if k in job}  # the rest: play_teacher's
            return play_teacher(self.config, job["seeds"], **kw)
        if self.iteration != job["iteration"]:
            state = torch.load(io.BytesIO(job["weights"]), map_location="cpu", weights_only=True)
            self.net.load_state_dict(state)
            self.net.eval()
            self.iteration = job["iteration"]
        return play_selfplay(
            self.evaluator, self.config, job["seeds"], SearchSettings(**job["settings"]),
            job["fast_sims"], job["full_fraction"],
        )  # fmt: skip


def run_worker_job(worker: Worker, job: Mapping[str, Any]) -> tuple[int, Positions]:
    """``play`` of :func:`agents.runner.run_jobs`: the job's replay part and its positions."""
    return int(job["part"]), worker.run(job)
