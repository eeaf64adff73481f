"""What Kingdomino game to play: players and variants (RULES.md section 13, K2 and K8).

A :class:`KingdominoConfig` is frozen and hashable; it derives every number the rules need
(dominoes in play, line size, kings, frame size, games) and the size of the flat action
space (:mod:`.actions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from moonriver_env.family.contract import DEFAULT_NUM_PLAYERS

__all__ = ["VARIANTS", "KingdominoConfig", "parse_mode", "parse_variants"]

VARIANTS: tuple[str, ...] = ("must_place", "harmony", "middle_kingdom", "mighty_duel", "dynasty")
"""Every variant of the rulebook (seed lines 139-146), combinable, in canonical order:
``must_place`` (the author's variant), ``harmony`` (+5), ``middle_kingdom`` (+10),
``mighty_duel`` (2 players, 48 dominoes, 7x7), ``dynasty`` (three games, totals added)."""

PLAYER_COUNTS = (2, 3, 4)


def parse_variants(variants: Any) -> tuple[str, ...]:
    """Variants given as a tuple/list of names or one comma-separated string, checked and in
    canonical (:data:`VARIANTS`) order; ``ValueError`` naming an unknown or repeated name."""
    if variants is None:
        return ()
    if isinstance(variants, str):
        names = [v.strip() for v in variants.split(",") if v.strip()]
    elif isinstance(variants, (tuple, list, frozenset, set)):
        names = list(variants)
    else:
        raise TypeError(
            f"variants: expected names like ('must_place', 'harmony') or 'must_place,harmony', "
            f"got {variants!r}"
        )
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or name not in VARIANTS:
            raise ValueError(f"variants: unknown variant {name!r} (known: {', '.join(VARIANTS)})")
        if name in seen:
            raise ValueError(f"variants: {name!r} given twice")
        seen.add(name)
    return tuple(v for v in VARIANTS if v in seen)


@dataclass(frozen=True)
class KingdominoConfig:
    """A Kingdomino game: ``KingdominoConfig(num_players=4, variants=("must_place", "harmony"))``.

    Raises:
        ValueError: a player count other than 2-4, an unknown variant, or ``mighty_duel``
            with 3 or 4 players.
    """

    num_players: int = DEFAULT_NUM_PLAYERS
    variants: tuple[str, ...] | str = ()
    # Derived (RULES.md section 13, K2 and K8): frame size, dominoes in play, line size, kings per player.
    size: int = field(init=False)
    dominoes_in_play: int = field(init=False)
    line_size: int = field(init=False)
    kings_per_player: int = field(init=False)
    bonus_flags: tuple[bool, bool] = field(init=False)  # (harmony, middle_kingdom) played
    must_place: bool = field(init=False)  # the author's variant: no voluntary discard

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or n not in PLAYER_COUNTS:
            raise ValueError(f"num_players: expected 2, 3 or 4, got {n!r}")
        variants = parse_variants(self.variants)
        if "mighty_duel" in variants and n != 2:
            raise ValueError(
                f"variants: 'mighty_duel' is a 2-player variant (seed line 146), "
                f"got num_players={n}"
            )
        set_ = object.__setattr__
        set_(self, "variants", variants)
        duel = "mighty_duel" in variants
        set_(self, "size", 7 if duel else 5)
        set_(self, "dominoes_in_play", 48 if duel or n == 4 else 36 if n == 3 else 24)
        set_(self, "line_size", 3 if n == 3 else 4)
        set_(self, "kings_per_player", 2 if n == 2 else 1)
        set_(self, "bonus_flags", ("harmony" in variants, "middle_kingdom" in variants))
        set_(self, "must_place", "must_place" in variants)

    @property
    def mode(self) -> str:
        """The variants as one word: ``"base"`` for none, else their names sorted and joined
        with ``+`` (``"harmony+middle_kingdom+must_place"``): one game, one text."""
        return "+".join(sorted(self.variants)) or "base"

    def has(self, variant: str) -> bool:
        """Whether ``variant`` is played."""
        return variant in self.variants

    @property
    def side(self) -> int:
        """Side of the board a kingdom is built on: the castle in the middle, room for the
        frame in any direction (``2 * size - 1``)."""
        return 2 * self.size - 1

    @property
    def cells(self) -> int:
        return self.side * self.side

    @property
    def num_lines(self) -> int:
        """Lines drawn per game (12 with 3-4 players and in the Mighty Duel, 6 with 2)."""
        return self.dominoes_in_play // self.line_size

    @property
    def num_games(self) -> int:
        """Games played in a row: 3 in a Dynasty, else 1."""
        return 3 if "dynasty" in self.variants else 1

    @property
    def num_actions(self) -> int:
        """Size of the flat action space (:mod:`.actions`)."""
        return 4 * self.cells + 1 + self.line_size

    @property
    def max_game_length(self) -> int:
        """Decisions in a whole game (every game has exactly this many): per game, the
        set-up picks, then a placement (or discard) per domino and a pick per domino that
        is not in the last line."""
        per_game = self.line_size + self.dominoes_in_play + (self.dominoes_in_play - self.line_size)
        return per_game * self.num_games

    def to_dict(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "variants": list(self.variants)}

    def describe(self) -> str:
        """``"4 players, must_place+harmony"``."""
        return f"{self.num_players} players, {'+'.join(self.variants) or 'base game'}"


def parse_mode(name: str) -> KingdominoConfig:
    """``"4p-harmony+must_place"`` (or ``"4p_base"``) -> the config; ``ValueError`` naming
    what is wrong."""
    m = re.fullmatch(r"(\d+)p[-_]([a-z_+]+)", name.strip())
    if m is None:
        raise ValueError(f"mode {name!r}: expected like '4p-base' or '2p-mighty_duel'")
    mode = m.group(2)
    return KingdominoConfig(int(m.group(1)), () if mode == "base" else tuple(mode.split("+")))
