"""One move of a learned policy: the masked action of an SB3 maskable policy (the
``MoonRiverPolicy`` of :mod:`agents.networks.policy` or any ``MaskableActorCriticPolicy``) for
one flat observation. :class:`agents.base.PolicyAgent` plays its policies through it."""

from __future__ import annotations

from typing import Any

import numpy as np


def policy_action(
    policy: Any,
    observation: np.ndarray,
    mask: np.ndarray,
    deterministic: bool,
    rng: np.random.Generator,
) -> int:
    """One masked action of an SB3 maskable policy for one flat observation: the most likely
    legal action, or one drawn with ``rng`` from the legal actions' probabilities."""
    import torch

    legal = np.flatnonzero(mask)
    if legal.size == 1:
        return int(legal[0])
    with torch.no_grad():
        obs = torch.as_tensor(np.asarray(observation, dtype=np.float32)).unsqueeze(0)
        dist = policy.get_distribution(obs, action_masks=np.asarray(mask, dtype=bool)[None])
        probs = dist.distribution.probs[0].numpy()
    p = probs[legal].astype(np.float64)
    if deterministic:
        return int(legal[int(np.argmax(p))])
    total = p.sum()
    if not np.isfinite(total) or total <= 0:
        return int(legal[rng.integers(legal.size)])
    return int(rng.choice(legal, p=p / total))
