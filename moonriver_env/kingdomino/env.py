"""Kingdomino: PettingZoo AEC environment, version 0.

Environment card
================

==================  =======================================================================
Import              ``from moonriver_env import kingdomino_v0``
Actions             Discrete (one flat numbering per player count and variants)
Parallel API        No (turn-based; a seat places, then picks: two decisions in a row)
Agents              ``["player_0", ..., "player_{n-1}"]`` (2, 3 or 4)
Action values       ``Discrete(num_actions)``: 329 (4 and 2 players), 328 (3 players),
                    681 (Mighty Duel)
Observation shape   ``dict(observation=(D,), action_mask=(num_actions,))``
Observation values  observation float32 in ``[0, 1]``; action_mask int8 in {0, 1}
Gymnasium id        ``Kingdomino-v0`` (one learner against opponent policies)
OpenSpiel           ``python_kingdomino`` (:mod:`moonriver_env.kingdomino.openspiel`)
==================  =======================================================================

Arguments
---------
``kingdomino_v0.env(num_players=None, variants=None, reward="win", obs_type="dict",
render_mode=None, config=None, dense_reward=0.0)``

* ``num_players``: 2, 3 or 4 (``None``: 2, the project's default).
* ``variants``: any combination of ``"must_place"``, ``"harmony"``, ``"middle_kingdom"``,
  ``"mighty_duel"`` (2 players) and ``"dynasty"``, as a tuple or one comma-separated string
  (``"must_place,harmony,middle_kingdom"`` is the rule set of the CIG 2018 study).
* ``reward``: ``"win"`` (default), ``"score"`` or ``"score_diff"`` (below).
* ``dense_reward``: a weight (a finite number, default 0: none); after each move every seat
  also receives this times the change of its points (the mover's kingdom is the one that
  changes), as ``moonriver_v0``'s ``dense_reward`` does with its ranch totals.
* ``obs_type``: ``"dict"`` or ``"flat"`` (the observation alone, the mask in
  ``infos[agent]["action_mask"]``).
* ``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (a picture of the kingdoms and lines),
  ``"human"`` (prints the text) or ``None``.
* ``mode``: the variants as one word, the game's text spelling (``"base"``, or the variants
  joined with ``+``: ``"harmony+middle_kingdom+must_place"``), as ``GameSpec.make_env`` passes
  it; give ``mode`` or ``variants``.
* ``config``: a ``KingdominoConfig`` instead of ``num_players`` / ``variants`` (a contradicting
  game argument raises ``ValueError`` naming both).

``env()`` wraps ``raw_env()`` in PettingZoo's standard wrappers (the same three as
``moonriver_v0``): an illegal action ends the game with ``-1`` for the offender; ``raw_env``
raises the engine's ``IllegalActionError`` and leaves the game unchanged. Bad arguments raise
``ValueError``/``TypeError`` naming the argument, before anything changes.

Actions
-------
The engine's numbering (:mod:`moonriver_env.kingdomino.rules.actions`): ``direction * cells +
cell`` places the domino under the acting king (its first half on ``cell`` of the
``side x side`` board, the castle in the middle; its second half in direction S, E, N, W);
``4 * cells`` discards it; ``4 * cells + 1 + p`` picks position ``p`` of the line (0 = the
lowest number). ``env.unwrapped.state.action_to_string(a)`` gives ``"place d5 E"``,
``"discard"``, ``"pick 1"``. The mask equals the engine's legal set; other agents' masks are
all zero.

Observation
-----------
One float32 vector (:mod:`moonriver_env.kingdomino.encoding`): per kingdom (the observer's
first, then the seats after it) 10 planes of ``side x side`` (six landscapes, crowns >= 1, 2,
3, squares still free in the frame), then features: phase, game of a Dynasty, pile left,
last round, each seat's points and turn, both lines (dominoes, numbers, kings) and the unseen
dominoes as counts per number. Sizes: 4 players D = 3,475 (planes 40 x 9 x 9, 235
features); 3 players D = 2,614; 2 players D = 1,835; Mighty Duel D = 3,595 (20 x 13 x 13).
Never encoded: the order of the pile, and which unseen
dominoes are in the box.

Rewards
-------
At the end: ``"win"``: rank-based and zero-sum, ``(seats beaten - seats beating you) /
(n - 1)`` on (points, largest territory) (2 players: +1 / -1, 0 for a shared win);
``"score"``: the final points; ``"score_diff"``: own points minus the best other seat's. In a
Dynasty the points are the three games' totals.

Infos
-----
``phase`` (int, ``PHASE_NAMES``), ``points`` (int64 ``(n,)``, every seat's points as the
kingdoms stand), ``winners`` (int8 ``(n,)``, zero until the end), and in flat mode
``action_mask``.

Version history
---------------
* v0: initial release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from moonriver_env.aec_base import GameAECEnv, ResetNeeded, env_metadata, wrap
from moonriver_env.env_checks import DEFAULT_DENSE_REWARD, OBS_TYPES, RENDER_MODES, REWARD_MODES
from moonriver_env.family.validation import check_choice, check_finite
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase, new_game
from moonriver_env.kingdomino.args import dense_gains, game_config, rank_rewards
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.render import render_rgb, render_text
from moonriver_env.single_agent import SingleAgentEnv as _SingleAgentEnvBase

__all__ = ["PHASE_NAMES", "ResetNeeded", "SingleAgentEnv", "env", "raw_env", "rank_rewards"]

PHASE_NAMES: tuple[str, ...] = tuple(p.name for p in Phase)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's standard wrappers (see the card above)."""
    return wrap(raw_env(**kwargs))


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Kingdomino as a PettingZoo AEC environment (module docstring)."""

    metadata = env_metadata("kingdomino_v0")

    def __init__(
        self,
        num_players: int | None = None,
        variants: tuple[str, ...] | str | None = None,
        reward: str = "win",
        mode: str | None = None,
        obs_type: str = "dict",
        render_mode: str | None = None,
        config: KingdominoConfig | None = None,
        dense_reward: float = DEFAULT_DENSE_REWARD,
    ) -> None:
        self._record_arguments(locals())
        if mode is not None:  # the game's one-word spelling (moonriver_env.games)
            if variants is not None:
                raise ValueError("mode: names the variants too; give mode or variants, not both")
            variants = "" if mode == "base" else str(mode).replace("+", ",")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.dense_reward = check_finite("dense_reward", dense_reward)
        self._dense_points: list[int] = []  # each seat's points after the last move
        self.obs_type = check_choice("obs_type", obs_type, OBS_TYPES)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.config = config = game_config(num_players, variants, config)
        self.encoder = KingdominoEncoder(config)
        self._init_agents(
            spaces.Box(low=0.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32)
        )
        n = config.num_players
        self._no_winners = np.zeros(n, dtype=np.int8)  # shared, never written
        self._points: list[int] = []  # the points as of the last step
        self._points_kingdoms: list[Any] = []  # ... of these kingdoms
        self._points_shown: list[int] | None = None  # ... as given out in the infos
        self._points_array = np.zeros(n, dtype=np.int64)
        self.state: KingdominoState | None = None

    # -- the game's part of the AEC bookkeeping (moonriver_env.aec_base) ---------------------
    def _new_game(self, seed: int) -> KingdominoState:
        return new_game(self.config, seed=seed)

    def _observation(self, state: KingdominoState, seat: int) -> np.ndarray:
        obs: np.ndarray = self.encoder.encode_flat(state, seat, self._points)
        return obs

    def _start_game(self, state: KingdominoState) -> None:
        self._dense_points = state.points()

    def _add_dense_rewards(self, state: KingdominoState, rewards: dict[str, float]) -> None:
        points = state.points()
        for a, gain in zip(self.possible_agents, dense_gains(points, self._dense_points),
                           strict=True):  # fmt: skip
            rewards[a] += self.dense_reward * gain
        self._dense_points = points

    def _win_rewards(self, state: KingdominoState) -> list[float]:
        return rank_rewards(state.rank_keys())

    def _final_points(self, state: KingdominoState) -> list[int]:
        return state.points()

    def _render_text(self, state: KingdominoState) -> str:
        return render_text(state)

    def _render_rgb(self, state: KingdominoState) -> np.ndarray:
        return render_rgb(state)

    def _set_infos(self) -> None:
        """The same keys for every agent on every step: ``phase``, ``points`` (every seat's
        points now), ``winners`` (zero until the end) and in flat mode ``action_mask``.
        Arrays given out are never written afterwards."""
        state = self.state
        assert state is not None
        if state.kingdoms != self._points_kingdoms or state.results:  # else: the same points
            self._points = state.points()
            self._points_kingdoms = state.kingdoms[:]
        points = self._points
        if state.is_terminal:
            winners = np.zeros(self.config.num_players, dtype=np.int8)
            winners[state.winners()] = 1
        else:
            winners = self._no_winners
        if points != self._points_shown:  # a new array only when the points change
            self._points_shown = points
            self._points_array = np.array(points, dtype=np.int64)
        base = {"phase": int(state.phase), "points": self._points_array, "winners": winners}
        if self.obs_type == "flat":
            self.infos = {a: dict(base, action_mask=self._mask(a)) for a in self.agents}
        else:
            self.infos = {a: dict(base) for a in self.agents}


class SingleAgentEnv(_SingleAgentEnvBase):
    """``Kingdomino-v0``: one learner seat against opponent policies (the generic
    :class:`moonriver_env.single_agent.SingleAgentEnv` on this module's ``raw_env``, the same
    as ``SingleAgentEnv(game="kingdomino")``; opponent specs are Kingdomino agents, e.g.
    ``opponents="greedy"``). MaskablePPO trains through it (``action_masks()``)."""

    aec_class = raw_env
