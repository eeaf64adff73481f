"""Perft-style counts of legal placements and actions (RULES.md section 3, connection rules).

Every ``tests/rules/perft/*.txt`` file holds one hand-made position and the numbers of legal domino
placements and legal actions, counted by hand (the reasoning is in each file's comments),
plus the count per held pair. File format (``#`` starts a comment line)::

    players: 4                       # 2, 3 or 4
    mode: base                       # or legends
    boards: mary wesley calamity big_jo   # legends only, one per seat; seat 0 acts
    phase: EXPAND                    # EXPAND, MUST_EXPAND, FINAL_EXPAND or DISCARD
    final_round: yes                 # optional (FINAL_EXPAND)
    dominoes: 2                      # optional, dominoes already placed this turn
    held: 19 23 23                   # components.md kind numbers, any order
    ranch:                           # grid text of tests/positions.py, river row last
      . . . . .
      ...
    placements: 16                   # legal place actions (for DISCARD: in MUST_EXPAND)
    actions: 17                      # every legal action in the phase
    pairs: 0+1=4 0+2=4 1+2=8         # placements per pair of held positions

On a mismatch the test prints the per-pair breakdown, expected against the engine, with the
engine's placements of every pair that differs (as python-chess's perft "divide" does).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from positions import position, render_ranch

from moonriver_env.rules import GameConfig, Phase, Place

PERFT_DIR = Path(__file__).parent / "perft"
FILES = sorted(PERFT_DIR.glob("*.txt"))


@dataclass
class PerftCase:
    name: str
    players: int = 4
    mode: str = "base"
    boards: tuple[str, ...] | None = None
    phase: Phase = Phase.EXPAND
    final_round: bool = False
    dominoes: int = 0
    held: list[int] = field(default_factory=list)
    ranch: str = ""
    placements: int = -1
    actions: int = -1
    pairs: dict[tuple[int, int], int] = field(default_factory=dict)

    def config(self) -> GameConfig:
        if self.mode == "legends":
            return GameConfig(
                num_players=self.players, mode="legends", scenario="gold_rush", boards=self.boards
            )
        return GameConfig(num_players=self.players, mode=self.mode)

    def build(self, phase: Phase | None = None):
        return position(
            self.config(),
            ranch=self.ranch,
            held=self.held,
            phase=phase if phase is not None else self.phase,
            final_round=self.final_round,
            dominoes=self.dominoes,
        )


def parse_perft(path: Path) -> PerftCase:
    case = PerftCase(name=path.name)
    ranch_lines: list[str] | None = None
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if ranch_lines is not None and not sep:
            ranch_lines.append(line)
            continue
        if ranch_lines is not None:
            case.ranch = "\n".join(ranch_lines)
            ranch_lines = None
        value = value.strip()
        if key == "players":
            case.players = int(value)
        elif key == "mode":
            case.mode = value
        elif key == "boards":
            case.boards = tuple(value.split())
        elif key == "phase":
            case.phase = Phase[value]
        elif key == "final_round":
            case.final_round = value == "yes"
        elif key == "dominoes":
            case.dominoes = int(value)
        elif key == "held":
            case.held = [int(x) for x in value.split()]
        elif key == "ranch":
            ranch_lines = []
        elif key == "placements":
            case.placements = int(value)
        elif key == "actions":
            case.actions = int(value)
        elif key == "pairs":
            for item in value.split():
                pair, _, count = item.partition("=")
                i, _, j = pair.partition("+")
                case.pairs[(int(i), int(j))] = int(count)
        else:
            raise ValueError(f"{path.name}: unknown key {key!r}")
    if ranch_lines is not None:
        case.ranch = "\n".join(ranch_lines)
    assert case.placements >= 0 and case.actions >= 0 and case.pairs, f"{path.name}: incomplete"
    return case


def engine_placements(state) -> dict[tuple[int, int], list[str]]:
    out: dict[tuple[int, int], list[str]] = {}
    for a in state.legal_action_list():
        d = state.decode(a)
        if isinstance(d, Place):
            out.setdefault((d.first, d.second), []).append(state.action_to_string(a))
    return out


def divide_report(case: PerftCase, state, placed: dict[tuple[int, int], list[str]]) -> str:
    held = state.held[state.seat]
    lines = [
        f"perft mismatch in {case.name} (phase {case.phase.name}, held kinds {case.held})",
        render_ranch(state, state.seat),
        f"{'pair':<6}{'kinds':<10}{'expected':>9}{'engine':>8}",
    ]
    for (i, j), want in sorted(case.pairs.items()):
        got = len(placed.get((i, j), []))
        kinds = f"{held[i] + 1}+{held[j] + 1}" if j < len(held) else "?"
        flag = "  <-- differs" if got != want else ""
        lines.append(f"{i}+{j:<4}{kinds:<10}{want:>9}{got:>8}{flag}")
    for pair in sorted(set(placed) - set(case.pairs)):
        lines.append(
            f"{pair[0]}+{pair[1]:<4}{'':<10}{'-':>9}{len(placed[pair]):>8}  <-- unexpected"
        )
    for pair, texts in sorted(placed.items()):
        if len(texts) != case.pairs.get(pair, -1):
            lines.append(f"engine placements of {pair[0]}+{pair[1]}: {', '.join(texts)}")
    return "\n".join(lines)


CASES = [parse_perft(p) for p in FILES]


def test_enough_positions():
    assert len(CASES) >= 12
    phases = Counter(c.phase for c in CASES)
    assert {Phase.EXPAND, Phase.MUST_EXPAND, Phase.FINAL_EXPAND, Phase.DISCARD} <= set(phases)


def test_pairs_add_up():
    for case in CASES:
        assert sum(case.pairs.values()) == case.placements, case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name.removesuffix(".txt") for c in CASES])
def test_perft(case: PerftCase) -> None:
    state = case.build()
    if case.phase == Phase.DISCARD:
        # The placements are counted as the forced expansion would see them.
        forced = case.build(Phase.MUST_EXPAND)
        placed = engine_placements(forced)
    else:
        placed = engine_placements(state)
    counts = {pair: len(texts) for pair, texts in placed.items()}
    want = {pair: n for pair, n in case.pairs.items() if n}
    report = divide_report(case, state, placed)
    assert counts == want, report
    assert sum(counts.values()) == case.placements, report
    legal = state.legal_action_list()
    assert len(legal) == case.actions, (
        report + f"\nlegal actions: {[state.action_to_string(a) for a in legal]}"
    )
    texts = [state.action_to_string(a) for a in legal]
    if case.phase == Phase.EXPAND:
        assert texts[-1] == "stop"
    else:
        assert "stop" not in texts
    if case.phase == Phase.DISCARD:
        assert all(t.startswith("discard") for t in texts)
        assert len(texts) == len(case.pairs)
