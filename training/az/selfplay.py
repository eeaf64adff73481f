"""Self-play and teacher games in the native core (``az_selfplay``, ``moonriver_env/_core/
azselfplay.c``): whole games played by the search with the network evaluated in C (or, for a
warm start, by the game's hand-written teacher), in lockstep over threads that release the
GIL. Each decision with more than one legal action is a position:

* the acting seat's observation, its non-zero entries (``obs_idx``, ``obs_val``, position
  ``i``'s from ``obs_ptr[i]``);
* the seat it is seen from (``seat``: the acting seat half the time, else another seat, so
  the value also learns the positions where others move, which are the afterstates it scores);
* the legal actions (``legal``, from ``legal_ptr[i]``) and the policy target ``pi`` over them
  (the search's improved policy; the teacher's move; NaN when seen from another seat);
* for some positions seen by their actor, the observation of each legal move's afterstate
  (``aft_ptr`` rows of ``aft_obs_ptr``/``aft_idx``/``aft_val``, in the order of ``legal``):
  the value then learns to rank the moves as the policy target does
  (:func:`training.az.learner.losses`);
* ``chosen``, the move played: its index in the position's legal actions (-1 when seen from
  another seat; a replay shard written before it was recorded reads as -1 throughout);
* ``q``, the search's value of the move played (NaN for a teacher's move), ``z`` the seat's
  outcome (half 2 x its share of the win - 1, half tanh(its points margin over the best other
  seat / 20): ``share_outcome`` in azgames.c) and ``target`` its TD(lambda) return over its
  own later search values (as the actor, whichever rows were kept) ending in ``z``.

Nothing here imports torch: a worker process needs only NumPy and the core.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from moonriver_env.family.native import native
from moonriver_env.games import GameSpec

ARRAYS = {
    "obs_ptr": np.int64, "obs_idx": np.int16, "obs_val": np.float32, "legal_ptr": np.int64,
    "legal": np.int16, "pi": np.float32, "seat": np.int8, "q": np.float32, "z": np.float32,
    "target": np.float32, "chosen": np.int16, "aft_ptr": np.int64, "aft_obs_ptr": np.int64,
    "aft_idx": np.int16, "aft_val": np.float32,
}  # fmt: skip
"""A :class:`Positions`' arrays and their types (a replay shard's entries)."""


@dataclass
class Positions:
    """Positions from games (module docstring); ``games`` and ``outcomes`` (games x seats)
    count the games they came from."""

    obs_ptr: np.ndarray
    obs_idx: np.ndarray
    obs_val: np.ndarray
    legal_ptr: np.ndarray
    legal: np.ndarray
    pi: np.ndarray
    seat: np.ndarray
    q: np.ndarray
    z: np.ndarray
    target: np.ndarray
    chosen: np.ndarray
    aft_ptr: np.ndarray
    aft_obs_ptr: np.ndarray
    aft_idx: np.ndarray
    aft_val: np.ndarray
    games: int = 0
    evals: int = 0
    decisions: int = 0

    def __len__(self) -> int:
        return int(self.seat.shape[0])

    def arrays(self) -> dict[str, np.ndarray]:
        """The arrays and counters, for a shard file (no object arrays: read without pickle)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name in ARRAYS}
        out["counts"] = np.array([self.games, self.evals, self.decisions], dtype=np.int64)
        return out

    @classmethod
    def from_arrays(cls, a: Mapping[str, np.ndarray]) -> Positions:
        """Back from :meth:`arrays` (types checked: a foreign file is a ``ValueError``)."""
        if "chosen" not in a and "seat" in a:  # a shard from before the move was recorded
            a = {**a, "chosen": np.full(np.asarray(a["seat"]).shape, -1, np.int16)}
        missing = sorted((set(ARRAYS) | {"counts"}) - set(a))
        if missing:
            raise ValueError(f"positions: missing arrays {missing}")
        kw = {k: np.asarray(a[k]).astype(t, copy=False) for k, t in ARRAYS.items()}
        games, evals, decisions = (int(x) for x in np.asarray(a["counts"])[:3])
        p = cls(**kw, games=games, evals=evals, decisions=decisions)
        p.check()
        return p

    def check(self) -> None:
        """``ValueError`` when the arrays do not fit together."""
        n = len(self)
        ok = (
            self.obs_ptr.shape == (n + 1,) and self.legal_ptr.shape == (n + 1,)
            and int(self.obs_ptr[-1]) == self.obs_idx.size == self.obs_val.size
            and int(self.legal_ptr[-1]) == self.legal.size == self.pi.size
            and self.q.shape == self.z.shape == self.target.shape == self.chosen.shape == (n,)
            and bool(np.all((self.chosen >= -1) & (self.chosen < np.diff(self.legal_ptr))))
            and self.aft_ptr.shape == (n + 1,)
            and int(self.aft_ptr[-1]) == self.aft_obs_ptr.size - 1
            and int(self.aft_obs_ptr[-1]) == self.aft_idx.size == self.aft_val.size
            and bool(np.all(np.diff(self.aft_ptr) >= 0))
            and bool(np.all((np.diff(self.aft_ptr) == 0) | (np.diff(self.aft_ptr) == np.diff(self.legal_ptr))))
            and bool(np.all(np.diff(self.obs_ptr) >= 0)) and bool(np.all(np.diff(self.legal_ptr) >= 1))
        )  # fmt: skip
        if not ok:
            raise ValueError("positions: arrays of inconsistent sizes")

    @classmethod
    def empty(cls) -> Positions:
        arrays: dict[str, Any] = {
            k: np.zeros(1 if k.endswith("_ptr") else 0, t) for k, t in ARRAYS.items()
        }
        return cls(**arrays)

    @classmethod
    def concatenate(cls, parts: Sequence[Positions]) -> Positions:
        """One :class:`Positions` of ``parts`` in order."""
        parts = [p for p in parts if len(p)] or [cls.empty()]
        kw: dict[str, Any] = {}
        for name in ARRAYS:
            if name.endswith("_ptr"):
                base = np.cumsum([0] + [int(p.__dict__[name][-1]) for p in parts[:-1]])
                kw[name] = np.concatenate(
                    [parts[0].__dict__[name][:1]]
                    + [p.__dict__[name][1:] + b for p, b in zip(parts, base, strict=True)]
                )
            else:
                kw[name] = np.concatenate([p.__dict__[name] for p in parts])
        return cls(
            **kw,
            games=sum(p.games for p in parts),
            evals=sum(p.evals for p in parts),
            decisions=sum(p.decisions for p in parts),
        )

    def take(self, rows: np.ndarray) -> Positions:
        """The positions ``rows`` (their arrays gathered)."""
        rows = np.asarray(rows, dtype=np.int64)
        obs_rows = _ranges(self.obs_ptr, rows)
        legal_rows = _ranges(self.legal_ptr, rows)
        aft_rows = _ranges(self.aft_ptr, rows)
        aft_entries = _ranges(self.aft_obs_ptr, aft_rows)
        return Positions(
            obs_ptr=_ptr(self.obs_ptr, rows), obs_idx=self.obs_idx[obs_rows],
            obs_val=self.obs_val[obs_rows], legal_ptr=_ptr(self.legal_ptr, rows),
            legal=self.legal[legal_rows], pi=self.pi[legal_rows], seat=self.seat[rows],
            q=self.q[rows], z=self.z[rows], target=self.target[rows], chosen=self.chosen[rows],
            aft_ptr=_ptr(self.aft_ptr, rows), aft_obs_ptr=_ptr(self.aft_obs_ptr, aft_rows),
            aft_idx=self.aft_idx[aft_entries], aft_val=self.aft_val[aft_entries],
        )  # fmt: skip


def _ptr(ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    sizes = ptr[rows + 1] - ptr[rows]
    out = np.zeros(rows.size + 1, np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _ranges(ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The flat indices of rows' entries in an array indexed by ``ptr``."""
    starts, sizes = ptr[rows], ptr[rows + 1] - ptr[rows]
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    offs = np.repeat(starts - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    return np.arange(total, dtype=np.int64) + offs


@dataclass(frozen=True)
class PlaySettings:
    """How games are played: the search's settings tuple (``agents.az.SearchSettings``), the
    first ``explore`` decisions of a game drawn from the improved policy, TD(``lam``),
    ``keep``, the share of decisions recorded (drawn at random in the core), and
    ``afterstates``, the share of the actor's recorded positions that also keep every legal
    move's afterstate (the value's ranking loss reads them); in teacher games ``teacher_temp``
    > 0 makes the policy target the softmax of the teacher's values / ``teacher_temp`` (0: the
    teacher's move)."""

    search: tuple[Any, ...]
    explore: int
    lam: float
    keep: float = 1.0
    afterstates: float = 0.0
    teacher_temp: float = 0.0


def native_template(spec: GameSpec) -> Any:
    """A native state object of ``spec``'s game (what ``az_selfplay`` plays)."""
    if native is None:
        raise RuntimeError("az self-play runs in the native core; it is not built")
    cls = spec.entry.hook("native_state")
    return cls(spec.config(), 0)._core


def native_net(shape: Mapping[str, Any], weights: np.ndarray | bytes) -> Any:
    """The core's ``Net`` of ``shape`` (an ``agents.az.NetShape`` as a dict) from flat float32
    weights."""
    if native is None:
        raise RuntimeError("az self-play runs in the native core; it is not built")
    w = np.frombuffer(weights, np.float32) if isinstance(weights, bytes) else weights
    return native.Net(shape["inputs"], shape["hidden1"], shape["hidden2"], shape["actions"], w)


def play_games(
    template: Any,
    net: Any,
    games: int,
    seed: int,
    settings: PlaySettings,
    teacher: bool = False,
    weights: Sequence[float] | None = None,
    features: bool = False,
) -> Positions:
    """``games`` games (game ``i`` set up with ``seed + i``) in one call to the core
    (``features``: the territory features after each observation; a net decides by its
    inputs, so this matters for teacher games)."""
    assert native is not None
    out = native.az_selfplay(
        template, None if teacher else net, games, seed, settings.search, teacher,
        settings.explore, settings.lam, settings.keep, settings.afterstates,
        None if weights is None else list(weights), features, settings.teacher_temp,
    )  # fmt: skip
    arrays: dict[str, Any] = {
        "obs_ptr": np.frombuffer(out["obs_off"], np.int64),
        "obs_idx": np.frombuffer(out["obs_idx"], np.int16),
        "obs_val": np.frombuffer(out["obs_val"], np.float32),
        "legal_ptr": np.frombuffer(out["legal_off"], np.int64),
        "legal": np.frombuffer(out["legal_id"], np.int16),
        "pi": np.frombuffer(out["pi"], np.float32),
        "seat": np.frombuffer(out["seat"], np.int8),
        "q": np.frombuffer(out["q"], np.float32),
        "z": np.frombuffer(out["z"], np.float32),
        "target": np.frombuffer(out["target"], np.float32),
        "chosen": np.frombuffer(out["chosen"], np.int16),
        "aft_ptr": np.frombuffer(out["aft_off"], np.int64),
        "aft_obs_ptr": np.frombuffer(out["aft_obs_off"], np.int64),
        "aft_idx": np.frombuffer(out["aft_idx"], np.int16),
        "aft_val": np.frombuffer(out["aft_val"], np.float32),
    }
    if out["positions"] == 0:
        arrays["obs_ptr"] = arrays["legal_ptr"] = arrays["aft_ptr"] = np.zeros(1, np.int64)
    if arrays["aft_obs_ptr"].size == 0:
        arrays["aft_obs_ptr"] = np.zeros(1, np.int64)
    if arrays["aft_ptr"].size and arrays["aft_ptr"][0] != 0:  # rows of this call's buffer
        arrays["aft_ptr"] = arrays["aft_ptr"] - arrays["aft_ptr"][0]
    decisions = int(np.frombuffer(out["lengths"], np.int32).sum())
    return Positions(**arrays, games=games, evals=int(out["evals"]), decisions=decisions)


def play_threads(
    template: Any,
    net: Any,
    seeds: Sequence[int],
    settings: PlaySettings,
    threads: int,
    chunk: int = 8,
    teacher: bool = False,
    weights: Sequence[float] | None = None,
    on_chunk: Any = None,
    features: bool = False,
) -> Positions:
    """Games from ``seeds`` (consecutive runs of ``chunk`` games per call) over ``threads``
    threads (the core releases the GIL while it plays); ``on_chunk(games)`` after each call
    (progress). The result is in seed order, whatever the threads' timing."""
    blocks = [list(seeds[i : i + chunk]) for i in range(0, len(seeds), chunk)]
    results: list[Positions | None] = [None] * len(blocks)
    errors: list[BaseException] = []
    lock = threading.Lock()
    nxt = [0]

    stop = threading.Event()  # the caller was interrupted: no block is started

    working = [max(1, threads)]  # threads that have not returned (counted: see below)

    def blocks_played() -> None:
        while True:
            with lock:
                if nxt[0] >= len(blocks) or errors or stop.is_set():
                    return
                i = nxt[0]
                nxt[0] += 1
            block = blocks[i]
            try:
                results[i] = play_seeds(template, net, block, settings, teacher, weights, features)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                with lock:
                    errors.append(exc)
                return
            if on_chunk is not None:
                with lock:
                    on_chunk(len(block))

    def work() -> None:
        try:
            blocks_played()
        finally:
            with lock:
                working[0] -= 1

    pool = [threading.Thread(target=work, daemon=True) for _ in range(working[0])]
    for t in pool:
        t.start()
    try:
        for t in pool:
            t.join()
    except BaseException:  # Ctrl-C here: the threads' games stop too, before it goes on
        stop.set()
        # every core game running in this process stops, again until the threads have all
        # returned (a call may have begun since); counted, not is_alive(): a join that Ctrl-C
        # cut short can leave a live thread marked as ended (seen on CPython 3.11)
        while True:
            with lock:
                if not working[0]:
                    break
            if native is not None:
                native.az_interrupt()
            time.sleep(0.01)
        raise
    if errors:
        raise errors[0]
    return Positions.concatenate([r for r in results if r is not None])


def play_seeds(
    template: Any,
    net: Any,
    seeds: Sequence[int],
    settings: PlaySettings,
    teacher: bool = False,
    weights: Sequence[float] | None = None,
    features: bool = False,
) -> Positions:
    """The games of ``seeds`` (one core call per run of consecutive seeds), in order: what a
    thread of :func:`play_threads` and a :class:`JobWorker` play."""
    return Positions.concatenate(
        [
            play_games(template, net, len(run), run[0], settings, teacher, weights, features)
            for run in _consecutive(seeds)
        ]
    )


def _consecutive(seeds: Sequence[int]) -> list[list[int]]:
    """``seeds`` cut into runs of consecutive integers (one core call each)."""
    runs: list[list[int]] = []
    for s in seeds:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


class JobWorker:
    """A worker of :func:`agents.jobs.run_jobs` (a process or a Ray actor: ``--backend``):
    the game's native template, built once; each job brings the network's weights."""

    def __init__(self, spec_text: str, shape: Mapping[str, Any]) -> None:
        self.template = native_template(GameSpec.from_text(spec_text))
        self.shape = dict(shape)

    def play(self, job: Mapping[str, Any]) -> Positions:
        net = None if job["teacher"] else native_net(self.shape, job["weights"])
        return play_seeds(
            self.template, net, job["seeds"], job["settings"], job["teacher"],
            job["teacher_weights"], job["features"],
        )  # fmt: skip


def run_job(worker: JobWorker, job: Mapping[str, Any]) -> Positions:
    """``run_jobs``' play function: one job's games."""
    return worker.play(job)
