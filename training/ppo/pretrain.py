"""Behaviour-cloning warm start: imitate a baseline agent before PPO (``[pretrain]`` section).

PPO from scratch spends most of a short budget learning what a one-ply search sees at once
(which placement scores). Starting from a policy that imitates a stronger baseline gets there
in minutes; PPO (against the baselines and its own snapshots) then improves on it.

1. **Data**: ``games`` games of the ``teacher`` (``agents.make_agent`` name, e.g. ``"heuristic"``)
   against itself, in ``workers`` processes (or Ray actors: ``backend``, ``address``), on the
   training game (``[env]``: players, mode, ``auto_resolve``, rewards). Every decision of
   every seat is a sample: the flat observation from that seat's view (stored as float16), its
   legal-action mask, the teacher's action, and the discounted return the seat went on to
   receive with the training rewards (``gamma``, win + dense shaping), the value target. With
   probability ``explore`` the move actually played is a random legal one instead of the
   teacher's (the label stays the teacher's), so the data also covers positions the teacher
   would not reach. The heuristic teacher also records its tie
   set (``best``): the moves it valued as high as the one it drew at random among them.
2. **Cloning**: ``epochs`` passes of minibatch Adam on ``-log pi(teacher action | obs, mask)``
   (``target = "tie_set"``: ``-log pi(tie set)``, the probability of any equally valued move)
   ``+ vf_coef x (V(obs) - return)^2`` for the PPO policy (same network, same masks); with
   ``value_to_trunk = false`` the value term trains only the critic's own layers. Why these
   choices: training/README.md, "Why imitation was weak" (``python -m training.imitation``).

Logged to TensorBoard as ``pretrain/*`` (loss, accuracy = the policy's most likely action is the
teacher's, on the last 10% of the games held out).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents.jobs import Backend, run_jobs
from agents.runner import GameRunner, GameSetup
from agents.seeds import agent_seed, derive_seed, game_seed
from training.common.opponents import make_baseline
from training.common.outputs import atomic_path, save_model, write_json
from training.common.progress import progress
from training.ppo.teacher_games import RecordingHeuristic, TeacherGame, concatenate_samples, unpack


class _TeacherTable:
    """One process's game runner and teacher agents (one per seat), kept between games."""

    def __init__(self, teacher: str, env_cfg: Mapping[str, Any], seed: int) -> None:

        self.runner = GameRunner(GameSetup.from_config(env_cfg))
        n = self.runner.setup.num_players
        # the heuristic teacher also tells its tie sets (the same moves: same Generator draws)
        make = RecordingHeuristic if teacher == "heuristic" else partial(make_baseline, teacher)
        self.agents = [make(seed=derive_seed(seed, 0, s)) for s in range(n)]
        self.recording = teacher == "heuristic"
        self.teacher = teacher

    def play(
        self, game: int, seed: int, gamma: float, explore: float = 0.0
    ) -> dict[str, np.ndarray]:
        n = len(self.agents)
        rng = np.random.default_rng(derive_seed(seed, game, 99))
        record = TeacherGame(game, n, explore, rng, self.agents if self.recording else None)
        seeds = [agent_seed(seed, game, s) for s in range(n)]
        names = [self.teacher] * n
        self.runner.play(self.agents, game_seed(seed, game), seeds, names, hook=record)
        return record.samples(gamma)


def _play(
    table: _TeacherTable, job: tuple[int, int, float, float, float | None]
) -> dict[str, np.ndarray] | None:
    game, seed, gamma, explore, deadline = job
    if deadline is not None and time.time() > deadline and game > 0:
        return None
    return table.play(game, seed, gamma, explore)


def play_teacher_games(
    teacher: str,
    game_ids: list[int],
    seed: int,
    env_cfg: Mapping[str, Any],
    gamma: float,
    explore: float = 0.0,
    deadline: float | None = None,
) -> dict[str, np.ndarray]:
    """Samples from the games ``game_ids`` (see the module docstring) played by
    :class:`agents.runner.GameRunner` (seeds from :mod:`agents.runner`; the exploration's
    Generator from ``derive_seed(seed, game, 99)``); with a ``deadline`` (``time.time()``
    value) no game is started after it. Arrays: ``obs`` (float16, (N, D)), ``mask`` (packed
    bits, (N, ceil(A/8))), ``action`` (int64), ``ret`` (float32), ``game`` (int32)."""
    table = _TeacherTable(teacher, env_cfg, seed)
    return concatenate_samples(
        [_play(table, (g, seed, gamma, explore, deadline)) for g in game_ids]
    )


class ShardWriter:
    """Keeps the teacher games as they finish in ``directory/games_<first>.npz`` shards
    (compressed, written atomically, every ``every_s`` seconds), so that an interrupted warm
    start keeps its games: :func:`read_shards` reads them back on ``--resume``."""

    def __init__(self, directory: Path, spent_s: float = 0.0, every_s: float = 20.0) -> None:
        self.directory = directory
        self.every_s = every_s
        self.spent_s = spent_s  # collection seconds of earlier sessions
        self.start = time.time()
        self.last = self.start
        self.pending: list[dict[str, np.ndarray]] = []

    def add(self, part: dict[str, np.ndarray] | None) -> None:
        if part is not None:
            self.pending.append(part)
        if time.time() - self.last >= self.every_s:
            self.flush()

    def flush(self) -> None:
        self.last = time.time()
        if not self.pending:
            return
        data = concatenate_samples(self.pending)  # type: ignore[arg-type]
        self.pending = []
        seconds = np.float64(self.spent_s + self.last - self.start)
        path = self.directory / f"games_{int(data['game'].min())}.npz"
        with atomic_path(path) as tmp:
            np.savez_compressed(tmp, seconds=seconds, **data)  # type: ignore[arg-type]


def read_shards(directory: Path) -> tuple[dict[str, np.ndarray], float]:
    """The samples of the shards in ``directory`` (game order) and the collection seconds they
    took; an unreadable shard (a crash mid-write cannot make one, a full disk can) is skipped
    with a message."""
    parts: list[dict[str, np.ndarray] | None] = []
    seconds = 0.0
    for path in sorted(directory.glob("games_*.npz")):
        try:
            with np.load(path) as f:
                seconds = max(seconds, float(f["seconds"]))
                parts.append({k: f[k] for k in f.files if k != "seconds"})
        except (OSError, ValueError, KeyError, EOFError) as e:
            print(f"pretrain: skipping the unreadable shard {path} ({e})", flush=True)
    return _in_game_order(concatenate_samples(parts)), seconds


def collect(
    teacher: str,
    games: int,
    seed: int,
    env_cfg: Mapping[str, Any],
    gamma: float,
    explore: float = 0.0,
    workers: int = 1,
    minutes: float = 0.0,
    shards: Path | None = None,
    backend: Backend | None = None,
) -> dict[str, np.ndarray]:
    """The samples of ``games`` teacher games, in game order (independent of ``workers`` and
    of the ``backend``: processes on this machine by default, or Ray); with
    ``minutes > 0`` the games started within that wall time (then it depends on the speed;
    game 0 always plays, so there are samples). With ``shards`` (a directory) the games are
    kept there as they finish and the games already there are not played again (their wall
    time counts against ``minutes``)."""
    done, spent = (
        read_shards(shards)
        if shards is not None and shards.is_dir()
        else (concatenate_samples([]), 0.0)
    )
    played = set(np.unique(done["game"]).tolist())
    if played:
        print(f"pretrain: {len(played)} teacher games kept from the interrupted run", flush=True)
    if minutes > 0 and spent >= 60 * minutes:
        return done
    deadline = time.time() + 60 * minutes - spent if minutes > 0 else None
    jobs = [(g, seed, gamma, explore, deadline) for g in range(games) if g not in played]
    table_args = (teacher, dict(env_cfg), seed)
    writer = None
    if shards is not None:
        shards.mkdir(parents=True, exist_ok=True)
        writer = ShardWriter(shards, spent)
    bar = progress(len(jobs), f"teacher games ({teacher})", unit="game")

    def on_result(part: dict[str, np.ndarray] | None) -> None:
        bar.update(1)
        if part is None and deadline is not None:
            bar.set_postfix_str("time budget spent", refresh=False)
        if writer is not None:
            writer.add(part)

    try:
        parts = run_jobs(
            jobs,
            _TeacherTable,
            table_args,
            _play,
            workers,
            on_result,
            context="forkserver",
            backend=backend,
        )
    finally:
        bar.close()
        if writer is not None:
            writer.flush()
    return _in_game_order(
        concatenate_samples([done, *parts]) if played else concatenate_samples(parts)
    )


def _in_game_order(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    order = np.argsort(data["game"], kind="stable")
    return {k: v[order] for k, v in data.items()}


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
    start_epoch: int = 0,
    on_epoch: Callable[[int, dict[str, float]], None] | None = None,
    split: tuple[np.ndarray, np.ndarray] | None = None,
    target: str = "action",
    lr_schedule: str = "constant",
    value_to_trunk: bool = True,
) -> dict[str, float]:
    """Fit ``policy`` (an SB3 maskable policy) to the teacher's actions and the returns. Returns
    the final metrics (``loss``, ``value_loss``, ``accuracy``, ``holdout_accuracy``).
    ``start_epoch``: epochs already done (a resumed warm start: the minibatch order stays that
    of an uninterrupted one); ``on_epoch(epochs done, metrics)`` after each epoch."""
    import torch

    if target not in TARGETS:
        raise ValueError(f"target: expected one of {TARGETS}, got {target!r}")
    if target == "tie_set" and "best" not in data:
        raise ValueError("target: 'tie_set' needs the teacher's tie sets ('best') in the data")
    n_actions = int(policy.action_space.n)
    train_idx, test_idx = split if split is not None else holdout_split(data["game"], holdout)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    batches = -(-len(train_idx) // batch_size)
    total_steps = max(1, epochs * batches)
    if lr_schedule == "cosine":  # to 0 at the last step of ``epochs`` (resumes where it was)
        sched: Any = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda k: 0.5 * (1 + np.cos(np.pi * min(k, total_steps) / total_steps))
        )
        for _ in range(start_epoch * batches):
            sched.step()
    elif lr_schedule == "constant":
        sched = None
    else:
        raise ValueError(f"lr_schedule: expected 'constant' or 'cosine', got {lr_schedule!r}")
    policy.set_training_mode(True)

    def batch(idx: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        obs = torch.as_tensor(data["obs"][idx].astype(np.float32))
        mask = torch.as_tensor(unpack(data["mask"][idx], n_actions))
        if target == "tie_set":
            label = torch.as_tensor(unpack(data["best"][idx], n_actions))
        else:
            label = torch.as_tensor(data["action"][idx])
        return obs, mask.bool(), label, torch.as_tensor(data["ret"][idx])

    for _ in range(start_epoch):
        rng.permutation(train_idx)
    metrics: dict[str, float] = {}
    step = 0
    bar = progress((epochs - start_epoch) * batches, "cloning", unit="batch")
    for epoch in range(start_epoch, epochs):
        perm = rng.permutation(train_idx)
        losses: list[float] = []
        vlosses: list[float] = []
        for i in range(0, len(perm), batch_size):
            obs, mask, label, ret = batch(perm[i : i + batch_size])
            log_probs, values = policy_outputs(policy, obs, mask, value_to_trunk)
            vloss = torch.nn.functional.mse_loss(values, ret)
            loss = imitation_loss(log_probs, label) + vf_coef * vloss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            opt.step()
            if sched is not None:
                sched.step()
            losses.append(float(loss.detach()))
            vlosses.append(float(vloss.detach()))
            step += 1
            bar.update(1)
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
        if on_epoch is not None:
            on_epoch(epoch + 1, metrics)
        if deadline is not None and time.time() > deadline:
            print("pretrain: time budget spent", flush=True)
            break
    bar.close()
    policy.set_training_mode(False)
    return metrics


TARGETS = ("action", "tie_set")


def holdout_split(games: np.ndarray, holdout: float) -> tuple[np.ndarray, np.ndarray]:
    """``(train, held-out)`` sample indices: the games from the ``1 - holdout`` quantile of
    the game numbers on are held out (none when ``holdout`` is 0 or there are few samples)."""
    n = len(games)
    cut_game = np.quantile(games, 1 - holdout) if holdout > 0 and n > 10 else games.max() + 1
    return np.flatnonzero(games < cut_game), np.flatnonzero(games >= cut_game)


def policy_outputs(
    policy: Any, obs: Any, mask: Any, value_to_trunk: bool = True
) -> tuple[Any, Any]:
    """``(log-probabilities (B, actions), values (B,))`` of an SB3 maskable policy: one pass
    through the network (``evaluate_actions`` without picking the actions); illegal actions
    get ``-inf``-like log-probabilities. With ``value_to_trunk=False`` the values' gradient
    stops at the shared features extractor (it trains the critic's own layers only)."""
    features = policy.extract_features(obs)
    pi_features, vf_features = features if not policy.share_features_extractor else (features,) * 2
    latent_pi = policy.mlp_extractor.forward_actor(pi_features)
    if not value_to_trunk and policy.share_features_extractor:
        vf_features = vf_features.detach()
    latent_vf = policy.mlp_extractor.forward_critic(vf_features)
    dist = policy._get_action_dist_from_latent(latent_pi)
    dist.apply_masking(mask)
    return dist.distribution.logits, policy.value_net(latent_vf).flatten()


def imitation_loss(log_probs: Any, label: Any) -> Any:
    """Mean negative log-likelihood of the teacher: ``label`` is the teacher's action
    (``(B,)``, int) or its tie set (``(B, actions)``, 0/1; the probability of the set: the
    teacher draws among equally valued moves at random, so which one it drew is noise)."""
    import torch

    if label.dim() == 1:
        return -log_probs.gather(1, label[:, None]).mean()
    in_set = torch.where(label.bool(), log_probs, torch.full_like(log_probs, -1e9))
    return -torch.logsumexp(in_set, dim=1).mean()


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
            mask = unpack(data["mask"][j], n_actions)
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
    work_dir: Path | None = None,
) -> dict[str, Any]:
    """Collect the teacher's games and clone them into ``model.policy`` (``[pretrain]``).

    With ``work_dir`` the warm start can be interrupted and run again to continue: the teacher
    games are kept there as they finish (``games/``) and the cloned model after every epoch
    (``cloning.zip`` + ``cloning.json``); a second call plays only the missing games and
    clones from the last finished epoch (with the remaining time budgets)."""
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
            shards=work_dir / "games" if work_dir is not None else None,
            backend=Backend(cfg["backend"], cfg["address"] or None),
        )
        played = len(np.unique(data["game"]))
        print(
            f"pretrain: {len(data['action'])} decisions from {played} {cfg['teacher']} games "
            f"in {time.time() - t0:.0f} s",
            flush=True,
        )
        if save_to is not None:
            with atomic_path(save_to) as tmp:
                np.savez(tmp, **data)  # type: ignore[arg-type]
    target = cfg["target"]
    if target == "tie_set" and "best" not in data:  # a teacher other than the heuristic
        print("pretrain: the samples have no tie sets; cloning the teacher's moves", flush=True)
        target = "action"
    t1 = time.time()
    start_epoch, spent, metrics = _resume_cloning(model, work_dir)
    budget = cfg["max_minutes"] * 60 - spent
    deadline = t1 + budget if cfg["max_minutes"] > 0 else None

    def keep_epoch(epoch: int, epoch_metrics: dict[str, float]) -> None:
        assert work_dir is not None
        save_model(model, work_dir / "cloning.zip")
        seconds = spent + time.time() - t1
        write_json(work_dir / "cloning.json", {"epoch": epoch, "seconds": seconds, **epoch_metrics})

    if start_epoch < cfg["epochs"] and (deadline is None or budget > 0):
        metrics = behaviour_clone(
            model.policy,
            data,
            cfg["epochs"],
            cfg["batch_size"],
            cfg["learning_rate"],
            vf_coef=cfg["vf_coef"],
            seed=seed,
            logger=logger,
            target=target,
            lr_schedule=cfg["lr_schedule"],
            value_to_trunk=cfg["value_to_trunk"],
            deadline=deadline,
            start_epoch=start_epoch,
            on_epoch=keep_epoch if work_dir is not None else None,
        )
    metrics.update(
        {
            "samples": int(len(data["action"])),
            "collect_seconds": round(t1 - t0, 1),
            "clone_seconds": round(time.time() - t1, 1),
        }
    )
    return metrics


def _resume_cloning(model: Any, work_dir: Path | None) -> tuple[int, float, dict[str, Any]]:
    """The epochs done, their seconds and last metrics of an interrupted cloning in
    ``work_dir`` (its weights loaded into ``model``), or ``0, 0.0, {}``."""
    if work_dir is None or not (work_dir / "cloning.json").exists():
        return 0, 0.0, {}
    import json

    from sb3_contrib import MaskablePPO

    try:
        meta = json.loads((work_dir / "cloning.json").read_text())
        saved = MaskablePPO.load(str(work_dir / "cloning.zip"), device="cpu")
    except (OSError, ValueError, KeyError) as e:
        print(f"pretrain: cannot read the interrupted cloning ({e}); cloning again", flush=True)
        return 0, 0.0, {}
    model.policy.load_state_dict(saved.policy.state_dict())
    epoch, seconds = int(meta.pop("epoch")), float(meta.pop("seconds"))
    print(f"pretrain: continuing the cloning after epoch {epoch} ({seconds:.0f} s)", flush=True)
    return epoch, seconds, meta
