"""The human display: a frame in a matplotlib window when one can open, else the text view.

:func:`show_human` never blocks; :func:`can_display` tells, without importing a GUI toolkit,
whether a window can open.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


_figure: Any = None
_artist: Any = None

_NON_INTERACTIVE = frozenset({"agg", "pdf", "ps", "svg", "pgf", "cairo", "template"})


def _backend_name(matplotlib: Any) -> str:
    """The chosen matplotlib backend, lower case, "" if none is chosen yet (never picks one:
    picking would import a GUI toolkit)."""
    try:
        name = matplotlib.get_backend(auto_select=False)  # matplotlib >= 3.10
    except TypeError:
        getter = getattr(matplotlib.rcParams, "_get_backend_or_none", None)
        name = getter() if getter is not None else matplotlib.rcParams.get("backend")
    return str(name or "").lower()


def can_display() -> bool:
    """Whether :func:`show_human` can open a window: matplotlib with an interactive backend
    and, on Linux, a display. Never imports a GUI toolkit."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        import matplotlib
    except ImportError:
        return False
    backend = _backend_name(matplotlib)
    if not backend:  # not chosen yet: matplotlib would pick one; a display exists
        return True
    return _interactive(backend)


def _interactive(backend: str) -> bool:
    if backend.startswith("module://"):
        return "inline" in backend or "ipympl" in backend
    return backend not in _NON_INTERACTIVE


def show_human(frame: NDArray[np.uint8], text: str | None = None) -> bool:
    """Show ``frame`` in a matplotlib window (updated in place, never blocking).

    Without a usable display (headless, no matplotlib, a non-interactive backend) print
    ``text`` instead (the ANSI view; pass ``render_ansi(state)``).

    Returns:
        True if the frame was shown in a window, False if the text was printed.
    """
    global _figure, _artist
    if can_display():
        try:
            import matplotlib.pyplot as plt

            if not _interactive(str(plt.get_backend()).lower()):
                raise RuntimeError("matplotlib fell back to a non-interactive backend")
            if _figure is None or not plt.fignum_exists(_figure.number):
                plt.ion()
                _figure, ax = plt.subplots(num="Moon River")
                ax.set_axis_off()
                _artist = ax.imshow(frame)
                _figure.tight_layout()
            else:
                _artist.set_data(frame)
                _artist.set_extent((-0.5, frame.shape[1] - 0.5, frame.shape[0] - 0.5, -0.5))
            _figure.canvas.draw_idle()
            plt.pause(0.001)
            return True
        except Exception:  # a broken GUI setup must not stop a game: fall back to text
            _figure = _artist = None
    if text is not None:
        print(text)
    else:
        print(f"[moonriver frame {frame.shape[1]}x{frame.shape[0]}: no display]")
    return False
