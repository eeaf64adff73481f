"""Afterstate value learning for the ``trained`` agent
(:mod:`moonriver_env.moonriver.agents.trained`).

One command per shipped model runs every stage, each resumable::

    python -m training.value.train --config training/value/configs/value_2p_base.toml --run-dir runs/v2p

1. :mod:`.collect`: self-play games whose decisions are labelled by Monte Carlo rollouts
   (the value of each of the heuristic's top-k candidate afterstates), written as JSON lines
   (seed + actions + labels; the afterstates are rebuilt by replay, so files stay small).
2. :mod:`.dataset`: replays the games and encodes every labelled afterstate with the agent's
   own input function (:func:`moonriver_env.moonriver.agents.trained.candidate_inputs`).
3. :mod:`.train`: regression of the value network, held-out games for the learning curve,
   a short evaluation, export to ``agents/checkpoints/trained_<n>p_<mode>/``.
"""
