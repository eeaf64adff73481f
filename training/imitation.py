"""``python -m training.imitation``: the command of :mod:`training.ppo.imitation` (the cloning diagnosis), kept at its old name.

The code lives in :mod:`training.ppo.imitation`; this module only runs its ``main``.
"""

from training.ppo.imitation import main

if __name__ == "__main__":
    raise SystemExit(main())
