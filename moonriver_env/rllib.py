"""Moon River for Ray RLlib: the env (:mod:`moonriver_env.rllib_env`) and the masking PPO
module (:mod:`moonriver_env.rllib_module`) under one name, the public one (RLlib runs saved
before the split name the module class by this path)."""

from moonriver_env.rllib_env import (
    LEARNER,
    MASK_KEY,
    OBS_KEY,
    ROLES,
    MoonRiverMultiAgentEnv,
    module_for_agent,
    snapshot_module,
)
from moonriver_env.rllib_module import MaskedPPOTorchRLModule, rl_module_spec

__all__ = [
    "LEARNER",
    "MASK_KEY",
    "OBS_KEY",
    "ROLES",
    "MaskedPPOTorchRLModule",
    "MoonRiverMultiAgentEnv",
    "module_for_agent",
    "rl_module_spec",
    "snapshot_module",
]
