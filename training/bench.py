"""``python -m training.bench``: the command of :mod:`training.ppo.bench` (the PPO throughput benchmark), kept at its old name.

The code lives in :mod:`training.ppo.bench`; this module only runs its ``main``.
"""

from training.ppo.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
