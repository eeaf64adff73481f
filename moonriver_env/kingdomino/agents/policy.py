"""Kingdomino's ``ppo:PATH``: a saved MaskablePPO model trained through ``Kingdomino-v0``."""

from __future__ import annotations

from agents.networks.acting import policy_action
from agents.networks.snapshots import load_model
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState
from moonriver_env.kingdomino.encoding import KingdominoEncoder

from .common import KingdominoAgent


class PolicyKingdominoAgent(KingdominoAgent):
    """A saved MaskablePPO model (trained through ``Kingdomino-v0``) playing its seat: the
    most likely legal action of the model for the seat's flat observation (``sample=True``:
    drawn from the legal actions' probabilities)."""

    name = "ppo"

    def __init__(self, path: str, seed: int | None = None, sample: bool = False) -> None:
        super().__init__(seed)
        self.path = path
        self.model = load_model(path)  # read without running code from the file
        self.sample = sample
        self._encoders: dict[KingdominoConfig, KingdominoEncoder] = {}
        self._encoder_class = KingdominoEncoder

    def choose(self, state: KingdominoState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        enc = self._encoders.get(state.config)
        if enc is None:
            enc = self._encoders[state.config] = self._encoder_class(state.config)
            if self.model.observation_space.shape != (enc.size,):
                raise ValueError(
                    f"ppo: the model observes {self.model.observation_space.shape}, this game "
                    f"({state.config.describe()}) gives ({enc.size},)"
                )
        obs = enc.encode_flat(state, state.seat)
        return policy_action(
            self.model.policy, obs, state.legal_action_mask(), not self.sample, self.rng
        )
