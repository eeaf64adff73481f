"""``python -m training.az``: see :mod:`training.az.cli`."""

from .cli import main

raise SystemExit(main())
