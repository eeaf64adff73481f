"""What Kingdomino's agents share: the state behind an environment
(:func:`kingdomino_state`), their base class (:class:`KingdominoAgent`: ``act`` reads the
engine state and calls ``choose``) and the line a pick is made from.

Every agent reads only what the table shows: search agents re-deal the unseen dominoes
(``redetermine``) before simulating, never reading the pile's order."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase


def kingdomino_state(env: Any) -> KingdominoState:
    """The engine state behind a Kingdomino environment (wrapped, raw or single-agent)."""
    if isinstance(env, KingdominoState):
        return env
    state = getattr(getattr(env, "unwrapped", env), "state", None)
    if state is None:
        state = getattr(getattr(env, "aec", None), "state", None)
    if not isinstance(state, KingdominoState):
        raise TypeError(f"env: expected a Kingdomino environment after reset(), got {env!r}")
    return state


class KingdominoAgent(Agent):
    """Base of the Kingdomino agents: ``act`` reads the engine state and calls ``choose``."""

    def act(self, observation: dict[str, Any], env: Any) -> int:
        return self.choose(kingdomino_state(env))

    def choose(self, state: KingdominoState) -> int:
        raise NotImplementedError

    def check_game(self, config: Any) -> None:
        if not isinstance(config, KingdominoConfig):
            raise ValueError(
                f"{self.name}: a Kingdomino agent cannot play {type(config).__name__} games"
            )

    def _pick_uniform(self, options: list[int]) -> int:
        return options[int(self.rng.integers(len(options)))] if len(options) > 1 else options[0]

    def _choose_best(self, vg: Any, rows: np.ndarray, agent: str | None) -> np.ndarray:
        """A ``choose_batch`` on the core's values: for each game of ``rows``, the one legal
        move, or a uniform draw among ``vg.best_moves(i, agent)`` (the moves ``choose`` draws
        among, in its order); on states where ``agent`` is ``None`` or the batched game has
        no core."""
        out = np.empty(len(rows), dtype=np.int64)
        best_moves = getattr(vg, "best_moves", None) if agent is not None else None
        for k, i in enumerate(np.asarray(rows).tolist()):
            if int(vg.num_legal[i]) == 1:
                out[k] = int(vg.legal_ids[i, 0])
                continue
            top = best_moves(i, agent) if best_moves is not None else None
            out[k] = self._pick_uniform(list(top)) if top else self.choose(vg.get_state(i))
        return out


def flags(config: KingdominoConfig) -> tuple[bool, bool]:
    """Whether ``config`` plays Harmony and the Middle Kingdom (the bonuses of the points)."""
    return config.has("harmony"), config.has("middle_kingdom")


def pick_line(state: KingdominoState) -> list[int]:
    """The line the acting seat picks from (the first line in set-up, else the next)."""
    return state.cur_line if state.phase == Phase.SETUP_PICK else state.next_line
