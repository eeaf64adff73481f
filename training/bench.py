"""``python -m training.bench``: the command of :mod:`training.ppo.sb3_bench` (the MaskablePPO pipeline's throughput benchmark), kept at its old name.

The code lives in :mod:`training.ppo.sb3_bench`; this module only runs its ``main``.
"""

from training.ppo.sb3_bench import main

if __name__ == "__main__":
    raise SystemExit(main())
