"""Kingdomino, the game Moon River derives from: its rules engine at the game folder's top (thin re-export: the public path of :mod:`moonriver_env.kingdomino.rules`)."""

from moonriver_env.kingdomino.rules import *  # noqa: F403
from moonriver_env.kingdomino.rules import __all__ as __all__
