"""The Monte Carlo study of Kingdomino (Gedda, Lagerkvist, Butler, IEEE CIG 2018,
arXiv 1807.04458) replayed on this engine, side by side with the study's own data.

The study played 4-player games on a server that always applied the author's variant plus
Harmony and Middle Kingdom; so does every matchup here (:data:`PAPER_CONFIG`). Seat 0 is the
agent under test, seats 1-3 its three opponents; game ``i`` of a matchup uses engine seed
``i`` (the same deals for every matchup) and agent seeds derived from it.

Usage::

    python -m agents.kingdomino_paper --matchups baseline --games 1000
    python -m agents.kingdomino_paper --matchups mc --games 200
    python -m agents.kingdomino_paper --matchups best --games 300
    python -m agents.kingdomino_paper --summary

Each matchup appends one JSON line per finished game to ``OUT/<matchup>.jsonl`` (resumable:
finished games are skipped; a lock file refuses a second writer) and ``--summary`` writes
``OUT/summary.md``: wins, shared wins, losses, the win rate with its 95% Wilson interval, and
the study's figures beside ours.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from moonriver_env.kingdomino import KingdominoConfig, Phase, new_game
from moonriver_env.kingdomino.agents import make_kingdomino_agent

from .ratings import wilson_interval

PAPER_CONFIG = KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom"))
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "kingdomino" / "paper"

# name -> (agent under test, opponent, what the study reports for it)
MATCHUPS: dict[str, tuple[str, str]] = {
    "random_vs_3random": ("random", "random"),
    "gprd_vs_3random": ("greedy:draft=random", "random"),
    "greedy_vs_3random": ("greedy", "random"),
    "greedy_vs_3greedy": ("greedy", "greedy"),
    "gprd_study_vs_3random": ("greedy:draft=random,study=true", "random"),
    "greedy_study_vs_3random": ("greedy:study=true", "random"),
    "mc_random_100_vs_3greedy": ("mc:sims=100,rollout=random,k=6", "greedy"),
    "mc_player_greedy_100_vs_3greedy": ("mc:sims=100,rollout=player_greedy,k=6", "greedy"),
    "mc_greedy_100_vs_3greedy": ("mc:sims=100,rollout=greedy,k=6", "greedy"),
    "best_vs_3greedy": ("mc:sims=300,rollout=greedy,k=3,value=margin,time=0.9", "greedy"),
    "best_t06_vs_3greedy": ("mc:sims=300,rollout=greedy,k=3,value=margin,time=0.6", "greedy"),
}
GROUPS: dict[str, tuple[str, ...]] = {
    "baseline": (
        "random_vs_3random",
        "gprd_vs_3random",
        "greedy_vs_3random",
        "greedy_vs_3greedy",
    ),
    "study_greedy": ("gprd_study_vs_3random", "greedy_study_vs_3random"),
    "mc": (
        "mc_random_100_vs_3greedy",
        "mc_player_greedy_100_vs_3greedy",
        "mc_greedy_100_vs_3greedy",
    ),
    "best": ("best_vs_3greedy", "best_t06_vs_3greedy"),
}

# The study's own results, counted from its published experiment data (repository
# mgedda/kdom-ai, experiments/runs/kdom_exp-20180205-150829-rev-85a55d8-cpu-3.20GHz/ and
# kdom_exp-20180207-220404-rev-69725d0-cpu-2.70GHz/, the files its process_experiment_1.m
# and _2.m read): wins / draws (shared wins) / losses of the agent in seat "player".
PAPER: dict[str, tuple[str, int, int, int]] = {
    "random_vs_3random": ("TrueRandom vs 3 TrueRandom", 223, 29, 748),
    "gprd_vs_3random": ("GreedyPlacementRandomDraft vs 3 TrueRandom", 794, 22, 184),
    "greedy_vs_3random": ("FullGreedy vs 3 TrueRandom", 977, 2, 21),
    "greedy_vs_3greedy": ("FullGreedy vs 3 FullGreedy (5 s runs)", 118, 15, 367),
    "mc_random_100_vs_3greedy": ("MCE, random playouts, 5 s a move, vs 3 FullGreedy", 235, 19, 246),
}
PAPER_BEST = "MCE with player-greedy playouts, 10 s a move, vs 3 FullGreedy: 74%"


def run_matchup(name: str, games: int, out: Path) -> None:
    """Play games ``0..games-1`` of a matchup, appending each finished one (resumable)."""
    spec, opponent = MATCHUPS[name]
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.jsonl"
    lock = out / f"{name}.lock"
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        raise SystemExit(
            f"{lock} exists: another run writes {path} (remove it if none does)"
        ) from None
    os.write(fd, str(os.getpid()).encode())
    os.close(fd)
    try:
        done = {json.loads(line)["game"] for line in path.open()} if path.exists() else set()
        agents = [make_kingdomino_agent(spec)] + [make_kingdomino_agent(opponent) for _ in range(3)]
        t_start = time.time()
        todo = [g for g in range(games) if g not in done]
        for count, g in enumerate(todo, 1):
            for i, agent in enumerate(agents):
                agent.reset(g * 1000 + i)
            state = new_game(PAPER_CONFIG, seed=g)
            move_seconds: list[float] = []
            while state.phase != Phase.GAME_OVER:
                seat = state.seat
                t0 = time.perf_counter()
                a = agents[seat].choose(state)
                if seat == 0:
                    move_seconds.append(time.perf_counter() - t0)
                state.apply(a)
            record = {
                "game": g,
                "agent": spec,
                "opponents": opponent,
                "winners": state.winners(),
                "points": state.points(),
                "moves": len(move_seconds),
                "max_move_s": round(max(move_seconds), 4),
                "mean_move_s": round(sum(move_seconds) / len(move_seconds), 4),
                "moves_over_1s": sum(1 for t in move_seconds if t > 1.0),
            }
            with path.open("a") as fh:
                fh.write(json.dumps(record) + "\n")
            if count % 100 == 0 or count == len(todo):
                rate = (time.time() - t_start) / count
                print(f"{name}: {len(done) + count}/{games} games ({rate:.2f} s/game)", flush=True)
    finally:
        lock.unlink(missing_ok=True)


def tally(path: Path) -> dict[str, float]:
    """Wins (sole), shared wins, losses of seat 0 and the move times, from a results file."""
    rows = [json.loads(line) for line in path.open()]
    wins = sum(1 for r in rows if r["winners"] == [0])
    shared = sum(1 for r in rows if 0 in r["winners"] and len(r["winners"]) > 1)
    return {
        "games": len(rows),
        "wins": wins,
        "shared": shared,
        "losses": len(rows) - wins - shared,
        "mean_points": sum(r["points"][0] for r in rows) / max(1, len(rows)),
        "max_move_s": max((r["max_move_s"] for r in rows), default=0.0),
        "mean_move_s": sum(r["mean_move_s"] for r in rows) / max(1, len(rows)),
        "moves": sum(r["moves"] for r in rows),
        "over_1s": sum(r.get("moves_over_1s", 0) for r in rows),
    }


def _rate(wins: int, n: int) -> str:
    lo, hi = wilson_interval(wins, n)
    return f"{100 * wins / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def summary(out: Path) -> str:
    """The side-by-side table (markdown)."""
    lines = [
        "| matchup (seat 0 vs 3) | our agent spec | games | our wins / shared / losses | our win rate [95% CI] | s/move: mean (max), moves over 1 s | study: wins / draws / losses | study win rate [95% CI] |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    for name, (spec, opp) in MATCHUPS.items():
        path = out / f"{name}.jsonl"
        if not path.exists():
            continue
        t = tally(path)
        n = int(t["games"])
        ours = _rate(int(t["wins"]), n)
        study = study_rate = "-"
        if name in PAPER:
            label, w, d, lo = PAPER[name]
            study = f"{label}: {w} / {d} / {lo}"
            study_rate = _rate(w, w + d + lo)
        lines.append(
            f"| {name} | `{spec}` vs 3 `{opp}` | {n} | {int(t['wins'])} / {int(t['shared'])} / "
            f"{int(t['losses'])} | {ours} | {t['mean_move_s']:.3f} ({t['max_move_s']:.2f}), "
            f"{int(t['over_1s'])} of {int(t['moves'])} | "
            f"{study} | {study_rate} |"
        )
    lines.append("")
    lines.append(f"The study's best: {PAPER_BEST}.")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.kingdomino_paper", description=__doc__)
    parser.add_argument("--matchups", nargs="*", default=[], help=f"groups {list(GROUPS)} or names")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--summary", action="store_true", help="write OUT/summary.md")
    args = parser.parse_args(argv)
    names: list[str] = []
    for m in args.matchups:
        if m in GROUPS:
            names += GROUPS[m]
        elif m in MATCHUPS:
            names.append(m)
        else:
            parser.error(
                f"--matchups: unknown {m!r} (groups {list(GROUPS)}, names {list(MATCHUPS)})"
            )
    for name in names:
        run_matchup(name, args.games, args.out)
    if args.summary:
        text = summary(args.out)
        (args.out / "summary.md").write_text(text)
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
