"""The single-agent Gymnasium environment's old module name (it holds no wrappers); the code
lives in :mod:`moonriver_env.single_agent`, and this module only re-exports it."""

from moonriver_env.single_agent import RandomPolicy, SingleAgentEnv

__all__ = ["RandomPolicy", "SingleAgentEnv"]
