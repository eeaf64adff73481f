"""Moon River's pictures at their public path (thin re-export: the public path of :mod:`moonriver_env.moonriver.render`)."""

from moonriver_env.moonriver.render import *  # noqa: F403
from moonriver_env.moonriver.render import __all__ as __all__
