"""What it takes to play a learned model: the network classes (the PPO policy
:mod:`~agents.networks.policy` and its extractors), the policy files
(:mod:`~agents.networks.snapshots`) and one move of a policy (:mod:`~agents.networks.acting`).
Training writes these models; the agents play them.

Nothing is imported here: the modules need torch (the ``train`` extra); import them by name.
"""
