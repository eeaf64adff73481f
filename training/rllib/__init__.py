"""The Ray RLlib pipeline (``python -m training.rllib_train``): multi-agent PPO self-play
(:mod:`.train`) and its config (:mod:`.config`); configs in ``configs/``.
"""
