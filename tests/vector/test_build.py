"""The native core was built by the ordinary install (issue 21: "make test and CI fail if the
extension did not build") and agrees with the package's tables."""

from __future__ import annotations

import importlib

from moonriver_env.moonriver.encoding import RANCH_CHANNEL_NAMES, ObservationEncoder
from moonriver_env.moonriver.rules.actions import SEGMENTS
from moonriver_env.rules import GameConfig, Phase


def test_the_extension_is_built_and_used() -> None:
    native = importlib.import_module("moonriver_env._native")  # ImportError: not built
    from moonriver_env.vector import NATIVE, VectorGame

    assert NATIVE
    assert VectorGame(num_games=1, seed=0).backend == "native"
    assert tuple(p.name for p in Phase) == native.PHASES
    assert tuple(name for name, _ in SEGMENTS) == native.SEGMENTS
    assert set(native.CHANNELS) == set(RANCH_CHANNEL_NAMES)
    assert set(native.FEATURES) == set(ObservationEncoder(GameConfig()).feature_slices)


def test_the_c_sources_include_no_python_in_the_rules() -> None:
    from pathlib import Path

    core = Path(__file__).resolve().parents[2] / "moonriver_env" / "_core"
    binding = {"module.c", "batch.c", "state.c", "kdbind.c", "azbind.c", "sparsemm.c", "binding.h"}
    for path in core.glob("*.[ch]"):
        text = path.read_text()
        python = "Python.h" in text or '"binding.h"' in text
        assert python == (path.name in binding), path.name
