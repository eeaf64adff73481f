"""Every registered game for Ray RLlib: the env (:mod:`moonriver_env.rllib_env`) and the
masking PPO module (:mod:`moonriver_env.rllib_module`) under one name, the public one (RLlib
runs saved before the split name the module class by this path). ``MoonRiverMultiAgentEnv``
is the env's first name, kept: the same class as :class:`GameMultiAgentEnv` (its default game
is the registry's default)."""

from moonriver_env.rllib_env import (
    LEARNER,
    MASK_KEY,
    OBS_KEY,
    ROLES,
    GameMultiAgentEnv,
    module_for_agent,
    snapshot_module,
)
from moonriver_env.rllib_env import GameMultiAgentEnv as MoonRiverMultiAgentEnv
from moonriver_env.rllib_module import MaskedPPOTorchRLModule, rl_module_spec

__all__ = [
    "LEARNER",
    "MASK_KEY",
    "OBS_KEY",
    "ROLES",
    "GameMultiAgentEnv",
    "MaskedPPOTorchRLModule",
    "MoonRiverMultiAgentEnv",
    "module_for_agent",
    "rl_module_spec",
    "snapshot_module",
]
