"""Fan-out of independent jobs (games, mostly) to workers: :func:`run_jobs` on worker
processes of this machine or on Ray actors (:class:`Backend`, :mod:`agents.ray_backend`), and
the command-line options that pick the backend (:func:`add_backend_arguments`).

Results come back in job order, so a run's results depend on neither the number of workers nor
the backend (the seeds of each job come from :mod:`agents.seeds`).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from .ray_backend import ray_session, run_on_ray
from .workers import BackendError, limit_worker_threads

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendError",
    "add_backend_arguments",
    "backend_from_args",
    "run_jobs",
]

J = TypeVar("J")
R = TypeVar("R")
W = TypeVar("W")


BACKENDS = ("process", "ray")


@dataclass(frozen=True)
class Backend:
    """Where :func:`run_jobs` plays: ``"process"``, worker processes on this machine (the
    default), or ``"ray"``, Ray actors (:mod:`agents.ray_backend`): ``address`` ``None``
    starts a Ray on this machine for the run, else the cluster at ``address`` is used."""

    name: str = "process"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.name not in BACKENDS:
            raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {self.name!r}")
        if self.address is not None and self.name != "ray":
            raise ValueError("address: only the ray backend connects to an address (--backend ray)")

    @contextmanager
    def session(self, workers: int) -> Iterator[None]:
        """Keep the backend up for the block, so that a run can check it before writing
        anything and its :func:`run_jobs` calls share it (:class:`BackendError` if it
        cannot start). Nothing to do for processes."""
        if self.name != "ray":
            yield
            return
        with ray_session(self.address, workers):
            yield


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--address``, the options of every command that plays through
    :func:`run_jobs` (read back with :func:`backend_from_args`)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="where the --workers play: process (this machine, default) or ray (Ray actors; "
        "needs the ray extra)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the Ray cluster's address (HOST:PORT as `ray start --head` "
        "prints it, or auto); default: a Ray started on this machine for the command",
    )


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The :class:`Backend` of parsed :func:`add_backend_arguments` options (``ValueError``
    for ``--address`` without ``--backend ray``)."""
    return Backend(args.backend, args.address)


_WORKER: tuple[Any, Callable[[Any, Any], Any]] | None = None


def _init_worker(
    setup: Callable[..., Any], args: tuple[Any, ...], play: Callable[[Any, Any], Any]
) -> None:
    global _WORKER
    # Ctrl-C is the parent's to handle (it stops the pool): no traceback from every worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_worker_threads()
    _WORKER = (setup(*args), play)


def _run_indexed(item: tuple[int, Any]) -> tuple[int, Any]:
    assert _WORKER is not None, "worker not initialised"
    state, play = _WORKER
    return item[0], play(state, item[1])


def run_jobs(
    jobs: Iterable[J],
    setup: Callable[..., W],
    setup_args: tuple[Any, ...],
    play: Callable[[W, J], R],
    workers: int = 1,
    on_result: Callable[[R], None] | None = None,
    context: str = "spawn",
    backend: Backend | None = None,
) -> list[R]:
    """Results of ``play(state, job)`` for every job, in job order, where ``state =
    setup(*setup_args)`` is built once per worker (an environment, agents, a loaded policy).

    With the process backend (the default) and ``workers > 1`` the jobs run in that many
    ``context`` processes (``setup`` and ``play`` must then be picklable module-level
    functions); each process uses one BLAS/torch thread unless ``OMP_NUM_THREADS`` /
    ``MKL_NUM_THREADS`` say otherwise. With the ray backend they run on ``workers`` Ray
    actors (:mod:`agents.ray_backend`; ``setup_args`` are sent to them, so they may be
    anywhere on a cluster). ``on_result`` is called here with each result as it arrives
    (progress, appending), in the order the jobs finish."""
    items = list(enumerate(jobs))
    if backend is not None and backend.name == "ray":
        return run_on_ray(items, setup, setup_args, play, workers, on_result, backend.address)
    results: list[Any] = [None] * len(items)
    if workers <= 1 or len(items) <= 1:
        state = setup(*setup_args)
        for i, job in items:
            results[i] = play(state, job)
            if on_result is not None:
                on_result(results[i])
        return results
    saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    for k, v in saved.items():
        if v is None:
            os.environ[k] = "1"
    try:
        pool_args = (setup, setup_args, play)
        ctx = mp.get_context(context)
        with ctx.Pool(min(workers, len(items)), _init_worker, pool_args) as pool:
            for i, result in pool.imap_unordered(_run_indexed, items, chunksize=1):
                results[i] = result
                if on_result is not None:
                    on_result(result)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
    return results
