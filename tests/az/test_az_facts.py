"""Docs that cannot drift (as ``tests/project/test_model_facts.py`` for the other models):
every row of the az table in docs/az.md is read from the shipped model's ``provenance.json``."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from agents.shipped import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = CHECKPOINTS / "az_2p_base"
README = (ROOT / "docs" / "az.md").read_text(encoding="utf-8")
NAMES = {"heuristic": "heuristic", "greedy": "greedy", "az:sims=0": "`az:sims=0`",
         "mc:sims=64,time=none": "mc:sims=64", "trained": "`trained`"}  # fmt: skip


def evaluations() -> list[dict[str, object]]:
    if not (FOLDER / "provenance.json").exists():
        return []
    data = json.loads((FOLDER / "provenance.json").read_text())
    return list(data.get("evaluations", []))


@pytest.mark.parametrize("ev", evaluations(), ids=lambda e: f"{e['agent']}-{e['opponent']}")
def test_readme_rows_match_the_provenance(ev: dict[str, object]) -> None:
    assert f"{ev['command']}" in README
    rows = [line for line in README.splitlines() if line.startswith("| `az")]
    agent = "`az`" if ev["agent"] == "az" else f"`{ev['agent']}`"
    opponent = NAMES[str(ev["opponent"])]
    pattern = rf"\| {re.escape(agent)}( \(.*?\))? vs {re.escape(opponent)} \| (\d+) \| ([\d.]+) \[([\d.]+), ([\d.]+)\]"
    hits = [m for r in rows if (m := re.match(pattern, r))]
    assert len(hits) == 1, f"expected one README row for {agent} vs {opponent}"
    m = hits[0]
    assert int(m.group(2)) == ev["games"]
    # the README prints 3 decimals of the exact value; provenance keeps 4 (rounding may differ
    # in the last printed digit)
    for got, want in zip(m.groups()[2:], ("win_rate", "ci_low", "ci_high"), strict=True):
        assert abs(float(got) - float(ev[want])) <= 0.0011, (want, got, ev[want])


def test_the_from_zero_curve_is_its_record() -> None:
    """Each row of docs/az.md's from-zero table is a row of the shipped curve.csv."""
    path = CHECKPOINTS / "az_2p_zero" / "curve.csv"
    with path.open() as f:
        records = list(csv.DictReader(f))
    assert records, "no curve records"
    for r in records:
        games = f"{int(r['games_played']):,}"
        rate = f"{float(r['win_rate']):.3f} [{float(r['ci_low']):.3f}, {float(r['ci_high']):.3f}]"
        line = f"| {float(r['hours']):.2f} | {games} | {rate} |"
        assert line in README, f"docs/az.md lacks the curve row {line!r}"
