"""Shared fixtures of the az tests: random-weight models of each game written to a temporary
folder (never the shipped models, which training may be replacing)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from az_models import SPECS, write_model  # noqa: E402

from moonriver_env.family.native import native  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _core_is_built() -> None:
    if native is None:
        pytest.fail("the native core is not built (tests/vector/test_build.py says why)")


@pytest.fixture(scope="session")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A model file per game of :data:`az_models.SPECS` (keys ``mr2``, ``mr4``, ``kd4``)."""
    folder = tmp_path_factory.mktemp("az_models")
    return {
        key: write_model(folder / f"{key}.pt", spec, seed=i)
        for i, (key, spec) in enumerate(SPECS.items())
    }
