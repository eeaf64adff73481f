"""Small random-weight az models for the tests (imported by the az tests and their conftest)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from agents.az import AzNet, NetShape, SearchSettings, save_checkpoint

SMALL = {"channels": 8, "blocks": 1, "broadcast": 4, "global_dim": 16, "query_hidden": 8,
         "value_hidden": 16}  # fmt: skip


def write_model(path: Path, num_players: int = 2, seed: int = 0, **search: object) -> Path:
    """A small random-weight az model file for ``num_players``, base game."""
    import torch

    torch.manual_seed(seed)
    net = AzNet(NetShape(num_players=num_players, mode="base", **SMALL))
    settings = asdict(SearchSettings(**{"sims": 4, "k": 4, **search}))  # type: ignore[arg-type]
    return save_checkpoint(path, net, settings, {"command": "tests/az fixture"})
