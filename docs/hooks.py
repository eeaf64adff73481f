"""Build hooks of the documentation site (``mkdocs.yml``: ``hooks:``).

- Pages written by other work in progress (``OPTIONAL_PAGES``: the native core's vector API,
  Kingdomino) are in the navigation when their file exists and left out while it does not, so
  a strict build passes both before and after they land. Every other entry must exist.
- The notebooks of ``notebooks/`` are rendered as pages (mkdocs-jupyter) from where they are,
  without copies in ``docs/``; the navigation entry ``notebooks/*.ipynb`` lists them all (a new
  notebook joins the site without an edit here).
- The replays embedded in the site are written at build time from the move lists kept in
  ``docs/assets/replays/`` (``python -m agents.replay`` on each), so they always show the
  current painter.
- A page may include a repository file in its place with a line ``<!-- include: PATH -->``
  (``rules.md`` shows ``RULES.md``, the rules' one home, that way).
- The environment card page shows the docstring of ``moonriver_env/moonriver_v0.py``, the
  card's one home.
- A link in a page to a file of the repository outside ``docs/`` (text moved from a README)
  is shown as the file's path in code, since the site does not serve it; a link to a file that
  does not exist at all stays a link, and the strict build fails on it. An image of the
  repository (a checkpoint's plot) is served at its path from the repository root.
"""

from __future__ import annotations

import ast
import logging
import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OPTIONAL_PAGES = ("vector.md", "kingdomino.md")
"""Pages that other work adds; listed in the navigation only once they exist."""
NOTEBOOKS = ROOT / "notebooks"
REPLAY_MOVES = DOCS / "assets" / "replays"
log = logging.getLogger("mkdocs.hooks.moonriver")


NOTEBOOK_ENTRY = "notebooks/*.ipynb"
"""A navigation entry that stands for every notebook of ``notebooks/``, in file order."""


def _prune(nav: Any) -> Any:
    """``nav`` without the entries of absent optional pages, the notebooks entry expanded."""
    if isinstance(nav, list):
        kept: list[Any] = []
        for item in nav:
            if item == NOTEBOOK_ENTRY:
                kept += [f"notebooks/{p.name}" for p in sorted(NOTEBOOKS.glob("*.ipynb"))]
                continue
            pruned = _prune(item)
            if pruned is not None:
                kept.append(pruned)
        return kept
    if isinstance(nav, dict):
        out = {}
        for title, target in nav.items():
            pruned = _prune(target)
            if pruned is not None and pruned != []:
                out[title] = pruned
        return out or None
    if isinstance(nav, str) and nav in OPTIONAL_PAGES and not (DOCS / nav).exists():
        return None
    return nav


def on_config(config: Any) -> Any:
    config["nav"] = _prune(config["nav"])
    if str(ROOT) not in sys.path:  # the replays import the project from this checkout
        sys.path.insert(0, str(ROOT))
    return config


def _card() -> str:
    """The environment card page: the docstring of ``moonriver_v0.py`` as written."""
    source = (ROOT / "moonriver_env" / "moonriver_v0.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source)) or ""
    return (
        "# The full environment card\n\n"
        "The docstring of `moonriver_env/moonriver_v0.py`, the card's one home: spaces, every "
        "observation channel and feature index, rewards, infos and the version history "
        "(`help(moonriver_v0)` shows the same text). The summary is on the "
        "[environment page](environment.md).\n\n"
        f"```text\n{doc}\n```\n"
    )


_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def _repository_images() -> list[str]:
    """Images the pages show from the repository outside ``docs/`` (a checkpoint's plot, say),
    by their path from the repository root; the site serves them at that path."""
    found = set()
    for page in DOCS.rglob("*.md"):
        for target in _IMAGE.findall(page.read_text(encoding="utf-8")):
            if not (DOCS / target).exists() and (ROOT / target).is_file():
                found.add(target)
    return sorted(found)


@event_priority(100)  # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files: Files, config: Any) -> Files:
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    for image in _repository_images():
        files.append(
            File(
                image,
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    files.append(File.generated(config, "environment-card.md", content=_card()))
    from agents.move_list import MoveList
    from agents.replay import replay_html

    for moves_file in sorted(REPLAY_MOVES.glob("*.json")):
        moves = MoveList.load(moves_file)
        html = replay_html(moves)
        files.append(File.generated(config, f"replays/{moves_file.stem}.html", content=html))
    return files


_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")


_INCLUDE = re.compile(r"^<!-- include: (\S+) -->$", re.M)


def _include(match: re.Match[str]) -> str:
    """The text of a repository file named by ``<!-- include: PATH -->`` (from the root)."""
    return (ROOT / match.group(1)).read_text(encoding="utf-8")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    markdown = _INCLUDE.sub(_include, markdown)
    src = page.file.src_uri
    here = (DOCS / src).parent

    def rewrite(match: re.Match[str]) -> str:
        text, target = match.group(1), match.group(2)
        if re.match(r"[a-z]+:", target) or (here / target).exists():
            return match.group(0)  # a web address, or a file of the site: mkdocs checks it
        for base in (here, ROOT):  # relative to the page, or to the repository (a README)
            path = (base / target).resolve()
            if path.exists() and path.is_relative_to(ROOT) and not path.is_relative_to(DOCS):
                name = path.relative_to(ROOT).as_posix()
                return text if text.strip("`") == name else f"{text} (`{name}`)"
        return match.group(0)

    return _LINK.sub(rewrite, markdown)
