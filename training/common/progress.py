"""Progress bars for the long phases of the training commands (teacher games, cloning,
evaluation games): plain ``tqdm`` on stderr, which shows in a terminal and in a notebook alike
(``tqdm.auto`` would need ipywidgets there)."""

from __future__ import annotations

import sys
from typing import Any

from tqdm import tqdm


def progress(total: int, desc: str, unit: str = "it", enabled: bool = True) -> Any:
    """A bar of ``total`` steps (``bar.update(n)``, ``bar.close()``); ``enabled=False`` gives
    one that shows nothing (the same calls work)."""
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        mininterval=1.0,
        dynamic_ncols=True,
        disable=not enabled,
    )
