"""The Moon River rules engine at its public path (thin re-export: the public path of :mod:`moonriver_env.moonriver.rules`)."""

from moonriver_env.moonriver.rules import *  # noqa: F403
from moonriver_env.moonriver.rules import __all__ as __all__
