"""The shipped az models decide as they did when their files were written: each model's search
(with its own play settings, and the raw policy ``sims=0``) on fixed positions, against the
results ``shipped_decisions.json`` recorded before the policy head, the symmetric views and the
playout cap left the code (its ``recorded_at`` commit). The same move, legal actions and number
of network evaluations; the prior, Q, pi and the root's value to float rounding (1e-4: another
CPU may order the sums differently).

``python tests/az/test_az_shipped_decisions.py --record`` writes the file again from this
checkout (after a change meant to alter the shipped models' play, with the reason in the commit).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from az_models import midgame  # noqa: E402

from agents.az import AzAgent  # noqa: E402
from agents.az.checkpoint import load_checkpoint  # noqa: E402
from agents.shipped import CHECKPOINTS  # noqa: E402

RECORD = HERE / "shipped_decisions.json"
POSITIONS = ((1, 3), (2, 11), (3, 25), (4, 40))
"""``(seed, moves)``: the game of ``seed`` after ``moves`` random moves (:func:`midgame`), on to a
decision with a choice; each searched with the agent seeded by ``seed``."""


def decisions(folder: Path) -> list[dict[str, Any]]:
    """The shipped model in ``folder``'s searches on :data:`POSITIONS`, its own settings then
    ``sims=0``."""
    path = folder / "model.pt"
    spec = load_checkpoint(path)[0].shape.spec
    rows = []
    for seed, moves in POSITIONS:
        ns = midgame(spec, seed, moves)
        assert ns is not None, (folder.name, seed)
        state = ns.to_state()
        for raw in (False, True):
            r = AzAgent(seed=seed, path=path, sims=0 if raw else None).search(state)
            rows.append({"seed": seed, "moves": moves, "raw": raw, "action": r.action,
                         "legal": list(r.legal), "prior": list(r.prior), "q": list(r.q),
                         "pi": list(r.pi), "value": r.value, "evals": r.evals})  # fmt: skip
    return rows


def shipped() -> list[Path]:
    return sorted(p for p in CHECKPOINTS.glob("az_*") if (p / "model.pt").is_file())


def test_every_shipped_model_is_recorded() -> None:
    recorded = json.loads(RECORD.read_text())["models"]
    assert sorted(recorded) == [p.name for p in shipped()] and len(recorded) >= 4


@pytest.mark.parametrize("folder", shipped(), ids=lambda p: p.name)
def test_a_shipped_model_decides_as_recorded(folder: Path) -> None:
    want = json.loads(RECORD.read_text())["models"][folder.name]
    got = decisions(folder)
    assert len(got) == len(want) == 2 * len(POSITIONS)
    for g, w in zip(got, want, strict=True):
        where = (folder.name, w["seed"], w["moves"], w["raw"])
        assert (g["seed"], g["moves"], g["raw"]) == (w["seed"], w["moves"], w["raw"])
        assert g["legal"] == w["legal"] and g["action"] == w["action"], where
        assert g["evals"] == w["evals"], where
        for key in ("prior", "q", "pi"):
            np.testing.assert_allclose(g[key], w[key], rtol=0, atol=1e-4, err_msg=str(where))
        assert g["value"] == pytest.approx(w["value"], abs=1e-4), where
    assert any(not w["raw"] and w["evals"] > 100 for w in want)  # the search searched


def record() -> None:
    """Writes :data:`RECORD` from this checkout's shipped models (one row a line)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
    ).stdout.strip()
    note = json.loads(RECORD.read_text())["note"] if RECORD.exists() else ""
    models = {p.name: decisions(p) for p in shipped()}
    lines = ["{", f'  "recorded_at": {json.dumps(commit)},', f'  "note": {json.dumps(note)},']
    lines.append('  "models": {')
    for i, (name, rows) in enumerate(models.items()):
        lines.append(f"    {json.dumps(name)}: [")
        lines += [
            f"      {json.dumps(r)}{',' if j < len(rows) - 1 else ''}" for j, r in enumerate(rows)
        ]
        lines.append("    ]" + ("," if i < len(models) - 1 else ""))
    RECORD.write_text("\n".join([*lines, "  }", "}"]) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/az/test_az_shipped_decisions.py --record")
    record()
