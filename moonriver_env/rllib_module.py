"""The masking PPO ``RLModule`` of the RLlib runs (new API stack; the ``ray`` extra), for the
observations of :class:`~moonriver_env.rllib_env.GameMultiAgentEnv` (every registered game).

RLlib's default PPO torch module (encoder MLP, policy and value heads) on the ``observations``
part; the mask turns the logits of illegal actions into ``FLOAT_MIN`` in the inference,
exploration and training passes (so no illegal action is ever sampled or scored), while the
encoder and the value function never see it.

Example: :mod:`moonriver_env.rllib_env`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.torch_utils import FLOAT_MIN

from moonriver_env.rllib_env import (
    LEARNER,
    MASK_KEY,
    OBS_KEY,
    GameMultiAgentEnv,
    snapshot_module,
)

__all__ = ["MaskedPPOTorchRLModule", "rl_module_spec"]


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module behind an action mask (module docstring).

    Built on the env's ``Dict`` observation space; the networks are built for its
    ``observations`` part (RLlib's ``DefaultModelConfig``, e.g. ``fcnet_hiddens``)."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not (
            isinstance(observation_space, gym.spaces.Dict)
            and {OBS_KEY, MASK_KEY} <= set(observation_space.spaces)
        ):
            raise ValueError(
                f"observation_space: expected a Dict with {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {observation_space!r}"
            )
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()
        # the networks are built; from now on the module's space is the env's (with the mask)
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], Mapping):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The mask and a shallow copy of ``batch`` whose observations are the flat vectors (the
    caller's batch is left as it was: RLlib reuses it for the value pass)."""
    obs = batch[Columns.OBS]
    inner = dict(batch)
    inner[Columns.OBS] = obs[OBS_KEY]
    return obs[MASK_KEY], inner


def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
    """Illegal actions' logits -> ``FLOAT_MIN`` (probability exactly 0 after the softmax)."""
    logits = out[Columns.ACTION_DIST_INPUTS]
    out[Columns.ACTION_DIST_INPUTS] = torch.where(
        mask > 0.5, logits, torch.full_like(logits, FLOAT_MIN)
    )
    return out


def rl_module_spec(
    env: GameMultiAgentEnv, hidden: tuple[int, ...] = (256, 256), activation: str = "relu"
) -> MultiRLModuleSpec:
    """The modules of a run on ``env``: the learner (:data:`LEARNER`) and the env's frozen
    snapshot slots, all :class:`MaskedPPOTorchRLModule` with an MLP of ``hidden`` units."""
    space = env.observation_spaces[env.possible_agents[0]]  # type: ignore[index]
    spec = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=space,
        action_space=env.action_spaces[env.possible_agents[0]],  # type: ignore[index]
        model_config=DefaultModelConfig(
            fcnet_hiddens=list(hidden),
            fcnet_activation=activation,
            head_fcnet_hiddens=[],
            vf_share_layers=False,
        ),
    )
    ids = [LEARNER, *(snapshot_module(k) for k in range(env.snapshot_slots))]
    return MultiRLModuleSpec(rl_module_specs=dict.fromkeys(ids, spec))
