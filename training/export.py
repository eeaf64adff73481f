"""``python -m training.export``: the command of :mod:`training.common.export` (keeping a reference PPO model in the repository), kept at its old name.

The code lives in :mod:`training.common.export`; this module only runs its ``main``.
"""

from training.common.export import main

if __name__ == "__main__":
    raise SystemExit(main())
