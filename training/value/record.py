"""Add a tournament's result to a checkpoint's ``provenance.json`` (its ``evaluations`` list).

    python -m training.value.record --checkpoint agents/checkpoints/trained_2p_base \\
        --tournament runs/eval_2p_vs_heuristic --command "python -m agents.tournament ..."

Reads the tournament's ``summary.json`` and ``timing.json`` (``agents.tournament --out``) and
records, for the first entry whose spec starts with ``--agent`` (``trained``; ``az`` for the
az models): games, wins, the win rate with its 95% Wilson interval, the opponents, the mean
scores, and the wall time per decision of every entry. An evaluation with the same command
replaces the earlier one.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from training.common.outputs import write_json


def evaluation_entry(tournament: Path, command: str, agent: str = "trained") -> dict[str, Any]:
    """The record of one tournament (module docstring)."""
    summary = json.loads((tournament / "summary.json").read_text())
    timing = json.loads((tournament / "timing.json").read_text())
    rows = summary["agents"]
    me = next(r for r in rows if r["spec"].startswith(agent))
    others = [r for r in rows if r is not me]
    return {
        "command": command,
        "agent": me["spec"].split(",path=")[0].split(":path=")[0],
        "opponent": others[0]["spec"],
        "ci_low": round(me["win_rate_low"], 4),
        "ci_high": round(me["win_rate_high"], 4),
        "score": me["score_mean"],
        "opponent_score": sum(r["score_mean"] for r in others) / len(others),
        "players": summary["config"]["players"],
        "seed": summary["config"]["seed"],
        "opponents": [r["spec"] for r in rows if r is not me],
        "games": me["games"],
        "wins": me["wins"],
        "win_rate": me["win_rate"],
        "wilson95": [me["win_rate_low"], me["win_rate_high"]],
        "mean_score": me["score_mean"],
        "wall_ms_per_decision": {
            spec: t["ms_per_decision"] for spec, t in timing["agents"].items()
        },
        "workers": timing["workers"],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.value.record", description=__doc__)
    ap.add_argument("--checkpoint", required=True, help="a trained_* checkpoint folder")
    ap.add_argument("--tournament", required=True, help="an agents.tournament --out folder")
    ap.add_argument("--command", required=True, help="the tournament command, as run")
    ap.add_argument("--agent", default="trained", help="the recorded entry's spec prefix")
    args = ap.parse_args(argv)
    path = Path(args.checkpoint) / "provenance.json"
    prov = json.loads(path.read_text())
    entry = evaluation_entry(Path(args.tournament), args.command, args.agent)
    evals = [e for e in prov.get("evaluations", []) if e["command"] != args.command]
    prov["evaluations"] = [*evals, entry]
    write_json(path, prov)
    print(json.dumps(entry))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
