"""The learning step: the policy towards the policy target (cross-entropy over the legal
actions: the search's improved policy, or the teacher's move), the value towards the TD(lambda)
target (the search's values along the seat's game, ending in its outcome)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.az.network import AzNet, SparseBatch, sparse_batch

from .replay import ReplayBuffer
from .selfplay import Positions

LOSS_PARTS = ("loss", "policy", "policy_kl", "value", "afterstate")
"""What :func:`losses` reports (``progress.csv``'s loss columns)."""


@dataclass(frozen=True)
class LossWeights:
    """``loss = policy_weight x policy + value_weight x value``; ``outcome_mix``: the value
    target is ``outcome_mix x z + (1 - outcome_mix) x target`` (1: the outcome alone). With
    ``policy_weight`` 0 the policy head is not computed (the afterstate search needs none)."""

    value_weight: float = 1.0
    outcome_mix: float = 0.0
    policy_weight: float = 0.0
    afterstate_weight: float = 1.0
    tau: float = 0.1


def loss_weights(cfg: Mapping[str, Any]) -> LossWeights:
    """The loss weights of a config's ``[train]``."""
    t = cfg["train"]
    return LossWeights(
        t["value_weight"], t["outcome_mix"], t["policy_weight"], t["afterstate_weight"],
        cfg["search"]["tau"],
    )  # fmt: skip


def losses(net: AzNet, p: Positions, weights: LossWeights) -> tuple[torch.Tensor, dict[str, float]]:
    """The total loss of a batch and its parts (floats, for the logs)."""
    device = next(net.parameters()).device
    counts = np.diff(p.legal_ptr)
    batch = sparse_batch(p.obs_idx, p.obs_val, np.diff(p.obs_ptr), p.legal, counts, device=device)
    if weights.policy_weight > 0:
        value, logits = net(batch)
        policy, entropy = _policy_loss(p, batch, logits, device)
    else:
        value = net.value_of(batch)
        policy = entropy = torch.zeros((), device=device)
    z = torch.as_tensor(p.z, device=device)
    target = weights.outcome_mix * z + (1.0 - weights.outcome_mix) * torch.as_tensor(
        p.target, device=device
    )
    v = torch.mean((value - target) ** 2)
    loss = weights.policy_weight * policy + weights.value_weight * v
    after = torch.zeros((), device=device)
    if weights.afterstate_weight > 0 and int(p.aft_ptr[-1]) > 0:
        after = _afterstate_loss(net, p, weights.tau, device)
        loss = loss + weights.afterstate_weight * after
    parts = {
        "loss": float(loss.detach()),
        "policy": float(policy.detach()),
        "policy_kl": float((policy - entropy).detach()),
        "value": float(v.detach()),
        "afterstate": float(after.detach()),
    }
    return loss, parts


def _policy_loss(
    p: Positions, batch: SparseBatch, logits: torch.Tensor, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """The policy's cross-entropy with its target and the target's entropy, over the rows
    that have one (rows seen from another seat than the actor's: pi NaN, none)."""
    pi = torch.zeros(logits.shape, dtype=torch.float32, device=device)
    pi[batch.legal_mask] = torch.as_tensor(np.nan_to_num(p.pi, nan=0.0), device=device)
    has_pi = torch.as_tensor(~np.isnan(p.pi[p.legal_ptr[:-1]]), device=device)
    rows = has_pi.float().sum().clamp_min(1.0)
    logp = torch.log_softmax(logits, dim=-1).masked_fill(~batch.legal_mask, 0.0)
    policy = -((pi * logp).sum(-1) * has_pi).sum() / rows
    entropy = -((pi * torch.log(pi.clamp_min(1e-12))).sum(-1) * has_pi).sum() / rows
    return policy, entropy


def _afterstate_loss(net: AzNet, p: Positions, tau: float, device: torch.device) -> torch.Tensor:
    """Mean over the positions with afterstates of the cross-entropy between their policy
    target and softmax(value of each legal move's afterstate / tau)."""
    counts = np.diff(p.aft_ptr)
    rows = np.flatnonzero(counts)
    starts = p.legal_ptr[rows]
    ids = np.concatenate([np.arange(a, a + c) for a, c in zip(starts, counts[rows], strict=True)])
    ones = np.ones(ids.size, dtype=np.int64)
    batch = sparse_batch(
        p.aft_idx, p.aft_val, np.diff(p.aft_obs_ptr), np.zeros(ids.size, np.int64), ones, device
    )
    logits = net.value_of(batch) / tau
    group = torch.as_tensor(np.repeat(np.arange(rows.size), counts[rows]), device=device)
    top = logits.detach().max()  # values are in [-1, 1]: one shift keeps exp in range
    ex = torch.exp(logits - top)
    norm = torch.zeros(rows.size, device=device).index_add_(0, group, ex)
    logp = logits - top - torch.log(norm[group])
    pi = torch.as_tensor(np.nan_to_num(p.pi[ids], nan=0.0), device=device)
    return -(pi * logp).sum() / rows.size


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
        loss, parts = losses(net, buffer.sample(rng, batch_size), weights)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        optimizer.step()
        for k in LOSS_PARTS:
            sums[k] += parts[k]
        if on_step is not None:
            on_step(1)
    net.eval()
    return {k: v / max(steps, 1) for k, v in sums.items()}
