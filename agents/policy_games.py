"""A saved model against agents, in any registered game: ``python -m training.evaluate --game
NAME`` for a game other than the default one (the ladder of :mod:`training.common.ladder` plays
Moon River's training runs).

The model plays as the agent spec ``ppo:PATH`` of its game (:func:`agents.registry.make_agent`);
game ``g`` against an opponent is the one the environment deals on ``reset(seed=game_seed(seed,
g))`` (played by :class:`agents.runner.GameRunner`), the model in seat ``g % n`` and the opponent's copies in
the other seats, each reset with ``agent_seed(seed, g, s)``. Each line gives the model's sole
wins, its shared wins and its win rate, a shared win counted 1/k, with the 95% Wilson interval.
"""

from __future__ import annotations

from collections.abc import Sequence

from moonriver_env.games import GameSpec

from .ratings import wilson_interval
from .registry import make_agent
from .runner import GameRunner, GameSetup
from .seeds import agent_seed, game_seed

__all__ = ["evaluate_policy"]


def evaluate_policy(
    spec: GameSpec,
    model: str,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    stochastic: bool = False,
) -> str:
    """The report of ``model`` (a saved policy, the spec ``ppo:PATH`` of ``spec``'s game)
    against each opponent spec, ``games`` games each (module docstring). ``ValueError``
    naming what is wrong: a bad spec, a model that does not fit the game."""
    if games < 1:
        raise ValueError(f"games: expected a positive integer, got {games}")
    n = spec.num_players
    learner = make_agent(f"ppo:{model}", seed=seed, game=spec.game)
    if stochastic:  # the policy agents' switch between the likeliest and a drawn action
        if hasattr(learner, "sample"):
            learner.sample = True
        elif hasattr(learner, "deterministic"):
            learner.deterministic = False
    setup = GameSetup(num_players=n, mode=spec.mode, scenario=spec.scenario)
    runner = GameRunner(setup, spec.game)
    lines = [f"model {model} ({spec.text}), seed {seed}"]
    for opponent in opponents:
        others = [make_agent(opponent, seed=seed, game=spec.game) for _ in range(n - 1)]
        wins = shared = 0
        share = 0.0
        for g in range(games):
            seat = g % n
            agents = [learner if s == seat else others[(s - seat - 1) % n] for s in range(n)]
            seeds = [agent_seed(seed, g, s) for s in range(n)]
            names = ["model" if s == seat else opponent for s in range(n)]
            state = runner.play(agents, game_seed(seed, g), seeds, names).state
            winners = state.winners()
            wins += winners == [seat]
            shared += seat in winners and len(winners) > 1
            share += 1.0 / len(winners) if seat in winners else 0.0
        lo, hi = wilson_interval(share, games)
        lines.append(
            f"vs {n - 1} x {opponent}: {wins}/{games} sole wins ({shared} shared), "
            f"win rate {share / games:.3f} [{lo:.3f}, {hi:.3f}]"
        )
    return "\n".join(lines)
