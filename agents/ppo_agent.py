"""``ppo:PATH`` for every game: a saved model of the reference PPO (``model.pt``,
:mod:`agents.networks.sparse_policy`; or, from a run with ``--rollouts core``, an ``az`` model
file, played as its raw policy) or a MaskablePPO model of the game's own ``ppo`` agent
(:func:`reference_ppo_agent` tells them apart).

:class:`SparsePPOAgent` plays the reference PPO's raw policy: for the acting seat's flat
observation (the game's ``encoder`` hook, its non-zero entries) it takes the most likely legal
action; a model with the afterstate head scores each legal move's afterstate (the game set into
a one-game vector game in the core). It names no game: the model file names its game, and the registry gives its encoder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from moonriver_env.games import GameSpec, parse_game
from moonriver_env.vector.env_batch import batched_game


class SparsePPOAgent(Agent):
    """The reference PPO's policy from ``path`` (``model.pt``), most likely legal action."""

    name = "ppo"

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        from agents.networks.sparse_policy import load_model  # torch: only when asked for

        super().__init__(seed)
        self.path = str(path)
        self.policy, game = load_model(path)
        self.game: GameSpec = parse_game(game)
        self._encoder: tuple[Any, Any] = (None, None)  # the last game's (config, encoder)

    def check_game(self, config: Any) -> None:
        spec = GameSpec.from_config(config)
        if (spec.game, spec.num_players, spec.mode) != (
            self.game.game, self.game.num_players, self.game.mode
        ):
            raise ValueError(
                f"game: the model at {self.path} plays {self.game.text}, not {spec.text}"
            )

    def choose(self, state: Any) -> int:
        from agents.networks.sparse_policy import SparseRows, greedy_positions

        legal = state.legal_action_list()
        if len(legal) == 1:
            return int(legal[0])
        config = state.config
        seen, encoder = self._encoder
        if seen is not config:
            self.check_game(config)
            if self.policy.head == "afterstate":  # the afterstates come from the core
                encoder = batched_game(self.game.text, num_games=1, seed=0, observe=False,
                                       config=config)  # fmt: skip
            else:
                encoder = self.game.entry.hook("encoder")(config)
            self._encoder = (config, encoder)
        if self.policy.head == "afterstate":
            from agents.networks.sparse_policy import greedy_actions

            encoder.set_state(0, state)
            return int(greedy_actions(self.policy, encoder, np.zeros(1, np.int64))[0])
        obs = encoder.encode_flat(state, state.current_seat)
        idx = np.flatnonzero(obs)
        x = SparseRows(np.array([0, idx.size], np.int64), idx.astype(np.int64), obs[idx])
        ids = np.asarray(legal, dtype=np.int64)
        at = greedy_positions(self.policy, x, ids, np.zeros(ids.size, np.int64),
                              np.array([ids.size]))
        return int(ids[int(at[0])])


def is_sparse_ppo(path: str | Path) -> bool:
    """Whether ``path`` holds a reference-PPO model (read without running code)."""
    p = Path(path)
    if p.suffix != ".pt" or not p.is_file():
        return False
    from agents.networks.sparse_policy import is_model_file

    return is_model_file(p)


def reference_ppo_agent(path: str | Path, seed: int | None = None) -> Agent | None:
    """The agent of a reference-PPO model file: :class:`SparsePPOAgent` for the sparse
    network's ``model.pt``; for a run with ``--rollouts core`` (whose ``model.pt`` is an ``az``
    model file) its raw policy, ``az:path=PATH,sims=0``. ``None`` for any other file (the game's
    own MaskablePPO reader takes it). Both are read without running code; an az file that
    cannot be played (another version) gets az's own error."""
    if is_sparse_ppo(path):
        return SparsePPOAgent(path, seed=seed)
    if Path(path).suffix == ".pt":
        from agents.az import AzAgent
        from agents.az.checkpoint import has_az_tag

        if has_az_tag(path):
            return AzAgent(seed=seed, path=path, sims=0)
    return None
