"""Kingdomino: PettingZoo AEC environment, version 0 (thin re-export: the public path of :mod:`moonriver_env.kingdomino.env`)."""

from moonriver_env.kingdomino.env import *  # noqa: F403
from moonriver_env.kingdomino.env import __all__ as __all__
