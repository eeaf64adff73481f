"""Shared cases of the Kingdomino tests: every config the rules allow, and small ones."""

from __future__ import annotations

from itertools import combinations

from moonriver_env.kingdomino import VARIANTS, KingdominoConfig


def all_configs() -> list[KingdominoConfig]:
    """Every player count with every combination of variants it allows (64 configs)."""
    out = []
    for n in (2, 3, 4):
        allowed = [v for v in VARIANTS if v != "mighty_duel" or n == 2]
        for k in range(len(allowed) + 1):
            for combo in combinations(allowed, k):
                out.append(KingdominoConfig(n, combo))
    return out


def env_configs() -> list[KingdominoConfig]:
    """A covering set for the slower conformance tests: every player count plain and with
    every variant it allows at once, and each variant alone with some player count."""
    return [
        KingdominoConfig(2),
        KingdominoConfig(3),
        KingdominoConfig(4),
        KingdominoConfig(2, VARIANTS),
        KingdominoConfig(3, ("must_place", "harmony", "middle_kingdom", "dynasty")),
        KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom", "dynasty")),
        KingdominoConfig(4, ("must_place",)),
        KingdominoConfig(3, ("harmony",)),
        KingdominoConfig(2, ("middle_kingdom",)),
        KingdominoConfig(2, ("mighty_duel",)),
        KingdominoConfig(3, ("dynasty",)),
    ]


def config_id(config: KingdominoConfig) -> str:
    return f"{config.num_players}p-{'+'.join(config.variants) or 'base'}"
