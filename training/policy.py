"""Where the policy class used to live; kept because a ``MaskablePPO`` zip names its policy
class by module path and the shipped ``agents/checkpoints/ppo_2p_base/model.zip`` says
``training.policy.MoonRiverPolicy``. The class lives in :mod:`agents.networks.policy`; this
module only re-exports it (the one alias the architecture test allows)."""

from agents.networks.policy import MoonRiverPolicy

__all__ = ["MoonRiverPolicy"]
