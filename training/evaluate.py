"""``python -m training.evaluate``: the command of :mod:`training.common.ladder` (the ladder evaluation, shared by the pipelines), kept at its old name.

The code lives in :mod:`training.common.ladder`; this module only runs its ``main``.
"""

from training.common.ladder import main

if __name__ == "__main__":
    raise SystemExit(main())
