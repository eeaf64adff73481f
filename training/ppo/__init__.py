"""The SB3 MaskablePPO pipeline (``python -m training.train``, ``make run``).

Self-play training (:mod:`.train`), its opponents (:mod:`.selfplay`) and in-process self-play
games (:mod:`.selfplay_vec`), the behaviour-cloning warm start (:mod:`.pretrain`) and its
diagnosis (:mod:`.imitation`), the throughput benchmark (:mod:`.bench`); configs in
``configs/``.
"""
