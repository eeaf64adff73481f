"""Behaviour-cloning warm start: imitate a baseline agent before PPO (``[pretrain]`` section).

PPO from scratch spends most of a short budget learning what a one-ply search sees at once
(which placement scores). Starting from a policy that imitates a stronger baseline gets there
in minutes; PPO (against the baselines and its own snapshots) then improves on it.

1. **Data**: ``games`` games of the ``teacher`` (``agents.make_agent`` name, e.g. ``"heuristic"``)
   against itself, in ``workers`` processes, on the training game (``[env]``: players, mode,
   ``auto_resolve``, rewards). Every decision of every seat is a sample: the flat observation from
   that seat's view (stored as float16), its legal-action mask, the teacher's action, and the
   discounted return the seat went on to receive with the training rewards (``gamma``, win +
   dense shaping), the value target. With probability ``explore`` the move actually played is a
   random legal one instead of the teacher's (the label stays the teacher's), so the data also
   covers positions the teacher would not reach.
2. **Cloning**: ``epochs`` passes of minibatch Adam on ``-log pi(teacher action | obs, mask)``
   ``+ vf_coef x (V(obs) - return)^2`` for the PPO policy (same network, same masks).

Logged to TensorBoard as ``pretrain/*`` (loss, accuracy = the policy's most likely action is the
teacher's, on the last 10% of the games held out).
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Mapping
from typing import Any

import numpy as np


def _seed(*entropy: int) -> int:
    return int(np.random.SeedSequence(list(entropy)).generate_state(1, np.uint64)[0]) >> 1


def play_teacher_games(
    teacher: str,
    game_ids: list[int],
    seed: int,
    env_cfg: Mapping[str, Any],
    gamma: float,
    explore: float = 0.0,
    deadline: float | None = None,
) -> dict[str, np.ndarray]:
    """Samples from the games ``game_ids`` (see the module docstring); with a ``deadline``
    (``time.time()`` value) no game is started after it. Arrays: ``obs``
    (float16, (N, D)), ``mask`` (packed bits, (N, ceil(A/8))), ``action`` (int64), ``ret``
    (float32), ``game`` (int32)."""
    from moonriver_env.aec import raw_env

    from .selfplay import make_baseline

    kwargs: dict[str, Any] = {
        "num_players": int(env_cfg["num_players"]),
        "mode": env_cfg["mode"],
        "reward": env_cfg.get("reward", "win"),
        "dense_reward": float(env_cfg.get("dense_reward", 0.0)),
        "auto_resolve": bool(env_cfg.get("auto_resolve", False)),
    }
    if kwargs["mode"] == "legends":
        kwargs["scenario"] = env_cfg.get("scenario", "random")
    env = raw_env(**kwargs, obs_type="dict")
    n = kwargs["num_players"]
    agents = [make_baseline(teacher, seed=_seed(seed, 0, s)) for s in range(n)]
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    game_l: list[int] = []
    for g in game_ids:
        if deadline is not None and time.time() > deadline:
            break
        rng = np.random.default_rng(_seed(seed, g, 99))
        for s, agent in enumerate(agents):
            agent.reset(seed=_seed(seed, g, 1 + s))
        env.reset(seed=_seed(seed, g))
        # per seat: indices (into this game's samples) of its decisions and rewards after each
        decisions: list[list[int]] = [[] for _ in range(n)]
        rewards: list[list[float]] = [[] for _ in range(n)]
        start = len(act_l)
        state = env.state
        assert state is not None
        while not state.is_terminal:
            agent_name = env.agent_selection
            seat = env.agent_name_mapping[agent_name]
            ob = env.observe(agent_name)
            a = int(agents[seat].act(ob, env))
            legal = np.flatnonzero(ob["action_mask"])
            obs_l.append(ob["observation"].astype(np.float16))
            mask_l.append(np.packbits(ob["action_mask"].astype(bool)))
            act_l.append(a)
            game_l.append(g)
            decisions[seat].append(len(act_l) - 1)
            rewards[seat].append(0.0)
            played = (
                a
                if explore <= 0 or rng.random() >= explore
                else int(legal[rng.integers(legal.size)])
            )
            env.step(played)
            for other, name in enumerate(env.possible_agents):
                r = float(env.rewards.get(name, 0.0))
                if r and rewards[other]:
                    rewards[other][-1] += r
        ret_l.extend([0.0] * (len(act_l) - start))
        for s in range(n):
            acc = 0.0
            for idx, r in zip(reversed(decisions[s]), reversed(rewards[s]), strict=True):
                acc = r + gamma * acc
                ret_l[idx] = acc
    return {
        "obs": np.stack(obs_l) if obs_l else np.zeros((0, 0), np.float16),
        "mask": np.stack(mask_l) if mask_l else np.zeros((0, 0), np.uint8),
        "action": np.asarray(act_l, dtype=np.int64),
        "ret": np.asarray(ret_l, dtype=np.float32),
        "game": np.asarray(game_l, dtype=np.int32),
    }


def _worker(
    args: tuple[str, list[int], int, dict[str, Any], float, float, float | None],
) -> dict[str, np.ndarray]:
    teacher, ids, seed, env_cfg, gamma, explore, deadline = args
    import torch

    torch.set_num_threads(1)
    return play_teacher_games(teacher, ids, seed, env_cfg, gamma, explore, deadline)


def collect(
    teacher: str,
    games: int,
    seed: int,
    env_cfg: Mapping[str, Any],
    gamma: float,
    explore: float = 0.0,
    workers: int = 1,
    minutes: float = 0.0,
) -> dict[str, np.ndarray]:
    """The samples of ``games`` teacher games, in game order (independent of ``workers``); with
    ``minutes > 0`` the games started within that wall time (then it depends on the speed)."""
    deadline = time.time() + 60 * minutes if minutes > 0 else None
    chunks = [list(range(w, games, workers)) for w in range(max(1, workers))]
    chunks = [c for c in chunks if c]
    jobs = [(teacher, c, seed, dict(env_cfg), gamma, explore, deadline) for c in chunks]
    if len(jobs) > 1:
        with mp.get_context("forkserver").Pool(len(jobs)) as pool:
            parts = pool.map(_worker, jobs)
    else:
        parts = [_worker(j) for j in jobs]
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    del parts
    order = np.argsort(data["game"], kind="stable")
    if not np.array_equal(order, np.arange(order.size)):
        for k in list(data):  # one array at a time (the observations are large)
            data[k] = data[k][order]
    return data


def behaviour_clone(
    policy: Any,
    data: Mapping[str, np.ndarray],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float = 0.5,
    holdout: float = 0.1,
    seed: int = 0,
    logger: Any = None,
    max_grad_norm: float = 0.5,
    deadline: float | None = None,
) -> dict[str, float]:
    """Fit ``policy`` (an SB3 maskable policy) to the teacher's actions and the returns. Returns
    the final metrics (``loss``, ``value_loss``, ``accuracy``, ``holdout_accuracy``)."""
    import torch

    n = len(data["action"])
    n_actions = int(policy.action_space.n)
    games = data["game"]
    cut_game = np.quantile(games, 1 - holdout) if holdout > 0 and n > 10 else games.max() + 1
    train_idx = np.flatnonzero(games < cut_game)
    test_idx = np.flatnonzero(games >= cut_game)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)

    def batch(idx: np.ndarray) -> tuple[torch.Tensor, np.ndarray, torch.Tensor, torch.Tensor]:
        obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
        mask = np.unpackbits(data["mask"][idx], axis=1, count=n_actions).astype(bool)
        return obs, mask, torch.as_tensor(data["action"][idx]), torch.as_tensor(data["ret"][idx])

    metrics: dict[str, float] = {}
    step = 0
    for epoch in range(epochs):
        perm = rng.permutation(train_idx)
        losses: list[float] = []
        vlosses: list[float] = []
        for i in range(0, len(perm), batch_size):
            obs, mask, act, ret = batch(perm[i : i + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=mask)
            vloss = torch.nn.functional.mse_loss(values.flatten(), ret)
            loss = -log_prob.mean() + vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            opt.step()
            losses.append(float(loss.detach()))
            vlosses.append(float(vloss.detach()))
            step += 1
            if deadline is not None and time.time() > deadline:
                break
        metrics = {
            "loss": float(np.mean(losses)),
            "value_loss": float(np.mean(vlosses)),
            "epoch": epoch + 1,
        }
        metrics["holdout_accuracy"] = (
            accuracy(policy, data, test_idx, batch_size) if len(test_idx) else float("nan")
        )
        policy.set_training_mode(True)
        if logger is not None:
            for k, v in metrics.items():
                logger.record(f"pretrain/{k}", v)
            logger.dump(epoch + 1)
        print(
            f"pretrain epoch {epoch + 1}/{epochs}: loss {metrics['loss']:.3f}, value loss "
            f"{metrics['value_loss']:.3f}, held-out accuracy {metrics['holdout_accuracy']:.3f}",
            flush=True,
        )
        if deadline is not None and time.time() > deadline:
            print("pretrain: time budget spent", flush=True)
            break
    policy.set_training_mode(False)
    return metrics


def accuracy(
    policy: Any, data: Mapping[str, np.ndarray], idx: np.ndarray, batch_size: int = 512
) -> float:
    """Fraction of the samples ``idx`` whose most likely legal action is the teacher's."""
    import torch

    policy.set_training_mode(False)
    n_actions = int(policy.action_space.n)
    hits = 0
    with torch.no_grad():
        for i in range(0, len(idx), batch_size):
            j = idx[i : i + batch_size]
            obs = torch.as_tensor(data["obs"][j].astype(np.float32))
            mask = np.unpackbits(data["mask"][j], axis=1, count=n_actions).astype(bool)
            dist = policy.get_distribution(obs, action_masks=mask)
            pred = dist.distribution.probs.argmax(dim=1).numpy()
            hits += int((pred == data["action"][j]).sum())
    return hits / max(len(idx), 1)


def pretrain(
    model: Any,
    cfg: Mapping[str, Any],
    env_cfg: Mapping[str, Any],
    gamma: float,
    seed: int,
    logger: Any = None,
    save_to: Any = None,
) -> dict[str, Any]:
    """Collect the teacher's games and clone them into ``model.policy`` (``[pretrain]``)."""
    t0 = time.time()
    if cfg.get("data"):
        with np.load(cfg["data"]) as f:
            data = {k: f[k] for k in f.files}
        print(f"pretrain: {len(data['action'])} decisions from {cfg['data']}", flush=True)
    else:
        data = collect(
            cfg["teacher"],
            cfg["games"],
            seed,
            env_cfg,
            gamma,
            cfg["explore"],
            max(1, cfg["workers"]),
            cfg["collect_minutes"],
        )
        played = len(np.unique(data["game"]))
        print(
            f"pretrain: {len(data['action'])} decisions from {played} {cfg['teacher']} games "
            f"in {time.time() - t0:.0f} s",
            flush=True,
        )
        if save_to is not None:
            np.savez(save_to, **data)
    t1 = time.time()
    deadline = t1 + cfg["max_minutes"] * 60 if cfg["max_minutes"] > 0 else None
    metrics = behaviour_clone(
        model.policy,
        data,
        cfg["epochs"],
        cfg["batch_size"],
        cfg["learning_rate"],
        vf_coef=cfg["vf_coef"],
        seed=seed,
        logger=logger,
        deadline=deadline,
    )
    metrics.update(
        {
            "samples": int(len(data["action"])),
            "collect_seconds": round(t1 - t0, 1),
            "clone_seconds": round(time.time() - t1, 1),
        }
    )
    return metrics
