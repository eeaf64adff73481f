"""One ``az`` network for every table of a game (KataGo's one net for every board size and rule
set): the inputs of every table's observation laid out in one space, and the table itself as
inputs.

A game's tables differ in their observation: Moon River's 2-player ranches are 10 x 5 and its
3- and 4-player ones 5 x 5, one ranch block per seat; Kingdomino's grids are 9 x 9, 13 x 13 in
the Mighty Duel; a feature such as the held pieces has one block per seat. :class:`InputLayout`
gives each entry of any table's observation a key saying what it means, and the network one
first-layer row per distinct key:

* a plane entry: the plane grid (rows, columns, channels per seat), the seat (counted from the
  observer, as the encoder does), the channel and the cell. Tables with the same grid share
  their rows, seat by seat (Moon River's 3 and 4 players; Kingdomino's 2, 3 and 4 players);
* a feature entry: the feature's name, its size and the place in it. Tables whose feature has
  the same size share it (the phase, the market's columns, the unseen pieces);
* the core's territory features after the observation (per seat and landscape, the same at
  every table), when the network reads them;
* the table's own inputs, one per player count and one per part of the mode (Moon River's
  ``legends``; each of Kingdomino's variants), 1 when the table has it. A fixed Legends
  scenario needs none: the observation one-hot codes the scenario of every game.

The layout is built from the game's registry entry (its player counts and modes) and its
encoder's ``plane_shape`` and ``feature_ranges``: it names no game. The core evaluates a
network for one table at a time: :meth:`InputLayout.gather` gives the table's rows of the
first layer in the table's own order, the table's inputs folded into the first bias, so the
core's network and search are those of a one-table model.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from moonriver_env.family.native import native
from moonriver_env.games import DEFAULT_MODE, GameSpec, game_entry

MODE_SEPARATOR = "+"
"""How a game's combined modes are spelt (Kingdomino's ``harmony+middle_kingdom``)."""


@functools.lru_cache(maxsize=64)
def _entry_keys(spec: GameSpec) -> tuple[Hashable, ...]:
    """The key of each entry of ``spec``'s flat observation (module docstring)."""
    config = spec.config()
    encoder = spec.entry.hook("encoder")(config)
    size = spec.observation_size
    planes, rows, cols = (int(x) for x in encoder.plane_shape)
    n = spec.num_players
    per_seat = planes // n if planes % n == 0 else planes
    keys: list[Hashable] = [None] * size
    cells = rows * cols
    for i in range(planes * cells):
        channel, cell = divmod(i, cells)
        seat, c = divmod(channel, per_seat)
        keys[i] = ("plane", rows, cols, per_seat, seat, c, cell)
    for name, (start, stop) in encoder.feature_ranges.items():
        for j in range(start, stop):
            keys[j] = ("feature", name, stop - start, j - start)
    missing = [i for i, k in enumerate(keys) if k is None]
    if missing:
        raise ValueError(
            f"{spec.text}: the encoder's plane_shape and feature_ranges leave observation "
            f"entries {missing[:5]} undescribed"
        )
    return tuple(keys)


def _layout_tables(game: str) -> list[GameSpec]:
    """A table of each observation layout the game has: every player count in every one of
    its modes (combined modes change no layout beyond their parts')."""
    entry = game_entry(game)
    out = []
    for n in entry.player_counts:
        for mode in entry.modes:
            try:
                spec = GameSpec(game=game, num_players=n, mode=mode)
                spec.config()
            except ValueError:  # a mode this player count refuses (the Mighty Duel: 2 only)
                continue
            out.append(spec)
    return out


def table_tokens(spec: GameSpec) -> list[tuple[str, str]]:
    """The table's own inputs: its player count and each part of its mode."""
    out = [("players", str(spec.num_players))]
    if spec.mode != DEFAULT_MODE:
        out += [("mode", part) for part in spec.mode.split(MODE_SEPARATOR)]
    return out


@dataclass(frozen=True)
class InputLayout:
    """Every table's inputs of one game in one space (module docstring)."""

    game: str
    keys: tuple[Hashable, ...]
    """The observation entries' keys, in the network's input order."""
    tokens: tuple[tuple[str, str], ...]
    """The table inputs, in order after the observation keys and the territory features."""
    territory: int
    """The core's territory features (``AZ_FEATURES``; 0 without the core)."""

    def width(self, features: bool) -> int:
        """The network's input count (``features``: with the territory features)."""
        return len(self.keys) + (self.territory if features else 0) + len(self.tokens)

    def fits(self, inputs: int, features: bool) -> bool:
        """Whether a network of ``inputs`` inputs was laid out by this layout (another
        install's version of the game lays out another count)."""
        return self.width(features) == inputs

    @functools.cached_property
    def _index(self) -> dict[Hashable, int]:
        return {k: i for i, k in enumerate(self.keys)}

    def remap(self, spec: GameSpec, features: bool) -> np.ndarray:
        """For each input of ``spec``'s table (its observation, then the territory features
        with ``features``), the network's input it is (``ValueError`` for a table of another
        game, or whose layout this one lacks)."""
        if spec.game != self.game:
            raise ValueError(f"game: the layout is {self.game}'s, not {spec.game}'s")
        index = self._index
        try:
            rows = [index[k] for k in _entry_keys(spec)]
        except KeyError as exc:
            raise ValueError(f"{spec.text}: an input this layout lacks: {exc.args[0]!r}") from None
        if features:
            base = len(self.keys)
            rows += range(base, base + self.territory)
        return np.asarray(rows, dtype=np.int64)

    @functools.cached_property
    def _rows(self) -> dict[tuple[str, bool], tuple[np.ndarray, np.ndarray]]:
        return {}

    def rows(self, spec: GameSpec, features: bool) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`remap` and :meth:`token_rows` of ``spec``'s table, worked out once per
        layout (read-only arrays)."""
        key = (spec.text, features)
        if key not in self._rows:
            found = (self.remap(spec, features), self.token_rows(spec, features))
            for arr in found:
                arr.flags.writeable = False
            self._rows[key] = found
        return self._rows[key]

    def token_rows(self, spec: GameSpec, features: bool) -> np.ndarray:
        """The network's inputs that are 1 at ``spec``'s table (its table inputs)."""
        base = len(self.keys) + (self.territory if features else 0)
        wanted = table_tokens(spec)
        unknown = [t for t in wanted if t not in self.tokens]
        if unknown:
            raise ValueError(f"{spec.text}: table inputs this layout lacks: {unknown}")
        return np.asarray([base + self.tokens.index(t) for t in wanted], dtype=np.int64)

    def covers(self, spec: GameSpec) -> bool:
        """Whether a network of this layout reads ``spec``'s table."""
        try:
            self.remap(spec, False)
            self.token_rows(spec, False)
        except ValueError:
            return False
        return True


@functools.cache
def input_layout(game: str) -> InputLayout:
    """The layout of every table of ``game`` (built once per process)."""
    keys: dict[Hashable, None] = {}
    tokens: dict[tuple[str, str], None] = {}
    for spec in _layout_tables(game):
        keys.update(dict.fromkeys(_entry_keys(spec)))
    entry = game_entry(game)
    for n in entry.player_counts:
        tokens[("players", str(n))] = None
    for mode in entry.modes[1:]:
        for part in mode.split(MODE_SEPARATOR):
            tokens[("mode", part)] = None
    territory = 0 if native is None else int(native.AZ_FEATURES)
    return InputLayout(game, tuple(keys), tuple(tokens), territory)


def to_layout(
    ptr: np.ndarray, idx: np.ndarray, val: np.ndarray, remap: np.ndarray, tokens: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sparse observations of one table (row ``r``'s entries from ``ptr[r]``) as the
    network's inputs: each index through ``remap``, the table inputs ``tokens`` (value 1)
    appended to every row. Returns the new ``ptr``, ``idx`` (the same integer type) and
    ``val``."""
    rows = ptr.size - 1
    t = tokens.size
    counts = np.diff(ptr)
    new_ptr = ptr + t * np.arange(rows + 1, dtype=np.int64)
    total = int(new_ptr[-1]) if rows >= 0 else 0
    new_idx = np.empty(total, dtype=idx.dtype)
    new_val = np.empty(total, dtype=val.dtype)
    row_of = np.repeat(np.arange(rows, dtype=np.int64), counts)
    at = np.arange(idx.size, dtype=np.int64) + t * row_of
    new_idx[at] = remap[idx.astype(np.int64)]
    new_val[at] = val
    if t:
        tok_at = (new_ptr[1:, None] - t + np.arange(t)[None, :]).reshape(-1)
        new_idx[tok_at] = np.tile(tokens, rows)
        new_val[tok_at] = 1.0
    return new_ptr, new_idx, new_val
