"""Kingdomino: PettingZoo AEC environment, version 0, at its public path (a thin re-export of
:mod:`moonriver_env.kingdomino.env`, whose docstring, the environment card, it carries)."""

from moonriver_env.kingdomino import env as _env
from moonriver_env.kingdomino.env import *  # noqa: F403
from moonriver_env.kingdomino.env import __all__ as __all__

__doc__ = _env.__doc__
