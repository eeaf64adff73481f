"""The research notebooks in ``notebooks/``: each is stored executed at CI scale (its outputs are
what the documentation site shows), and runs top to bottom again here from a clean kernel with
the same kinds of output in the same cells (a plot where the stored notebook has a plot).

``python notebooks/execute.py`` stores them (it keeps each notebook's wall time in its metadata,
``moonriver.execution_seconds``, which ``notebooks/README.md`` quotes). Every notebook is
executed with nbclient in a fresh kernel of *this* interpreter (the
``.venv`` python: a temporary ``python3`` kernel spec pointing at ``sys.executable`` is put
first on ``JUPYTER_PATH``, so a user-level kernel of another Python cannot be picked up), with
the notebook folder as the working directory and the small CI parameters
(``MOONRIVER_NB_SCALE=1``). A cell that raises fails the test with the cell's traceback.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
# What the notebooks import beyond the rules engine (the `all` extra installs them).
NOTEBOOK_DEPENDENCIES = ("matplotlib", "pandas", "scipy", "PIL", "sb3_contrib", "openskill")
CELL_TIMEOUT = 300  # seconds per cell (notebooks/README.md: the stored run times)
SLOWDOWN = 4.0  # a notebook may run this many times its stored time here (a busy machine)


def test_notebooks_exist() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert names == [
        "01_quickstart.ipynb",
        "02_benchmarking.ipynb",
        "03_training.ipynb",
        "04_rules_explorer.ipynb",
        "05_kingdomino.ipynb",
        "06_az.ipynb",
        "07_reproduce_ladder.ipynb",
        "08_vectorgame_training.ipynb",
        "09_game_analysis.ipynb",
    ]


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def test_docs_list_every_notebook() -> None:
    """The site's notebooks page (the one list of what each notebook shows) has a row for every
    notebook of ``notebooks/`` and no other, and says how many there are, as the README does."""
    root = NOTEBOOK_DIR.parent
    page = (root / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rows = [line.split("`")[1] for line in page.splitlines() if line.startswith("| `")]
    assert rows == [p.name for p in NOTEBOOKS]
    count = NUMBER_WORDS[len(NOTEBOOKS)]
    assert page.startswith(f"# Notebooks\n\n{count.capitalize()} research notebooks")
    assert f"executes all {count} from" in page
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert f"{count} [notebooks](docs/notebooks.md)" in readme


def output_kinds(cell: dict[str, Any]) -> list[str]:
    """The outputs of a code cell that must come back: ``"image"`` (a plot), ``"error"``."""
    kinds = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "error":
            kinds.append("error")
        elif "image/png" in out.get("data", {}):
            kinds.append("image")
    return kinds


def stored_seconds(nb: Any) -> float:
    return float(nb.metadata.get("moonriver", {}).get("execution_seconds", 0.0))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_executed(path: Path) -> None:
    """Stored after one clean run (execution counts 1, 2, ... in order, no error), with its
    plots; a title first that says what the notebook answers, then a parameters cell."""
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    counts = [cell.get("execution_count") for cell in code]
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: run notebooks/execute.py"
    errors = [i for i, cell in enumerate(code) if "error" in output_kinds(cell)]
    assert not errors, f"{path.name}: code cells {errors} stored with errors"
    assert any("image" in output_kinds(cell) for cell in code), f"{path.name}: no plot stored"
    assert stored_seconds(nb) > 0, f"{path.name}: no stored run time; run notebooks/execute.py"
    first = nb.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), "title cell first"
    assert "**The question it answers:**" in first.source, "say what the notebook answers"
    tagged = [
        i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])
    ]
    assert len(tagged) == 1 and nb.cells[tagged[0]].cell_type == "code", "one parameters cell"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"


def test_readme_states_the_stored_run_times() -> None:
    """notebooks/README.md's table of run times is the stored notebooks' metadata, and its total
    their sum (a notebook stored again with a new time changes the README's line)."""
    nbformat = pytest.importorskip("nbformat")
    readme = (NOTEBOOK_DIR / "README.md").read_text(encoding="utf-8")
    total = 0.0
    for path in NOTEBOOKS:
        seconds = stored_seconds(nbformat.read(path, as_version=4))
        total += seconds
        assert f"| `{path.name}` | {seconds:.0f} s |" in readme, path.name
    assert f"| all {len(NOTEBOOKS)} | {total:.0f} s |" in readme


@pytest.fixture
def venv_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A ``python3`` kernel spec that runs this interpreter, first on ``JUPYTER_PATH``."""
    missing = [
        m for m in ("ipykernel", *NOTEBOOK_DEPENDENCIES) if importlib.util.find_spec(m) is None
    ]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (pip install -e '.[all]')")
    spec_dir = tmp_path / "jupyter" / "kernels" / "python3"
    spec_dir.mkdir(parents=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (moonriver-env)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("MOONRIVER_NB_SCALE", "1")
    # the checkout's packages, not whichever copy the environment installed
    paths = [str(NOTEBOOK_DIR.parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.delenv("DISPLAY", raising=False)
    return "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, venv_kernel: str) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    from jupyter_client.kernelspec import KernelSpecManager

    argv0 = KernelSpecManager().get_kernel_spec(venv_kernel).argv[0]
    assert argv0 == sys.executable, f"kernel {venv_kernel!r} resolves to {argv0}"
    nb = nbformat.read(path, as_version=4)
    stored = [output_kinds(cell) for cell in nb.cells if cell.cell_type == "code"]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(
        nb,
        kernel_name=venv_kernel,
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    start = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name} failed:\n{exc}", pytrace=False)
    elapsed = time.perf_counter() - start
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: error outputs {errors}"
    fresh = [output_kinds(cell) for cell in nb.cells if cell.cell_type == "code"]
    changed = [i for i, (a, b) in enumerate(zip(stored, fresh, strict=True)) if a != b]
    assert not changed, f"{path.name}: code cells {changed} drew other plots than stored"
    limit = SLOWDOWN * stored_seconds(nb) + 60
    assert elapsed < limit, f"{path.name}: {elapsed:.0f} s, stored {stored_seconds(nb):.0f} s"
    print(f"{path.name}: {elapsed:.1f} s")
