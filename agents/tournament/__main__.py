"""``python -m agents.tournament`` (see :mod:`agents.tournament`)."""

from .cli import main

raise SystemExit(main())
