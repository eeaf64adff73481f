"""Batched Moon River on the native core (``moonriver_env/_core``, C11).

``VectorGame`` plays N games of one config together, with the arrays researchers know from
Pgx and PufferLib (observation, action mask, acting seat, rewards, terminations, scores):

    from moonriver_env.vector import VectorGame
    vg = VectorGame(num_games=1024, num_players=2, mode="base", seed=0, reward="win")
    while True:
        vg.step(policy(vg.observation, vg.action_mask))

Game ``i`` of ``VectorGame(seed=s)`` is the game ``moonriver_v0.env(...).reset(seed=s + i)``
plays, decision for decision; ``python -m moonriver_env.moonriver.vector.check --games N`` compares
them. Without a built core (no C compiler at install time) the same API runs on the Python
engine, with one warning. The docs page is ``docs/vector.md``.
"""

from moonriver_env.family.native import NATIVE
from moonriver_env.kingdomino.vector.game import KingdominoVectorGame
from moonriver_env.moonriver.vector.game import VectorGame
from moonriver_env.vector.dispatch import NoVectorGame, vector_game

__all__ = ["NATIVE", "KingdominoVectorGame", "NoVectorGame", "VectorGame", "vector_game"]
