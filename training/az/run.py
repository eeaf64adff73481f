"""The az training loop: warm start (optional), then iterations of self-play, learning,
checkpoint and (every few iterations) ladder evaluation.

A run directory holds::

    config.toml            the validated config (a resumed run reads it back)
    .lock                  the run lock (one writer per directory)
    checkpoints/latest.pt  the network, optimizer, counters and provenance after the last
                           finished iteration (written atomically)
    checkpoints/iter_<N>.pt  kept every run.keep_every iterations
    model.pt               the latest network alone (what ``az:path=...`` plays)
    replay/it<N>_<part>.npz  the replay buffer's shards
    progress.csv           one row per iteration (positions, games, losses, seconds)
    eval.csv               one row per evaluation and opponent (win rate, 95% Wilson interval)
    learning_curve.png     the evaluations so far
    tb/                    TensorBoard scalars

Killed at any moment, ``--resume`` continues from ``checkpoints/latest.pt``: at most the
iteration in progress is lost (its shards are deleted and it is played again).
"""

from __future__ import annotations

import math
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.atomic import csv_text
from agents.az.agent import AzAgent
from agents.az.checkpoint import CheckpointError, load_checkpoint, read_blob, save_checkpoint
from agents.az.network import AzNet, NetShape
from agents.az.search import SearchSettings
from agents.jobs import Backend, run_jobs
from agents.seeds import derive_seed
from training.common.config import Config, ConfigError, dumps
from training.common.ladder import append_csv, evaluate_ladder, format_table, plot_learning_curve
from training.common.outputs import RunLock, append_text
from training.common.provenance import git_commit
from training.common.run import begin_run, budget_spent, iterate, resolve_config

from .config import AZ, load_az_config, search_settings
from .learner import LossWeights, train_steps
from .replay import ReplayBuffer, drop_after, list_shards, read_shard, shard_games, write_shard
from .selfplay import TEACHER_KEYS, Positions, Worker, model_bytes, run_worker_job

TEACHER_JOB_GAMES = 1000
"""Most teacher games in one job (one replay shard, written when the job ends): a run killed
while playing them loses at most this many a worker (about 3 minutes of ``mc:sims=64``)."""

LOSS_PARTS = ("loss", "policy", "policy_kl", "outcome", "margin")
"""What :func:`training.az.learner.losses` reports (``progress.csv``'s loss columns)."""

PROGRESS_FIELDS = (
    "iteration", "wall_time", "games", "positions", "new_positions", "train_steps",
    *LOSS_PARTS, "selfplay_seconds", "train_seconds",
)  # fmt: skip


def net_shape(cfg: Config) -> NetShape:
    """The network of a config (its game and ``[net]``)."""
    return NetShape(num_players=cfg["env"]["num_players"], mode=cfg["env"]["mode"], **cfg["net"])


def play_settings(cfg: Config) -> dict[str, Any]:
    """The search settings stored with a model: how ``az`` plays it by default (no noise)."""
    s = search_settings(cfg, sims=cfg["search"]["play_sims"])
    s["gumbel_scale"] = 0.0
    return asdict(SearchSettings(**s))


def learner_device(name: str) -> torch.device:
    """The learner's device: ``"auto"`` is CUDA when present, else the CPU."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("run.device: cuda asked but torch sees no CUDA device")
    return torch.device(name)


def device_name(device: torch.device) -> str:
    """``"cpu"`` or the CUDA device's name (what provenance records)."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return "cpu"


def latest_checkpoint(run_dir: Path) -> Path:
    """Where a run keeps its last checkpoint (none yet: not begun, or killed before it)."""
    return run_dir / "checkpoints" / "latest.pt"


def teacher_differs(a: Config, b: Config) -> tuple[str, Any, Any] | None:
    """The first setting that makes two runs' teacher games differ (the game, the seed and
    the ``[warmstart]`` teacher keys), as ``(key, a's, b's)``; ``None`` when they play the
    same games."""
    for key in ("env.num_players", "env.mode", *(f"warmstart.{k}" for k in TEACHER_KEYS),
                "run.seed"):  # fmt: skip
        section, name = key.split(".")
        if a[section][name] != b[section][name]:
            return key, a[section][name], b[section][name]
    return None


class Run:
    """One run directory's training state (module docstring)."""

    def __init__(
        self,
        cfg: Config,
        run_dir: Path,
        command: str,
        backend: Backend | None = None,
        log: Callable[[str], None] = print,
    ) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        self.command = command
        self.backend = backend
        self.log = log
        torch.set_num_threads(cfg["run"]["torch_threads"])
        torch.manual_seed(cfg["run"]["seed"])
        self.shape = net_shape(cfg)
        self.device = learner_device(cfg["run"]["device"])
        self.net = AzNet(self.shape).to(self.device).eval()
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(),
            lr=cfg["train"]["learning_rate"],
            weight_decay=cfg["train"]["weight_decay"],
        )
        self.iteration = -1  # -1: nothing done; 0: the warm start done
        self.warm_steps = 0  # gradient steps of the warm start done (saved while it learns)
        self.games = 0
        self.positions = 0
        self.train_steps = 0
        self.seconds = 0.0  # wall time of the finished iterations, over every session
        self.starts: list[dict[str, Any]] = []
        self.init: dict[str, Any] = {}  # the model the network started from (warmstart.init)
        self.buffer = ReplayBuffer(cfg["replay"]["window"], cfg["replay"]["teacher_fraction"])
        self.weights = LossWeights(cfg["train"]["value_weight"], cfg["train"]["margin_loss"])
        self._writer: Any = None

    # ---------------------------------------------------------------- checkpoints
    @property
    def latest(self) -> Path:
        return latest_checkpoint(self.run_dir)

    def provenance(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "config": dumps(self.cfg),
            "git_commit": git_commit() or "",  # when written; each start's: ``starts``
            "iteration": self.iteration,
            "games": self.games,
            "positions": self.positions,
            "train_steps": self.train_steps,
            "train_seconds": round(self.seconds, 1),
            "device": device_name(self.device),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count() or 0},
            "torch": str(torch.__version__),
            "starts": self.starts,
            "init": self.init,
        }

    def save(self) -> None:
        """``checkpoints/latest.pt`` (and ``iter_<N>.pt`` when kept), then ``model.pt``."""
        extra = {
            "optimizer": self.optimizer.state_dict(),
            "progress": {
                "iteration": self.iteration,
                "games": self.games,
                "positions": self.positions,
                "train_steps": self.train_steps,
                "seconds": self.seconds,
                "warm_steps": self.warm_steps,
            },
        }
        prov = self.provenance()
        settings = play_settings(self.cfg)
        save_checkpoint(self.latest, self.net, settings, prov, extra)
        keep = self.cfg["run"]["keep_every"]
        if keep and self.iteration % keep == 0:
            save_checkpoint(
                self.latest.with_name(f"iter_{self.iteration:05d}.pt"), self.net, settings, prov
            )
        save_checkpoint(self.run_dir / "model.pt", self.net, settings, prov)

    def restore(self) -> bool:
        """Load ``latest.pt`` (False when the run has none yet)."""
        if not self.latest.is_file():
            return False
        blob = read_blob(self.latest)
        self.net.load_state_dict(blob["state_dict"])
        self.net.to(self.device)
        self.net.eval()
        self.optimizer.load_state_dict(blob["optimizer"])
        prog = blob["progress"]
        self.iteration = int(prog["iteration"])
        self.games = int(prog["games"])
        self.positions = int(prog["positions"])
        self.train_steps = int(prog["train_steps"])
        self.seconds = float(prog["seconds"])
        self.warm_steps = int(prog.get("warm_steps", 0))
        self.starts = list(blob["provenance"].get("starts", []))
        self.init = dict(blob["provenance"].get("init", {}))
        return True

    def initialize(self) -> None:
        """A new run's network: the weights of the model ``warmstart.init`` names (a model file
        or a directory holding ``model.pt``, of this run's game and ``[net]``), or the seeded
        random ones when it is empty. Its provenance, in short, goes into this run's."""
        path = self.cfg["warmstart"]["init"]
        if not path:
            return
        try:
            net, meta = load_checkpoint(path)
        except CheckpointError as exc:
            raise ConfigError(f"warmstart.init: {exc}") from None
        if net.shape != self.shape:
            raise ConfigError(
                f"warmstart.init: {path!r} is a network of shape {net.shape}; this run's game "
                f"and [net] make {self.shape}"
            )
        self.net.load_state_dict(net.state_dict())
        prov = meta.get("provenance", {})
        self.init = {"path": str(path)} | {
            k: prov[k] for k in ("command", "git_commit", "games", "positions", "train_steps")
            if k in prov
        }  # fmt: skip

    # ---------------------------------------------------------------- data
    def _jobs(
        self, kind: str, iteration: int, games: int, first: int, part0: int
    ) -> list[dict[str, Any]]:
        seed = self.cfg["run"]["seed"]
        seeds = [derive_seed(seed, iteration, g) for g in range(first, games)]
        size = self.cfg["selfplay"]["batch"] if kind == "selfplay" else 1
        if kind == "teacher":  # spread evenly over the workers, in jobs a kill loses little
            per = math.ceil(len(seeds) / (4 * self.cfg["selfplay"]["workers"]))
            size = max(1, min(per, TEACHER_JOB_GAMES))
        jobs: list[dict[str, Any]] = []
        weights = model_bytes(self.net) if kind == "selfplay" else b""
        s = self.cfg["search"]
        for start in range(0, len(seeds), size):
            job: dict[str, Any] = {
                "kind": kind,
                "iteration": iteration,
                "part": part0 + len(jobs),
                "seeds": seeds[start : start + size],
            }
            if kind == "selfplay":
                job.update(
                    weights=weights,
                    settings=search_settings(self.cfg),
                    fast_sims=s["fast_sims"],
                    full_fraction=s["full_fraction"],
                )
            else:
                ws = self.cfg["warmstart"]
                job.update({k: ws[k] for k in TEACHER_KEYS})
            jobs.append(job)
        return jobs

    def play(
        self, kind: str, iteration: int, games: int, first: int = 0, part0: int = 0
    ) -> list[Positions]:
        """Play the iteration's games ``first`` to ``games - 1`` (each its own seed) on the
        workers. Each job's positions are written to its replay shard (parts from ``part0``,
        in job order) as soon as the job is done, so a killed run keeps them (a resumed warm
        start plays only the teacher games it lacks: :meth:`teacher_games`), then added to
        the buffer; the jobs' positions, in job order."""
        jobs = self._jobs(kind, iteration, games, first, part0)

        def keep(result: tuple[int, Positions]) -> None:
            write_shard(self.run_dir, iteration, *result)

        results = run_jobs(
            jobs,
            Worker,
            (self.shape.to_dict(), 1),
            run_worker_job,
            workers=self.cfg["selfplay"]["workers"],
            on_result=keep,
            backend=self.backend,
        )
        for _, pos in results:
            self.buffer.add(pos, teacher=kind == "teacher")
        return [pos for _, pos in results]

    def teacher_games(self, games: int) -> list[Positions]:
        """The warm start's ``games`` teacher games, one seed each: those this run already
        holds (a resumed run killed while playing them: its iteration-0 shards from part 0 on,
        as far as they run without a gap), then those ``warmstart.reuse`` names (another
        run's iteration-0 shards, whole and in order, while they fit in ``games``), then the
        rest played: the games of a run that played them all at once (the shards may split
        them otherwise), one :class:`Positions` a shard."""
        parts: list[Positions] = []
        have = 0
        for it, part, path in list_shards(self.run_dir):
            if it != 0:
                continue
            pos = read_shard(path) if part == len(parts) else None
            if pos is None or have + pos.games > games:  # after a gap, or too many: replayed
                path.unlink()
                continue
            self.buffer.add(pos, teacher=True)
            parts.append(pos)
            have += pos.games
        if have:
            self.log(f"warm start: {have} teacher games already played, kept")
        source = self.cfg["warmstart"]["reuse"]
        if source and have < games:
            copied = self._copy_teacher(Path(source), games, have, parts)
            self.log(f"warm start: {copied} teacher games copied from {source}")
            have += copied
        if have < games:
            self.log(f"warm start: {games - have} teacher games to play")
            parts += self.play("teacher", 0, games, first=have, part0=len(parts))
        return parts

    def _copy_teacher(self, source: Path, games: int, have: int, parts: list[Positions]) -> int:
        """Copy the games ``have`` on of the run in ``source`` (its iteration-0 shards, whole
        and in order, while they fit in ``games``; its warm start had this run's teacher: the
        same games) as this run's next shards, appended to ``parts``; how many games."""
        saved = source / "config.toml"
        if not saved.is_file():
            raise ConfigError(f"warmstart.reuse: {source} holds no az run (no config.toml)")
        differs = teacher_differs(load_az_config(saved), self.cfg)
        if differs is not None:
            key, theirs, ours = differs
            raise ConfigError(
                f"warmstart.reuse: {source} has {key} = {theirs!r}, this run {ours!r}"
            )
        start, copied, part = 0, 0, 0
        for it, p, path in list_shards(source):
            if it != 0:
                continue
            if p != part:  # a gap (a job of a killed run): the games after it are unknown
                break
            part += 1
            if start < have:  # games this run holds already
                start += shard_games(path)
                continue
            pos = read_shard(path)
            if start != have + copied or have + copied + pos.games > games:
                break
            write_shard(self.run_dir, 0, len(parts), pos)
            self.buffer.add(pos, teacher=True)
            parts.append(pos)
            copied += pos.games
            start += pos.games
        return copied

    # ---------------------------------------------------------------- logging
    def writer(self) -> Any:
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.run_dir / "tb"))
        return self._writer

    def record(self, row: Mapping[str, Any]) -> None:
        path = self.run_dir / "progress.csv"
        line = {k: row.get(k, "") for k in PROGRESS_FIELDS}
        append_text(path, csv_text([line], PROGRESS_FIELDS, header=not path.exists()))
        tb = self.writer()
        for k in LOSS_PARTS:
            if row.get(k) != "":
                tb.add_scalar(f"train/{k}", float(row[k]), self.positions)
        tb.add_scalar("selfplay/games", self.games, self.positions)
        tb.flush()

    def evaluate(self) -> list[dict[str, Any]]:
        """The ladder evaluation of the latest model (``eval.csv``, TensorBoard, the plot)."""
        ev = self.cfg["eval"]
        agent = AzAgent(seed=ev["seed"], path=self.run_dir / "model.pt", sims=ev["sims"])
        env = {"num_players": self.shape.num_players, "mode": self.shape.mode}
        rows = evaluate_ladder(
            agent, ev["opponents"], ev["games"], seed=ev["seed"], env_kwargs=env,
            backend=self.backend if self.backend and self.backend.name == "ray" else None,
        )  # fmt: skip
        append_csv(self.run_dir / "eval.csv", self.positions, self.seconds, rows)
        tb = self.writer()
        for r in rows:
            tb.add_scalar(f"eval/win_rate_{r['opponent']}", r["win_rate"], self.positions)
        tb.flush()
        plot_learning_curve(self.run_dir / "eval.csv", self.run_dir / "learning_curve.png")
        self.log(f"evaluation after iteration {self.iteration} (az sims={ev['sims']}):")
        self.log(format_table(rows))
        return rows

    # ---------------------------------------------------------------- the loop
    def learn(self, iteration: int, new: int, epochs: float | None = None) -> dict[str, float]:
        """Gradient steps for ``new`` fresh positions (``train.sample_reuse`` draws each, or
        ``epochs`` passes)."""
        t = self.cfg["train"]
        reuse = t["sample_reuse"] if epochs is None else epochs
        steps = max(1, math.ceil(new * reuse / t["batch_size"]))
        rng = np.random.default_rng(derive_seed(self.cfg["run"]["seed"], iteration, 5))
        out = train_steps(
            self.net, self.optimizer, self.buffer, steps, t["batch_size"], rng, self.weights
        )
        self.train_steps += steps
        out["train_steps"] = steps
        return out

    def learn_warmstart(self, positions: int, start: float) -> tuple[dict[str, float], float]:
        """The warm start's ``warmstart.epochs`` passes over its ``positions``, a checkpoint
        (iteration -1, ``warm_steps`` done) every ``warmstart.save_every`` steps: a run killed
        while learning resumes from the last one (the steps of each block draw from their own
        seed, so the resumed run takes the same steps). It stops early, after a block, once
        ``run.max_minutes`` is spent (the warm start is then done). Returns the mean loss parts
        and the seconds since ``start`` already counted in ``self.seconds`` by those
        checkpoints."""
        ws, t = self.cfg["warmstart"], self.cfg["train"]
        steps = max(1, math.ceil(positions * ws["epochs"] / t["batch_size"]))
        block = ws["save_every"] or steps
        sums: dict[str, float] = {}
        done_before = self.warm_steps
        counted, mark = 0.0, start
        budget = 60 * self.cfg["run"]["max_minutes"]
        while self.warm_steps < steps:
            n = min(block, steps - self.warm_steps)
            seed = derive_seed(self.cfg["run"]["seed"], 0, 5, self.warm_steps)
            out = train_steps(
                self.net, self.optimizer, self.buffer, n, t["batch_size"],
                np.random.default_rng(seed), self.weights,
            )  # fmt: skip
            for k, v in out.items():
                sums[k] = sums.get(k, 0.0) + v * n
            self.warm_steps += n
            self.train_steps += n
            if budget and self.seconds + time.perf_counter() - mark >= budget:
                self.log(f"warm start: run.max_minutes spent after {self.warm_steps} steps")
                break
            if self.warm_steps < steps:
                now = time.perf_counter()
                self.seconds += now - mark
                counted += now - mark
                mark = now
                self.save()
                self.log(
                    f"warm start: {self.warm_steps}/{steps} steps, loss {out['loss']:.3f} "
                    f"(policy KL {out['policy_kl']:.3f}, outcome {out['outcome']:.3f})"
                )
        done = self.warm_steps - done_before
        # none done: resumed with fewer epochs than the steps already taken (the warm start ends)
        parts = {k: v / done for k, v in sums.items()} if done else dict.fromkeys(LOSS_PARTS, 0.0)
        parts["train_steps"] = done
        return parts, counted

    def step(self, iteration: int) -> None:
        """Play, learn, save one iteration (``iteration`` 0: the warm start)."""
        start = time.perf_counter()
        shards: Sequence[Positions]
        if iteration == 0 and self.warm_steps:  # resumed while learning: the games are there
            shards = self.buffer.teacher.shards
        elif iteration == 0:
            shards = self.teacher_games(self.cfg["warmstart"]["games"])
        else:
            shards = self.play("selfplay", iteration, self.cfg["selfplay"]["games"])
        games, positions = sum(p.games for p in shards), sum(len(p) for p in shards)
        played = time.perf_counter()
        if iteration == 0:
            parts, counted = self.learn_warmstart(positions, start)
        else:
            counted = 0.0
            parts = self.learn(iteration, positions)
        end = time.perf_counter()
        self.iteration = iteration
        self.games += games
        self.positions += positions
        self.seconds += end - start - counted
        self.save()
        row = {
            "iteration": iteration, "wall_time": round(self.seconds, 1), "games": self.games,
            "positions": self.positions, "new_positions": positions,
            **{k: round(v, 5) for k, v in parts.items()},
            "selfplay_seconds": round(played - start, 1), "train_seconds": round(end - played, 1),
        }  # fmt: skip
        self.record(row)
        self.log(
            f"iteration {iteration}: {games} games, {positions} positions "
            f"({row['selfplay_seconds']} s play, {row['train_seconds']} s learn), "
            f"loss {parts['loss']:.3f} (policy KL {parts['policy_kl']:.3f}, outcome "
            f"{parts['outcome']:.3f}, margin {parts['margin']:.3f}); total {self.games} games, "
            f"{self.positions} positions, {self.seconds / 60:.1f} min"
        )

    def done(self) -> bool:
        r = self.cfg["run"]
        return (
            budget_spent(self.iteration, r["iterations"], self.seconds, r["max_minutes"])
            is not None
        )

    def next_step(self) -> int:
        """The next iteration (:meth:`step`); its number."""
        self.step(self.iteration + 1)
        return self.iteration

    def train(self) -> None:
        """Iterate until the budget is spent (evaluating every ``eval.every`` iterations)."""
        every = self.cfg["eval"]["every"]
        if self.iteration < 0:
            if self.cfg["warmstart"]["games"]:
                self.step(0)
                if every:
                    self.evaluate()
            else:
                self.iteration = 0
        iterate(self.next_step, self.done, [(every, lambda _: self.evaluate())])
        if self._writer is not None:
            self._writer.close()


def _quiet(_: str) -> None:
    """No line."""


def start_run(
    config: str | Path | None,
    overrides: Sequence[str],
    run_dir: str | Path,
    resume: bool,
    backend: Backend | None = None,
    command: str | None = None,
    log: Callable[[str], None] = print,
) -> Run:
    """Train in ``run_dir`` (new, or ``resume``), holding the run lock throughout; the run."""
    rd = Path(run_dir)
    cmd = command if command is not None else " ".join(["python -m training.az", *sys.argv[1:]])
    with RunLock(rd):
        cfg = resolve_config(AZ, rd, resume, config, overrides, config_on_resume=True, log=log)

        def prepare(old: Config | None) -> None:
            fresh = not latest_checkpoint(rd).is_file()
            if (
                old is not None
                and fresh
                and (teacher_differs(old, cfg) or not cfg["warmstart"]["games"])
            ):
                # killed before its first checkpoint, and its teacher games are not this
                # config's: gone before config.toml names the new settings
                drop_after(rd, -1)

        # az's log says where a run resumes instead of what its config changes
        begin_run(AZ, rd, cfg, resume, prepare=prepare, log=_quiet)
        run = Run(cfg, rd, cmd, backend, log)
        if resume and run.restore():
            # learning the warm start (iteration -1, steps done): its teacher games stay
            dropped = drop_after(rd, 0 if run.warm_steps and run.iteration < 0 else run.iteration)
            run.buffer = ReplayBuffer.load(
                rd, cfg["replay"]["window"], cfg["replay"]["teacher_fraction"]
            )
            where = (
                f"the warm start's step {run.warm_steps}"
                if run.iteration < 0
                else f"iteration {run.iteration}"
            )
            log(
                f"resumed {rd} after {where} ({run.games} games, "
                f"{run.positions} positions; {dropped} unfinished shards dropped, "
                f"{run.buffer.size} positions in the replay window, "
                f"{run.buffer.teacher.size} teacher positions)"
            )
        else:
            if resume:  # killed before its first checkpoint: it starts again, keeping the
                # teacher games it played (those of other settings are gone: above)
                drop_after(rd, 0)
            run.initialize()
        run.starts.append(
            {
                "command": cmd,
                "time": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                "git_commit": git_commit() or "",  # the code it (re)started with
            }
        )
        if backend is not None:
            with backend.session(cfg["selfplay"]["workers"]):
                run.train()
        else:
            run.train()
        return run


__all__ = ["ConfigError", "Run", "net_shape", "play_settings", "start_run"]
