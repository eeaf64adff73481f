"""The shared base of the training pipelines.

:mod:`.config` (a pipeline's config schema and TOML loading), :mod:`.run` (the run skeleton:
config, run directory, the loop), :mod:`.outputs` (atomic writes, the run lock, run
directories), :mod:`.evaluation` (the one evaluator of the pipelines: a model against a
ladder, seats rotated, Wilson intervals), :mod:`.ladder` (``python -m training.evaluate``: a
policy file against the ladder),
:mod:`.export` (a model kept in the repository with its provenance), :mod:`.progress` (bars and
phases with an ETA), :mod:`.closing` (the closing table, the outputs line, the learning curve).
"""
