"""The learning step: the policy trained towards the search's improved policy (cross-entropy
over the legal actions), the value towards the final outcome and margin of every seat."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.nn import functional as F

from agents.az.network import AzNet

from .replay import ReplayBuffer
from .selfplay import Positions


@dataclass(frozen=True)
class LossWeights:
    """``loss = policy + value_weight x (outcome + margin_loss x margin)``."""

    value_weight: float = 1.0
    margin_loss: float = 0.5


def batch_tensors(
    p: Positions, num_actions: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(obs, mask, target, has_policy, outcome, margin)`` tensors of a batch."""
    b = len(p)
    rows = np.repeat(np.arange(b), np.diff(p.legal_ptr))
    mask = torch.zeros((b, num_actions), dtype=torch.bool)
    target = torch.zeros((b, num_actions), dtype=torch.float32)
    r = torch.from_numpy(rows)
    c = torch.from_numpy(p.legal.astype(np.int64))
    mask[r, c] = True
    target[r, c] = torch.from_numpy(p.target.astype(np.float32))
    return (
        torch.from_numpy(p.obs.astype(np.float32)),
        mask,
        target,
        torch.from_numpy(p.has_policy.astype(bool)),
        torch.from_numpy(p.outcome.astype(np.float32)),
        torch.from_numpy(p.margin.astype(np.float32)),
    )


def losses(net: AzNet, p: Positions, weights: LossWeights) -> tuple[torch.Tensor, dict[str, float]]:
    """The total loss of a batch and its parts (floats, for the logs)."""
    device = next(net.parameters()).device
    obs, mask, target, has_policy, outcome, margin = (
        t.to(device) for t in batch_tensors(p, net.num_actions)
    )
    logits, value = net(obs)
    logp = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=1)
    per_row = -(target * logp).sum(dim=1)
    if bool(has_policy.any()):
        policy = per_row[has_policy].mean()
        # entropy of the target: the floor of the cross-entropy (the KL is what can fall)
        t = target[has_policy]
        floor = -(t * torch.log(t.clamp_min(1e-12))).sum(dim=1).mean()
    else:
        policy = torch.zeros(())
        floor = torch.zeros(())
    out_loss = F.mse_loss(value[..., 0], outcome)
    margin_loss = F.smooth_l1_loss(value[..., 1], margin)
    total = policy + weights.value_weight * (out_loss + weights.margin_loss * margin_loss)
    parts = {
        "loss": total,
        "policy": policy,
        "policy_kl": policy - floor,
        "outcome": out_loss,
        "margin": margin_loss,
    }
    return total, {k: float(v.detach()) for k, v in parts.items()}


def train_steps(
    net: AzNet,
    optimizer: torch.optim.Optimizer,
    buffer: ReplayBuffer,
    steps: int,
    batch_size: int,
    rng: np.random.Generator,
    weights: LossWeights,
) -> dict[str, float]:
    """``steps`` gradient steps on batches drawn from ``buffer``; the mean of each loss part."""
    net.train()
    sums: dict[str, float] = {}
    for _ in range(steps):
        loss, parts = losses(net, buffer.sample(rng, batch_size), weights)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
        optimizer.step()
        for k, v in parts.items():
            sums[k] = sums.get(k, 0.0) + v
    net.eval()
    return {k: v / max(steps, 1) for k, v in sums.items()}
