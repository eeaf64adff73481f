"""Moon River's PettingZoo environment at its public path (thin re-export: the public path of :mod:`moonriver_env.moonriver.env`)."""

from moonriver_env.moonriver.env import *  # noqa: F403
from moonriver_env.moonriver.env import __all__ as __all__
