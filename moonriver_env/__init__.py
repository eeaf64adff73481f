"""moonriver-env: the reference reinforcement-learning environment for the board game Moon River."""

__version__ = "0.1.0"
