"""The learning step: the value towards the TD(lambda) target (the search's values along the
seat's game, ending in its outcome), and its ranking of each position's moves (the softmax of
their afterstates' values) towards the policy target (the search's improved policy, or the
teacher's move)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import torch

from agents.az.network import AzNet, sparse_batch

from .replay import ReplayBuffer
from .selfplay import Positions

T = TypeVar("T")
U = TypeVar("U")

LOSS_PARTS = ("loss", "value", "afterstate")
"""What :func:`losses` reports (``progress.csv``'s loss columns)."""


@dataclass(frozen=True)
class LossWeights:
    """``loss = value_weight x value + afterstate_weight x afterstate``; ``outcome_mix``: the
    value target is ``outcome_mix x z + (1 - outcome_mix) x target`` (1: the outcome alone)."""

    value_weight: float = 1.0
    outcome_mix: float = 0.0
    afterstate_weight: float = 1.0
    tau: float = 0.1


def loss_weights(cfg: Mapping[str, Any]) -> LossWeights:
    """The loss weights of a config's ``[train]``."""
    t = cfg["train"]
    return LossWeights(
        t["value_weight"], t["outcome_mix"], t["afterstate_weight"], cfg["search"]["tau"]
    )


def steps_for(positions: int, passes: float, batch_size: int) -> int:
    """Gradient steps that draw each of ``positions`` about ``passes`` times (at least one)."""
    return max(1, math.ceil(positions * passes / batch_size))


def optimizer_for(net: AzNet, cfg: Mapping[str, Any]) -> torch.optim.AdamW:
    """The learner's optimizer: AdamW with ``[train]``'s rate and decay, fused (one kernel for
    every parameter: 0.5 ms a step instead of 3.4 for Moon River's network on one CPU thread)."""
    t = cfg["train"]
    return torch.optim.AdamW(
        net.parameters(), lr=t["learning_rate"], weight_decay=t["weight_decay"], fused=True
    )


def load_optimizer(optimizer: torch.optim.Optimizer, state: Mapping[str, Any]) -> None:
    """An optimizer's saved state (its moments and step counts) into ``optimizer``, keeping the
    optimizer's own settings: its rate and decay (the config's: a run resumed with another
    ``train.learning_rate`` learns at that rate, not at the saved one) and its kernel choice (a
    state saved before the fused kernel would switch it off)."""
    kept = ("lr", "weight_decay", "fused", "foreach")
    own = [{k: g.get(k) for k in kept} for g in optimizer.param_groups]
    optimizer.load_state_dict(without_policy_head(state, optimizer))
    for g, settings in zip(optimizer.param_groups, own, strict=True):
        g.update(settings)
        for p in g["params"]:  # the fused kernel reads each step count beside its parameter
            st = optimizer.state.get(p, {})
            if settings["fused"] and torch.is_tensor(st.get("step")):
                st["step"] = st["step"].to(device=p.device, dtype=torch.float32)


def without_policy_head(
    state: Mapping[str, Any], optimizer: torch.optim.Optimizer
) -> dict[str, Any]:
    """A saved optimizer state of a network with the policy head (a run begun before it was
    removed: its two parameters, ``wp.weight`` (actions x hidden2) and ``bp`` (actions), came
    last) without their entries, so that the run resumes; any other state as it is (one that
    does not fit is refused by ``load_state_dict``)."""
    groups, saved = optimizer.param_groups, state.get("param_groups")
    moments = state.get("state")
    if not (
        isinstance(saved, list) and len(saved) == len(groups) == 1 and isinstance(moments, Mapping)
    ):
        return dict(state)
    ids, own = saved[0].get("params"), groups[0]["params"]
    if not isinstance(ids, list) or len(ids) != len(own) + 2:
        return dict(state)
    head = [moments.get(i, {}).get("exp_avg") for i in ids[-2:]]
    hidden2 = own[-2].shape[-1]  # value.weight: 1 x hidden2
    if not (
        all(torch.is_tensor(t) for t in head)
        and head[0].dim() == 2 and head[0].shape[1] == hidden2
        and head[1].shape == head[0].shape[:1]
    ):  # fmt: skip
        return dict(state)
    dropped = set(ids[-2:])
    return {
        **state,
        "state": {k: v for k, v in moments.items() if k not in dropped},
        "param_groups": [{**saved[0], "params": ids[:-2]}],
    }


def losses(net: AzNet, p: Positions, weights: LossWeights) -> tuple[torch.Tensor, dict[str, float]]:
    """The total loss of a batch and its parts (floats, for the logs)."""
    device = next(net.parameters()).device
    value = net.value_of(sparse_batch(p.obs_idx, p.obs_val, np.diff(p.obs_ptr), device=device))
    z = torch.as_tensor(p.z, device=device)
    target = weights.outcome_mix * z + (1.0 - weights.outcome_mix) * torch.as_tensor(
        p.target, device=device
    )
    v = torch.mean((value - target) ** 2)
    loss = weights.value_weight * v
    after = torch.zeros((), device=device)
    if weights.afterstate_weight > 0 and int(p.aft_ptr[-1]) > 0:
        after = _afterstate_loss(net, p, weights.tau, device)
        loss = loss + weights.afterstate_weight * after
    parts = {
        "loss": float(loss.detach()),
        "value": float(v.detach()),
        "afterstate": float(after.detach()),
    }
    return loss, parts


def _afterstate_loss(net: AzNet, p: Positions, tau: float, device: torch.device) -> torch.Tensor:
    """Mean over the positions with afterstates of the cross-entropy between their policy
    target and softmax(value of each legal move's afterstate / tau)."""
    counts = np.diff(p.aft_ptr)
    rows = np.flatnonzero(counts)
    starts = p.legal_ptr[rows]
    ids = np.concatenate([np.arange(a, a + c) for a, c in zip(starts, counts[rows], strict=True)])
    batch = sparse_batch(p.aft_idx, p.aft_val, np.diff(p.aft_obs_ptr), device)
    logits = net.value_of(batch) / tau
    group = torch.as_tensor(np.repeat(np.arange(rows.size), counts[rows]), device=device)
    # log-sum-exp within each position: shifted by its own best move, each exp is at most 1
    # and the best one's is 1, so no sum is 0 (one shift for the batch underflowed every
    # move of a position worse than the batch's best at a small tau: log 0, a NaN loss)
    top = torch.full((rows.size,), -torch.inf, device=device)
    top = top.scatter_reduce(0, group, logits.detach(), reduce="amax")[group]
    ex = torch.exp(logits - top)
    norm = torch.zeros(rows.size, device=device).index_add_(0, group, ex)
    logp = logits - top - torch.log(norm[group])
    pi = torch.as_tensor(np.nan_to_num(p.pi[ids], nan=0.0), device=device)
    return -(pi * logp).sum() / rows.size


class NotFinite(ValueError):
    """A gradient step whose loss or gradient is not finite: learning stops before the step
    changes the weights, so nothing non-finite is learned or saved (the run's last checkpoint
    stays, and ``--resume`` goes on from it)."""


def _not_finite(what: str, parts: Mapping[str, float]) -> str:
    shown = ", ".join(f"{k} {v:.4g}" for k, v in parts.items())
    return (
        f"train: {what} is not finite ({shown}); the step was not taken and nothing of it is "
        "saved: the run's last checkpoint stays for --resume. Lower train.learning_rate or "
        "check the run's settings"
    )


def train_steps(
    net: AzNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
    weights: LossWeights,
    on_step: Callable[[int], object] | None = None,
) -> dict[str, float]:
    """``steps`` gradient steps on batches drawn from ``buffer``; the mean loss parts.
    ``on_step(1)`` after each step (a progress bar's ``update``)."""
    net.train()
    sums = dict.fromkeys(LOSS_PARTS, 0.0)
    for _ in range(steps):
        batch = buffer.sample(rng, batch_size)
        loss, parts = losses(net, batch, weights)
        if not math.isfinite(parts["loss"]):
            raise NotFinite(_not_finite("the loss", parts))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        if not bool(torch.isfinite(norm)):
            raise NotFinite(_not_finite("the gradient", parts))
        optimizer.step()
        for k in LOSS_PARTS:
            sums[k] += parts[k]
        if on_step is not None:
            on_step(1)
    net.eval()
    return {k: v / max(steps, 1) for k, v in sums.items()}


class Stopped(Exception):
    """Learning stopped between two steps because the play beside it failed."""


def overlapped(
    play: Callable[[], T], learn: Callable[[threading.Event], U] | None
) -> tuple[T, U | None, float, float]:
    """``play()`` in this thread while ``learn(stop)`` runs in another (the core's self-play
    and torch's kernels release the GIL, so on 2 cores the two share the machine instead of
    taking turns); returns both results and each one's own seconds. ``learn`` must not touch
    what ``play`` changes (the run adds the new games to the replay buffer after both).
    When ``play`` raises, ``stop`` is set, the learner ends after its current step and the
    error goes on; when ``learn`` raises, its error is raised here after ``play``."""
    if learn is None:
        t = time.perf_counter()
        return play(), None, time.perf_counter() - t, 0.0
    stop = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        t = time.perf_counter()
        try:
            box["out"] = learn(stop)
        except BaseException as exc:  # re-raised in the calling thread
            box["error"] = exc
        box["seconds"] = time.perf_counter() - t

    thread = threading.Thread(target=work, name="az-learner", daemon=True)
    thread.start()
    t = time.perf_counter()
    try:
        result = play()
    except BaseException:
        stop.set()
        thread.join()
        raise
    played = time.perf_counter() - t
    try:
        thread.join()
    except BaseException:  # Ctrl-C while waiting: the learner stops at its next step
        stop.set()
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return result, box["out"], played, box["seconds"]


def stop_check(
    stop: threading.Event, on_step: Callable[[int], object] | None = None
) -> Callable[[int], object]:
    """An ``on_step`` for :func:`train_steps` that raises :class:`Stopped` once ``stop`` is
    set (then calls ``on_step``)."""

    def check(n: int) -> object:
        if stop.is_set():
            raise Stopped("learning stopped: the play beside it failed")
        return on_step(n) if on_step is not None else None

    return check
