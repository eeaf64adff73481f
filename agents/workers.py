"""What every worker of :func:`agents.jobs.run_jobs` shares, whatever runs it (processes on this
machine or Ray actors, :mod:`agents.ray_backend`): the error of a backend that cannot run, and
the thread limit of a worker."""

from __future__ import annotations

import sys

__all__ = ["BackendError", "limit_worker_threads"]


class BackendError(ValueError):
    """The backend asked for cannot run the jobs (Ray not installed, no Ray cluster at the
    address); the message says what to do."""


def limit_worker_threads() -> None:
    """One torch thread in a worker (the workers already share the cores)."""
    if "torch" in sys.modules:  # pragma: no cover - depends on the agents
        sys.modules["torch"].set_num_threads(1)
