"""In-process self-play for MaskablePPO (``run.vec_env = "selfplay"``): many games in the learner's
process, one batched forward pass per step, and every learner seat's decisions are samples.

:class:`SelfPlayGames` holds ``run.n_envs`` games (PettingZoo :class:`~moonriver_env.moonriver.env.raw_env`,
so the rewards are the environment's own: ``reward`` and ``dense_reward``). Each game has one
learner seat (``env.learner_seat``, drawn per game when ``"random"``); every other seat is drawn
per game with the ``[opponents]`` weights: ``learner`` (the learner itself: its decisions are
samples too), ``random`` / ``greedy`` / ``heuristic`` (``agents.make_agent``) or ``snapshot`` (a
pool member; its moves are one batched forward pass per snapshot over the games waiting for it).
While the pool is empty the snapshot weight is left out (a seat with nothing else to draw is a
learner seat).

:class:`SelfPlayPPO` is ``MaskablePPO`` with its own ``collect_rollouts``: at every step all
games are first advanced to a learner seat (opponents move), then the acting learner seats of
all ``n_envs`` games are encoded and decided by one forward pass, so a rollout is still
``n_steps x n_envs`` samples and ``train()`` (the update) is SB3's, unchanged.

Credit assignment: a game with ``k`` learner seats is ``k`` interleaved trajectories. A sample's
reward is everything its seat receives from its decision until the seat's next decision (its
own move, the other seats' moves, the end of the game), as in
:class:`~moonriver_env.single_agent.SingleAgentEnv`; its successor is the same seat's next decision
in the same game, and advantages are GAE along each seat's own chain
(:func:`seat_advantages`). At the end of a rollout a seat whose game goes on is bootstrapped
with the value of the position from its own view; rewards that arrive for it after that point,
before its next decision, belong to that bootstrap and are not counted again.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv

from agents.networks.snapshots import load_policy
from agents.runner import GameSetup
from moonriver_env.moonriver.env import raw_env, win_rewards
from moonriver_env.moonriver.rules import scoring
from moonriver_env.opponents import LEARNER, SNAPSHOT
from moonriver_env.seat_rewards import SeatRewards
from training.common.opponents import BASELINES, SnapshotPool, make_baseline

__all__ = ["LEARNER", "SEAT_KINDS", "SelfPlayGames", "SelfPlayPPO", "seat_advantages"]

SEAT_KINDS = (LEARNER, *BASELINES, SNAPSHOT)


class _Game:
    """One game of :class:`SelfPlayGames`: its env, who plays each seat, the open samples."""

    __slots__ = ("aec", "agents", "credit", "kinds", "learner_seat", "pending", "rng", "steps")

    def __init__(self, aec: raw_env, seed: int) -> None:
        self.aec = aec
        self.rng = np.random.default_rng(seed)
        n = aec.config.num_players
        self.kinds: list[str] = [LEARNER] * n
        self.agents: list[Any] = [None] * n  # None: learner; else an Agent or a snapshot entry
        self.pending = [-1] * n  # each learner seat's open sample (its reward still counting)
        # the seats with an open sample are credited: their reward since their last decision
        # (closes the sample) and this game (the episode info)
        self.credit = SeatRewards(n)
        self.steps = [0] * n
        self.learner_seat = 0


class _Snapshot:
    """A snapshot seat: the loaded policy (shared by every seat playing it) and its mode."""

    __slots__ = ("deterministic", "name", "policy")

    def __init__(self, policy: Any, deterministic: bool, name: str) -> None:
        self.policy = policy
        self.deterministic = deterministic
        self.name = name


class SelfPlayGames(VecEnv):
    """``n_games`` games played in this process for :class:`SelfPlayPPO` (see the module
    docstring). Its observations are those of the seat to act (a learner seat after
    :meth:`reset`); it does not step by itself (``step`` raises): the collector drives it."""

    def __init__(
        self,
        n_games: int,
        env_cfg: Mapping[str, Any],
        opp_cfg: Mapping[str, Any],
        pool_dir: str | Path | None = None,
        seed: int = 0,
    ) -> None:
        self.env_kwargs: dict[str, Any] = GameSetup.from_config(env_cfg).env_kwargs()
        self.games = [_Game(raw_env(**self.env_kwargs, obs_type="dict"), 0) for _ in range(n_games)]
        aec = self.games[0].aec
        super().__init__(
            n_games,
            aec.observation_spaces["player_0"]["observation"],  # type: ignore[index]
            spaces.Discrete(aec.config.num_actions),
        )
        self.num_players = aec.config.num_players
        self.num_actions = aec.config.num_actions
        seat = env_cfg.get("learner_seat", "random")
        self.learner_option: int | None = None if seat == "random" else int(seat)
        self.weights = {k: float(opp_cfg.get(k, 0.0)) for k in SEAT_KINDS}
        self.snapshot_deterministic = bool(opp_cfg.get("snapshot_deterministic", False))
        use_pool = pool_dir is not None and self.weights["snapshot"] > 0
        self.pool = SnapshotPool(pool_dir) if use_pool and pool_dir is not None else None
        self._policies: dict[Path, Any] = {}
        self._failed: set[Path] = set()
        self._baselines: dict[tuple[int, int, str], Any] = {}
        self.base_seed = int(seed)
        self.finished: list[dict[str, Any]] = []  # infos of the games finished since last read

    # -- VecEnv ------------------------------------------------------------------------------
    def seed(self, seed: int | None = None) -> list[int | None]:
        """Seed the games (game ``g`` from ``seed * 1000 + g``); applies at the next reset."""
        if seed is not None:
            self.base_seed = int(seed)
        return [self.base_seed * 1000 + g for g in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        """New games in every slot, advanced to a learner seat; the acting seats' observations."""
        paths = self._pool_paths()
        for g, game in enumerate(self.games):
            game.rng = np.random.default_rng(self.base_seed * 1000 + g)
            self._new_game(g, paths)
        self.finished.clear()
        self.advance()
        self.finished.clear()
        return np.stack([self.observation(g) for g in range(self.num_envs)])

    def step_async(self, actions: np.ndarray) -> None:
        raise NotImplementedError("SelfPlayGames is driven by SelfPlayPPO.collect_rollouts")

    def step_wait(self) -> Any:
        raise NotImplementedError("SelfPlayGames is driven by SelfPlayPPO.collect_rollouts")

    def close(self) -> None:
        self._policies.clear()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [getattr(self.games[i].aec, attr_name) for i in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for i in self._get_indices(indices):
            setattr(self.games[i].aec, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        return [
            getattr(self.games[i].aec, method_name)(*method_args, **method_kwargs)
            for i in self._get_indices(indices)
        ]

    def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    # -- the games ---------------------------------------------------------------------------
    def acting_seat(self, g: int) -> int:
        seat = self.games[g].aec.state.current_seat  # type: ignore[union-attr]
        assert seat is not None
        return int(seat)

    def observation(self, g: int, seat: int | None = None) -> np.ndarray:
        """Game ``g`` as ``seat`` (default: the seat to act) sees it (the flat observation)."""
        aec = self.games[g].aec
        state = aec.state
        assert state is not None
        return aec.encoder.encode_flat(state, self.acting_seat(g) if seat is None else seat)

    def legal_actions(self, g: int) -> list[int]:
        return self.games[g].aec.state.legal_action_list()  # type: ignore[union-attr]

    def apply(self, g: int, action: int, rewards: np.ndarray, dones: np.ndarray) -> None:
        """Play ``action`` for the seat to act in game ``g``: every learner seat's reward goes
        to its open sample (index into ``rewards``); at the end of the game the open samples
        are marked in ``dones``, the game's info is kept and a new game starts."""
        game = self.games[g]
        aec = game.aec
        aec.step(int(action))
        game.credit.bank(aec.rewards, aec.possible_agents)
        if self._ended(g):
            for seat, idx in enumerate(game.pending):
                if idx >= 0:
                    rewards[idx] = game.credit.take(seat)
                    dones[idx] = True
            self.finished.append(self._final_info(g))
            self._new_game(g, self._pool_paths())

    def advance(self, rewards: np.ndarray | None = None, dones: np.ndarray | None = None) -> None:
        """Let the opponent seats move until every game waits for a learner seat (snapshots:
        one forward pass per snapshot over the games waiting for it)."""
        if rewards is None or dones is None:
            rewards, dones = np.zeros(1), np.zeros(1, dtype=bool)  # no open samples yet
        while True:
            waiting: dict[int, list[int]] = {}
            for g, game in enumerate(self.games):
                seat = self.acting_seat(g)
                agent = game.agents[seat]
                if agent is None:
                    continue
                if isinstance(agent, _Snapshot):
                    waiting.setdefault(id(agent.policy), []).append(g)
                else:
                    aec = game.aec
                    name = aec.possible_agents[seat]
                    self.apply(g, int(agent(aec.observe(name), aec)), rewards, dones)
            if not waiting:
                if all(
                    game.agents[self.acting_seat(g)] is None for g, game in enumerate(self.games)
                ):
                    return
                continue
            for group in waiting.values():
                self._snapshot_moves(group, rewards, dones)

    def _snapshot_moves(self, group: list[int], rewards: np.ndarray, dones: np.ndarray) -> None:
        first = self.games[group[0]]
        snap = first.agents[self.acting_seat(group[0])]
        obs = np.stack([self.observation(g) for g in group])
        masks = np.zeros((len(group), self.num_actions), dtype=bool)
        for row, g in enumerate(group):
            masks[row, self.legal_actions(g)] = True
        with torch.no_grad():
            dist = snap.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
            actions = dist.get_actions(deterministic=snap.deterministic).numpy()
        for g, a in zip(group, actions, strict=True):
            self.apply(g, int(a), rewards, dones)

    def _pool_paths(self) -> list[Path]:
        return self.pool.paths() if self.pool is not None else []

    def _new_game(self, g: int, paths: list[Path]) -> None:
        game = self.games[g]
        n = self.num_players
        rng = game.rng
        if self.learner_option is None:
            game.learner_seat = int(rng.integers(n))
        else:
            game.learner_seat = self.learner_option
        kinds = [k for k in SEAT_KINDS if self.weights[k] > 0 and (k != "snapshot" or paths)]
        w = np.array([self.weights[k] for k in kinds])
        if not kinds:  # only snapshots asked for and the pool is empty
            kinds, w = [LEARNER], np.ones(1)
        for seat in range(n):
            game.pending[seat] = -1
            game.steps[seat] = 0
            if seat == game.learner_seat:
                game.kinds[seat], game.agents[seat] = LEARNER, None
                continue
            kind = kinds[int(rng.choice(len(kinds), p=w / w.sum()))]
            agent_seed = int(rng.integers(2**63 - 1))
            agent: Any = None
            if kind == "snapshot":
                agent = self._snapshot(paths[int(rng.integers(len(paths)))])
                if agent is None:
                    kind = LEARNER  # unreadable or pruned meanwhile: the learner plays the seat
            elif kind != LEARNER:
                agent = self._baselines.get((g, seat, kind))
                if agent is None:
                    agent = self._baselines[(g, seat, kind)] = make_baseline(kind, seed=agent_seed)
                agent.reset(agent_seed)
            game.kinds[seat], game.agents[seat] = kind, agent
        game.credit.reset()
        game.aec.reset(seed=int(rng.integers(2**63 - 1)))

    def _snapshot(self, path: Path) -> _Snapshot | None:
        policy = self._policies.get(path)
        if policy is None:
            if path in self._failed:
                return None
            try:
                policy = load_policy(path)
            except FileNotFoundError:
                return None
            except Exception as e:  # noqa: BLE001 - a bad snapshot must not stop the run
                self._failed.add(path)
                print(f"warning: cannot load snapshot {path}: {e!r}", file=sys.stderr, flush=True)
                return None
            self._policies[path] = policy
            while len(self._policies) > 8:
                self._policies.pop(next(iter(self._policies)))
        return _Snapshot(policy, self.snapshot_deterministic, path.stem)

    def _ended(self, g: int) -> bool:
        """Whether game ``g``'s last move ended it."""
        state = self.games[g].aec.state
        assert state is not None
        return state.is_terminal

    def _finished_scores(self, g: int) -> list[scoring.ScoreBreakdown]:
        """The score breakdowns of game ``g``, which has just ended."""
        state = self.games[g].aec.state
        assert state is not None
        return state.scores()

    def _final_info(self, g: int) -> dict[str, Any]:
        game = self.games[g]
        scores = self._finished_scores(g)
        seat = game.learner_seat
        others = sorted({k for s, k in enumerate(game.kinds) if s != seat})
        return {
            "game": g,
            "learner_seat": seat,
            "seat_kinds": list(game.kinds),
            "opponent": "+".join(others),
            "outcome": scoring.win_share(scoring.rank_winners(scores), seat),
            "totals": [s.total for s in scores],
            "win_rewards": win_rewards(scores),
            "episode": {"r": game.credit.game_totals[seat], "l": game.steps[seat], "t": 0.0},
        }


def seat_advantages(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    next_index: np.ndarray,
    bootstrap: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's chain of samples (flat arrays, successors after their sample):
    sample ``i`` is followed by ``next_index[i]`` (``-1``: none in this rollout; then
    ``bootstrap[i]`` is the value it continues with, unless ``dones[i]``). Returns
    ``(advantages, returns)``."""
    adv = np.zeros(len(rewards), dtype=np.float64)
    for i in range(len(rewards) - 1, -1, -1):
        if dones[i]:
            next_value, next_adv = 0.0, 0.0
        elif next_index[i] >= 0:
            j = next_index[i]
            next_value, next_adv = values[j], adv[j]
        else:
            next_value, next_adv = bootstrap[i], 0.0
        delta = rewards[i] + gamma * next_value - values[i]
        adv[i] = delta + gamma * gae_lambda * next_adv
    return adv.astype(np.float32), (adv + values).astype(np.float32)


class SelfPlayPPO(MaskablePPO):
    """``MaskablePPO`` collecting its rollouts from :class:`SelfPlayGames` (module docstring).
    It saves and loads like ``MaskablePPO`` (the same zip; either class reads it)."""

    def collect_rollouts(
        self,
        env: VecEnv,
        callback: BaseCallback,
        rollout_buffer: Any,
        n_rollout_steps: int,
        use_masking: bool = True,
    ) -> bool:
        if not isinstance(env, SelfPlayGames):
            raise TypeError("SelfPlayPPO: the env must be SelfPlayGames (run.vec_env='selfplay')")
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        n_games = env.num_envs
        size = n_rollout_steps * n_games
        rewards = np.zeros(size, dtype=np.float64)
        dones = np.zeros(size, dtype=bool)
        values = np.zeros(size, dtype=np.float64)
        next_index = np.full(size, -1, dtype=np.int64)
        seat_of = np.zeros(size, dtype=np.int64)
        bootstrap = np.zeros(size, dtype=np.float64)
        obs_buf = rollout_buffer.observations.reshape(size, -1)
        mask_buf = rollout_buffer.action_masks.reshape(size, -1)
        mask_buf[:] = 0.0
        for game in env.games:  # rewards before a seat's first decision here: see the docstring
            game.pending = [-1] * env.num_players
            game.credit.stop()
        callback.on_rollout_start()
        for t in range(n_rollout_steps):
            base = t * n_games
            obs = obs_buf[base : base + n_games]
            masks = np.zeros((n_games, env.num_actions), dtype=bool)
            seats = self._learner_inputs(env, obs, masks)
            seat_of[base : base + n_games] = seats
            with torch.no_grad():
                actions_t, values_t, log_probs = self.policy(
                    torch.as_tensor(obs), action_masks=masks
                )
            actions = actions_t.numpy()
            mask_buf[base : base + n_games] = masks
            values[base : base + n_games] = values_t.numpy().ravel()
            rollout_buffer.actions[t] = actions.reshape(-1, 1)
            rollout_buffer.log_probs[t] = log_probs.numpy()
            env.finished.clear()
            for g, (seat, action) in enumerate(zip(seats, actions, strict=True)):
                game = env.games[g]
                idx = base + g
                prev = game.pending[seat]
                if prev >= 0:
                    next_index[prev] = idx
                    rewards[prev] = game.credit.take(seat)
                game.pending[seat] = idx
                game.credit.credit(seat)
                game.steps[seat] += 1
                env.apply(g, int(action), rewards, dones)
            env.advance(rewards, dones)
            self.num_timesteps += n_games
            infos = list(env.finished)
            game_dones = np.array([True] * len(infos))
            callback.update_locals({"infos": infos, "dones": game_dones})
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, game_dones)
        for game in env.games:  # the open samples' rewards so far (the rest: the bootstrap)
            for seat, idx in enumerate(game.pending):
                if idx >= 0:
                    rewards[idx] = game.credit.take(seat)
        # bootstrap every open sample with its seat's value of the current position
        open_samples = [
            (g, seat, idx)
            for g, game in enumerate(env.games)
            for seat, idx in enumerate(game.pending)
            if idx >= 0 and not dones[idx]
        ]
        if open_samples:
            tail = np.stack([env.observation(g, seat) for g, seat, _ in open_samples])
            with torch.no_grad():
                tail_values = self.policy.predict_values(torch.as_tensor(tail)).numpy().ravel()
            for (_, _, idx), v in zip(open_samples, tail_values, strict=True):
                bootstrap[idx] = v
        # the chains of the last rollout (tests and diagnostics read them)
        self.last_rollout = {
            "seats": seat_of.reshape(n_rollout_steps, n_games),
            "next_index": next_index,
            "dones": dones,
            "rewards": rewards,
        }
        adv, returns = seat_advantages(
            rewards, values, dones, next_index, bootstrap, self.gamma, self.gae_lambda
        )
        shape = (n_rollout_steps, n_games)
        rollout_buffer.rewards[:] = rewards.reshape(shape)
        rollout_buffer.values[:] = values.reshape(shape)
        rollout_buffer.advantages[:] = adv.reshape(shape)
        rollout_buffer.returns[:] = returns.reshape(shape)
        rollout_buffer.episode_starts[:] = 0.0
        rollout_buffer.pos = rollout_buffer.buffer_size
        rollout_buffer.full = True
        callback.update_locals({"infos": [], "dones": np.zeros(0, dtype=bool)})
        callback.on_rollout_end()
        return True

    def _learner_inputs(self, env: SelfPlayGames, obs: np.ndarray, masks: np.ndarray) -> list[int]:
        """Encode every game's acting (learner) seat into ``obs`` and its legal actions into
        ``masks``; returns the seats."""
        seats = []
        for g in range(env.num_envs):
            seat = env.acting_seat(g)
            seats.append(seat)
            obs[g] = env.observation(g, seat)
            masks[g, env.legal_actions(g)] = True
        return seats

    def bench_hooks(self) -> list[tuple[Any, str, str]]:
        """Extra parts for ``training.ppo.sb3_bench``'s breakdown."""
        env = self.env
        hooks: list[tuple[Any, str, str]] = [(SelfPlayGames, "legal_actions", "env step")]
        if isinstance(env, SelfPlayGames):
            hooks.append((SelfPlayGames, "_snapshot_moves", "opponent moves"))
        return hooks
