"""RULES.md stays honest: its rulings are stated and pinned by tests that exist, and every
citation of it in the repository names a section or ruling it has.

RULES.md is the users' authority for the rules (its own introduction); the code, the tests
and the notebooks cite it as "RULES.md section 4", "section 2, step 3", "ruling R16" or "§5".
These tests fail when a citation points at nothing, when a ruling loses its statement or its
tests, or when RULES.md names a test id that pytest does not collect.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from collected_tests import collected_ids, is_collected

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "RULES.md"
NUM_RULINGS = 25
RULINGS_SECTION = 11  # "Rulings and the tests that pin them"

HEADING = re.compile(r"^## (\d+)\. (.+)$", re.MULTILINE)
TEST_ID = re.compile(r"`(tests/(?:\w+/)?test_\w+\.py::[^`\s]+)`")
ENTRY = re.compile(r"^- \*\*R(\d+)\*\*", re.MULTILINE)
RULING = re.compile(r"\bR(\d+)\b")
# "RULES.md section 4", "RULES.md sections 5 and 7", "RULES.md (sections 3-7", "RULES.md 2-7",
# "[`RULES.md`](RULES.md) section 12", and in code that cites RULES.md a bare "section 1" or
# "sections 1, 2, 6, 7"; notebooks write "§2".
NUMBERS = r"(\d+(?:\s*(?:,|and|-)\s*\d+)*)"
SECTION = re.compile(r"\bsections?\s+" + NUMBERS)
RULES_NUMBERED = re.compile(r"RULES\.md`?(?:\]\([^)]*\))?[,:]?\s*\(?\s*(?:sections?\s+)?" + NUMBERS)
PARAGRAPH = re.compile(r"§\s*(\d+)")
NAMED_PART = re.compile(r'\bsection (\d+), (?:step (\d+)|"([^"]+)")')
# Paths outside the repository that no file may depend on any more.
OUTSIDE = ("../shared", "/work/shared", "shared/RULES", "seeds/")

SCANNED_DIRS = ("moonriver_env", "agents", "training", "tests", "notebooks", "docs")
SCANNED_SUFFIXES = (".py", ".ipynb", ".md", ".toml", ".json")
SCANNED_FILES = ("README.md", "pyproject.toml", "Makefile")


def _text() -> str:
    return RULES.read_text(encoding="utf-8")


def _sections(text: str) -> dict[int, str]:
    """Section number -> its body (up to the next numbered heading)."""
    marks = list(HEADING.finditer(text))
    return {
        int(m.group(1)): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else None]
        for i, m in enumerate(marks)
    }


def _entries(text: str) -> dict[int, str]:
    """Ruling number -> its entry in the rulings section (up to the next entry)."""
    body = _sections(text)[RULINGS_SECTION]
    marks = list(ENTRY.finditer(body))
    return {
        int(m.group(1)): body[m.start() : marks[i + 1].start() if i + 1 < len(marks) else None]
        for i, m in enumerate(marks)
    }


def _expand(numbers: str) -> set[int]:
    """'2-7' -> {2, ..., 7}; '1, 2 and 6' -> {1, 2, 6}."""
    out: set[int] = set()
    for part in re.split(r"\s*(?:,|and)\s*", numbers):
        ends = [int(x) for x in part.split("-")]
        out.update(range(ends[0], ends[-1] + 1))
    return out


def _scanned() -> Iterator[tuple[Path, str]]:
    """Every text file of the repository that may cite RULES.md, with its text (notebooks:
    the joined cell sources, so a citation broken over two source lines is still found)."""
    paths = [ROOT / name for name in SCANNED_FILES if (ROOT / name).exists()]
    for d in SCANNED_DIRS:
        paths += [
            p
            for p in sorted((ROOT / d).rglob("*"))
            if p.suffix in SCANNED_SUFFIXES
            and p.is_file()
            and (p.suffix != ".json" or d == "moonriver_env")  # not the tests' data files
            and not any(part.startswith(".") or part == "__pycache__" for part in p.parts)
            and "runs" not in p.relative_to(ROOT).parts
        ]
    for p in paths:
        text = p.read_text(encoding="utf-8")
        if p.suffix == ".ipynb":
            cells = json.loads(text)["cells"]
            text = "\n".join("".join(c["source"]) for c in cells)
        yield p, text


def citation_problems(path: str, text: str, rules_text: str) -> list[str]:
    """Citations in ``text`` of sections, numbered steps, named parts or rulings that RULES.md
    (given as ``rules_text``) does not have, as ``path:line: ...`` messages."""
    sections = _sections(rules_text)
    entries = _entries(rules_text)
    cites_rules = "RULES.md" in text or "§" in text
    problems: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        where = f"{path}:{lineno}"
        wanted: set[int] = set()
        for m in RULES_NUMBERED.finditer(line):
            wanted |= _expand(m.group(1))
        if cites_rules and path.endswith(".py"):  # notebooks number their own sections
            for m in SECTION.finditer(line):
                wanted |= _expand(m.group(1))
        for m in PARAGRAPH.finditer(line):
            wanted.add(int(m.group(1)))
        problems += [
            f"{where}: RULES.md has no section {n}" for n in sorted(wanted - set(sections))
        ]
        for m in NAMED_PART.finditer(line) if cites_rules else ():
            body = sections.get(int(m.group(1)), "")
            step, name = m.group(2), m.group(3)
            if step and not re.search(rf"^{step}\. ", body, re.MULTILINE):
                problems.append(f"{where}: RULES.md section {m.group(1)} has no step {step}")
            if name and name.lower() not in body.lower():
                problems.append(f"{where}: RULES.md section {m.group(1)} does not mention {name!r}")
        problems += [
            f"{where}: RULES.md has no ruling R{k}"
            for k in sorted({int(m.group(1)) for m in RULING.finditer(line)} - set(entries))
        ]
    return problems


@pytest.fixture(scope="module", name="collected_ids")
def _collected_ids() -> set[str]:
    """Node ids pytest collects from the test files RULES.md cites."""
    return collected_ids(sorted({i.split("::")[0] for i in TEST_ID.findall(_text())}))


def test_rules_has_the_cited_sections_in_order() -> None:
    numbers = [int(n) for n, _ in HEADING.findall(_text())]
    assert numbers == list(range(1, len(numbers) + 1))
    assert numbers[:RULINGS_SECTION] == list(range(1, RULINGS_SECTION + 1))
    assert "Rulings" in dict((int(n), t) for n, t in HEADING.findall(_text()))[RULINGS_SECTION]


def test_every_ruling_is_stated_once_and_listed_once() -> None:
    text = _text()
    sections = _sections(text)
    stated = "".join(body for n, body in sections.items() if n != RULINGS_SECTION)
    for k in range(1, NUM_RULINGS + 1):
        times = len(re.findall(rf"\*\*R{k}\.?\*\*", stated))  # "**R3**" or "**R3.**"
        assert times == 1, f"R{k}: stated {times} times outside the rulings section"
    listed = [int(k) for k in ENTRY.findall(sections[RULINGS_SECTION])]
    assert listed == list(range(1, NUM_RULINGS + 1))


def test_every_ruling_names_existing_tests(collected_ids: set[str]) -> None:
    entries = _entries(_text())
    for k in range(1, NUM_RULINGS + 1):
        ids = TEST_ID.findall(entries[k])
        assert ids, f"R{k} names no test"
        missing = [i for i in ids if not is_collected(i, collected_ids)]
        assert not missing, f"R{k} names tests that pytest does not collect: {missing}"


def test_every_test_id_in_rules_exists(collected_ids: set[str]) -> None:
    ids = TEST_ID.findall(_text())
    assert len(ids) >= NUM_RULINGS
    assert not [i for i in ids if not is_collected(i, collected_ids)]


def test_every_citation_in_the_repository_exists() -> None:
    rules_text = _text()
    problems: list[str] = []
    scanned = 0
    for path, text in _scanned():
        scanned += 1
        problems += citation_problems(str(path.relative_to(ROOT)), text, rules_text)
    assert scanned > 50
    assert not problems, "\n".join(problems)


def test_every_rules_module_points_to_its_sections() -> None:
    modules = sorted((ROOT / "moonriver_env" / "moonriver" / "rules").glob("*.py"))
    assert len(modules) >= 10
    for path in modules:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert RULES_NUMBERED.search(doc), f"{path.name}: docstring cites no RULES.md section"


def test_nothing_points_outside_the_repository() -> None:
    hits = [
        f"{path.relative_to(ROOT)}: {bad}"
        for path, text in _scanned()
        if path.name != Path(__file__).name
        for bad in OUTSIDE
        if bad in text
    ]
    assert not hits, "\n".join(hits)


def test_links_in_rules_resolve() -> None:
    text = _text()
    slugs = {
        re.sub(r"[^\w\- ]", "", f"{n} {title}".lower().replace(". ", " ")).replace(" ", "-")
        for n, title in HEADING.findall(text)
    }
    anchors = re.findall(r"\]\(#([^)]+)\)", text)
    assert anchors and not [a for a in anchors if a not in slugs]
    files = [f for f in re.findall(r"\]\(([^)#:]+)\)", text)]
    assert files and not [f for f in files if not (ROOT / f).exists()]


def test_the_checker_catches_bad_citations() -> None:
    # The bad citations are assembled at run time: this file is scanned like any other.
    rules_text = _text()
    sec = "section"
    bad = len(_sections(rules_text)) + 1
    bad_ruling = "R" + str(NUM_RULINGS + 1)
    text = "\n".join(
        [
            '"""See RULES.md section 3, connection rules, and ruling R16."""',
            f"x = 1  # RULES.md {sec} {bad}",
            f"y = 2  # ruling {bad_ruling}",
            f'"""RULES.md sections 2-7; {sec} 2, step 9; {sec} 4, "Lasso"."""',
        ]
    )
    problems = citation_problems("m.py", text, rules_text)
    assert problems == [
        f"m.py:2: RULES.md has no section {bad}",
        f"m.py:3: RULES.md has no ruling {bad_ruling}",
        "m.py:4: RULES.md section 2 has no step 9",
        "m.py:4: RULES.md section 4 does not mention 'Lasso'",
    ]
    markdown = f"see §9 and §{bad};\n[`RULES.md`](RULES.md) {sec} 12, RULES.md {sec}s 1 and {bad}"
    assert citation_problems("nb.md", markdown, rules_text) == [
        f"nb.md:1: RULES.md has no section {bad}",
        f"nb.md:2: RULES.md has no section {bad}",
    ]
