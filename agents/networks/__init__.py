"""What it takes to play a learned model: the network classes (the PPO policy
:mod:`~agents.networks.policy` and its extractors), and the policy files
(:mod:`~agents.networks.snapshots`). Training writes these models; the agents play them.

Nothing is imported here: the modules need torch (the ``train`` extra); import them by name.
"""
