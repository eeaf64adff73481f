"""The documentation site (issue 24) builds strictly: ``mkdocs build --strict`` fails on a
broken link, a missing reference or any warning. Also the build hooks: optional pages, the
embedded replays, links to repository files."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _need_mkdocs() -> None:
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI: mkdocs is not installed (the docs extra)")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _need_mkdocs()
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line]
    assert done.returncode == 0 and not warnings, done.stderr[-4000:]
    return out


def test_site_builds_strictly_with_every_page(site: Path) -> None:
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True
    for page in (
        "index",
        "setup",
        "environment",
        "environment-card",
        "rules",
        "agents",
        "replays",
        "training",
        "scaling",
        "other-libraries",
        "notebooks",
        "architecture",
        "errors",
        "api",
        "results",
    ):
        assert (site / f"{page}.html").is_file(), page
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (site / "notebooks" / f"{notebook.stem}.html").is_file(), notebook.name
    api = (site / "api.html").read_text(encoding="utf-8")
    for name in ("make_agent", "SingleAgentEnv", "run_tournament", "render_svg", "write_replay"):
        assert name in api, name
    rules = (site / "rules.html").read_text(encoding="utf-8")
    assert "Rulings and the tests that pin them" in rules  # RULES.md, included whole


def test_embedded_replays_are_built_from_the_move_lists(site: Path) -> None:
    from agents.move_list import MoveList
    from agents.replay import replay_html

    kept = sorted((ROOT / "docs" / "assets" / "replays").glob("*.json"))
    assert {p.stem for p in kept} >= {"trained-vs-heuristic", "four-players"}
    for moves_file in kept:
        built = (site / "replays" / f"{moves_file.stem}.html").read_text(encoding="utf-8")
        assert built == replay_html(MoveList.load(moves_file))
    page = (site / "replays.html").read_text(encoding="utf-8")
    assert page.count("<iframe") == len(kept)


def test_optional_pages_join_the_navigation_when_they_exist(tmp_path: Path) -> None:
    _need_mkdocs()
    hooks = _hooks()
    nav = [{"Home": "index.md"}, {"Using it": [{"Native": "vector.md"}, {"Other": "x.md"}]}]
    pruned = hooks._prune(nav)
    present = (ROOT / "docs" / "vector.md").exists()
    inner = pruned[1]["Using it"]
    assert ({"Native": "vector.md"} in inner) == present
    assert {"Other": "x.md"} in inner  # only the optional pages are ever left out
    listed = hooks._prune(["index.md", "notebooks/*.ipynb"])
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert listed == ["index.md", *(f"notebooks/{n}" for n in notebooks)]


def test_links_to_repository_files_become_paths() -> None:
    _need_mkdocs()
    hooks = _hooks()

    class _File:
        src_uri = "training.md"

    class _Page:
        file = _File()

    text = (
        "see [the config](training/rllib/configs/default.toml) and [Rules](rules.md), [x](no/such.md)"
    )
    out = hooks.on_page_markdown(text, _Page(), {}, None)
    assert "the config (`training/rllib/configs/default.toml`)" in out
    assert "[Rules](rules.md)" in out and "[x](no/such.md)" in out
