"""The family's third game for the tests of this folder: importing :mod:`minidraft` registers
it (its one ``register_game``). It is taken out of the registry again at once and put back for
each test of this folder only, so the other folders' tests see the games the package ships."""

from __future__ import annotations

from collections.abc import Iterator

import minidraft
import pytest

from moonriver_env.games import GAMES

ENTRY = GAMES.pop(minidraft.ENTRY.name)


@pytest.fixture(autouse=True)
def minidraft_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Mini Draft in :data:`moonriver_env.games.GAMES` for the test (restored after it)."""
    monkeypatch.setitem(GAMES, ENTRY.name, ENTRY)
    yield
