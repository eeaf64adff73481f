"""``python -m training.az``: see :mod:`training.az.cli`."""

from moonriver_env.exit_status import exit_with

from .cli import main

if __name__ == "__main__":
    raise SystemExit(exit_with(main()))
