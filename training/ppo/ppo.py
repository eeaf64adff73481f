"""A reference PPO for every game with a batched form, in one file (after CleanRL and PuffeRL).

    python -m training.ppo.ppo --game moonriver --players 2 --minutes 60 --run-dir runs/ppo
    python -m training.ppo.ppo --run-dir runs/ppo --resume          # picks up where it stopped
    tensorboard --logdir runs/ppo/tb

What it does, top to bottom:

* **Self-play for every seat.** ``num_games`` games of the spec play together in one vector game
  (``observe="sparse"``); the one policy decides for whichever seat is to act. Each seat's
  decisions form its own trajectory, rewarded by the game's final reward for that seat (``win``:
  +1 win, -1 loss, shared places between), so GAE runs per (game, seat): a decision's next value
  is that seat's next decision, or the end of its game.
* **A network made for the data.** The observation arrives as its non-zero entries
  (``obs_idx``, ``obs_val``), so the first layer is an ``EmbeddingBag`` over them (a sparse
  linear layer: 250 rows summed instead of a 3,282-wide product). The policy scores only the
  legal actions: each action id is embedded from its parts in the game's ``action_table``
  (segment, then each component, e.g. a Moon River placement's pair, cell and direction), and a
  legal action's logit is the dot product of the state's embedding with the action's. The
  softmax, sampling and entropy run over the ragged list of legal actions (6 on average, not
  1,748 ids).
* **Core rollouts** (``--rollouts core``, a game with a native core): whole self-play games
  played in the core by az's network (the sparse first layer and every legal move's afterstate
  scored in C), every move drawn from softmax(afterstate value / tau), tau learned
  (:class:`CorePolicy`); the core keeps the positions, the move played and the TD(lambda)
  returns, and :func:`update_core` runs PPO over them (no clipped value loss there;
  ``--gamma`` and ``--num-steps`` do not apply). ``model.pt`` is then an az model file.
* **PPO**: the clipped objective, a clipped value loss, an entropy bonus, advantage
  normalisation per minibatch, gradient clipping, a linearly annealed learning rate.
* **A run**: a step or minute budget, TensorBoard scalars, ``checkpoints/latest.pt`` written
  atomically every ``--save-every`` updates and at the end (``--resume`` continues it, the
  learning-rate schedule and step count included; it may raise the budget, not change the game,
  the network or the optimisation), evaluations against a baseline agent with a Wilson interval
  (``--eval-every``), and the final model as ``model.pt``. One run per folder (a lock); Ctrl-C
  stops with exit status 130 and a kill at any moment leaves the last checkpoint whole; a bad
  flag is an error naming it (exit status 2) before anything is written.

Nothing here names a game: the game, its tables and its opponents come from the registry
(:func:`moonriver_env.vector.vector_game`, the vector game's ``action_table``, and
:func:`moonriver_env.opponents.make_opponent`).
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.atomic import atomic_path, write_text
from agents.az.checkpoint import save_checkpoint
from agents.az.network import AzNet, NetShape, sparse_batch
from agents.az.search import SearchSettings
from agents.networks.sparse_policy import (
    AFTERSTATE_TAU,
    HEADS,
    SparsePolicy,
    SparseRows,
    afterstate_log_probs,
    greedy_actions,
    model_record,
    ragged_legal,
    sample_ragged,
    segment_log_softmax,
    sparse_rows,
)
from moonriver_env.exit_status import INTERRUPTED, exit_with
from moonriver_env.games import (
    DEFAULT_GAME,
    add_game_arguments,
    parse_game,
    spec_from_args,
)
from moonriver_env.opponents import make_opponent
from moonriver_env.vector.env_batch import batched_game
from training.az.evaluate import evaluate_model
from training.az.learner import Stopped, overlapped
from training.az.selfplay import PlaySettings, Positions, native_template, play_threads
from training.common.evaluation import evaluate_batched, vg_game_name_of
from training.common.outputs import OutputError, RunLock


@dataclass
class Args:
    """Every setting of a run (saved in the run folder and the checkpoints)."""

    game: str = "moonriver_2p_base"  # a GameSpec text
    num_games: int = 1024  # games played together (one decision each per step)
    num_steps: int = 32  # steps per rollout: a rollout is num_games * num_steps decisions
    total_steps: int = 0  # decisions to train for (0: until --minutes)
    minutes: float = 0.0  # wall-clock budget (0: until --total-steps)
    learning_rate: float = 1e-3
    anneal_lr: bool = True
    reward: str = "win"  # the game's final reward: win (+1 / -1), score or score_diff
    dense_reward: float = 0.0  # reward per point a seat's score changes (0: the final reward only)
    reward_scale: float = 1.0  # every reward times this (score rewards are in points)
    gamma: float = 1.0
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 2
    clip_coef: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    afterstate_value: float = 1.0  # the afterstate head: weight of the chosen afterstate's score
    # regressed on the decision's return (its score, times the head's tau, as a value: TD(lambda)
    # as az learns its afterstate values, so every decision teaches the scores, not only its
    # advantage's sign)
    max_grad_norm: float = 0.5
    head: str = "auto"  # how a legal move is scored: "afterstate" (its afterstate through the
    # trunk; a game played in the native core), "action" (the state against the move's parts;
    # any game) or "auto" (afterstate where the core plays the game, else action)
    features: bool = True  # the afterstate head: the core's territory features as inputs too
    rollouts: str = "python"  # where the rollouts are played: "python" (the vector game, the
    # policy in torch) or "core" (whole self-play games in the native core, the network
    # evaluated there: az's network and self-play; module docstring)
    value_share: float = 0.5  # core rollouts: the share of decisions kept (each seen from the
    # actor or another seat) for the value
    pg_share: float = 0.5  # core rollouts: the share of the actor's kept decisions that also
    # keep every legal move's afterstate, for the policy's clipped objective
    tau: float = 0.1  # core rollouts: the policy is softmax(afterstate value / tau), tau as it
    # starts with --learn-tau
    learn_tau: bool = True  # core rollouts: tau a parameter the clipped objective learns
    value_scale: bool = False  # core rollouts: the clipped objective and the entropy bonus move
    # the afterstate values at the value's scale (a logit's gradient reaches its value once, not
    # beta = 1 / tau times), so that they do not outweigh the values' TD regression
    dual_clip: float = 3.0  # core rollouts: a move whose advantage is negative has its term
    # capped at this times the advantage (dual-clip PPO), so a step that swung the logits far
    # cannot blow the objective up (0: off)
    target_kl: float = 0.2  # core rollouts: an update ends, that step not taken, at a minibatch
    # whose approximate KL from the weights the update began with (with --threads 2, one update
    # after those that played) passes this (0: never)
    embed: int = 64  # the sparse layer's width
    hidden: int = 128  # the trunk's and the action embeddings' width
    seed: int = 1
    threads: int = 2
    save_every: int = 50  # updates between checkpoints
    opponent: str = ""  # an agent spec playing the other seats in a share of the games
    opponent_share: float = 0.0  # that share of the game slots (the rest: self-play)
    eval_every: int = 0  # updates between evaluations (0: only at the end)
    eval_opponent: str = "heuristic"
    eval_games: int = 100
    eval_seed: int = 10_000  # evaluation games use their own seeds, never the training ones
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- the rollout


class Rollout:
    """``num_steps`` steps of ``num_games`` games, row ``t * num_games + i`` for game ``i`` at
    step ``t``: the sparse observations and the legal ids as ragged arrays, the chosen
    positions, log-probabilities, values, acting seats, ends and final rewards."""

    def __init__(self, args: Args, players: int) -> None:
        t, n = args.num_steps, args.num_games
        self.obs_idx: list[np.ndarray] = []
        self.obs_val: list[np.ndarray] = []
        self.nnz = np.zeros((t, n), np.int64)
        self.legal: list[np.ndarray] = []
        self.aft_idx: list[np.ndarray] = []  # the afterstate head: each step's afterstates
        self.aft_val: list[np.ndarray] = []
        self.aft_nnz: list[np.ndarray] = []
        self.num_legal = np.zeros((t, n), np.int64)
        self.choice = np.zeros((t, n), np.int64)
        self.logp = np.zeros((t, n), np.float32)
        self.value = np.zeros((t, n), np.float32)
        self.seat = np.zeros((t, n), np.int64)
        self.mine = np.ones((t, n), bool)  # the policy decided (not an opponent)
        self.done = np.zeros((t, n), bool)
        self.reward = np.zeros((t, n, players), np.float32)


class Opponents:
    """The other seats of a share of the game slots, played by a baseline agent: slot ``i <
    share * N`` keeps the policy on seat ``i % n`` and the agent on the others. The agent
    decides for many games at once where it can (``choose_batch``), else game by game."""

    def __init__(self, spec: str, share: float, vg: Any, seed: int) -> None:
        n_games, n = vg.num_games, vg.num_players
        self.slots = np.zeros(n_games, bool)
        self.slots[: int(round(share * n_games))] = bool(spec)
        self.learner_seat = np.arange(n_games) % n
        self.agent = make_opponent(spec, seed, game=vg_game_name_of(vg)) if spec else None

    def rows(self, seat: np.ndarray) -> np.ndarray:
        """The games whose acting seat the agent plays."""
        return np.flatnonzero(self.slots & (seat != self.learner_seat) & (seat >= 0))

    def choose(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        agent = self.agent
        if agent is None:
            raise ValueError("opponents: no agent (an empty spec) has no moves")
        batch = getattr(agent, "choose_batch", None)
        if batch is not None:
            return np.asarray(batch(vg, rows), dtype=np.int64)
        return np.array([agent.choose(vg.get_state(int(i))) for i in rows], dtype=np.int64)


def collect(
    policy: SparsePolicy,
    vg: Any,
    ro: Rollout,
    rng: np.random.Generator,
    opponents: Opponents | None = None,
) -> None:
    """Plays one rollout: the policy decides for every seat (self-play), but for the seats
    ``opponents`` plays; fills ``ro`` (its ``mine`` marks the policy's decisions)."""
    ro.obs_idx, ro.obs_val, ro.legal = [], [], []
    ro.aft_idx, ro.aft_val, ro.aft_nnz = [], [], []
    with torch.no_grad():  # the policy does not change during a rollout
        actions = policy.actions() if policy.head == "action" else None
    n_games = ro.nnz.shape[1]
    everyone = np.arange(n_games)
    for t in range(ro.nnz.shape[0]):
        seat = vg.current_seat.astype(np.int64)
        step_actions = np.zeros(n_games, np.int64)
        mine = np.ones(n_games, bool)
        if opponents is not None and opponents.agent is not None:
            theirs = opponents.rows(seat)
            if theirs.size:
                step_actions[theirs] = opponents.choose(vg, theirs)
                mine[theirs] = False
        rows_mine = everyone if mine.all() else np.flatnonzero(mine)
        # every game the policy's: the arrays as they are (a fancy index copies megabytes)
        pick: Any = slice(None) if rows_mine is everyone else rows_mine
        nnz = np.zeros(n_games, np.int64)
        nnz[pick] = vg.obs_nnz[pick]
        idx, val = sparse_rows(vg.obs_idx[pick], vg.obs_val[pick], nnz[pick])
        num_legal = np.zeros(n_games, np.int64)
        num_legal[pick] = vg.num_legal[pick]
        if policy.head == "afterstate":
            aft = vg.afterstates(rows_mine, seed=int(rng.integers(2**63)), features=policy.features)
            logp, rows, _ = afterstate_log_probs(policy, aft)
            legal = aft.legal.astype(np.int64)
            with torch.no_grad():
                _, value = policy.state(SparseRows.of(idx, val, nnz[rows_mine]))
            ro.aft_idx.append(aft.idx)
            ro.aft_val.append(aft.val)
            ro.aft_nnz.append(np.diff(aft.off))
        else:
            legal, rows = ragged_legal(vg.legal_ids[pick], num_legal[pick])
            with torch.no_grad():
                h, value = policy.state(SparseRows.of(idx, val, nnz[rows_mine]))
                logits = policy.logits(h, torch.from_numpy(rows), torch.from_numpy(legal),
                                       actions)  # fmt: skip
            logp = segment_log_softmax(logits, torch.from_numpy(rows), len(rows_mine))
        pos = sample_ragged(logp, rows, num_legal[rows_mine], rng)
        starts = np.concatenate(([0], np.cumsum(num_legal[rows_mine])[:-1]))
        step_actions[rows_mine] = legal[starts + pos]
        ro.obs_idx.append(idx)
        ro.obs_val.append(val)
        ro.nnz[t] = nnz
        ro.legal.append(legal)
        ro.num_legal[t] = num_legal
        ro.choice[t] = 0
        ro.choice[t, rows_mine] = pos
        ro.logp[t] = 0.0
        ro.logp[t, rows_mine] = logp.numpy()[starts + pos]
        ro.value[t] = 0.0
        ro.value[t, rows_mine] = value.numpy()
        ro.seat[t] = seat
        ro.mine[t] = mine
        vg.step(step_actions)
        ro.done[t] = vg.terminated
        ro.reward[t] = vg.rewards


def advantages(ro: Rollout, args: Args, players: int) -> tuple[np.ndarray, np.ndarray]:
    """GAE per (game, seat) trajectory (module docstring), backwards over the rollout: a
    decision earns every reward its seat receives until its next decision (the final reward,
    and with ``dense_reward`` the seat's score changes). A seat's last decision in the
    rollout whose game has not ended bootstraps with its own value (advantage 0 at gamma
    1)."""
    t_len, n = ro.value.shape
    games = np.arange(n)
    next_value = np.full((n, players), np.nan, np.float32)  # nan: no later decision seen
    next_adv = np.zeros((n, players), np.float32)
    pending = np.zeros((n, players), np.float32)  # reward due before the seat's next decision
    ended = np.zeros((n, players), bool)  # the game ended before the seat's next decision
    adv = np.zeros((t_len, n), np.float32)
    for t in range(t_len - 1, -1, -1):
        done = ro.done[t]
        pending += ro.reward[t]  # each seat's reward after step t goes to its latest decision
        if done.any():  # the game's end: nothing after it belongs to its decisions
            next_value[done] = 0.0
            next_adv[done] = 0.0
            pending[done] = ro.reward[t][done]
            ended[done] = True
        g = games[ro.mine[t]]  # the policy's decisions (an opponent's have no value)
        s = ro.seat[t][g]
        v = ro.value[t][g]
        nv = next_value[g, s]
        nv = np.where(np.isnan(nv), v / args.gamma, nv)
        delta = pending[g, s] + args.gamma * nv - v
        a = delta + args.gamma * args.gae_lambda * np.where(ended[g, s], 0.0, next_adv[g, s])
        adv[t, g] = a
        next_value[g, s] = v
        next_adv[g, s] = a
        pending[g, s] = 0.0
        ended[g, s] = False
    return adv, adv + ro.value


@dataclass
class Minibatch:
    """One minibatch's rows, prepared once per rollout and used by every epoch."""

    x: SparseRows
    rows: torch.Tensor
    ids: torch.Tensor  # the action head: the distinct legal ids of the minibatch
    legal: torch.Tensor  # the action head: each legal action's position in ids
    chosen: torch.Tensor
    old_logp: torch.Tensor
    old_value: torch.Tensor
    adv: torch.Tensor
    ret: torch.Tensor
    after: SparseRows | None  # the afterstate head: each legal move's afterstate


def minibatches(
    ro: Rollout, adv: np.ndarray, ret: np.ndarray, args: Args, rng: np.random.Generator
) -> list[Minibatch]:
    """The rollout cut into ``num_minibatches`` minibatches of whole steps (every game of a
    step together; the steps drawn at random)."""
    t_len = ro.value.shape[0]
    steps = rng.permutation(t_len)
    out = []
    for m in range(args.num_minibatches):
        group = np.sort(steps[m :: args.num_minibatches])
        if not group.size:
            continue
        idx = np.concatenate([ro.obs_idx[t] for t in group])
        val = np.concatenate([ro.obs_val[t] for t in group])
        mine = ro.mine[group].reshape(-1)
        nnz = ro.nnz[group].reshape(-1)[mine]
        counts = ro.num_legal[group].reshape(-1)[mine]
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        if ro.aft_nnz:  # the afterstate head scores the moves' afterstates, not their ids
            ids = where = np.zeros(0, np.int64)
        else:
            legal = np.concatenate([ro.legal[t] for t in group])
            ids, where = np.unique(legal, return_inverse=True)
        out.append(
            Minibatch(
                x=SparseRows.of(idx, val, nnz),
                rows=torch.from_numpy(np.repeat(np.arange(len(nnz)), counts)),
                ids=torch.from_numpy(ids),
                legal=torch.from_numpy(where.reshape(-1)),
                chosen=torch.from_numpy(starts + ro.choice[group].reshape(-1)[mine]),
                old_logp=torch.from_numpy(ro.logp[group].reshape(-1)[mine]),
                old_value=torch.from_numpy(ro.value[group].reshape(-1)[mine]),
                adv=torch.from_numpy(adv[group].reshape(-1)[mine]),
                ret=torch.from_numpy(ret[group].reshape(-1)[mine]),
                after=SparseRows.of(
                    np.concatenate([ro.aft_idx[t] for t in group]).astype(np.int64),
                    np.concatenate([ro.aft_val[t] for t in group]),
                    np.concatenate([ro.aft_nnz[t] for t in group]),
                )
                if ro.aft_nnz
                else None,
            )
        )
    return out


def update(
    policy: SparsePolicy,
    opt: torch.optim.Optimizer,
    batches: list[Minibatch],
    args: Args,
    rng: np.random.Generator,
) -> dict[str, float]:
    """``update_epochs`` passes of PPO over the prepared minibatches (in a new order each)."""
    stats: dict[str, list[float]] = {k: [] for k in ("pg", "v", "after_v", "ent", "kl", "clip")}
    for _ in range(args.update_epochs):
        for m in rng.permutation(len(batches)):
            b = batches[m]
            n = b.x.rows
            h, value = policy.state(b.x)
            if b.after is not None:
                logits = policy.afterstate_logits(b.after)
            else:
                logits = policy.logits(h, b.rows, b.legal, policy.actions(b.ids))
            logp_all = segment_log_softmax(logits, b.rows, n)
            after_loss = torch.zeros(())
            if b.after is not None and args.afterstate_value:
                chosen_value = logits[b.chosen] * AFTERSTATE_TAU
                after_loss = 0.5 * ((chosen_value - b.ret) ** 2).mean()
            logp = logp_all[b.chosen]
            entropy = -torch.zeros(n).index_add_(0, b.rows, logp_all.exp() * logp_all)
            a = (b.adv - b.adv.mean()) / (b.adv.std() + 1e-8)
            pg, ratio = clipped_objective(logp - b.old_logp, a, args.clip_coef)
            v_clipped = b.old_value + (value - b.old_value).clamp(-args.clip_coef, args.clip_coef)
            v_loss = 0.5 * torch.max((value - b.ret) ** 2, (v_clipped - b.ret) ** 2).mean()
            loss = (
                pg.mean()
                + args.vf_coef * v_loss
                - args.ent_coef * entropy.mean()
                + args.afterstate_value * after_loss
            )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), args.max_grad_norm)
            opt.step()
            with torch.no_grad():
                stats["pg"].append(float(pg.mean()))
                stats["v"].append(float(v_loss))
                stats["after_v"].append(float(after_loss))
                stats["ent"].append(float(entropy.mean()))
                stats["kl"].append(float(((ratio - 1) - ratio.log()).mean()))
                stats["clip"].append(float(((ratio - 1).abs() > args.clip_coef).float().mean()))
    return {k: float(np.mean(v)) for k, v in stats.items()}


# --------------------------------------------------------------------------- evaluation


def evaluate(
    policy: SparsePolicy, spec: str, opponent: str, games: int, seed: int
) -> dict[str, Any]:
    """The policy's raw, greedy play against ``opponent`` in every other seat, through the one
    evaluator of the pipelines (:func:`training.common.evaluation.evaluate_batched`): ``games``
    games played together, the policy's seat rotating (game ``g``: seat ``g % n``), a win
    shared by ``k`` seats counted ``1 / k``. Returns the row: the win rate and its 95% Wilson
    interval (``ci_low``, ``ci_high``), the mean scores."""
    return evaluate_batched(lambda vg, rows: greedy_actions(policy, vg, rows), spec, opponent,
                            games, seed)  # fmt: skip


# --------------------------------------------------------------------------- the run


def atomic_save(obj: Any, path: Path) -> None:
    """``torch.save`` to a temporary file beside ``path``, then an atomic rename
    (:func:`agents.atomic.atomic_path`): a crash, Ctrl-C or kill leaves the old file or the new
    one, never a cut one, and no temporary file."""
    with atomic_path(path) as tmp:
        torch.save(obj, tmp)


class PythonLearner:
    """``--rollouts python``: the vector game (:func:`collect`) and the :class:`SparsePolicy`,
    with its opponents; one :meth:`step` is a rollout and its PPO update."""

    def __init__(self, args: Args) -> None:
        self.vg = batched_game(
            args.game,
            num_games=args.num_games,
            seed=args.seed * 2**32,
            observe="sparse",
            reward=args.reward,
            **({"dense_reward": args.dense_reward} if args.dense_reward else {}),
        )
        self.policy = make_policy(args, self.vg)
        # "auto" as resolved: a resume builds the same network
        self.args = replace(args, head=self.policy.head)
        self.ro = Rollout(args, self.vg.num_players)
        self.opponents = Opponents(args.opponent, args.opponent_share, self.vg, args.seed)
        self.net: nn.Module = self.policy
        self.torch_threads = args.threads

    def step(self, opt: torch.optim.Optimizer, rng: np.random.Generator, update_i: int):
        """One rollout and its update: (decisions learned from, the losses, games ended)."""
        args, ro = self.args, self.ro
        collect(self.policy, self.vg, ro, rng, self.opponents)
        if args.reward_scale != 1.0:
            ro.reward *= args.reward_scale
        adv, ret = advantages(ro, args, self.vg.num_players)
        stats = update(self.policy, opt, minibatches(ro, adv, ret, args, rng), args, rng)
        return args.num_games * args.num_steps, stats, int(ro.done.sum())

    def model(self) -> dict[str, Any]:
        return model_record(self.policy, self.args.game, self.args.embed, self.args.hidden)

    def load(self, model: dict[str, Any]) -> None:
        self.policy.load_state_dict(model["state_dict"])

    def save_model(self, path: Path) -> None:
        atomic_save(self.model(), path)

    def evaluate(self, run_dir: Path) -> dict[str, Any]:
        a = self.args
        return evaluate(self.policy, a.game, a.eval_opponent, a.eval_games, a.eval_seed)


CORE_SETTINGS: dict[str, Any] = {
    "embed": 128, "hidden": 64, "num_games": 256, "num_minibatches": 16, "vf_coef": 2.0,
    "max_grad_norm": 5.0,
}  # fmt: skip
"""The core rollouts' documented run settings (az's network shape, 128 then 64; docs/ppo.md's
runs and ``training.ppo.bench --rollouts core``)."""

CORE_EXPLORE = 1 << 30
"""Core rollouts: every decision of a game is drawn from the policy (the core's ``explore``)."""


TAU_FLOOR = 0.02
"""The least tau the core rollouts' policy learns: below it one value step swings the logits
(value / tau) past what the clipped objective holds (measured: Moon River 2p at tau 0.012, an
approximate KL of 4e19 and then NaN weights)."""


def learned(net: nn.Module) -> list[nn.Parameter]:
    """The parameters an optimizer steps (a fixed tau is not one)."""
    return [p for p in net.parameters() if p.requires_grad]


def optimizer_for(params: Iterable[nn.Parameter], args: Args) -> torch.optim.Adam:
    """The run's optimizer over ``params``: Adam at ``args.learning_rate``, eps 1e-5."""
    return torch.optim.Adam(params, lr=args.learning_rate, eps=1e-5)


class CorePolicy(nn.Module):
    """The core rollouts' policy: az's network (its value of each legal move's afterstate) and
    an inverse temperature ``beta``, a parameter of its own when ``learn_tau`` (learned by the
    clipped objective and the entropy bonus: the value losses do not reach it), so that how
    sure the policy is of its moves does not hang on how far apart the values of one
    position's afterstates are.
    A move's logit is its afterstate's value x beta."""

    def __init__(self, az: AzNet, tau: float, learn_tau: bool, value_scale: bool = False) -> None:
        super().__init__()
        self.az = az
        self.log_beta = nn.Parameter(torch.tensor(-float(np.log(tau))), requires_grad=learn_tau)
        self.value_scale = value_scale  # the logits' gradient reaches the values once

    @property
    def tau(self) -> float:
        """1 / beta, as the core's search settings take it."""
        return float(torch.exp(-self.log_beta.detach()))

    def keep_tau(self) -> None:
        """Tau back to at least :data:`TAU_FLOOR` (after a step)."""
        with torch.no_grad():
            self.log_beta.clamp_(max=-float(np.log(TAU_FLOOR)))

    def load_state_dict(self, state: Any, strict: bool = True, assign: bool = False) -> Any:
        """A saved policy, or the network alone (a core run from before tau was learned:
        tau stays as it starts)."""
        if "log_beta" not in state:
            return self.az.load_state_dict(state, strict, assign)
        out = super().load_state_dict(state, strict, assign)
        self.keep_tau()
        return out

    def afterstates(
        self, p: Positions
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray, torch.Tensor]:
        """For the positions of ``p`` that kept their afterstates (``rows``): every afterstate's
        value, the log-softmax of their logits within each position, each position's move
        played as an index into them, and each afterstate's position (``group``, into
        ``rows``)."""
        counts = np.diff(p.aft_ptr)
        rows = np.flatnonzero(counts)
        if np.any(p.chosen[rows] < 0):
            raise ValueError("positions: an afterstate row without the move played")
        value = self.az.value_of(sparse_batch(p.aft_idx, p.aft_val, np.diff(p.aft_obs_ptr)))
        beta = self.log_beta.exp()
        if self.value_scale:  # the same logits; d logit / d value = 1 instead of beta
            logits = value.detach() * beta + (value - value.detach())
        else:
            logits = value * beta
        group = torch.from_numpy(np.repeat(np.arange(rows.size), counts[rows]))
        logp_all = segment_log_softmax(logits, group, rows.size)
        starts = np.concatenate(([0], np.cumsum(counts[rows])[:-1]))
        chosen = torch.from_numpy(starts + p.chosen[rows].astype(np.int64))
        return value, logp_all, chosen, rows, group


class CoreLearner:
    """``--rollouts core``: whole self-play games played in the native core by az's network
    (:class:`agents.az.network.AzNet`, evaluated in C: the sparse first layer and each legal
    move's afterstate scored there), every move drawn from the policy (:class:`CorePolicy`);
    the update (:func:`update_core`) in torch. ``model.pt`` is an az model file:
    ``az:path=RUN/model.pt,sims=0`` plays the raw policy, without ``sims=0`` with az's search."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self.spec = parse_game(args.game)
        self.template = native_template(self.spec)
        az = AzNet(NetShape.for_game(self.spec, args.embed, args.hidden, features=args.features))
        self.net = CorePolicy(az, args.tau, args.learn_tau, args.value_scale)
        self.pending: tuple[int, Positions] | None = None  # the next update's games, if played
        self.torch_threads = max(1, args.threads - 1)  # one thread plays beside the update

    def games(
        self, update_i: int, threads: int, played_by: tuple[Any, float] | None = None
    ) -> Positions:
        """Update ``update_i``'s games (every game of the run its own seed), played by the
        policy as it is now, or by ``played_by`` (the core's copy of the weights and tau)."""
        a = self.args
        net, tau = played_by or (self.net.az.native(), self.net.tau)
        play = PlaySettings(SearchSettings(k=0, r=0, depth=0, tau=tau).as_tuple(), CORE_EXPLORE,
                            a.gae_lambda, a.value_share, a.pg_share)  # fmt: skip
        first = (a.seed << 40) + update_i * a.num_games
        return play_threads(self.template, net, range(first, first + a.num_games), play,
                            threads, features=a.features)  # fmt: skip

    def step(self, opt: torch.optim.Optimizer, rng: np.random.Generator, update_i: int):
        """One batch of ``num_games`` self-play games and its update: (decisions played, the
        losses, games ended). With ``--threads`` 2 or more the next batch is played (one
        thread) while this one is learned from (the others): the games of update ``i + 1``
        are played by the weights before update ``i``, one update behind; the clipped
        objective's old log-probabilities are the weights' when the update begins, not
        corrected for that step."""
        a = self.args
        if a.threads < 2:
            positions = self.games(update_i, 1)
            stats = update_core(self.net, opt, positions, a, rng)
            return positions.decisions, stats, positions.games
        if self.pending is None or self.pending[0] != update_i:
            self.pending = (update_i, self.games(update_i, a.threads))
        positions = self.pending[1]
        now = (self.net.az.native(), self.net.tau)  # copied before the update starts
        nxt, learnt, _, _ = overlapped(
            lambda: self.games(update_i + 1, 1, now),
            lambda stop: update_core(self.net, opt, positions, a, rng, stop),
        )
        self.pending = (update_i + 1, nxt)
        assert learnt is not None
        return positions.decisions, learnt, positions.games

    def model(self) -> dict[str, Any]:
        return {"shape": self.net.az.shape.to_dict(), "state_dict": self.net.state_dict()}

    def load(self, model: dict[str, Any]) -> None:
        self.net.load_state_dict(model["state_dict"])

    def save_model(self, path: Path) -> None:
        search = {**asdict(SearchSettings()), "tau": self.net.tau}
        save_checkpoint(path, self.net.az, search, {"command": "python -m training.ppo.ppo",
                                                    "args": asdict(self.args)})  # fmt: skip

    def evaluate(self, run_dir: Path) -> dict[str, Any]:
        """The raw policy (``sims=0``) of the weights now, saved for the evaluator as
        ``checkpoints/eval_model.pt`` (``model.pt`` is the run's final model alone)."""
        a = self.args
        path = run_dir / "checkpoints" / "eval_model.pt"
        self.save_model(path)
        return evaluate_model(path, self.spec, [a.eval_opponent], a.eval_games, a.eval_seed,
                              sims=0, progress=False)[0]  # fmt: skip


def update_core(
    net: CorePolicy,
    opt: torch.optim.Optimizer,
    p: Positions,
    args: Args,
    rng: np.random.Generator,
    stop: threading.Event | None = None,
) -> dict[str, float]:
    """PPO over one batch of core games (``stop``: set when the play beside it failed or was
    interrupted; the update ends before its next minibatch). Every kept position's value
    learns its seat's TD(lambda) return (``target``, computed in the core over the seat's later
    chosen afterstate values, ending in the game's outcome); at the actor's positions that kept
    their afterstates, the clipped objective on the move played (its log-probability under the
    policy, the old one taken before the first epoch), with the advantage target - value,
    normalised per minibatch; ``dual_clip``, :func:`clipped_objective`), an entropy bonus, and
    the chosen afterstate's value towards the same return (``afterstate_value``). The update
    ends early (that step not taken) at a minibatch whose approximate KL passes
    ``target_kl``."""
    n = len(p)
    counts = np.diff(p.aft_ptr)
    with torch.no_grad():
        value = net.az.value_of(sparse_batch(p.obs_idx, p.obs_val, np.diff(p.obs_ptr))).numpy()
        old_logp = np.full(n, np.nan, np.float32)
        if int(counts.sum()):
            _, logp_all, chosen, rows, _ = net.afterstates(p)
            old_logp[rows] = logp_all[chosen].numpy()
    adv = (p.target - value).astype(np.float32)
    stats: dict[str, list[float]] = {
        k: [] for k in ("pg", "v", "after_v", "ent", "kl", "clip", "kl_stops")
    }
    for _ in range(args.update_epochs):
        if stats["kl_stops"]:
            break
        for mb in np.array_split(rng.permutation(n), args.num_minibatches):
            if stop is not None and stop.is_set():
                raise Stopped("update: stopped, the play beside it ended early")
            if not mb.size:  # fewer positions than minibatches
                continue
            mb = np.sort(mb)
            b = p.take(mb)
            v = net.az.value_of(sparse_batch(b.obs_idx, b.obs_val, np.diff(b.obs_ptr)))
            v_loss = 0.5 * ((v - torch.from_numpy(b.target)) ** 2).mean()
            pg = ent = after = torch.zeros(())
            kl = clip = 0.0
            if int(np.diff(b.aft_ptr).sum()):
                aft_value, logp_all, chosen, rows, group = net.afterstates(b)
                logp = logp_all[chosen]
                a = torch.from_numpy(adv[mb][rows])
                a = (a - a.mean()) / (a.std() + 1e-8) if a.numel() > 1 else a * 0.0
                pg, ratio = clipped_objective(logp - torch.from_numpy(old_logp[mb][rows]), a,
                                              args.clip_coef, args.dual_clip)  # fmt: skip
                pg = pg.mean()
                ent = -torch.zeros(rows.size).index_add_(0, group, logp_all.exp() * logp_all).mean()
                target = torch.from_numpy(b.target[rows])
                after = 0.5 * ((aft_value[chosen] - target) ** 2).mean()
                with torch.no_grad():
                    kl = float(((ratio - 1) - ratio.log()).mean())
                    clip = float(((ratio - 1).abs() > args.clip_coef).float().mean())
                if args.target_kl and kl > args.target_kl:  # the policy moved too far: stop
                    stats["kl_stops"].append(1.0)
                    stats["kl"].append(kl)  # logged: the KL that stopped it
                    break
            loss = pg + args.vf_coef * v_loss - args.ent_coef * ent + args.afterstate_value * after
            opt.zero_grad(set_to_none=True)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            if not (torch.isfinite(loss) and torch.isfinite(norm)):
                raise FloatingPointError(
                    f"update: the loss or its gradient is not finite (pg {float(pg.detach()):.4g}, "
                    f"value {float(v_loss.detach()):.4g}, afterstate {float(after.detach()):.4g}); "
                    "the step was not taken "
                    "and the run's last checkpoint stays for --resume"
                )
            opt.step()
            net.keep_tau()
            for k, x in (("pg", pg), ("v", v_loss), ("after_v", after), ("ent", ent)):
                stats[k].append(float(x.detach()))
            stats["kl"].append(kl)
            stats["clip"].append(clip)
    out = {k: float(np.mean(x)) if x else 0.0 for k, x in stats.items()}
    out["kl_stops"] = float(len(stats["kl_stops"]))  # 1.0 where the update ended early
    out["tau"] = net.tau
    return out


def clipped_objective(
    logratio: torch.Tensor, adv: torch.Tensor, clip: float, dual: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's clipped objective, as a loss per sample, and the probability ratios. ``dual``
    (> 1; 0: off) caps the loss of a sample with a negative advantage at ``-dual * adv``
    (dual-clip PPO: past that, the sample gives no gradient). The log-ratio is clamped at 20
    first, so that no ratio is infinite: past it a sample gives no gradient either (with the
    dual clip on, it had none already)."""
    ratio = logratio.clamp(max=20.0).exp()
    loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip))
    if dual:
        loss = torch.where(adv < 0, torch.minimum(loss, -dual * adv), loss)
    return loss, ratio


def make_learner(args: Args) -> PythonLearner | CoreLearner:
    """The run's learner for ``--rollouts``."""
    return CoreLearner(args) if args.rollouts == "core" else PythonLearner(args)


def train(args: Args, run_dir: Path, resume: bool = False) -> dict[str, Any]:
    """The run (module docstring); returns its summary (also ``summary.json``)."""
    from torch.utils.tensorboard import SummaryWriter

    torch.set_flush_denormal(True)  # tiny weights and gradients must not slow the CPU 10x
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    learner = make_learner(args)
    torch.set_num_threads(learner.torch_threads)
    args = learner.args
    opt = optimizer_for(learned(learner.net), args)
    step, update_i, spent = 0, 0, 0.0
    latest = run_dir / "checkpoints" / "latest.pt"
    if resume:
        ck = torch.load(latest, map_location="cpu", weights_only=False)
        learner.load(ck["model"])
        try:
            opt.load_state_dict(ck["optim"])
        except ValueError:  # saved when the optimizer also held a fixed tau
            opt = optimizer_for(learner.net.parameters(), args)
            opt.load_state_dict(ck["optim"])
        step, update_i, spent = ck["step"], ck["update"], ck["seconds"]
        rng.bit_generator.state = ck["rng"]
    write_text(run_dir / "args.json", json.dumps(asdict(args), indent=2))
    writer = SummaryWriter(str(run_dir / "tb"))
    start = time.perf_counter() - spent
    evals: list[dict[str, Any]] = []

    def progress() -> float:
        parts = []
        if args.total_steps:
            parts.append(step / args.total_steps)
        if args.minutes:
            parts.append((time.perf_counter() - start) / (60.0 * args.minutes))
        return min(max(parts), 1.0) if parts else 1.0

    def save() -> None:
        atomic_save(
            {
                "model": learner.model(),
                "optim": opt.state_dict(),
                "step": step,
                "update": update_i,
                "seconds": time.perf_counter() - start,
                "rng": rng.bit_generator.state,
                "args": asdict(args),
            },
            latest,
        )

    def run_eval() -> None:
        t0 = time.perf_counter()
        res = learner.evaluate(run_dir)
        res.update(step=step, seconds=time.perf_counter() - t0)
        evals.append(res)
        writer.add_scalar(f"eval/win_rate_vs_{args.eval_opponent}", res["win_rate"], step)
        points = ""  # the python rollouts' batched evaluator counts no points (NaN)
        if np.isfinite(res["mean_score"]) and np.isfinite(res["opponent_score"]):
            points = f", {res['mean_score']:.1f} points against {res['opponent_score']:.1f}"
        print(f"  eval vs {args.eval_opponent}: {res['win_rate']:.3f} "
              f"[{res['ci_low']:.3f}, {res['ci_high']:.3f}] over {args.eval_games} games"
              f"{points}", flush=True)  # fmt: skip

    try:  # the TensorBoard events written so far reach the disk however the run ends
        while progress() < 1.0:
            if args.anneal_lr:
                opt.param_groups[0]["lr"] = args.learning_rate * (1.0 - progress())
            t0 = time.perf_counter()
            done, stats, ended = learner.step(opt, rng, update_i)
            step += done
            update_i += 1
            rate = done / (time.perf_counter() - t0)
            for k, v in stats.items():
                writer.add_scalar(f"loss/{k}", v, step)
            writer.add_scalar("perf/steps_per_second", rate, step)
            writer.add_scalar("perf/games_ended", ended, step)
            p = progress()
            eta = (time.perf_counter() - start) * (1 - p) / max(p, 1e-9)
            print(
                f"update {update_i}: {step:,} steps, {rate:,.0f} steps/s, {p:.0%} done, "
                f"ETA {eta / 60:.1f} min, entropy {stats['ent']:.3f}, kl {stats['kl']:.4f}"
                + (f", tau {stats['tau']:.4f}" if "tau" in stats else ""),
                flush=True,
            )
            if args.save_every and update_i % args.save_every == 0:
                save()
            if args.eval_every and update_i % args.eval_every == 0:
                run_eval()
        save()
        learner.save_model(run_dir / "model.pt")
        if not evals or evals[-1]["step"] != step:  # the final model, unless just evaluated
            run_eval()
        summary = {
            "steps": step,
            "updates": update_i,
            "seconds": time.perf_counter() - start,
            "evals": evals,
            "steps_per_second": step / max(time.perf_counter() - start, 1e-9),
        }
        write_text(run_dir / "summary.json", json.dumps(summary, indent=2))
    finally:
        writer.close()
    return summary


ROLLOUTS = ("python", "core")
"""Where a run's games are played (``--rollouts``; :class:`PythonLearner`, :class:`CoreLearner`)."""

RETIRED: dict[str, Any] = {"pg_coef": 1.0, "tau_floor": TAU_FLOOR, "critic": "shared",
                           "teacher_games": 0, "teacher_epochs": 2.0, "explore": 0}  # fmt: skip
"""Settings that earlier versions had and this one does not, each with the value at which a run
saved with it trains as this version does: a run saved with another value is refused on
``--resume`` rather than continued without it."""

RESUMABLE = ("total_steps", "minutes", "threads", "save_every", "eval_every", "eval_opponent",
             "eval_games")  # fmt: skip
"""The settings a ``--resume`` may change (the budget and how the run reports); the others
(the game, the network, the optimisation) are the run's."""


def check_args(args: Args) -> None:
    """``ValueError`` naming the flag of the first setting out of its range."""
    positive = ("num_games", "num_steps", "num_minibatches", "update_epochs", "embed", "hidden",
                "threads", "eval_games")  # fmt: skip
    for name in positive:
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')}: expected a positive integer, "
                             f"got {getattr(args, name)}")  # fmt: skip
    for name in ("total_steps", "save_every", "eval_every", "seed", "eval_seed"):
        if getattr(args, name) < 0:
            raise ValueError(f"--{name.replace('_', '-')}: expected 0 or more, "
                             f"got {getattr(args, name)}")  # fmt: skip
    bounds = {"tau": (TAU_FLOOR, 100.0), "value_share": (1e-6, 1.0), "pg_share": (0.0, 1.0),
              "learning_rate": (0.0, None), "minutes": (0.0, None), "dense_reward": (0.0, None),
              "gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0), "clip_coef": (0.0, None),
              "target_kl": (0.0, None),
              "vf_coef": (0.0, None), "ent_coef": (0.0, None), "afterstate_value": (0.0, None),
              "reward_scale": (0.0, None), "max_grad_norm": (0.0, None),
              "opponent_share": (0.0, 1.0)}  # fmt: skip
    if not (args.dual_clip == 0 or 1 < args.dual_clip < float("inf")):
        raise ValueError(f"--dual-clip: expected 0 (off) or a number over 1, got {args.dual_clip}")
    for name, (low, high) in bounds.items():
        v = float(getattr(args, name))
        if not np.isfinite(v) or v < low or (high is not None and v > high):
            span = f"in [{low}, {high}]" if high is not None else f">= {low}"
            raise ValueError(
                f"--{name.replace('_', '-')}: expected a finite number {span}, got {v}"
            )
    if args.learning_rate <= 0:
        raise ValueError(f"--learning-rate: expected a positive number, got {args.learning_rate}")
    if args.rollouts not in ROLLOUTS:
        raise ValueError(f"--rollouts: expected {' or '.join(ROLLOUTS)}, got {args.rollouts!r}")
    if args.rollouts != "core" and args.num_minibatches > args.num_steps:
        raise ValueError(f"--num-minibatches: at most --num-steps ({args.num_steps}) "
                         f"(a minibatch is whole steps), got {args.num_minibatches}")  # fmt: skip
    if not args.total_steps and not args.minutes:
        raise ValueError("--total-steps, --minutes: give one of them (or both)")
    if args.opponent_share and not args.opponent:
        raise ValueError("--opponent-share: needs --opponent (the agent playing those seats)")
    game = parse_game(args.game).game
    for flag, spec in (("--opponent", args.opponent), ("--eval-opponent", args.eval_opponent)):
        if spec:
            try:
                check_opponent(spec, game)
            except ValueError as exc:
                raise ValueError(f"{flag}: {exc}") from None
    if not args.eval_opponent:
        raise ValueError("--eval-opponent: expected an agent spec, got ''")
    if args.value_scale and args.rollouts != "core":
        raise ValueError("--value-scale: core rollouts only (their policy is the afterstate "
                         "values x beta)")  # fmt: skip
    if args.rollouts == "core":
        if parse_game(args.game).entry.hook("native_state") is None:
            raise ValueError(f"--rollouts core: {args.game} has no native core (its games are "
                             "played there); use --rollouts python")  # fmt: skip
        if args.opponent:
            raise ValueError("--opponent: core rollouts are self-play only (use --rollouts python)")
        if args.reward != "win" or args.dense_reward or args.reward_scale != 1.0:
            raise ValueError(
                "--reward, --dense-reward, --reward-scale: core rollouts learn the "
                "core's outcome (az's: the share of the win and the points margin)"
            )
    if args.head not in ("auto", *HEADS):
        raise ValueError(f"--head: expected auto, {' or '.join(HEADS)}, got {args.head!r}")
    if args.head == "afterstate" and not in_core(batched_game(args.game, num_games=1, seed=0)):
        raise ValueError(f"--head afterstate: {args.game} is not played in the native core "
                         f"(its afterstates come from there); use --head action")  # fmt: skip


def make_policy(args: Args, vg: Any) -> SparsePolicy:
    """The run's network for the vector game ``vg`` (``--head auto``: the afterstate head where
    the core plays the game, else the action head; the territory features with the afterstate
    head when ``--features``)."""
    head = args.head
    if head == "auto":
        head = "afterstate" if in_core(vg) else "action"
    return SparsePolicy(vg.observation_size, vg.action_table, args.embed, args.hidden, head,
                        args.features and head == "afterstate")  # fmt: skip


def in_core(vg: Any) -> bool:
    """Whether the vector game ``vg`` plays in the native core (which gives afterstates)."""
    return getattr(vg, "backend", None) == "native" and hasattr(vg, "afterstates")


def check_opponent(spec: str, game: str) -> None:
    """``ValueError`` if ``spec`` names no agent of ``game`` (built once, with no game)."""
    make_opponent(spec, 0, game=game)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.ppo.ppo",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_arguments(parser)
    parser.add_argument("--run-dir", required=True, type=Path)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue --run-dir's run from its last checkpoint; only "
        f"{', '.join('--' + n.replace('_', '-') for n in RESUMABLE)} may change",
    )
    defaults = Args()
    for f in fields(Args):
        if f.name in ("game", "extra"):
            continue
        kind = type(getattr(defaults, f.name))
        flag = "--" + f.name.replace("_", "-")
        # unset flags stay absent (SUPPRESS): a --resume tells what was asked from the defaults
        helptext = f"(default {getattr(defaults, f.name)})"
        if kind is bool:
            parser.add_argument(flag, type=_boolean, default=argparse.SUPPRESS, help=helptext)
        else:
            parser.add_argument(flag, type=kind, default=argparse.SUPPRESS, help=helptext)
    ns = parser.parse_args(argv)
    given = {f.name: getattr(ns, f.name) for f in fields(Args)
             if f.name not in ("game", "extra") and hasattr(ns, f.name)}  # fmt: skip
    try:
        spec = spec_from_args(ns)
        if ns.resume:
            args = resumed_args(ns.run_dir, given, spec.text if _game_given(ns) else None)
        else:
            if (ns.run_dir / "checkpoints" / "latest.pt").exists():
                raise ValueError(
                    f"--run-dir: {ns.run_dir} holds a run; --resume it or pick another"
                )
            args = Args(game=spec.text, **given)
        check_args(args)
    except ValueError as exc:
        parser.error(str(exc))  # exit status 2, the flag named, nothing written
    try:
        with RunLock(ns.run_dir):
            summary = train(args, ns.run_dir, resume=ns.resume)
    except OutputError as exc:  # the run folder is another run's (locked) or cannot hold one
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"interrupted: {ns.run_dir / 'checkpoints' / 'latest.pt'} keeps the last "
            f"checkpoint; continue with --run-dir {ns.run_dir} --resume",
            file=sys.stderr,
        )
        return exit_with(INTERRUPTED)
    print(json.dumps({k: v for k, v in summary.items() if k != "evals"}))
    return 0


def _boolean(text: str) -> bool:
    if text.lower() in ("1", "true", "yes"):
        return True
    if text.lower() in ("0", "false", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _game_given(ns: argparse.Namespace) -> bool:
    return ns.game != DEFAULT_GAME or any(
        getattr(ns, k, None) is not None for k in ("players", "mode", "scenario")
    )


def resumed_args(run_dir: Path, given: dict[str, Any], game: str | None) -> Args:
    """The run's saved settings with the :data:`RESUMABLE` ones ``given`` on top; ``ValueError``
    naming the flag for any other change, or naming what is missing or unreadable."""
    latest = run_dir / "checkpoints" / "latest.pt"
    if not latest.is_file():
        raise ValueError(f"--resume: no checkpoint at {latest}")
    try:
        saved = json.loads((run_dir / "args.json").read_text())
        saved.setdefault("head", "action")  # a run from before the afterstate head had none
        saved.setdefault("learn_tau", False)  # a core run from before tau was learned: fixed
        saved.setdefault("dual_clip", 0.0)  # a run from before these: its update as it was
        saved.setdefault("target_kl", 0.0)
        known = {f.name for f in fields(Args)}
        args = Args(**{k: v for k, v in saved.items() if k in known})
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"--resume: {run_dir / 'args.json'} is unreadable ({exc})") from None
    for name in sorted(set(saved) - known):
        if name not in RETIRED or saved[name] != RETIRED[name]:
            where = " (docs/ppo.md says what it measured)" if name in RETIRED else ""
            raise ValueError(
                f"--resume: the run was saved with --{name.replace('_', '-')} "
                f"{saved[name]!r}, a setting this version does not have{where}; it cannot "
                "continue as it was"
            )
    if game is not None and parse_game(game) != parse_game(args.game):
        raise ValueError(f"--game: the run plays {args.game}; it cannot change on --resume")
    for name, value in given.items():
        if name not in RESUMABLE and value != getattr(args, name):
            raise ValueError(f"--{name.replace('_', '-')}: cannot change on --resume "
                             f"(the run's is {getattr(args, name)!r})")  # fmt: skip
    return replace(args, **{k: v for k, v in given.items() if k in RESUMABLE})


if __name__ == "__main__":
    raise SystemExit(main())
