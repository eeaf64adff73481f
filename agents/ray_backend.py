"""The Ray backend of :func:`agents.jobs.run_jobs`: the same jobs on Ray actors, on this
machine or on a Ray cluster.

Ray is imported here only, and only when this backend is used (the ``ray`` extra:
``pip install -e .[ray]``). Each actor stands for one worker process of the process backend:
it builds ``setup(*setup_args)`` once (an environment, agents, a policy) and plays the jobs it
is sent with ``play``, so a job gives the same result on either backend. Results come back to
this process as they finish; ``on_result`` sees them in that order (appending, progress) and
:func:`run_on_ray` returns them in job order.

Where Ray runs: with no address, a Ray started on this machine for the call (``num_cpus`` =
the workers) and shut down after it; with an address (``HOST:PORT`` of a cluster's head,
as ``ray start --head`` prints it, ``ray://HOST:PORT`` for Ray Client, or ``auto``), that
cluster, left running. A Ray the caller has already started (``ray.init`` in a notebook or a
test) is used as it is. An address is checked before Ray is asked to connect to it (Ray itself
waits minutes for an address that does not answer): it must accept a connection within
:data:`CONNECT_TIMEOUT_S` and speak HTTP/2 (gRPC, what a Ray head serves).

A Ray on this machine is started in one place, :func:`start_local` (the commands, the RLlib
trainer and the tests all call it), so that it does not depend on other processes' memory:
Ray's memory monitor kills a worker (``OutOfMemoryError``) when the *machine's* memory use
passes 95 %, whoever holds that memory, and Ray sizes its object store from the memory free at
its start. Here the monitor is off (``RAY_memory_monitor_refresh_ms=0``, set unless the
environment already sets it: set it yourself to turn the monitor back on) and the object
store is a fixed :data:`LOCAL_OBJECT_STORE_BYTES` (the games, policies and RLlib batches
sent through it are a few MB). A cluster (``--address``) keeps its own settings.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .workers import BackendError, limit_worker_threads

__all__ = [
    "CONNECT_TIMEOUT_S",
    "INSTALL_HINT",
    "check_address",
    "check_installed",
    "LOCAL_OBJECT_STORE_BYTES",
    "LOCAL_RAY_ENV",
    "ray_session",
    "run_on_ray",
    "start_local",
]

INSTALL_HINT = "pip install -e .[ray]"
CONNECT_TIMEOUT_S = 10.0
# Jobs queued per actor: the next one is already there when a game ends (a round trip to the
# actor costs about half a millisecond on one machine, more across a network).
IN_FLIGHT = 2
# Seconds between checks for a finished job: Ctrl-C is handled between two waits.
WAIT_S = 0.5

LOCAL_OBJECT_STORE_BYTES = 256 * 1024**2
"""The object store of a Ray started on this machine (:func:`start_local`)."""
LOCAL_RAY_ENV = {"RAY_memory_monitor_refresh_ms": "0"}
"""Environment set (where unset) before a local Ray starts: its memory monitor off, so another
process holding most of the machine's memory does not get this Ray's workers killed."""

# An HTTP/2 client preface and an empty SETTINGS frame: a gRPC server (a Ray head) answers
# with its own SETTINGS frame (frame type 4 in the fourth byte).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_HTTP2_SETTINGS = 4


def check_installed() -> None:
    """Raise :class:`~agents.workers.BackendError` naming the ``ray`` extra when Ray cannot be
    imported (without importing it)."""
    if importlib.util.find_spec("ray") is None:
        raise BackendError(
            f"backend 'ray': Ray is not installed (install the ray extra: {INSTALL_HINT})"
        )


def _import_ray() -> Any:
    check_installed()
    import ray

    return ray


def check_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`~agents.workers.BackendError` unless ``address`` (``HOST:PORT`` or
    ``ray://HOST:PORT``; ``auto`` is left to Ray) answers like a Ray head within ``timeout``
    seconds."""
    if address == "auto":
        return
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise BackendError(f"address: expected HOST:PORT, ray://HOST:PORT or auto, got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as conn:
            conn.sendall(_HTTP2_PREFACE)
            reply = conn.recv(9)
    except OSError as e:
        raise BackendError(
            f"address: no Ray cluster answers at {address!r} ({e or type(e).__name__}); start one "
            "with `ray start --head` and give the address it prints"
        ) from None
    if len(reply) < 4 or reply[3] != _HTTP2_SETTINGS:
        raise BackendError(
            f"address: {address!r} answers but is not a Ray cluster's head (give the GCS "
            "address `ray start --head` prints, port 6379 by default, not the dashboard's)"
        )


def connect(address: str, **options: Any) -> None:
    """``ray.init`` on the cluster at ``address`` (checked first by :func:`check_address`); a
    refusal is a :class:`~agents.workers.BackendError` that says what to check."""
    ray = _import_ray()
    check_address(address)
    try:
        ray.init(address=address, **options)
    except (ConnectionError, ValueError) as e:
        hint = ""
        if os.environ.get("RAY_AUTH_MODE") != "token":
            hint = (
                " (Ray 2.60's `ray start` turns token authentication on: run this command with "
                "RAY_AUTH_MODE=token and the cluster's token, `ray get-auth-token` on the head, "
                "in ~/.ray/auth_token or RAY_AUTH_TOKEN)"
            )
        raise BackendError(f"address: cannot connect to Ray at {address!r}: {e}{hint}") from None


def start_local(num_cpus: int, **options: Any) -> Any:
    """Start a Ray on this machine with ``num_cpus`` CPUs (at least 1), independent of other
    processes' memory (the module docstring says how); ``options`` go to ``ray.init`` (they
    may set ``object_store_memory``). Returns the ``ray`` module."""
    ray = _import_ray()
    for name, value in LOCAL_RAY_ENV.items():
        os.environ.setdefault(name, value)  # read by the raylet Ray starts, inherited
    options.setdefault("object_store_memory", LOCAL_OBJECT_STORE_BYTES)
    options.setdefault("include_dashboard", False)
    ray.init(address="local", num_cpus=max(1, num_cpus), **options)
    return ray


@contextmanager
def ray_session(address: str | None, workers: int) -> Iterator[Any]:
    """Ray, ready for the block (the module docstring says which); yields the ``ray`` module."""
    ray = _import_ray()
    if ray.is_initialized():  # the caller's Ray (an outer session, a notebook, the tests)
        yield ray
        return
    options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
    if address is None:
        start_local(workers, **options)
    else:
        connect(address, **options)
    try:
        yield ray
    finally:
        ray.shutdown()


class _Worker:
    """One actor: the state ``setup(*args)`` built once, then ``play(state, job)`` per job."""

    def __init__(self, spec: tuple[Callable[..., Any], tuple[Any, ...], Callable]) -> None:
        limit_worker_threads()
        setup, args, self.play = spec
        self.state = setup(*args)

    def run(self, index: int, job: Any) -> tuple[int, Any]:
        return index, self.play(self.state, job)


def run_on_ray(
    items: Sequence[tuple[int, Any]],
    setup: Callable[..., Any],
    setup_args: tuple[Any, ...],
    play: Callable[[Any, Any], Any],
    workers: int,
    on_result: Callable[[Any], None] | None,
    address: str | None,
) -> list[Any]:
    """:func:`agents.jobs.run_jobs` on ``workers`` Ray actors (at most the cluster's CPUs):
    ``items`` are ``(index, job)`` pairs, the results come back in job order. An exception in
    a job is raised here as the job raised it."""
    results: list[Any] = [None] * len(items)
    if not items:
        return results
    with ray_session(address, workers) as ray:
        cpus = int(ray.cluster_resources().get("CPU", 0))
        count = max(1, min(workers, len(items), cpus))
        if count < workers and count < len(items):
            print(
                f"ray: {workers} workers asked, the cluster has {cpus} CPUs: {count} actors",
                file=sys.stderr,
            )
        # one copy of the arguments (a policy can be large) in Ray's object store for every actor
        shared = ray.put((setup, setup_args, play))
        actor_class = ray.remote(num_cpus=1)(_Worker)
        actors = [actor_class.remote(shared) for _ in range(count)]
        try:
            _stream(ray, actors, items, results, on_result)
        finally:
            for actor in actors:
                ray.kill(actor)
    return results


def _stream(
    ray: Any,
    actors: list[Any],
    items: Sequence[tuple[int, Any]],
    results: list[Any],
    on_result: Callable[[Any], None] | None,
) -> None:
    """Keep :data:`IN_FLIGHT` jobs queued on every actor; hand each result on as it comes."""
    todo = iter(items)
    owner: dict[Any, Any] = {}  # pending result -> its actor

    def submit(actor: Any) -> None:
        item = next(todo, None)
        if item is not None:
            owner[actor.run.remote(*item)] = actor

    for _ in range(IN_FLIGHT):
        for actor in actors:
            submit(actor)
    while owner:
        ready, _ = ray.wait(list(owner), num_returns=1, timeout=WAIT_S)
        for ref in ready:
            actor = owner.pop(ref)
            try:
                index, result = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                raise (e.cause if isinstance(e.cause, Exception) else e) from e
            results[index] = result
            if on_result is not None:
                on_result(result)
            submit(actor)
