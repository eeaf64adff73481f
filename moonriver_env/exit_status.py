"""How the command-line tools end the process (``raise SystemExit(exit_with(main()))``).

After Ctrl-C (exit status 130) a tool has already written what it finished (every writer
closes its files before the status is returned), and Python's own teardown of the loaded
modules (torch's above all) takes most of a second more: the process then ends at once,
standard output and error flushed. Any other status ends the process the usual way."""

from __future__ import annotations

import contextlib
import logging
import os
import sys

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as a shell reports it."""


def exit_with(status: int) -> int:
    """``status`` for ``SystemExit``; for :data:`INTERRUPTED`, the process ends here."""
    if status == INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError, AttributeError):  # closed, replaced
                stream.flush()
        logging.shutdown()
        os._exit(INTERRUPTED)
    return status
