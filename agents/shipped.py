"""The models shipped with the package: one folder per model under :data:`CHECKPOINTS`
(``agents/checkpoints/<name>/``), each with the weights (``model.zip`` or ``model.pt``), the
run's ``config.toml`` and ``provenance.json`` (how it was made and what it measured).

They live with the agents because playing a saved model needs nothing from ``training``;
``training`` only writes models here (``python -m training.export``, ``training.value.train
--export``, ``training.az --export``). Every reader and writer takes the folder from
:data:`CHECKPOINTS`.
"""

from __future__ import annotations

from pathlib import Path

CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
"""The folder of the shipped models (installed with the package as its data)."""
