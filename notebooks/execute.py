"""Execute notebooks at CI scale and store them with their outputs (what the site shows).

    python notebooks/execute.py                    # every notebook, one at a time
    python notebooks/execute.py notebooks/03_training.ipynb

Each notebook runs in a fresh kernel of this interpreter from the notebook folder, with
``MOONRIVER_NB_SCALE=1`` and the checkout first on ``PYTHONPATH``; its wall time is kept in the
notebook's metadata (``moonriver.execution_seconds``); the table of run times in
``notebooks/README.md`` (between its ``<!-- times -->`` markers) is rewritten from the stored
notebooks, and ``tests/project/test_notebooks.py`` checks both. A notebook with an error is not
written.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def execute(path: Path, timeout: int = 300) -> float:
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(HERE)}}
    )
    load = os.getloadavg()[0]  # how busy the machine was (the times depend on it)
    start = time.perf_counter()
    client.execute()
    elapsed = time.perf_counter() - start
    meta = nb.metadata.setdefault("moonriver", {})
    meta["execution_seconds"] = round(elapsed, 1)
    meta["load_average"] = round(max(load, os.getloadavg()[0]), 1)
    for key in ("widgets",):
        nb.metadata.pop(key, None)
    nbformat.write(nb, path)
    return elapsed


def write_times() -> None:
    """The README's table of the stored run times (one row per notebook, then the total)."""
    import nbformat

    rows, total = [], 0.0
    for path in sorted(HERE.glob("*.ipynb")):
        meta = nbformat.read(path, as_version=4).metadata.get("moonriver", {})
        seconds = float(meta.get("execution_seconds", 0.0))
        total += seconds
        rows.append(f"| `{path.name}` | {seconds:.0f} s | {meta.get('load_average', '')} |")
    count = len(rows)
    header = ["| notebook | run time | load average (1 min) |", "|---|---:|---:|"]
    table = "\n".join([*header, *rows, f"| all {count} | {total:.0f} s | |"])
    readme = HERE / "README.md"
    text = readme.read_text(encoding="utf-8")
    head, rest = text.split("<!-- times -->\n", 1)
    _, tail = rest.split("<!-- /times -->", 1)
    readme.write_text(f"{head}<!-- times -->\n{table}\n<!-- /times -->{tail}", encoding="utf-8")


def main(argv: list[str]) -> None:
    os.environ["MOONRIVER_NB_SCALE"] = "1"
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
    )
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    paths = [Path(a).resolve() for a in argv] or sorted(HERE.glob("*.ipynb"))
    for path in paths:
        print(f"{path.name}: {execute(path):.1f} s", flush=True)
    write_times()


if __name__ == "__main__":
    main(sys.argv[1:])
