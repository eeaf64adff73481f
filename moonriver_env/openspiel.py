"""Moon River's OpenSpiel game at its public path (importing it registers python_moonriver) (thin re-export: the public path of :mod:`moonriver_env.moonriver.openspiel`)."""

from moonriver_env.moonriver.openspiel import *  # noqa: F403
from moonriver_env.moonriver.openspiel import __all__ as __all__
