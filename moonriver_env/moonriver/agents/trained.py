"""The ``trained`` agent: a learned value of completed afterstates, used in a small search.

At each decision with a choice, the candidates are the heuristic's ``k`` best one-ply actions
(:meth:`~moonriver_env.moonriver.agents.heuristic.HeuristicAgent.action_values`). On a
determinization of the hidden information
(:func:`~moonriver_env.moonriver.agents.common.determinize`) every candidate is applied and the
acting seat's pending effects are played with the rule-based choices
(:func:`~moonriver_env.moonriver.agents.evaluation.complete_effects`).

* ``search.rounds = 0`` (one ply): the completed afterstates are encoded
  (:func:`state_inputs`: the observation the env gives the acting seat, own ranch first, plus
  the hand-written evaluation of every seat) and scored by :class:`ValueNet` in one batched
  forward pass.
* ``search.rounds = R > 0`` (the shipped models): on each of ``R`` determinizations every
  completed afterstate is rolled out ``search.depth`` decisions with the light heuristic of
  :mod:`moonriver_env.moonriver.agents.rollout` (the same futures for every candidate) and the
  leaves are scored by the network from the acting seat's side (a finished game by its final
  margin); the candidate with the best mean is played.

The simulations (the determinization, the completed afterstates, the rollouts and the leaf
inputs) run in the native core when it is built
(:meth:`moonriver_env.moonriver.vector.search.NativeState.value_leaves`): the same network inputs to the
last bit, so the same decisions (``tests/agents/test_trained.py``); the network's forward pass
stays in torch, batched, and the candidates' prior is the heuristic's, in the core too. Set
``native = False`` on an agent to simulate (and rank) in Python.

The network is trained (:mod:`training.value`) on one of two targets (``collect.labels``):
what flat Monte Carlo rollouts say a completed afterstate is worth (the ``mc`` agent's
estimate, ``"rollout"``), or the final margin against the best other seat that games of
heuristic agents reached from the position (``"outcome"``), the same units as a finished leaf's
value. Each model's ``config.toml`` says which (``tests/project/test_model_facts.py`` holds
the docs to it). A model is made for one game (player count and mode); the
agent refuses any other game before its first move, naming the game and the games it has
models for. Models live in ``agents/checkpoints/trained_<n>p_<mode>/model.pt``
(:data:`CHECKPOINTS`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.networks.snapshots import ModelFileError, read_weights
from agents.shipped import CHECKPOINTS
from moonriver_env.games import GameSpec
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, GameState

from .common import determinize, native_root
from .evaluation import (
    Context,
    Evaluator,
    complete_effects,
    final_margin,
    make_context,
)
from .heuristic import HeuristicAgent, HeuristicPrior
from .rollout import rollout

MODEL_FILE = "model.pt"
# Evaluator values (points) are divided by this in the network input.
EVAL_SCALE = 100.0


def game_name(num_players: int, mode: str) -> str:
    """``"2p_base"``: the name of a game in checkpoint folders and messages (its one
    spelling, :attr:`moonriver_env.games.GameSpec.text`)."""
    return GameSpec(num_players=num_players, mode=mode).text


def extra_size(num_players: int) -> int:
    """Width of the evaluation block of :func:`candidate_inputs`."""
    return num_players + 1


def input_size(encoder: ObservationEncoder) -> int:
    """Width of a row of :func:`candidate_inputs`: the flat observation, then the evaluation."""
    return encoder.flat_size + extra_size(encoder.n)


def completed_afterstates(
    det: GameState, seat: int, cands: Sequence[int], ctx: Context
) -> list[GameState]:
    """Each candidate applied to a copy of ``det``, then ``seat``'s pending effects played with
    the rule-based choices (what the network is trained on)."""
    out = []
    for a in cands:
        sim = det.clone()
        sim.apply(a)
        complete_effects(sim, seat, ctx)
        out.append(sim)
    return out


def state_inputs(
    encoder: ObservationEncoder,
    evaluator: Evaluator,
    states: Sequence[GameState],
    seat: int,
    ctx: Context | None = None,
) -> np.ndarray:
    """Network inputs of ``states`` seen by ``seat`` (one row each).

    Each row is the flat observation for ``seat``
    (:meth:`~moonriver_env.moonriver.encoding.ObservationEncoder.encode_flat`) followed by the
    evaluation block: every seat's
    :meth:`~moonriver_env.moonriver.agents.evaluation.Evaluator.seat_value` from ``seat`` on (own
    first, then the seats after it) and the relative value, in :data:`EVAL_SCALE` points. ``ctx`` is
    the public context to evaluate with (default: each state's own).
    """
    obs = encoder.flat_size
    rows = np.empty((len(states), input_size(encoder)), dtype=np.float32)
    opp_w = evaluator.w.opp_w
    for j, sim in enumerate(states):
        n = sim.config.num_players
        vals = evaluator.values(sim, make_context(sim) if ctx is None else ctx)
        row = rows[j]
        row[:obs] = encoder.encode_flat(sim, seat)
        own = [vals[(seat + i) % n] for i in range(n)]
        others = own[1:]
        opp = others[0] if n == 2 else 0.5 * (max(others) + sum(others) / len(others))
        row[obs:] = [*own, own[0] - opp_w * opp]
        row[obs:] /= EVAL_SCALE
    return rows


def candidate_inputs(
    encoder: ObservationEncoder,
    evaluator: Evaluator,
    det: GameState,
    seat: int,
    cands: Sequence[int],
    ctx: Context,
) -> np.ndarray:
    """Network inputs (:func:`state_inputs`) of the completed afterstates of ``cands`` on the
    determinization ``det`` of a decision whose public context is ``ctx``."""
    return state_inputs(encoder, evaluator, completed_afterstates(det, seat, cands, ctx), seat, ctx)


def python_leaves(
    det: GameState,
    seat: int,
    cands: Sequence[int],
    ctx: Context,
    depth: int,
    seed: int,
    encoder: ObservationEncoder,
    evaluator: Evaluator,
) -> tuple[np.ndarray, list[float | None]]:
    """The leaves of ``cands`` on the determinization ``det`` in Python: the completed afterstates
    (:func:`completed_afterstates`), each rolled out ``depth`` decisions with the light heuristic of
    :mod:`moonriver_env.moonriver.agents.rollout` drawing from ``random.Random(seed)``; the network
    inputs (:func:`state_inputs`) of the unfinished leaves, and per candidate ``seat``'s final
    margin when its leaf's game ended, else ``None``. ``depth < 0``: no rollout, every leaf a row
    evaluated in ``ctx`` (:func:`candidate_inputs`).
    :meth:`moonriver_env.moonriver.vector.search.NativeState.value_leaves` is the same in the
    core."""
    leaves = completed_afterstates(det, seat, cands, ctx)
    if depth < 0:
        return state_inputs(encoder, evaluator, leaves, seat, ctx), [None] * len(leaves)
    for sim in leaves:
        rollout(sim, "heuristic", make_context(sim), random.Random(seed), depth)
    margins = [final_margin(sim, seat) if sim.is_terminal else None for sim in leaves]
    live = [sim for sim, m in zip(leaves, margins, strict=True) if m is None]
    rows = np.zeros((len(leaves), input_size(encoder)), dtype=np.float32)
    if live:
        rows[np.array([m is None for m in margins])] = state_inputs(encoder, evaluator, live, seat)
    return rows, margins


def leader_gap(rows: np.ndarray, num_players: int) -> np.ndarray:
    """How far the leading opponent's evaluation is above the opponents' mean, in points, for
    each row of :func:`state_inputs` (0 with one opponent).

    The network's target compares the acting seat with ``(best + mean) / 2`` of the others (the
    ``mc`` leaf, :func:`~moonriver_env.moonriver.agents.evaluation.rel_from_values`); subtracting
    ``w x`` this gap moves it towards the margin against the best opponent (``w = 0.5``: exactly
    that margin in the evaluation; a multi-player game is won by the highest total, RULES.md section
    5), a negative ``w`` towards the margin against the opponents' mean (``w = -0.5``).
    """
    start = rows.shape[1] - extra_size(num_players) + 1  # the others' values, after own
    others = rows[:, start : start + num_players - 1].astype(np.float64) * EVAL_SCALE
    return others.max(axis=1) - others.mean(axis=1)


def squash(values: np.ndarray, win_scale: float) -> np.ndarray:
    """``T tanh(v / T)`` for ``T = win_scale`` (0: ``values`` unchanged): a leaf far ahead or
    far behind counts little more than one a little ahead or behind, so the mean over
    determinizations leans towards how often a candidate leads (a win) rather than by how
    much (kept in points, so ``search.prior_weight`` keeps its meaning)."""
    if not win_scale:
        return values
    return win_scale * np.tanh(values / win_scale)


class ValueNet(nn.Module):
    """An MLP over the afterstate input, plus a linear path from the evaluation block.

    ``value(x) = mlp(x) + w . x[-extra:] + b``: the hand-written evaluation enters directly,
    so the network learns a correction to it. The output is in units of ``target_scale``
    points (the trainer's scale, stored with the model).
    """

    def __init__(
        self, input_size: int, extra: int, hidden: Sequence[int], dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.extra = extra
        layers: list[nn.Module] = []
        width = input_size
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU(), nn.Dropout(dropout)]
            width = h
        last = nn.Linear(width, 1)
        # The correction starts at zero: training begins from the linear evaluation path.
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)
        layers.append(last)
        self.mlp = nn.Sequential(*layers)
        self.skip = nn.Linear(extra, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (self.mlp(x) + self.skip(x[:, -self.extra :])).squeeze(-1)


def save_model(path: Path, net: ValueNet, meta: dict[str, Any]) -> None:
    """Write a model file: the weights and ``meta`` (game, sizes, search settings)."""
    torch.save({"state_dict": net.state_dict(), "meta": meta}, path)


def load_model(path: Path) -> tuple[ValueNet, dict[str, Any]]:
    """Read a model file written by :func:`save_model`."""
    blob = read_weights(
        path, repr(str(path)), "a trained model"
    )  # ModelFileError for code or damage
    if not isinstance(blob, dict) or not isinstance(blob.get("meta"), dict):
        raise ModelFileError(f"path: {str(path)!r} is not a trained model (no 'meta')")
    meta = blob["meta"]
    net = ValueNet(meta["input_size"], meta["extra"], meta["hidden"], meta.get("dropout", 0.0))
    net.load_state_dict(blob["state_dict"])
    net.eval()
    return net, meta


def find_models(path: str | Path | None = None) -> dict[str, Path]:
    """The model files by game name: every ``trained_*`` folder of :data:`CHECKPOINTS`, or the
    one folder / file given."""
    if path is None:
        files = sorted(CHECKPOINTS.glob(f"trained_*/{MODEL_FILE}"))
    else:
        p = Path(path)
        files = [p / MODEL_FILE if p.is_dir() else p]
        if not files[0].exists():
            raise ValueError(f"path: no trained model at {str(p)!r}")
    out: dict[str, Path] = {}
    for f in files:
        blob = read_weights(f, repr(str(f)), "a trained model")  # ModelFileError for code or damage
        if not isinstance(blob, dict) or not isinstance(blob.get("meta"), dict):
            raise ModelFileError(f"path: {str(f)!r} is not a trained model (no 'meta')")
        meta = blob["meta"]
        out[game_name(meta["num_players"], meta["mode"])] = f
    return out


class TrainedAgent(HeuristicPrior, Agent):
    """The learned afterstate-value agent (module docstring).

    Args:
        seed: seeds the determinizations and the heuristic's ties.
        path: a model folder or file (default: every shipped model, one per game).
        k: candidates per decision (default: the model's ``search.k``).
    """

    name = "trained"

    def __init__(
        self, seed: int | None = None, path: str | Path | None = None, k: int | None = None
    ) -> None:
        super().__init__(seed)
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise ValueError(f"k: expected an integer >= 1, got {k!r}")
        torch.set_num_threads(1)
        self.models = find_models(path)
        if not self.models:
            raise ValueError(f"path: no trained models under {CHECKPOINTS}")
        self.k_override = k
        self.prior = HeuristicAgent(seed)
        self.evaluator = self.prior.evaluator
        self._game: tuple[GameConfig, ObservationEncoder, ValueNet, dict[str, Any]] | None = None
        self.last_batch = 0  # rows of the last forward pass (= candidates searched)
        self.last_values: dict[int, float] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.prior.reset(None if seed is None else seed + 1)

    @property
    def games(self) -> list[str]:
        """Names of the games this agent has models for (``"2p_base"``, ...)."""
        return sorted(self.models)

    def load_for(self, config: GameConfig) -> tuple[ObservationEncoder, ValueNet, dict[str, Any]]:
        """The encoder, network and settings for ``config``; ``ValueError`` for a game
        without a model."""
        if self._game is not None and self._game[0] is config:
            return self._game[1:]
        name = game_name(config.num_players, config.mode)
        if name not in self.models:
            raise ValueError(
                f"game: the trained agent has no model for the {config.num_players}-player "
                f"{config.mode} game ({name}); it has models for: {', '.join(self.games)}"
            )
        net, meta = load_model(self.models[name])
        enc = ObservationEncoder(config)
        if input_size(enc) != meta["input_size"]:
            raise ValueError(
                f"path: the model {self.models[name]} expects {meta['input_size']} inputs, "
                f"the {name} encoder gives {input_size(enc)}"
            )
        self._game = (config, enc, net, meta)
        return enc, net, meta

    def check_game(self, config: GameConfig) -> None:
        """Load the model for ``config`` when the agent is seated, so a game without a model
        is refused (``ValueError`` naming the game and the games it has models for) before
        any move."""
        self.load_for(config)

    @property
    def k(self) -> int | None:
        """Candidates per decision of the loaded model (``None`` before the first game)."""
        if self.k_override is not None:
            return self.k_override
        return None if self._game is None else int(self._game[3]["search"]["k"])

    def choose(self, state: GameState) -> int:
        enc, net, meta = self.load_for(state.config)
        legal = state.legal_action_list()
        self.last_batch = 0
        self.last_values = {}
        if len(legal) == 1:
            return legal[0]
        search = meta["search"]
        k = self.k or len(legal)
        seat = state.seat
        ctx = make_context(state)
        prior = self.prior.action_values(state, ctx)
        cands = sorted(legal, key=lambda a: (-prior[a], a))[:k]
        if len(cands) == 1:
            return cands[0]
        scale = float(meta["target_scale"])
        if int(search.get("rounds", 0)) == 0:  # one ply: the network on the completed afterstates
            core = native_root(state) if self.native else None
            x, _ = self._leaves(core, state, seat, cands, ctx, enc, -1)
            v = self._forward(net, x) * scale
        else:
            v = self._rollout_values(state, seat, cands, ctx, enc, net, search, scale)
        w = float(search["prior_weight"])
        if w:
            v = v + w * np.array([prior[a] for a in cands])
        self.last_batch = len(cands)
        self.last_values = {a: float(v[j]) for j, a in enumerate(cands)}
        return cands[int(np.argmax(v))]

    def _forward(self, net: ValueNet, x: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            return net(torch.from_numpy(x)).numpy().astype(np.float64)

    def _rollout_values(
        self,
        state: GameState,
        seat: int,
        cands: list[int],
        ctx: Context,
        enc: ObservationEncoder,
        net: ValueNet,
        search: dict[str, Any],
        scale: float,
    ) -> np.ndarray:
        """Mean leaf value (points) of each candidate over ``search.rounds`` determinizations:
        the completed afterstate, ``search.depth`` light-heuristic rollout decisions (the same
        futures for every candidate), then the network at the leaf (a finished game: its
        margin against the best other seat), less ``search.leader_weight`` x the
        :func:`leader_gap`, squashed by :func:`squash` (``search.win_scale``)."""
        rounds, depth = int(search["rounds"]), int(search["depth"])
        leader_weight = float(search.get("leader_weight", 0.0))
        win_scale = float(search.get("win_scale", 0.0))
        total = np.zeros(len(cands))
        core = native_root(state) if self.native else None
        for _ in range(rounds):
            rows, margins = self._leaves(core, state, seat, cands, ctx, enc, depth)
            value = np.array([0.0 if m is None else m for m in margins])
            live = [j for j, m in enumerate(margins) if m is None]
            if live:
                x = rows[live]
                v = self._forward(net, x) * scale
                if leader_weight:
                    v -= leader_weight * leader_gap(x, state.config.num_players)
                value[live] = v
            total += squash(value, win_scale)
        return total / rounds

    def _leaves(
        self,
        core: Any,
        state: GameState,
        seat: int,
        cands: list[int],
        ctx: Context,
        enc: ObservationEncoder,
        depth: int,
    ) -> tuple[np.ndarray, list[float | None]]:
        """One determinization (and, with ``depth >= 0``, one rollout seed) drawn from the
        agent's generator, and the leaves of ``cands`` on it (:func:`python_leaves`): in the
        core when ``core`` is the decision's :class:`~moonriver_env.moonriver.vector.search.NativeState`
        (:func:`~moonriver_env.moonriver.agents.common.native_root`), else in Python."""
        if core is not None:
            det = core.clone()
            det.determinize(self.rng)
            rseed = int(self.rng.integers(2**62)) if depth >= 0 else 0
            weights = self.evaluator.w.as_list()
            return det.value_leaves(seat, cands, depth, rseed, weights)
        det_state = determinize(state, self.rng)
        rseed = int(self.rng.integers(2**62)) if depth >= 0 else 0
        return python_leaves(det_state, seat, cands, ctx, depth, rseed, enc, self.evaluator)
