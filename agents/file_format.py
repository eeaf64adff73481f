"""Reading back the versioned JSON files the agents write (move lists, saved games): every
failure is raised as the file kind's own error, with a message that names what is wrong."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


MAX_FILE_BYTES = 64 << 20
"""The most bytes a file the agents wrote is read from (a saved game or a move list is well
under a megabyte): a larger one, or a device such as ``/dev/zero``, is refused before its
text takes memory."""


def _bounded_text(path: Path) -> str:
    """The UTF-8 text at ``path``, read up to :data:`MAX_FILE_BYTES` (``OSError`` past it)."""
    with path.open("rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(f"over {MAX_FILE_BYTES:,} bytes, not a file this project wrote")
    return data.decode("utf-8")


def read_parsed(
    path: str | os.PathLike[str],
    parse: Callable[[str], T],
    error: type[Exception],
    prefix: str = "",
) -> T:
    """``parse`` of the UTF-8 text at ``path``. An unreadable file, or ``error`` raised by
    ``parse``, is raised again as ``error`` whose message starts with ``prefix`` and names the
    file."""
    p = Path(path)
    try:
        text = _bounded_text(p)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise error(f"{prefix}cannot read {str(p)!r} ({reason})") from None
    try:
        return parse(text)
    except error as exc:
        raise error(f"{prefix}{str(p)!r}: {exc}") from None


def read_text(path: Path, error: type[Exception]) -> str:
    """The UTF-8 text at ``path``; ``error("'<path>': cannot read it (<reason>)")`` if it
    cannot be read (missing, a directory, not UTF-8, over :data:`MAX_FILE_BYTES`)."""
    try:
        return _bounded_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise error(f"{str(path)!r}: cannot read it ({reason})") from None


def parse_json(text: str, kind: str, error: type[Exception]) -> Any:
    """The JSON value in ``text``; ``error("not a <kind> (not JSON: ...)")`` if it is none."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise error(f"not a {kind} (not JSON: {exc})") from None


TABLE_FIELDS = ("players", "mode", "scenario", "seed")
"""The attributes that say which table a file's game was played at, in file order."""


def header(file_format: str, version: int, game: Any, *first: str) -> dict[str, Any]:
    """The first entries of a file's JSON object: ``format`` and ``version`` (read back by
    :func:`check_header`), then the attributes ``first`` and :data:`TABLE_FIELDS` of ``game``."""
    fields = {name: getattr(game, name) for name in (*first, *TABLE_FIELDS)}
    return {"format": file_format, "version": version, **fields}


def check_header(
    raw: Any, file_format: str, version: int, kind: str, error: type[Exception]
) -> dict[str, Any]:
    """``raw`` if it is an object whose ``"format"`` and ``"version"`` are these; ``error``
    saying which is wrong otherwise."""
    if not isinstance(raw, dict) or raw.get("format") != file_format:
        raise error(f"not a {kind} (expected format {file_format!r})")
    if raw.get("version") != version:
        raise error(f"version: unsupported {kind} version {raw.get('version')!r}")
    return raw
