"""Moon River, PettingZoo AEC environment, version 0. (Environment card: filled in below.)"""

from .aec import env, raw_env

__all__ = ["env", "raw_env"]
