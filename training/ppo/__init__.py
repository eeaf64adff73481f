"""The reference PPO (:mod:`.ppo`: ``python -m training.ppo.ppo``), one file for every game with a
batched form, and its speed benchmark (:mod:`.bench`: ``python -m training.ppo.bench``).
"""
