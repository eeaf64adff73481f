"""The run skeleton every pipeline follows: config -> run directory and its lock -> a loop of
iterations (periodic ladder evaluation, checkpoints) -> export -> provenance.

* :func:`resolve_config`: the config a command line asks for: a new run's (the schema's
  defaults file <- ``--config`` <- ``--set``), or with ``--resume`` the run's saved
  ``config.toml`` <- ``--set``.
* :func:`begin_run`: with the run lock held (:class:`~training.common.outputs.RunLock`) and
  before anything else is written: a new run refuses a directory that holds one, a resumed
  run refuses a change to the sections its checkpoints fix and prints what changed; then
  ``config.toml`` records the effective config.
* :class:`RunClock`: the run's wall time, continued across resumes (its budgets count it).
* :func:`iterate` and :func:`budget_spent`: the loop of iterations until a budget is spent
  (:func:`budget_fraction`: how much of it),
  with the actions due every ``N`` iterations (evaluation, checkpoint, a log line).

The ladder evaluation is :mod:`training.common.ladder`, export :mod:`training.common.export`
(:func:`~training.common.export.build_folder`), provenance :mod:`training.common.provenance`.
PPO's loop is SB3's ``learn`` (its callbacks do the periodic work); RLlib's and az's are
:func:`iterate`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from training.common.config import Config, Schema, dumps
from training.common.outputs import OutputError, write_text

RUN_CONFIG = "config.toml"
"""The effective config of a run, in its directory (a resumed run reads it back)."""

Log = Callable[[str], None]


def _print(text: str) -> None:
    print(text, flush=True)


class RunClock:
    """Wall time of a run in seconds, continued across resumes (``base`` = time already spent)."""

    def __init__(self, base: float = 0.0) -> None:
        self.base = float(base)
        self.start = time.time()

    def __call__(self) -> float:
        return self.base + time.time() - self.start


def holds_run(run_dir: Path) -> bool:
    """``run_dir`` holds a run: its ``config.toml`` or anything in its ``checkpoints/``."""
    checkpoints = run_dir / "checkpoints"
    return (run_dir / RUN_CONFIG).exists() or (checkpoints.is_dir() and any(checkpoints.iterdir()))


def resolve_config(
    schema: Schema,
    run_dir: Path,
    resume: bool,
    config: str | Path | None,
    overrides: Iterable[str],
    *,
    config_on_resume: bool = False,
    log: Log = _print,
) -> Config:
    """A new run's config (``config`` over the defaults, then ``overrides``), or with
    ``resume`` the run's saved one with ``overrides`` on top; a ``config`` given with
    ``resume`` replaces the saved one when ``config_on_resume`` (az), else it is ignored with a
    message. :class:`OutputError` when there is no run to resume."""
    saved = run_dir / RUN_CONFIG
    if not resume:
        return schema.load(config, overrides)
    if not saved.is_file():
        raise OutputError(f"--resume: no run in {run_dir} (no {RUN_CONFIG}; nothing to resume)")
    if config is not None and config_on_resume:
        return schema.load(config, overrides)
    if config is not None:
        log(f"--resume: using {saved}, not {config}")
    return schema.load(saved, overrides)


def begin_run(
    schema: Schema,
    run_dir: Path,
    cfg: Config,
    resume: bool,
    *,
    prepare: Callable[[Config | None], None] | None = None,
    log: Log = _print,
) -> Config | None:
    """Start (or resume) the run of ``cfg`` in ``run_dir``, whose lock the caller holds: a new
    run is refused (:class:`OutputError`) where one is; a resumed run's config is checked
    against the saved one (:meth:`Schema.check_resume`, a ``ConfigError``) before anything is
    written. Prints what the config changes, calls ``prepare(saved config or None)`` (a
    pipeline's own clean-up before the new config is named), then writes ``config.toml``.
    Returns the saved config of a resumed run (``None`` for a new one)."""
    path = run_dir / RUN_CONFIG
    before: Config | None = None
    if resume and path.is_file():
        before = schema.load(path)
        schema.check_resume(before, cfg)
        log(schema.describe_diff(cfg, before, f"{path} (the run's)"))
    elif resume:
        log(schema.describe_diff(cfg))
    else:
        if holds_run(run_dir):
            raise OutputError(
                f"--run-dir: {run_dir} already holds a run; pass --resume to continue it or "
                "choose another --run-dir"
            )
        log(schema.describe_diff(cfg))
    if prepare is not None:
        prepare(before)
    write_text(path, dumps(cfg))
    return before


def budget_spent(
    iteration: int, max_iterations: int, seconds: float, max_minutes: float
) -> str | None:
    """Which budget ``iteration`` finished iterations and ``seconds`` of wall time have spent
    (``"iterations"`` or ``"minutes"``; a limit of 0 is none), or ``None``."""
    if max_iterations and iteration >= max_iterations:
        return "iterations"
    if max_minutes and seconds >= 60.0 * max_minutes:
        return "minutes"
    return None


def budget_fraction(
    iteration: int, max_iterations: int, seconds: float, max_minutes: float
) -> float:
    """How much of its budget a run has spent after ``iteration`` finished iterations and
    ``seconds`` of wall time: the larger of the two shares (a limit of 0 is none), at most 1."""
    shares = [0.0]
    if max_iterations:
        shares.append(iteration / max_iterations)
    if max_minutes:
        shares.append(seconds / (60.0 * max_minutes))
    return min(1.0, max(shares))


Periodic = tuple[int, Callable[[int], object]]
"""``(every, action)``: ``action(iteration)`` after every ``every``-th iteration (0: never)."""


def iterate(
    step: Callable[[], int], done: Callable[[], bool], periodic: Sequence[Periodic] = ()
) -> None:
    """The loop of a run: while not ``done()``, ``step()`` (one iteration; it returns the
    iteration's number, counted over every start of the run), then the ``periodic`` actions
    due after it, in order."""
    while not done():
        iteration = step()
        for every, action in periodic:
            if every and iteration % every == 0:
                action(iteration)
