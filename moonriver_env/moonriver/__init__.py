"""Moon River (Cathala & Servais), the project's first game: everything that is this game's.

``rules/`` (the engine, floor 0), ``encoding.py`` and ``render/`` (observations and pictures),
``args.py``, ``env.py`` (PettingZoo), ``openspiel.py``, ``vector/`` (its native-core binding),
``records.py`` (score columns and move text) and ``game.py``, the one entry that registers the
game (:mod:`moonriver_env.games`). The public paths ``moonriver_env.rules``,
``moonriver_env.moonriver_v0`` and ``moonriver_env.vector`` re-export from here.
"""
