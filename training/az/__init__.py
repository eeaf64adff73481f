"""The az pipeline: a policy and value network trained by self-play with the Gumbel root
search (the agent ``az``, :mod:`agents.az`, plays what it writes).

Modules: :mod:`.config` (the config schema over ``training/configs/az_default.toml``),
:mod:`.selfplay` (self-play and teacher games, batched; the positions), :mod:`.replay` (the
replay buffer on disk), :mod:`.learner` (the losses and gradient steps), :mod:`.run` (the
loop: warm start, iterations, checkpoints, resume, evaluation, TensorBoard), :mod:`.cli`
(``python -m training.az``).
"""
