"""``python -m moonriver_env.bench_vector --game kingdomino`` runs, at a tiny size, and writes
its rows (the Kingdomino vector game beside connect_four, the clone and playout rows)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from moonriver_env.vector import NATIVE

pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    """The benchmark in its own process (it pins itself to one CPU)."""
    command = [sys.executable, "-m", "moonriver_env.bench_vector", "--game", "kingdomino", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_kingdomino_rows(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = bench(
        "--seconds", "0.05", "--runs", "1", "--players", "2", "--num-games", "8", "--json", str(out)
    )
    assert done.returncode == 0, done.stderr
    rows = {r["row"]: r["median"] for r in json.loads(out.read_text())["results"]}
    assert rows["KingdominoVectorGame 2p base"] > 0
    assert rows["KingdominoVectorGame 2p base + observation"] > 0
    if NATIVE:
        assert rows["native greedy playouts (2p, set-up to end)"] > 0
    assert "KingdominoVectorGame benchmark" in done.stdout


def test_a_bad_mode_is_named() -> None:
    done = bench("--mode", "legends", "--runs", "1")
    assert done.returncode == 2 and "mode" in done.stderr
