"""Component data of Moon River: plot kinds, partner tokens, boards, bonus tiles, supplies.

Implements RULES.md section 1 (Components) with the data of RULES.md section 9: the
reconstructed plot table (ruling R7), the partner counts (R8), the bridge columns (R9) and the
bonus tiles (R10). The data itself is not in this module: it ships as
``moonriver_env/moonriver/rules/data/components.json`` so that a user who owns the game can correct it.

JSON layout (version 1; every key is required unless marked optional, unknown keys are
errors, integers must be JSON integers and flags JSON ``true``/``false``)::

    {
      "version": 1,
      "source": "...",                  # optional free text
      "doc": ["...", "..."],            # optional free text (a string or a list of strings)
      "plots": [                        # plot kinds, in the rulebook overview's order
        {"kind": 1, "count": 7, "landscape": "desert",
         "gold": 0, "beaver": 0, "corn": 0, "cows": 0,
         "skull": false, "circle": false, "back": 1},
        ...
      ],
      "partners": {"desperado": 5, "cattle_thief": 5, "gold_digger": 3,
                   "trapper": 5, "farmer": 2},
      "boards": {"camp": {"bridges": [0, 2, 4], "slots": 3}, "mary": {...},
                 "wesley": {...}, "calamity": {...}, "big_jo": {...}},
      "bonus_tiles": [{"name": "A", "sides": ["meadow", "forest"]}, {...}],
      "cows": 32,
      "saloon_size": 5,
      "column_size": 4
    }

:func:`parse_components` always checks what the rules need (RULES.md section 1: resources only
on their landscapes, no cow symbol on a cornfield (R5), backs 1-6, bridge columns 0-4, ...).
With ``strict=True`` (the default) it also checks the published data: 25 kinds, 96 plots
counted as in the rulebook overview, 20 partners counted 5/5/3/5/2, the board sides, 32 cows,
a saloon of 5 and columns of 4 (RULES.md section 9). Tests and corrected user files
with other data load with ``strict=False``. Every error is a :class:`ComponentDataError`
whose message starts with the JSON path of the offending entry, e.g.
``plots[21].landscape: unknown landscape 'swamp'``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from importlib import resources
from typing import Final

from moonriver_env.family.validation import Checker, DuplicateKeyError, reject_duplicate_keys

__all__ = [
    "LEGENDS_BOARDS",
    "BoardSpec",
    "BonusTile",
    "ComponentDataError",
    "Components",
    "Landscape",
    "PartnerKind",
    "PlotKind",
    "default_components",
    "load_components",
    "parse_components",
]


class Landscape(IntEnum):
    """The six landscapes, in the rulebook's order (RULES.md section 1)."""

    DESERT = 0
    CANYON = 1
    MEADOW = 2
    FOREST = 3
    CORNFIELD = 4
    FARM = 5


class PartnerKind(IntEnum):
    """The specialist side of a partner token (the other side is always a Cowboy)."""

    DESPERADO = 0
    CATTLE_THIEF = 1
    GOLD_DIGGER = 2
    TRAPPER = 3
    FARMER = 4


class ComponentDataError(ValueError):
    """Invalid component data; the message names the offending entry (its JSON path)."""


@dataclass(frozen=True, slots=True)
class PlotKind:
    """One kind of plot: its front (landscape and symbols), back number and copy count."""

    index: int  # 0-based position in the plots list (kind number - 1)
    number: int  # 1-based kind number as in components.md
    count: int
    landscape: Landscape
    gold: int
    beaver: int
    corn: int
    cows: int  # cow symbols
    skull: bool
    circle: bool
    back: int  # number on the back (draft order)


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """One side of a reservation board: bridge columns of row 0 and storage slots."""

    name: str
    bridges: tuple[int, ...]
    slots: int


@dataclass(frozen=True, slots=True)
class BonusTile:
    """A 2-player landscape bonus tile; each side shows its landscape and one circle."""

    name: str
    sides: tuple[Landscape, Landscape]


@dataclass(frozen=True)
class Components:
    """All component data of one game box (validated by :func:`parse_components`)."""

    plots: tuple[PlotKind, ...]
    partner_counts: tuple[int, ...]  # indexed by PartnerKind
    boards: dict[str, BoardSpec]  # keys: "camp", "mary", "wesley", "calamity", "big_jo"
    bonus_tiles: tuple[BonusTile, ...]  # exactly 2
    cows: int  # cow meeples in the supply
    saloon_size: int
    column_size: int

    @property
    def num_plots(self) -> int:
        """Number of physical plots (the sum of the kinds' counts)."""
        return sum(kind.count for kind in self.plots)

    @property
    def num_partners(self) -> int:
        """Number of partner tokens."""
        return sum(self.partner_counts)

    def plot_list(self) -> list[int]:
        """Returns every physical plot as its kind index, kinds in order, each `count` times."""
        return [kind.index for kind in self.plots for _ in range(kind.count)]

    def partner_list(self) -> list[int]:
        """Returns every partner token as its PartnerKind value, each kind `count` times."""
        return [kind for kind, count in enumerate(self.partner_counts) for _ in range(count)]


LEGENDS_BOARDS: tuple[str, ...] = ("mary", "wesley", "calamity", "big_jo")

# --- Published data (checked only with strict=True) -------------------------------------

_PUBLISHED_PLOT_COUNTS: Final = (7, 6, 4, 2, 2, 6, 5, 4, 2, 1, 1, 3, 4, 4, 2, 2, 2, 1, 4, 4, 6, 4, 9, 6, 5)  # fmt: skip
_PUBLISHED_NUM_PLOTS: Final = 96
_PUBLISHED_PARTNER_COUNTS: Final = (5, 5, 3, 5, 2)  # indexed by PartnerKind
_PUBLISHED_NUM_PARTNERS: Final = 20
_PUBLISHED_BOARDS: Final[dict[str, tuple[tuple[int, ...], int]]] = {
    "camp": ((0, 2, 4), 3),
    "mary": ((2,), 4),
    "wesley": ((1, 3), 3),
    "calamity": ((0, 4), 3),
    "big_jo": ((0, 2, 4), 2),
}
_PUBLISHED_COWS: Final = 32
_PUBLISHED_SALOON_SIZE: Final = 5
_PUBLISHED_COLUMN_SIZE: Final = 4

# --- The largest data the engine takes (always checked, before anything is built) ------
# The native core's tables (moonriver_env/_core/moonriver.h, checked again by config.c): a
# file's data beyond them is refused before any table, action layout or state is built, so
# no file makes loading slow or large (the action layout grows with the square of the slots).

MAX_PLOT_KINDS: Final = 60  # MR_MAX_CONTENTS - 2 * MR_MAX_TILES
MAX_PLOTS: Final = 128  # MR_MAX_PLOTS
MAX_PARTNERS: Final = 32  # MR_MAX_PARTNERS
MAX_SLOTS: Final = 7  # MR_MAX_HELD - 1
MAX_COWS: Final = 127  # a ranch cell holds them all in an int8
MAX_SALOON: Final = 8  # MR_MAX_SALOON
MAX_COLUMN: Final = 8  # MR_MAX_COLUMN
MAX_RESOURCES: Final = 20  # gold, beaver, corn symbols on one plot
MAX_COW_SYMBOLS: Final = 100

# --- Rules the data must always satisfy (RULES.md section 1) -----------------------------

_FORMAT_VERSION: Final = 1
_BOARD_NAMES: Final = ("camp", *LEGENDS_BOARDS)
_GRID_COLUMNS: Final = 5  # bridges stand over columns 0..4 of row 0
_MIN_BACK: Final = 1
_MAX_BACK: Final = 6
_RESOURCE_LANDSCAPES: Final[dict[str, frozenset[Landscape]]] = {
    "gold": frozenset({Landscape.DESERT, Landscape.CANYON, Landscape.MEADOW}),
    "beaver": frozenset({Landscape.FOREST}),
    "corn": frozenset({Landscape.CORNFIELD}),
}
_LANDSCAPE_NAMES: Final = {member.name.lower(): member for member in Landscape}
_PARTNER_NAMES: Final = tuple(member.name.lower() for member in PartnerKind)

_ROOT_REQUIRED: Final = (
    "version",
    "plots",
    "partners",
    "boards",
    "bonus_tiles",
    "cows",
    "saloon_size",
    "column_size",
)
_ROOT_OPTIONAL: Final = ("source", "doc")
_PLOT_KEYS: Final = (
    "kind",
    "count",
    "landscape",
    "gold",
    "beaver",
    "corn",
    "cows",
    "skull",
    "circle",
    "back",
)
_BOARD_KEYS: Final = ("bridges", "slots")
_BONUS_KEYS: Final = ("name", "sides")


# --- Generic checks; each names the JSON path ---------------------------------------------


_CHECK: Final = Checker(ComponentDataError)
_fail = _CHECK.fail
_object = _CHECK.mapping
_list = _CHECK.sequence
_int = _CHECK.integer
_bool = _CHECK.flag
_str = _CHECK.string


def _landscape(value: object, path: str) -> Landscape:
    name = _str(value, path)
    if name not in _LANDSCAPE_NAMES:
        _fail(path, f"unknown landscape {name!r} (known: {', '.join(_LANDSCAPE_NAMES)})")
    return _LANDSCAPE_NAMES[name]


# --- Sections ----------------------------------------------------------------------------


def _parse_plot(value: object, index: int) -> PlotKind:
    path = f"plots[{index}]"
    entry = _object(value, path, _PLOT_KEYS)
    number = _int(entry["kind"], f"{path}.kind")
    if number != index + 1:
        _fail(
            f"{path}.kind",
            f"expected {index + 1} (kinds are numbered 1, 2, ... in list order), got {number}",
        )
    count = _int(entry["count"], f"{path}.count", lo=1, hi=MAX_PLOTS)
    landscape = _landscape(entry["landscape"], f"{path}.landscape")
    symbols = {
        name: _int(
            entry[name],
            f"{path}.{name}",
            lo=0,
            hi=MAX_COW_SYMBOLS if name == "cows" else MAX_RESOURCES,
        )
        for name in ("gold", "beaver", "corn", "cows")
    }
    skull = _bool(entry["skull"], f"{path}.skull")
    circle = _bool(entry["circle"], f"{path}.circle")
    back = _int(entry["back"], f"{path}.back", lo=_MIN_BACK, hi=_MAX_BACK)
    for resource, allowed in _RESOURCE_LANDSCAPES.items():
        if symbols[resource] and landscape not in allowed:
            places = ", ".join(land.name.lower() for land in sorted(allowed))
            _fail(
                f"{path}.{resource}",
                f"{resource} is only allowed on {places}, not on {landscape.name.lower()}",
            )
    if symbols["cows"] and landscape is Landscape.CORNFIELD:
        _fail(
            f"{path}.cows",
            "a cornfield cannot show a cow symbol (ruling R5: cows never stand on cornfields)",
        )
    return PlotKind(
        index=index,
        number=number,
        count=count,
        landscape=landscape,
        gold=symbols["gold"],
        beaver=symbols["beaver"],
        corn=symbols["corn"],
        cows=symbols["cows"],
        skull=skull,
        circle=circle,
        back=back,
    )


def _parse_partners(value: object) -> tuple[int, ...]:
    entry = _object(value, "partners", _PARTNER_NAMES)
    counts = tuple(
        _int(entry[name], f"partners.{name}", lo=0, hi=MAX_PARTNERS) for name in _PARTNER_NAMES
    )
    if sum(counts) > MAX_PARTNERS:
        _fail("partners", f"at most {MAX_PARTNERS} tokens in all, got {sum(counts)}")
    return counts


def _parse_board(value: object, name: str) -> BoardSpec:
    path = f"boards.{name}"
    entry = _object(value, path, _BOARD_KEYS)
    bridges_raw = _list(entry["bridges"], f"{path}.bridges")
    if not bridges_raw:
        _fail(f"{path}.bridges", "a board needs at least one bridge")
    bridges: list[int] = []
    for i, item in enumerate(bridges_raw):
        item_path = f"{path}.bridges[{i}]"
        column = _int(item, item_path, lo=0, hi=_GRID_COLUMNS - 1)
        if bridges and column == bridges[-1]:
            _fail(item_path, f"duplicate bridge column {column}")
        if bridges and column < bridges[-1]:
            _fail(
                item_path,
                f"bridge columns must be in ascending order, got {column} after {bridges[-1]}",
            )
        bridges.append(column)
    slots = _int(entry["slots"], f"{path}.slots", lo=1, hi=MAX_SLOTS)
    return BoardSpec(name=name, bridges=tuple(bridges), slots=slots)


def _parse_bonus_tiles(value: object) -> tuple[BonusTile, ...]:
    items = _list(value, "bonus_tiles")
    if len(items) != 2:
        _fail("bonus_tiles", f"expected exactly 2 bonus tiles, got {len(items)}")
    tiles: list[BonusTile] = []
    for i, item in enumerate(items):
        path = f"bonus_tiles[{i}]"
        entry = _object(item, path, _BONUS_KEYS)
        name = _str(entry["name"], f"{path}.name")
        if not name:
            _fail(f"{path}.name", "must not be empty")
        if any(tile.name == name for tile in tiles):
            _fail(f"{path}.name", f"duplicate bonus tile name {name!r}")
        sides_raw = _list(entry["sides"], f"{path}.sides")
        if len(sides_raw) != 2:
            _fail(f"{path}.sides", f"expected exactly 2 sides, got {len(sides_raw)}")
        first = _landscape(sides_raw[0], f"{path}.sides[0]")
        second = _landscape(sides_raw[1], f"{path}.sides[1]")
        if first is second:
            _fail(
                f"{path}.sides",
                f"the two sides must show different landscapes, both are {first.name.lower()!r}",
            )
        tiles.append(BonusTile(name=name, sides=(first, second)))
    return tuple(tiles)


def _check_published(components: Components) -> None:
    """Checks the published invariants of components.md (strict mode)."""

    def expect(path: str, expected: object, got: object) -> None:
        if expected != got:
            _fail(path, f"expected {expected} (published data), got {got}")

    if len(components.plots) != len(_PUBLISHED_PLOT_COUNTS):
        _fail(
            "plots",
            f"expected {len(_PUBLISHED_PLOT_COUNTS)} kinds (published data), got {len(components.plots)}",
        )
    for kind, expected_count in zip(components.plots, _PUBLISHED_PLOT_COUNTS, strict=True):
        expect(f"plots[{kind.index}].count", expected_count, kind.count)
    if components.num_plots != _PUBLISHED_NUM_PLOTS:  # implied by the counts; kept explicit
        _fail(
            "plots",
            f"expected {_PUBLISHED_NUM_PLOTS} plots in all (published data), got {components.num_plots}",
        )
    for name, expected_count, count in zip(
        _PARTNER_NAMES, _PUBLISHED_PARTNER_COUNTS, components.partner_counts, strict=True
    ):
        expect(f"partners.{name}", expected_count, count)
    if components.num_partners != _PUBLISHED_NUM_PARTNERS:  # implied by the counts
        _fail(
            "partners",
            f"expected {_PUBLISHED_NUM_PARTNERS} tokens (published data), got {components.num_partners}",
        )
    for name, (bridges, slots) in _PUBLISHED_BOARDS.items():
        board = components.boards[name]
        expect(f"boards.{name}.bridges", list(bridges), list(board.bridges))
        expect(f"boards.{name}.slots", slots, board.slots)
    expect("cows", _PUBLISHED_COWS, components.cows)
    expect("saloon_size", _PUBLISHED_SALOON_SIZE, components.saloon_size)
    expect("column_size", _PUBLISHED_COLUMN_SIZE, components.column_size)


# --- Public API ----------------------------------------------------------------------------


def parse_components(raw: object, *, strict: bool = True) -> Components:
    """Validates decoded JSON component data and builds a :class:`Components`.

    Args:
        raw: The decoded JSON document (see the module docstring for its layout).
        strict: Also require the published data of components.md (25 kinds, 96 plots, ...).

    Returns:
        The validated, immutable component data.

    Raises:
        ComponentDataError: The data is invalid; the message starts with the JSON path.
    """
    if isinstance(raw, Mapping) and "version" in raw:
        # Checked first: a file of another layout version would fail confusingly below.
        version = _int(raw["version"], "version")
        if version != _FORMAT_VERSION:
            _fail(
                "version",
                f"unsupported layout version {version} (this engine reads version {_FORMAT_VERSION})",
            )
    root = _object(raw, "", _ROOT_REQUIRED, _ROOT_OPTIONAL)
    if "source" in root:
        _str(root["source"], "source")
    if "doc" in root and not isinstance(root["doc"], str):
        for i, line in enumerate(_list(root["doc"], "doc")):
            _str(line, f"doc[{i}]")

    plot_items = _list(root["plots"], "plots")
    if not plot_items:
        _fail("plots", "expected at least one plot kind")
    if len(plot_items) > MAX_PLOT_KINDS:
        _fail("plots", f"at most {MAX_PLOT_KINDS} plot kinds, got {len(plot_items)}")
    plots = tuple(_parse_plot(item, i) for i, item in enumerate(plot_items))
    if sum(kind.count for kind in plots) > MAX_PLOTS:
        _fail("plots", f"at most {MAX_PLOTS} plots in all, got {sum(kind.count for kind in plots)}")
    partner_counts = _parse_partners(root["partners"])
    board_entries = _object(root["boards"], "boards", _BOARD_NAMES)
    boards = {name: _parse_board(board_entries[name], name) for name in _BOARD_NAMES}
    bonus_tiles = _parse_bonus_tiles(root["bonus_tiles"])
    components = Components(
        plots=plots,
        partner_counts=partner_counts,
        boards=boards,
        bonus_tiles=bonus_tiles,
        cows=_int(root["cows"], "cows", lo=0, hi=MAX_COWS),
        saloon_size=_int(root["saloon_size"], "saloon_size", lo=1, hi=MAX_SALOON),
        column_size=_int(root["column_size"], "column_size", lo=2, hi=MAX_COLUMN),
    )
    if strict:
        _check_published(components)
    return components


def load_components(
    path: str | os.PathLike[str] | None = None, *, strict: bool = True
) -> Components:
    """Reads and validates a component data file.

    Args:
        path: A JSON file in the layout of the module docstring; ``None`` reads the file
            shipped with the package (``moonriver_env/moonriver/rules/data/components.json``).
        strict: Also require the published data of components.md.

    Returns:
        The validated, immutable component data.

    Raises:
        ComponentDataError: The file is missing, unreadable, not JSON, or its data is
            invalid; the message starts with the file name.
    """
    try:
        if path is None:
            package = __name__.rpartition(".")[0] or "moonriver_env.moonriver.rules"
            resource = resources.files(package) / "data" / "components.json"
            name = str(resource)
            text = resource.read_text(encoding="utf-8")
        else:
            name = os.fspath(path)
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        shown = "<shipped components.json>" if path is None else os.fspath(path)
        raise ComponentDataError(f"{shown}: cannot read component data: {exc}") from exc
    try:
        raw = json.loads(text, object_pairs_hook=reject_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise ComponentDataError(
            f"{name}: invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from exc
    except DuplicateKeyError as exc:
        raise ComponentDataError(
            f"{name}: invalid JSON: duplicate key {exc.args[0]!r} in an object"
        ) from exc
    try:
        return parse_components(raw, strict=strict)
    except ComponentDataError as exc:
        raise ComponentDataError(f"{name}: {exc}") from exc


@functools.cache
def default_components() -> Components:
    """Returns the shipped component data, validated strictly (loaded once, then cached)."""
    return load_components()
