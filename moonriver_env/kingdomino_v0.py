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
OpenSpiel           ``python_kingdomino`` (:mod:`moonriver_env.kingdomino_openspiel`)
==================  =======================================================================

Arguments
---------
``kingdomino_v0.env(num_players=None, variants=None, reward="win", obs_type="dict",
render_mode=None, config=None)``

* ``num_players``: 2, 3 or 4 (``None``: 2, the project's default).
* ``variants``: any combination of ``"must_place"``, ``"harmony"``, ``"middle_kingdom"``,
  ``"mighty_duel"`` (2 players) and ``"dynasty"``, as a tuple or one comma-separated string
  (``"must_place,harmony,middle_kingdom"`` is the rule set of the CIG 2018 study).
* ``reward``: ``"win"`` (default), ``"score"`` or ``"score_diff"`` (below).
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
The engine's numbering (:mod:`moonriver_env.kingdomino.actions`): ``direction * cells +
cell`` places the domino under the acting king (its first half on ``cell`` of the
``side x side`` board, the castle in the middle; its second half in direction S, E, N, W);
``4 * cells`` discards it; ``4 * cells + 1 + p`` picks position ``p`` of the line (0 = the
lowest number). ``env.unwrapped.state.action_to_string(a)`` gives ``"place d5 E"``,
``"discard"``, ``"pick 1"``. The mask equals the engine's legal set; other agents' masks are
all zero.

Observation
-----------
One float32 vector (:mod:`moonriver_env.kingdomino_encoding`): per kingdom (the observer's
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
* v0 (issue 22): initial release.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .aec import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    ResetNeeded,
    TerminateIllegalWrapper,
)
from .env_args import OBS_TYPES, RENDER_MODES, REWARD_MODES, check_options, check_seed
from .kingdomino import KingdominoConfig, KingdominoState, Phase, new_game
from .kingdomino_args import game_config, rank_rewards
from .kingdomino_encoding import KingdominoEncoder
from .kingdomino_render import render_rgb, render_text
from .opponents import make_opponent  # the agents' plug: the env never imports agents
from .rules.validation import check_choice
from .single_agent import SingleAgentEnv as _SingleAgentEnvBase

__all__ = ["PHASE_NAMES", "ResetNeeded", "SingleAgentEnv", "env", "raw_env", "rank_rewards"]

PHASE_NAMES: tuple[str, ...] = tuple(p.name for p in Phase)


def env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's standard wrappers (see the card above)."""
    e: AECEnv = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming)
    """Kingdomino as a PettingZoo AEC environment (module docstring)."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "kingdomino_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int | None = None,
        variants: tuple[str, ...] | str | None = None,
        reward: str = "win",
        mode: str | None = None,
        obs_type: str = "dict",
        render_mode: str | None = None,
        config: KingdominoConfig | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            num_players=num_players,
            variants=variants,
            reward=reward,
            obs_type=obs_type,
            render_mode=render_mode,
            config=config,
            mode=mode,
        )
        super().__init__()
        if mode is not None:  # the game's one-word spelling (moonriver_env.games)
            if variants is not None:
                raise ValueError("mode: names the variants too; give mode or variants, not both")
            variants = "" if mode == "base" else str(mode).replace("+", ",")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.obs_type = check_choice("obs_type", obs_type, OBS_TYPES)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.render_mode = render_mode
        self.config = config = game_config(num_players, variants, config)
        self.encoder = KingdominoEncoder(config)
        n = config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_box = spaces.Box(low=0.0, high=1.0, shape=(self.encoder.size,), dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(config.num_actions,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box})
            if self.obs_type == "dict"
            else obs_box
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(config.num_actions) for a in self.possible_agents
        }
        self._num_actions = config.num_actions
        self._no_winners = np.zeros(n, dtype=np.int8)  # shared, never written
        self._points: list[int] | None = None  # the points as of the last step
        self._points_shown: list[int] | None = None  # ... as given out in the infos
        self._points_array = np.zeros(n, dtype=np.int64)
        self._seed_rng = np.random.default_rng()
        self.state: KingdominoState | None = None
        self.agents: list[str] = []

    # -- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; a seed (non-negative integer) determines it and the seeds of
        later seedless resets. No ``options`` are taken."""
        seed = check_seed(seed)
        check_options(options)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        self.state = new_game(self.config, seed=int(self._seed_rng.integers(2**63 - 1)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.possible_agents[self.state.seat]
        self._set_infos()

    def observe(self, agent: str) -> Any:
        state = self._require_state()
        obs = self.encoder.encode_flat(state, self.agent_name_mapping[agent], self._points)
        if self.obs_type == "flat":
            return obs
        return {"observation": obs, "action_mask": self._mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zero when it is not to act)."""
        return self._mask(agent)

    def step(self, action: Any) -> None:
        if not self.agents:
            raise ResetNeeded(
                "step: call reset() first"
                if self.state is None
                else "step: the game is over (every agent is done); call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        self._cumulative_rewards[agent] = 0.0
        state.apply(action)  # IllegalActionError (precise), state unchanged
        rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal:
            for a, r in zip(self.possible_agents, self._final_rewards(state), strict=True):
                rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.seat]
        self.rewards = rewards
        self._accumulate_rewards()
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        state = self._require_state()
        if self.render_mode == "ansi":
            return render_text(state)
        if self.render_mode == "rgb_array":
            return render_rgb(state)
        print(render_text(state))
        return None

    def close(self) -> None:
        """Nothing to release."""

    # -- helpers -----------------------------------------------------------------------------
    def _require_state(self) -> KingdominoState:
        if self.state is None:
            raise ResetNeeded("call reset() before using the environment")
        return self.state

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self._num_actions, dtype=np.int8)
        state = self._require_state()
        if agent == self.agent_selection and not state.is_terminal:
            mask[np.array(state.legal_action_list(), dtype=np.intp)] = 1
        return mask

    def _final_rewards(self, state: KingdominoState) -> list[float]:
        if self.reward_mode == "win":
            return rank_rewards(state.rank_keys())
        pts = [float(p) for p in state.points()]
        if self.reward_mode == "score":
            return pts
        return [p - max(o for j, o in enumerate(pts) if j != i) for i, p in enumerate(pts)]

    def _set_infos(self) -> None:
        """The same keys for every agent on every step: ``phase``, ``points`` (every seat's
        points now), ``winners`` (zero until the end) and in flat mode ``action_mask``.
        Arrays given out are never written afterwards."""
        state = self._require_state()
        self._points = points = state.points()
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
    """``Kingdomino-v0``: one learner seat against opponent policies (Moon River's
    :class:`moonriver_env.wrappers.SingleAgentEnv`, built on this module's ``raw_env``;
    opponent specs are Kingdomino agents, e.g. ``opponents="greedy"``). MaskablePPO trains
    through it (``action_masks()``)."""

    aec_class = raw_env

    def _make_opponent(self, spec: str, index: int) -> Any:
        return make_opponent(spec, index, game="kingdomino")
