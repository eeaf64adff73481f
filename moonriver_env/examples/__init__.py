"""Runnable examples of Moon River in other RL libraries (README, "Using it from other
libraries"). Each module has a ``main(argv)`` that plays ``--steps`` steps through the library
``--runs`` times and prints the median steps/s; each imports its library only inside
``main``, after the arguments are read. The test suite runs them on a tiny budget
(``tests/env/test_integrations.py``).
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Mapping, Sequence


def example_arguments(module: str, argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line every example shares: ``--steps`` per run and ``--runs``."""
    parser = argparse.ArgumentParser(prog=f"python -m moonriver_env.examples.{module}")
    parser.add_argument("--steps", type=int, default=500, help="steps per run (default 500)")
    parser.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    return parser.parse_args(argv)


def report_rates(label: str, jobs: Mapping[str, Callable[[int], float]], runs: int) -> None:
    """Run each job ``runs`` times (``job(run)`` -> steps/s) and print the median."""
    for name, job in jobs.items():
        rates = [job(run) for run in range(runs)]
        print(f"{label}{name}: median {statistics.median(rates):,.0f} steps/s over {rates}")
