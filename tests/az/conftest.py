"""Shared fixtures of the az tests: small random-weight models written to a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from az_models import write_model  # noqa: E402


@pytest.fixture(scope="session")
def model_2p(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_model(tmp_path_factory.mktemp("az") / "model_2p.pt")


@pytest.fixture(scope="session")
def model_4p(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_model(tmp_path_factory.mktemp("az") / "model_4p.pt", num_players=4)
