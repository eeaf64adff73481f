"""``python -m training.rllib_train``: the command of :mod:`training.rllib.train` (the RLlib pipeline), kept at its old name.

The code lives in :mod:`training.rllib.train`; this module only runs its ``main``.
"""

from training.rllib.train import main

if __name__ == "__main__":
    raise SystemExit(main())
