"""The ``az`` agent: a small policy and value network (:mod:`.network`) evaluated inside the
native core, where its search looks past the next reveal (:mod:`.search`); trained by
``python -m training.az``.

Modules: :mod:`.network` (the network and its export to the core), :mod:`.checkpoint` (model
files: save, load, the refusals), :mod:`.search` (the settings and the core's search),
:mod:`.agent` (the agent registered as ``az`` in both games).
"""

from .agent import AzAgent, policy_probabilities
from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint, shipped_path
from .network import AzNet, NetShape
from .search import SearchResult, SearchSettings, native_search

__all__ = [
    "AzAgent",
    "AzNet",
    "CheckpointError",
    "NetShape",
    "SearchResult",
    "SearchSettings",
    "load_checkpoint",
    "native_search",
    "policy_probabilities",
    "save_checkpoint",
    "shipped_path",
]
