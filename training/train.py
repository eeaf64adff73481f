"""``python -m training.train``: the command of :mod:`training.ppo.train` (the PPO pipeline; ``make run``), kept at its old name.

The code lives in :mod:`training.ppo.train`; this module only runs its ``main``.
"""

from training.ppo.train import main

if __name__ == "__main__":
    raise SystemExit(main())
