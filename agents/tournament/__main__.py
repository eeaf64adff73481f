"""``python -m agents.tournament`` (see :mod:`agents.tournament`)."""

from moonriver_env.exit_status import exit_with

from .cli import main

raise SystemExit(exit_with(main()))
