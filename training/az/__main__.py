"""``python -m training.az``: see :mod:`training.az.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
