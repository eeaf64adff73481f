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

import contextlib
import dataclasses
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.atomic import csv_text
from agents.az.checkpoint import (
    CheckpointError,
    load_checkpoint,
    save_checkpoint,
)
from agents.az.network import AzNet, NetShape, spread
from agents.az.tables import to_layout
from agents.jobs import Backend, run_jobs
from agents.seeds import derive_seed
from moonriver_env.games import GameSpec, parse_game
from training.common.config import Config, ConfigError, dumps
from training.common.outputs import OutputError, RunLock, append_text
from training.common.progress import phase
from training.common.provenance import git_commit
from training.common.run import begin_run, budget_fraction, budget_spent, iterate, resolve_config

from .config import (
    AZ,
    game_spec,
    retired_overrides,
    search_settings,
    selfplay_play_settings,
    selfplay_settings,
    settings_dict,
    table_specs,
)
from .evaluate import evaluate_model, write_evaluation
from .learner import (
    LOSS_PARTS,
    load_optimizer,
    loss_weights,
    optimizer_for,
    overlapped,
    steps_for,
    stop_check,
    train_steps,
)
from .replay import REPLAY_DIR, ReplayBuffer, drop_after, prune_shards, write_shard
from .selfplay import (
    JobWorker,
    PlaySettings,
    Positions,
    native_net,
    native_template,
    play_threads,
    run_job,
)

TEACHER_SHARD_GAMES = 2000
"""Teacher games per replay shard (written when they are played): a run killed while playing
them loses at most this many."""

SELFPLAY_PART_GAMES = 1024
"""Self-play games per shard when the run has a time budget (``run.max_minutes``): the budget
is checked after each part, so an iteration of many games stops once it is spent (one part of
the default 512 games: such iterations are played as before)."""

PROGRESS_FIELDS = (
    "iteration", "wall_time", "games", "positions", "new_positions", "train_steps",
    *LOSS_PARTS, "selfplay_seconds", "train_seconds", "games_per_hour", "evals_per_second",
)  # fmt: skip


def progress_columns(path: Path) -> tuple[str, ...]:
    """The columns of a run's ``progress.csv``: :data:`PROGRESS_FIELDS` for a new file, the
    file's own header when it has one (a run begun with other columns, such as the policy head's
    loss, keeps its file's shape: a column it no longer fills stays empty)."""
    if not path.is_file():
        return PROGRESS_FIELDS
    with path.open(encoding="utf-8", errors="replace") as f:
        header = tuple(f.readline().strip().split(","))
    return header if "iteration" in header else PROGRESS_FIELDS


def net_shape(cfg: Config) -> NetShape:
    """The network shape of a config's game and ``[net]``."""
    net = cfg["net"]
    return NetShape.for_game(
        game_spec(cfg), net["hidden1"], net["hidden2"], net["features"], bool(cfg["env"]["tables"])
    )


def play_settings(cfg: Config) -> dict[str, Any]:
    """The search settings a model of this run plays with (stored in its files)."""
    return settings_dict(search_settings(cfg))


def learner_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` (refused when absent: a named error) or ``auto``."""
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("run.device: 'cuda' asked for, but torch sees no CUDA device")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(name)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    return "cpu"


def latest_checkpoint(run_dir: Path) -> Path:
    return run_dir / "checkpoints" / "latest.pt"


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
        self.optimizer = optimizer_for(self.net, cfg)
        self.iteration = -1  # -1: nothing done; 0: the warm start done
        self.warm_steps = 0  # gradient steps of the warm start done (saved while it learns)
        self.games = 0
        self.positions = 0
        self.train_steps = 0
        self.flushed = False  # model.pt has learned them (flush), the checkpoint not
        self.pending = 0  # positions played but not yet learned ([train] overlap: the last
        # iteration's, learned while the next one plays)
        self.seconds = 0.0  # wall time of the finished iterations, over every start
        self.starts: list[dict[str, Any]] = []
        self.init: dict[str, Any] = {}  # the model the network started from (warmstart.init)
        self.buffer = ReplayBuffer(cfg["replay"]["window"], cfg["replay"]["teacher_fraction"])
        self.weights = loss_weights(cfg)
        self.spec = game_spec(cfg)
        self.tables = table_specs(cfg)  # the tables played ([env]'s alone, or env.tables)
        self.templates = {t.text: native_template(t) for t in self.tables}
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

    def save(self, model_only: bool = False) -> None:
        """``checkpoints/latest.pt`` (and ``iter_<N>.pt`` when kept), then ``model.pt`` (only
        ``model.pt`` with ``model_only``: :meth:`flush`)."""
        extra = {
            "optimizer": self.optimizer.state_dict(),
            "progress": {
                "iteration": self.iteration,
                "games": self.games,
                "positions": self.positions,
                "train_steps": self.train_steps,
                "seconds": self.seconds,
                "warm_steps": self.warm_steps,
                "pending": self.pending,
            },
        }
        prov = self.provenance()
        settings = play_settings(self.cfg)
        if model_only:
            save_checkpoint(self.run_dir / "model.pt", self.net, settings, prov)
            return
        save_checkpoint(self.latest, self.net, settings, prov, extra)
        keep = self.cfg["run"]["keep_every"]
        if keep and self.iteration % keep == 0:
            save_checkpoint(
                self.latest.with_name(f"iter_{self.iteration:05d}.pt"), self.net, settings, prov
            )
        save_checkpoint(self.run_dir / "model.pt", self.net, settings, prov)

    def restore(self) -> bool:
        """Load ``latest.pt`` (False when the run has none yet). A file that is no checkpoint
        of this run (a model file put in its place, another game's or another shape's network,
        damaged optimizer state or counters) is a :class:`CheckpointError` naming it, with
        the model file's own checks (:func:`~agents.az.checkpoint.load_checkpoint`) first."""
        if not self.latest.is_file():
            return False
        net, meta = load_checkpoint(self.latest)
        where = f"--resume: {str(self.latest)!r}"
        if net.shape != self.shape:
            raise CheckpointError(
                f"{where} is a network of shape {net.shape}; this run's game and [net] make "
                f"{self.shape} (its config.toml changed, or the file is another run's)"
            )
        missing = [k for k in ("optimizer", "progress") if not isinstance(meta.get(k), dict)]
        if missing:
            raise CheckpointError(
                f"{where} is a model file, not a run checkpoint (no {' or '.join(missing)}); "
                "restore the run's own latest.pt, or start a new run with warmstart.init "
                "naming this model"
            )
        self.net.load_state_dict(net.state_dict())
        self.net.to(self.device)
        self.net.eval()
        try:
            load_optimizer(self.optimizer, meta["optimizer"])
            prog, prov = meta["progress"], meta.get("provenance", {})
            self.iteration = int(prog["iteration"])
            self.games = int(prog["games"])
            self.positions = int(prog["positions"])
            self.train_steps = int(prog["train_steps"])
            self.seconds = float(prog["seconds"])
            self.warm_steps = int(prog.get("warm_steps", 0))
            self.pending = int(prog.get("pending", 0))
            self.starts = list(prov.get("starts", []))
            self.init = dict(prov.get("init", {}))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError, RuntimeError) as exc:
            raise CheckpointError(
                f"{where}: its optimizer state or counters are damaged "
                f"({type(exc).__name__}: {str(exc)[:200]})"
            ) from None
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
        grown: dict[str, Any] = {}
        if self.shape.tables and not net.shape.tables:  # a table's model, into every table's
            grown["spread_from"] = net.shape.spec.text
            try:
                net = spread(net, self.shape)
            except ValueError as exc:
                raise ConfigError(f"warmstart.init: {path!r}: {exc}") from None
        if net.shape != self.shape:  # the territory features added, or wider layers
            with contextlib.suppress(ValueError):  # (else refused below, naming both shapes)
                old = net.shape
                net = net.grown(self.shape, seed=self.cfg["run"]["seed"])
                if self.shape.inputs > old.inputs:
                    grown["features_added"] = old.inputs
                if (old.hidden1, old.hidden2) != (self.shape.hidden1, self.shape.hidden2):
                    grown["widened_from"] = [old.hidden1, old.hidden2]
        if net.shape != self.shape:
            raise ConfigError(
                f"warmstart.init: {path!r} is a network of shape {net.shape}; this run's game "
                f"and [net] make {self.shape}"
            )
        self.net.load_state_dict(net.state_dict())
        prov = meta.get("provenance", {})
        self.init = (
            {"path": str(path)}
            | grown
            | {
                k: prov[k]
                for k in ("command", "git_commit", "games", "positions", "train_steps", "init")
                if k in prov
            }
        )  # the model's own init nested: a chain of continued runs keeps every link

    # ---------------------------------------------------------------- data
    def play(
        self,
        iteration: int,
        games: int,
        teacher: bool = False,
        flat: Mapping[str, np.ndarray] | None = None,
        add: bool = True,
        deadline: float | None = None,
    ) -> list[Positions]:
        """Play ``games`` games of ``iteration`` (0: the teacher's, the warm start) in the core,
        over ``selfplay.threads`` threads, with a progress bar; their shards are written (the
        teacher's every :data:`TEACHER_SHARD_GAMES` games, so a killed run keeps them) and,
        with ``add``, put in the replay buffer. ``flat``: the weights that play, per table (:meth:`flats`;
        default the learner's now). ``deadline`` (a ``time.perf_counter`` value: where the
        run's ``run.max_minutes`` is spent): no part of the games starts after it."""
        sp = self.cfg["selfplay"]
        if teacher:
            ws = self.cfg["warmstart"]
            search = selfplay_settings(self.cfg).as_tuple()
            settings = PlaySettings(
                search, 0, sp["lam"], ws["keep"], ws["afterstates"], ws["teacher_temp"]
            )
            _, weights = self.spec.entry.hook("az_teacher")()
        else:
            settings = selfplay_play_settings(self.cfg)
            weights = None
            flat = self.flats() if flat is None else flat
        seed0 = derive_seed(self.cfg["run"]["seed"], iteration, 7) >> 24  # room for + game
        label = "teacher games" if teacher else f"self-play games (iteration {iteration})"
        bar = phase(label, games, unit="game")
        shards: list[Positions] = []
        per = TEACHER_SHARD_GAMES if teacher else games
        if deadline is not None and not teacher:
            per = min(games, SELFPLAY_PART_GAMES)
        n = len(self.tables)  # the games split evenly over the tables, in their order
        counts = [games // n + (i < games % n) for i in range(n)]
        part = first = 0
        try:
            for table, count in zip(self.tables, counts, strict=True):
                shape = self.table_shape(table)
                net = None if flat is None else native_net(shape, flat[table.text])
                for begin in range(first, first + count, per):
                    if part and deadline is not None and time.perf_counter() >= deadline:
                        self.log(f"{label}: run.max_minutes spent after {begin} of {games} games")
                        bar.set_total(begin)  # the bar ends at what was played
                        return shards
                    seeds = [seed0 + g for g in range(begin, min(first + count, begin + per))]
                    if self.backend is None:  # threads in this process
                        positions = play_threads(
                            self.templates[table.text], net, seeds, settings, sp["threads"],
                            chunk=8, teacher=teacher, weights=weights, on_chunk=bar.update,
                            features=self.shape.features,
                        )  # fmt: skip
                    else:
                        blob = b"" if flat is None else flat[table.text].tobytes()
                        positions = self._play_jobs(
                            table, shape, seeds, settings, teacher, weights, blob, bar
                        )
                    positions = self.in_layout(table, positions)
                    write_shard(self.run_dir, iteration, part, positions)
                    if add:
                        self.buffer.add(positions, teacher=teacher)
                    shards.append(positions)
                    part += 1
                first += count
        finally:
            bar.close()
        return shards

    def flats(self) -> dict[str, np.ndarray]:
        """The network's weights as each table's core reads them (``AzNet.flat_weights``)."""
        return {
            t.text: self.net.flat_weights(t if self.shape.tables else None) for t in self.tables
        }

    def table_shape(self, table: GameSpec) -> dict[str, Any]:
        """The core network's shape at ``table`` (a network of every table: the table's own
        inputs and actions)."""
        shape = self.shape.to_dict()
        if self.shape.tables:
            shape["inputs"] = int(self.table_rows(table)[0].size)
            shape["actions"] = table.num_actions
        return shape

    def table_rows(self, table: GameSpec) -> tuple[np.ndarray, np.ndarray]:
        """``AzNet.table_rows`` of ``table`` (the run's network reads every table)."""
        rows = self.net.table_rows(table)
        assert rows is not None
        return rows

    def in_layout(self, table: GameSpec, p: Positions) -> Positions:
        """``table``'s positions with the network's inputs (a network of every table: each
        observation's entries as its inputs, the table's inputs added; else as they are)."""
        if not self.shape.tables:
            return p
        remap, tokens = self.table_rows(table)
        obs_ptr, obs_idx, obs_val = to_layout(p.obs_ptr, p.obs_idx, p.obs_val, remap, tokens)
        aft_obs_ptr, aft_idx, aft_val = to_layout(
            p.aft_obs_ptr, p.aft_idx, p.aft_val, remap, tokens
        )
        out = dataclasses.replace(
            p, obs_ptr=obs_ptr, obs_idx=obs_idx, obs_val=obs_val, aft_obs_ptr=aft_obs_ptr,
            aft_idx=aft_idx, aft_val=aft_val,
        )  # fmt: skip
        out.check()
        return out

    def writer(self) -> Any:
        if self._writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.run_dir / "tb"))
        return self._writer

    def record(self, row: Mapping[str, Any]) -> None:
        path = self.run_dir / "progress.csv"
        columns = progress_columns(path)
        line = {k: row.get(k, "") for k in columns}
        append_text(path, csv_text([line], columns, header=not path.exists()))
        tb = self.writer()
        for k in LOSS_PARTS:
            if row.get(k, "") != "":  # none when nothing was learned
                tb.add_scalar(f"train/{k}", float(row[k]), self.positions)
        tb.add_scalar("selfplay/games", self.games, self.positions)
        tb.add_scalar("train/learning_rate", self.optimizer.param_groups[0]["lr"], self.positions)
        tb.flush()

    def _play_jobs(
        self,
        table: GameSpec,
        shape: Mapping[str, Any],
        seeds: list[int],
        settings: PlaySettings,
        teacher: bool,
        weights: Any,
        blob: bytes,
        bar: Any,
    ) -> Positions:
        """The games of ``seeds`` on the run's backend (worker processes or Ray actors,
        ``selfplay.threads`` of them), in jobs of 16 games; in seed order. ``blob``: the
        network's flat weights (empty for the teacher)."""
        jobs = [
            {"seeds": seeds[i : i + 16], "settings": settings, "teacher": teacher,
             "teacher_weights": weights, "weights": blob, "features": self.shape.features}
            for i in range(0, len(seeds), 16)
        ]  # fmt: skip
        parts = run_jobs(
            jobs, JobWorker, (table.text, dict(shape)), run_job,
            workers=self.cfg["selfplay"]["threads"], on_result=lambda p: bar.update(p.games),
            backend=self.backend,
        )  # fmt: skip
        return Positions.concatenate(parts)

    def evaluate(self) -> list[dict[str, Any]]:
        """The evaluation of the latest model against ``eval.opponents`` (``eval.csv``,
        TensorBoard, the plot)."""
        ev = self.cfg["eval"]
        rows = evaluate_model(
            self.run_dir / "model.pt", self.spec, ev["opponents"], ev["games"], ev["seed"],
            None if ev["sims"] < 0 else ev["sims"],
        )  # fmt: skip
        write_evaluation(self.run_dir, self.games, self.seconds, rows)
        tb = self.writer()
        for r in rows:
            tb.add_scalar(f"eval/win_rate_{r['opponent']}", r["win_rate"], self.games)
        tb.flush()
        return rows

    # ---------------------------------------------------------------- the loop
    def learn(
        self, iteration: int, new: int, epochs: float | None = None, on_step: Any = None
    ) -> dict[str, float]:
        """Gradient steps for ``new`` fresh positions of ``iteration`` (``train.sample_reuse``
        draws each, or ``epochs`` passes)."""
        t = self.cfg["train"]
        reuse = t["sample_reuse"] if epochs is None else epochs
        steps = steps_for(new, reuse, t["batch_size"])
        rng = np.random.default_rng(derive_seed(self.cfg["run"]["seed"], iteration, 5))
        out = train_steps(
            self.net, self.optimizer, self.buffer, steps, t["batch_size"], rng, self.weights,
            on_step=on_step,
        )  # fmt: skip
        self.train_steps += steps
        out["train_steps"] = steps
        return out

    def rate(self, iteration: int, seconds: float) -> float:
        """The rate to learn ``iteration``'s positions at, that iteration ending after
        ``seconds`` of the run: ``train.final_learning_rate`` (when above 0) if it ends in the
        budget's last ``train.final_share`` (of ``run.iterations`` or ``run.max_minutes``,
        whichever is further spent: with or without overlap the same iterations, at least
        the last), else ``train.learning_rate``. The warm start learns at the latter."""
        t, r = self.cfg["train"], self.cfg["run"]
        spent = budget_fraction(iteration, r["iterations"], seconds, r["max_minutes"])
        final = t["final_learning_rate"] > 0 and spent > 1.0 - t["final_share"] + 1e-9
        return float(t["final_learning_rate"] if final else t["learning_rate"])

    def set_rate(self, iteration: int, seconds: float) -> None:
        """Step the optimizer at :meth:`rate` from now on (a log line when it changes)."""
        lr, groups = self.rate(iteration, seconds), self.optimizer.param_groups
        if any(g["lr"] != lr for g in groups):
            self.log(f"learning rate {groups[0]['lr']:g} -> {lr:g} from iteration {iteration}")
            for g in groups:
                g["lr"] = lr

    def learn_warmstart(self, positions: int, start: float) -> tuple[dict[str, float], float]:
        """The warm start's ``warmstart.epochs`` passes over its ``positions``, a checkpoint
        (iteration -1, ``warm_steps`` done) every ``warmstart.save_every`` steps: a run killed
        while learning resumes from the last one (the steps of each block draw from their own
        seed, so the resumed run takes the same steps). It stops early, after a block, once
        ``run.max_minutes`` is spent (the warm start is then done). Returns the mean loss parts
        and the seconds since ``start`` already counted in ``self.seconds`` by those
        checkpoints."""
        ws, t = self.cfg["warmstart"], self.cfg["train"]
        steps = steps_for(positions, ws["epochs"], t["batch_size"])
        block = ws["save_every"] or steps
        sums: dict[str, float] = {}
        done_before = self.warm_steps
        counted, mark = 0.0, start
        budget = 60 * self.cfg["run"]["max_minutes"]
        bar = phase("learning (warm start)", steps, unit="step")
        bar.update(self.warm_steps)
        try:
            while self.warm_steps < steps:
                n = min(block, steps - self.warm_steps)
                seed = derive_seed(self.cfg["run"]["seed"], 0, 5, self.warm_steps)
                out = train_steps(
                    self.net, self.optimizer, self.buffer, n, t["batch_size"],
                    np.random.default_rng(seed), self.weights, on_step=bar.update,
                )  # fmt: skip
                for k, v in out.items():
                    sums[k] = sums.get(k, 0.0) + v * n
                self.warm_steps += n
                self.train_steps += n
                bar.set_postfix_str(f"loss {out['loss']:.3f}")
                if budget and self.seconds + time.perf_counter() - mark >= budget:
                    self.log(f"warm start: run.max_minutes spent after {self.warm_steps} steps")
                    bar.set_total(self.warm_steps)  # the bar ends at what was done
                    break
                if self.warm_steps < steps:
                    now = time.perf_counter()
                    self.seconds += now - mark
                    counted += now - mark
                    mark = now
                    self.save()
        finally:
            bar.close()
        done = self.warm_steps - done_before
        # none done: resumed with fewer epochs than the steps already taken (the warm start ends)
        parts = {k: v / done for k, v in sums.items()} if done else dict.fromkeys(LOSS_PARTS, 0.0)
        parts["train_steps"] = done
        return parts, counted

    def step(self, iteration: int) -> None:
        """Play, learn, save one iteration (``iteration`` 0: the warm start). With ``[train]
        overlap`` a self-play iteration learns the positions of the one before while it plays
        (:func:`~training.az.learner.overlapped`), so its own wait, as ``pending`` (kept in the
        checkpoint), for the next iteration or the run's end (:meth:`flush`)."""
        start = time.perf_counter()
        budget = 60 * self.cfg["run"]["max_minutes"]
        deadline = start + budget - self.seconds if budget else None
        shards: Sequence[Positions]
        overlap = iteration > 0 and self.cfg["train"]["overlap"]
        parts: dict[str, float] | None = None
        learn_seconds = play_seconds = 0.0
        if iteration == 0 and self.warm_steps:  # resumed while learning: the games are there
            shards = self.buffer.teacher.shards
        elif iteration == 0:
            shards = self.play(0, self.cfg["warmstart"]["games"], teacher=True, deadline=deadline)
        elif overlap:
            pending, flat = self.pending, self.flats()
            n_games = self.cfg["selfplay"]["games"]

            def learn(stop: Any) -> dict[str, float]:
                return self.learn(iteration - 1, pending, on_step=stop_check(stop))

            self.set_rate(iteration - 1, self.seconds)  # the one before's: finished

            shards, parts, play_seconds, learn_seconds = overlapped(
                lambda: self.play(iteration, n_games, flat=flat, add=False, deadline=deadline),
                learn if pending else None,
            )
            for shard in shards:
                self.buffer.add(shard)
        else:
            shards = self.play(iteration, self.cfg["selfplay"]["games"], deadline=deadline)
        games, positions = sum(p.games for p in shards), sum(len(p) for p in shards)
        scaled = self.init.get("features_added", 0 if not self.init else None)
        spread_from = self.init.get("spread_from")
        if self.train_steps == 0 and (scaled is not None or spread_from) and shards:
            # before the first step (an init's own inputs keep their scale)
            first = Positions.concatenate(list(shards))
            obs = first.obs_idx.astype(np.int64)
            keep = None if not spread_from else self.table_rows(parse_game(spread_from))[0]
            self.net.set_input_scale(obs, first.obs_val, len(first), first=scaled or 0, keep=keep)
        played = time.perf_counter()
        counted = 0.0
        if iteration == 0:
            parts, counted = self.learn_warmstart(positions, start)
        elif overlap:
            self.pending = positions
            if parts is None:  # the first iteration of a run: nothing played before it
                parts = {"train_steps": 0}
        else:  # with what an overlapped iteration left (the setting changed on resume)
            self.set_rate(iteration, self.seconds + played - start)
            parts = self.learn(iteration, positions + self.pending)
            self.pending = 0
        end = time.perf_counter()
        self.iteration = iteration
        self.games += games
        self.positions += positions
        self.seconds += end - start - counted
        self.save()
        prune_shards(self.run_dir, self.buffer)
        play_wall = play_seconds if overlap else played - start  # the play's own seconds
        row = {
            "iteration": iteration, "wall_time": round(self.seconds, 1), "games": self.games,
            "positions": self.positions, "new_positions": positions,
            **{k: round(v, 5) for k, v in parts.items()},  # no loss: nothing learned
            "selfplay_seconds": round(play_wall, 1),
            "train_seconds": round(learn_seconds if overlap else end - played, 1),
            "games_per_hour": round(games * 3600 / max(end - start, 1e-9)),
            "evals_per_second": round(sum(p.evals for p in shards) / max(play_wall, 1e-9)),
        }  # fmt: skip
        self.record(row)
        loss = (
            f"loss {parts['loss']:.3f} (value {parts['value']:.3f}, ranking "
            f"{parts['afterstate']:.3f})"
            if "loss" in parts
            else "nothing learned yet (the next iteration learns these)"
        )
        self.log(
            f"iteration {iteration}: {games} games, {positions} positions "
            f"({row['selfplay_seconds']} s play, {row['train_seconds']} s learn"
            f"{' beside it' if overlap else ''}), {loss}; {row['games_per_hour']} games/hour; "
            f"total {self.games} games, {self.positions} positions, {self.seconds / 60:.1f} min"
        )
        if self.pending and self.done():  # the run's last iteration: model.pt learns it too
            self.flush()

    def flush(self) -> None:
        """At the run's end: learn the positions the last overlapped iteration left
        (``pending``) and save the result as ``model.pt`` alone. The checkpoint keeps them
        pending, so a resumed run takes the very steps an unbroken one would (it learns them
        while its next iteration plays)."""
        start = time.perf_counter()
        self.set_rate(self.iteration, self.seconds)
        parts = self.learn(self.iteration, self.pending)
        self.pending = 0
        self.flushed = True
        self.seconds += time.perf_counter() - start
        self.save(model_only=True)
        self.log(
            f"learned the last iteration's positions: {parts['train_steps']:.0f} steps, loss "
            f"{parts['loss']:.3f}; total {self.seconds / 60:.1f} min"
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
        evaluated: list[int | None] = [None]

        def evaluate(_: Any = None) -> None:
            self.evaluate()
            evaluated[0] = self.iteration

        if self.iteration < 0:
            if self.cfg["warmstart"]["games"]:
                self.step(0)
                if every:
                    evaluate()
            else:
                self.iteration = 0
        iterate(self.next_step, self.done, [(every, evaluate)])
        if self.pending and not self.flushed:  # killed between the last save and its flush
            self.flush()
            evaluated[0] = None
        if self.cfg["eval"]["final"] and evaluated[0] != self.iteration:
            evaluate()  # the model the run ends with, whatever the period
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
    if rd.exists() and not rd.is_dir():
        raise OutputError(f"--run-dir: {rd} is a file, not a run directory")
    for name in ("checkpoints", REPLAY_DIR):  # the run's folders: a file there is refused
        if (rd / name).exists() and not (rd / name).is_dir():
            raise OutputError(
                f"--run-dir: {rd / name} is a file, not the run's {name} folder; move it away "
                "or choose another --run-dir"
            )
    with RunLock(rd):
        sets = retired_overrides(overrides)
        cfg = resolve_config(AZ, rd, resume, config, sets, config_on_resume=True, log=log)

        def prepare(old: Config | None) -> None:
            if old is not None and not latest_checkpoint(rd).is_file():
                drop_after(rd, -1)  # killed before its first checkpoint: start again

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
            run.initialize()
        run.starts.append(
            {
                "command": cmd,
                "time": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                "git_commit": git_commit() or "",  # the code it (re)started with
            }
        )
        if backend is not None:
            with backend.session(cfg["selfplay"]["threads"]):
                run.train()
        else:
            run.train()
        return run


__all__ = ["ConfigError", "Run", "net_shape", "play_settings", "start_run"]
