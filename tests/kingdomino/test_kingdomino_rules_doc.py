"""RULES.md section 13 (Kingdomino) stays honest: every rule cites its line of the German
rulebook, every ruling KR1-KR7 is listed once and names tests that pytest collects, and every
"KRn" cited in the repository exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from collected_tests import collected_ids, is_collected

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "RULES.md"
NUM_RULINGS = 7
TEST_ID = re.compile(r"`(tests/kingdomino/test_\w+\.py::[^`\s]+)`")
SUB = re.compile(r"^### (K\d+)\. (.+)$", re.MULTILINE)
ENTRY = re.compile(r"^- \*\*KR(\d+)\*\*", re.MULTILINE)


def _part() -> str:
    text = RULES.read_text(encoding="utf-8")
    start = text.index("\n## 13. Kingdomino")
    nxt = re.search(r"^## \d+\. ", text[start + 5 :], re.MULTILINE)
    return text[start : start + 5 + nxt.start()] if nxt else text[start:]


def _subsections() -> dict[str, str]:
    part = _part()
    marks = list(SUB.finditer(part))
    return {
        m.group(1): part[m.end() : marks[i + 1].start() if i + 1 < len(marks) else None]
        for i, m in enumerate(marks)
    }


def test_the_subsections_are_k1_to_k11_in_order() -> None:
    assert list(_subsections()) == [f"K{i}" for i in range(1, 12)]


@pytest.mark.parametrize("name", [f"K{i}" for i in range(1, 9)])
def test_every_rule_cites_its_line(name: str) -> None:
    body = _subsections()[name]
    bullets = re.findall(r"^- (.+?)(?=^- |\Z)", body, re.MULTILINE | re.DOTALL)
    assert bullets
    for bullet in bullets:
        assert re.search(r"\blines? \d+", bullet), f"{name}: no line cited in {bullet[:60]!r}"


def test_every_ruling_is_listed_once_and_names_collected_tests() -> None:
    body = _subsections()["K11"]
    assert [int(k) for k in ENTRY.findall(body)] == list(range(1, NUM_RULINGS + 1))
    entries = re.split(r"^- \*\*KR\d+\*\*", body, flags=re.MULTILINE)[1:]
    ids = [TEST_ID.findall(e) for e in entries]
    assert all(ids), "a ruling names no test"
    collected = collected_ids(sorted({i.split("::")[0] for group in ids for i in group}))
    for group in ids:
        for test_id in group:
            assert is_collected(test_id, collected), f"{test_id} is not collected"


def test_every_kr_citation_in_the_repository_exists() -> None:
    cited: set[int] = set()
    for folder in ("moonriver_env", "agents", "tests", "notebooks", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".ipynb") and "__pycache__" not in path.parts:
                cited |= {int(k) for k in re.findall(r"\bKR(\d+)\b", path.read_text())}
    assert cited and cited <= set(range(1, NUM_RULINGS + 1)), sorted(cited)
