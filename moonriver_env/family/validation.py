"""Checked reading of loaded data (JSON, TOML): every failure names the path of the entry.

What it checks against are the limits of RULES.md sections 1 and 9 (component counts and
kinds) and the state the rules allow (sections 2-7).

One home for the checks that the component data (:mod:`.components`), saved states
(:mod:`.serialization`) and the training config (``training/common/config.py``) apply to what they
read. A :class:`Checker` raises its owner's error class with the message ``"path: detail"``;
its :class:`Wording` keeps each format's established messages (their tests pin them).
:class:`Int`, :class:`Ints`, :class:`Bool` and :class:`Bools` declare a check once so that a
schema can be a table of them (:data:`.core.STATE_FIELDS`).

:func:`check_choice`, :func:`check_finite` and :func:`check_int` check arguments given in code
(the env's keyword arguments, a render scale, a config's seat): they raise
``error("name: expected ..., got <repr>")``, the value shown as Python writes it.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

ROOT = "<root>"
Bound = int | str | None
"""A limit: a number, the name of a limit in the ``limits`` mapping, or none."""


def join(path: str, key: str) -> str:
    """``path.key`` (just ``key`` at the root)."""
    return f"{path}.{key}" if path else key


def describe(value: object, *, typed: bool = True) -> str:
    """A value as a message shows it: its JSON type (bool before int: a bool is an int in
    Python) and value; ``typed=False`` shows numbers and flags bare (``3``, ``true``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        text = "true" if value else "false"
        return f"boolean {text}" if typed else text
    if isinstance(value, int):
        return f"integer {int_text(value)}" if typed else int_text(value)
    if isinstance(value, float):
        return f"number {value!r}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def int_text(value: int) -> str:
    """An int as a message shows it: in full up to 18 digits, else by its size (a hostile
    file's ``10**400`` must not make a 400-digit message)."""
    if -(10**18) < value < 10**18:
        return str(value)
    return f"{'-' if value < 0 else ''}<{len(str(abs(value)))} digits>"


def bounds_text(lo: float | None, hi: float | None) -> str:
    """``" in lo..hi"``, ``" >= lo"``, ``" <= hi"`` or ``""``."""
    if lo is not None and hi is not None:
        return f" in {lo}..{hi}"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


# -- checks of arguments given in code ---------------------------------------------------------
def check_choice(
    name: str, value: Any, choices: tuple[str, ...], error: type[ValueError] = ValueError
) -> str:
    """``value`` if it is one of the strings ``choices``, else ``error`` naming ``name``."""
    if not isinstance(value, str) or value not in choices:
        raise error(f"{name}: expected one of {choices}, got {value!r}")
    return value


def check_finite(name: str, value: Any, error: type[ValueError] = ValueError) -> float:
    """``value`` as a float if it is a finite real number (not a bool; NumPy scalars too),
    else ``error`` naming ``name``."""
    real = isinstance(value, numbers.Real) and not isinstance(value, bool)  # np.bool_ isn't Real
    if not real or not math.isfinite(value):
        raise error(f"{name}: expected a finite number, got {value!r}")
    return float(value)


def check_int(
    name: str,
    value: Any,
    lo: int | None = None,
    hi: int | None = None,
    *,
    expected: str | None = None,
    error: type[ValueError] = ValueError,
) -> int:
    """``value`` if it is an int (not a bool; a NumPy integer counts, as a plain int) in
    ``lo..hi`` (either bound may be ``None``), else ``error("name: expected <expected>, got
    <repr>")``; ``expected`` defaults to ``an integer in lo..hi``."""
    if isinstance(value, np.integer):
        value = int(value)
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (lo is not None and value < lo)
        or (hi is not None and value > hi)
    ):
        what = expected or f"an integer{bounds_text(lo, hi)}"
        raise error(f"{name}: expected {what}, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Wording:
    """The phrases of one format's messages.

    ``integer``: how an int is named; ``typed``: :func:`describe` with the JSON type;
    ``range_in_expected``: an out-of-range int reads ``expected an int in 0..3, got 5``,
    else ``must be within 0..3, got 5``; ``missing`` / ``list_allowed``: the text for a
    missing key, and whether an unknown key's message lists the allowed ones.
    """

    integer: str = "an integer"
    typed: bool = True
    range_in_expected: bool = False
    missing: str = "missing required key"
    list_allowed: bool = True


class Checker:
    """Checks raising ``error("path: detail")`` (``<root>`` for the empty path)."""

    __slots__ = ("error", "wording")

    def __init__(self, error: type[ValueError], wording: Wording | None = None) -> None:
        self.error = error
        self.wording = wording or Wording()

    def fail(self, path: str, detail: str) -> NoReturn:
        raise self.error(f"{path or ROOT}: {detail}")

    def describe(self, value: object) -> str:
        return describe(value, typed=self.wording.typed)

    def mapping(
        self,
        value: object,
        path: str,
        required: Sequence[str],
        optional: Sequence[str] = (),
    ) -> Mapping[str, Any]:
        """An object with exactly the ``required`` keys and any of the ``optional`` ones."""
        if not isinstance(value, Mapping):
            self.fail(path, f"expected an object, got {self.describe(value)}")
        allowed = (*required, *optional)
        for key in value:
            if not isinstance(key, str):
                self.fail(path, f"keys must be strings, got {self.describe(key)}")
            if key not in allowed:
                listed = f" (allowed: {', '.join(allowed)})" if self.wording.list_allowed else ""
                self.fail(join(path, key), f"unknown key{listed}")
        for key in required:
            if key not in value:
                self.fail(join(path, key), self.wording.missing)
        return value

    def sequence(
        self, value: object, path: str, size: int | None = None, max_size: int | None = None
    ) -> list[Any]:
        if not isinstance(value, (list, tuple)):
            self.fail(path, f"expected a list, got {self.describe(value)}")
        if isinstance(value, tuple):
            value = list(value)
        if size is not None and len(value) != size:
            self.fail(path, f"expected a list of {size} entries, got {len(value)}")
        if max_size is not None and len(value) > max_size:
            self.fail(path, f"expected at most {max_size} entries, got {len(value)}")
        return value

    def integer(
        self, value: object, path: str, lo: int | None = None, hi: int | None = None
    ) -> int:
        """An int (not a bool) in ``lo..hi`` (either bound may be ``None``)."""
        w = self.wording
        if isinstance(value, int) and not isinstance(value, bool):
            if (lo is None or value >= lo) and (hi is None or value <= hi):
                return value
            if not w.range_in_expected:
                bounds = f" within {lo}..{hi}" if lo is not None and hi is not None else ""
                self.fail(path, f"must be{bounds or bounds_text(lo, hi)}, got {int_text(value)}")
        elif not w.range_in_expected:
            self.fail(path, f"expected {w.integer}, got {self.describe(value)}")
        self.fail(path, f"expected {w.integer}{bounds_text(lo, hi)}, got {self.describe(value)}")

    def number(
        self,
        value: object,
        path: str,
        lo: float | None = None,
        hi: float | None = None,
        *,
        open_lo: bool = False,
        finite: bool = False,
    ) -> float:
        """A number (an int is accepted as a float); ``open_lo``: strictly above ``lo``;
        ``finite``: not nan nor +-inf (where those make no sense)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(path, f"expected a number, got {self.describe(value)}")
        x = float(value)
        if finite and not math.isfinite(x):
            self.fail(path, f"expected a finite number, got {self.describe(value)}")
        if (lo is None or x > lo or (x == lo and not open_lo)) and (hi is None or x <= hi):
            return x
        low = "" if lo is None else f" {'>' if open_lo else '>='} {lo}"
        high = "" if hi is None else f"{' and' if low else ''} <= {hi}"
        verb = "expected a number" if self.wording.range_in_expected else "must be"
        self.fail(path, f"{verb}{low}{high}, got {self.describe(value)}")

    def integers(
        self,
        value: object,
        path: str,
        lo: int | None,
        hi: int | None,
        size: int | None = None,
        max_size: int | None = None,
    ) -> list[int]:
        items = self.sequence(value, path, size, max_size)
        for i, item in enumerate(items):
            # fast path for the common case, the full check (and message) otherwise
            if (
                type(item) is not int
                or (lo is not None and item < lo)
                or (hi is not None and item > hi)
            ):
                self.integer(item, f"{path}[{i}]", lo, hi)
        return list(items)

    def flag(self, value: object, path: str) -> bool:
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false, got {self.describe(value)}")
        return value

    def flags(self, value: object, path: str, size: int | None = None) -> list[bool]:
        items = self.sequence(value, path, size)
        for i, item in enumerate(items):
            self.flag(item, f"{path}[{i}]")
        return list(items)

    def string(self, value: object, path: str) -> str:
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {self.describe(value)}")
        return value

    def choice(self, value: object, path: str, options: Sequence[Any]) -> Any:
        if value not in options:
            self.fail(path, f"expected one of {tuple(options)}, got {self.describe(value)}")
        return value


class DuplicateKeyError(ValueError):
    """A JSON object names a key twice (``args[0]``: the key)."""


def reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads(..., object_pairs_hook=reject_duplicate_keys)``: json keeps the last of
    two equal keys silently; a corrected file must not hide a typo."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


class JsonTextError(ValueError):
    """Text :func:`read_json_text` refuses; the message says why (no path: the caller's error
    class puts its root path before it)."""


class _ConstantError(ValueError):
    pass


def _reject_constant(name: str) -> NoReturn:
    raise _ConstantError(name)


def read_json_text(text: str | bytes, max_chars: int, what: str = "a saved state") -> Any:
    """``text`` read as strict JSON: at most ``max_chars`` characters, no key twice in an
    object, no ``NaN`` / ``Infinity`` (not JSON numbers), nesting no deeper than the decoder
    goes; :class:`JsonTextError` otherwise, worded the same for every game's saved states
    (``"invalid JSON: ..."``, ``"too large: ..."``; ``what`` names the kind of text)."""
    if isinstance(text, (str, bytes)) and len(text) > max_chars:
        raise JsonTextError(f"too large: {len(text)} characters, {what} has at most {max_chars}")
    try:
        return json.loads(
            text, object_pairs_hook=reject_duplicate_keys, parse_constant=_reject_constant
        )
    except DuplicateKeyError as exc:
        raise JsonTextError(f"invalid JSON: duplicate key {exc.args[0]!r} in an object") from None
    except _ConstantError as exc:
        raise JsonTextError(f"invalid JSON: {exc.args[0]} is not a number") from None
    except RecursionError:  # the decoder recurses once per bracket
        raise JsonTextError(
            f"invalid JSON: lists or objects nested too deeply for {what}"
        ) from None
    except (ValueError, UnicodeDecodeError, TypeError) as exc:
        # JSONDecodeError, and the integer of more digits than Python converts
        raise JsonTextError(f"invalid JSON: {exc}") from None


def _limit(bound: Bound, limits: Mapping[str, int]) -> int | None:
    return limits[bound] if isinstance(bound, str) else bound


@dataclass(frozen=True, slots=True)
class Int:
    """An int in ``lo..hi`` (bounds may name a limit)."""

    lo: Bound = None
    hi: Bound = None

    def check(self, ck: Checker, value: object, path: str, limits: Mapping[str, int]) -> int:
        return ck.integer(value, path, _limit(self.lo, limits), _limit(self.hi, limits))


@dataclass(frozen=True, slots=True)
class Ints:
    """A list of ints in ``lo..hi``, of ``size`` entries or at most ``max_size``."""

    lo: Bound = None
    hi: Bound = None
    size: Bound = None
    max_size: Bound = None

    def check(self, ck: Checker, value: object, path: str, limits: Mapping[str, int]) -> list[int]:
        return ck.integers(
            value,
            path,
            _limit(self.lo, limits),
            _limit(self.hi, limits),
            _limit(self.size, limits),
            _limit(self.max_size, limits),
        )


@dataclass(frozen=True, slots=True)
class Bool:
    """A flag (``true``/``false``, never 0/1)."""

    def check(self, ck: Checker, value: object, path: str, limits: Mapping[str, int]) -> bool:
        return ck.flag(value, path)


@dataclass(frozen=True, slots=True)
class Bools:
    """A list of flags of ``size`` entries."""

    size: Bound = None

    def check(self, ck: Checker, value: object, path: str, limits: Mapping[str, int]) -> list[bool]:
        return ck.flags(value, path, _limit(self.size, limits))


@dataclass(frozen=True, slots=True)
class Custom:
    """Checked by the owner's own code (e.g. a name read into an enum); ``what`` says how."""

    what: str

    def check(self, ck: Checker, value: object, path: str, limits: Mapping[str, int]) -> Any:
        raise NotImplementedError(f"{path}: {self.what} is checked by its owner")


Check = Int | Ints | Bool | Bools | Custom
