"""The ``az`` agent: a policy and value network trained by self-play (``training.az``),
played with a Gumbel root search over afterstates.

Modules: :mod:`.network` (the network), :mod:`.checkpoint` (model files: save, load, the
refusals), :mod:`.search` (Gumbel-Top-k, Sequential Halving, completed Q-values, batched),
:mod:`.agent` (the agent registered as ``az``).
"""

from .agent import AzAgent, policy_probabilities
from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint, shipped_path
from .network import MARGIN_SCALE, AzNet, NetShape
from .search import Evaluator, SearchResult, SearchSettings, gumbel_search

__all__ = [
    "MARGIN_SCALE",
    "AzAgent",
    "AzNet",
    "CheckpointError",
    "Evaluator",
    "NetShape",
    "SearchResult",
    "SearchSettings",
    "gumbel_search",
    "load_checkpoint",
    "policy_probabilities",
    "save_checkpoint",
    "shipped_path",
]
