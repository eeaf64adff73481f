"""The az pipeline: a small network trained by self-play in the native core (the agent ``az``,
:mod:`agents.az`, plays what it writes). A warm start learns the game's teacher (Moon River's
heuristic, Kingdomino's greedy) through the ranking of the moves' afterstate values; self-play
then plays whole games in the core, each move chosen by the network's afterstate values (the
first ``selfplay.explore`` drawn, then the best) or by the search, and the value learns the
TD(lambda) returns of those games.

Modules: :mod:`.config` (the config schema over ``training/configs/az_default.toml``),
:mod:`.selfplay` (self-play and teacher games in the core, over threads; the positions),
:mod:`.replay` (the replay buffer on disk), :mod:`.learner` (the losses and gradient steps),
:mod:`.run` (the loop: warm start, iterations, checkpoints, resume, evaluation, TensorBoard),
:mod:`.evaluate` (the ladder evaluation and its curve), :mod:`.bench` (``python -m
training.az.bench``: self-play games an hour), :mod:`.cli` (``python -m training.az``).
"""
