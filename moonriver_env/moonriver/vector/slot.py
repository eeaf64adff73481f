"""The env-like view of one slot of a vector game, at its older path: it is generic now and
lives in :mod:`moonriver_env.vector.slot`; this module only re-exports it."""

from moonriver_env.vector.slot import SlotEnv

__all__ = ["SlotEnv"]
