"""Game configuration: player count, mode, scenario, boards (RULES.md sections 1, 2, 6, 7).

A :class:`GameConfig` is validated at construction; a bad value raises ``ValueError`` whose
message starts with the name of the offending field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from moonriver_env.family.contract import DEFAULT_NUM_PLAYERS
from moonriver_env.moonriver.rules.actions import ActionLayout
from moonriver_env.moonriver.rules.components import LEGENDS_BOARDS, Components, default_components

"""The number of players when none is given, everywhere in the project (the engine, the
environments, the agents' commands, the training configs); :mod:`moonriver_env.games` reads it."""
PLAYER_COUNTS = (2, 3, 4)
"""The numbers of players Moon River is played with (RULES.md section 1)."""
MODES = ("base", "legends")
SCENARIOS = ("timber_rafting", "gold_rush", "outlaws", "moon_river_city")
"""Legends of the West scenarios, numbered 1-4 in this order (RULES.md section 7)."""


@dataclass(frozen=True)
class GameConfig:
    """What game to play.

    Attributes:
        num_players: 2, 3 or 4 (default :data:`DEFAULT_NUM_PLAYERS`).
        mode: ``"base"`` (Camp boards) or ``"legends"`` (Legends of the West).
        scenario: Legends only: one of :data:`SCENARIOS`, or ``"random"`` / ``None`` to draw
            it at game creation. Must be ``None`` in the base game.
        boards: Legends only: the board of each seat (distinct names from
            ``("mary", "wesley", "calamity", "big_jo")``), ``None`` to assign them by seat in
            that order, or ``"random"`` to deal them at random. Must be ``None`` in the base game.
        auto_resolve: play every decision that has exactly one legal action automatically.
        components: the component data (default: the shipped data file).
    """

    num_players: int = DEFAULT_NUM_PLAYERS
    mode: str = "base"
    scenario: str | None = None
    boards: tuple[str, ...] | str | None = None
    auto_resolve: bool = False
    components: Components = field(default_factory=default_components, repr=False)

    def __post_init__(self) -> None:
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or n not in PLAYER_COUNTS:
            raise ValueError(f"num_players: expected 2, 3 or 4, got {n!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode: expected one of {MODES}, got {self.mode!r}")
        if not isinstance(self.auto_resolve, bool):
            raise ValueError(f"auto_resolve: expected a bool, got {self.auto_resolve!r}")
        if not isinstance(self.components, Components):
            raise ValueError(f"components: expected a Components, got {type(self.components)}")
        if self.mode == "base":
            if self.scenario is not None:
                raise ValueError(
                    f"scenario: the base game has no scenario (got {self.scenario!r}); "
                    "use mode='legends'"
                )
            if self.boards is not None:
                raise ValueError(
                    f"boards: the base game uses the Camp side for every seat (got {self.boards!r})"
                )
            return
        if self.scenario is not None and self.scenario not in (*SCENARIOS, "random"):
            raise ValueError(
                f"scenario: expected one of {SCENARIOS} or 'random', got {self.scenario!r}"
            )
        boards = self.boards
        if boards is None or boards == "random":
            return
        if isinstance(boards, str) or not isinstance(boards, (tuple, list)):
            raise ValueError(f"boards: expected a tuple of board names or 'random', got {boards!r}")
        if len(boards) != n:
            raise ValueError(f"boards: expected {n} board names (one per seat), got {len(boards)}")
        for i, name in enumerate(boards):
            if name not in LEGENDS_BOARDS:
                raise ValueError(
                    f"boards[{i}]: unknown board {name!r}; expected one of {LEGENDS_BOARDS}"
                )
            if name in boards[:i]:
                raise ValueError(f"boards[{i}]: board {name!r} is used twice")
        object.__setattr__(self, "boards", tuple(boards))

    @property
    def rows(self) -> int:
        """Rows of every ranch: 10 with 2 players, else 5 (RULES.md section 1)."""
        return 10 if self.num_players == 2 else 5

    @property
    def rancheros_per_seat(self) -> int:
        return 2 if self.num_players == 2 else 1

    @property
    def max_slots(self) -> int:
        """Largest reserve of any board this mode can use (the action layout is sized by it)."""
        comps = self.components
        names = LEGENDS_BOARDS if self.mode == "legends" else ("camp",)
        return max(comps.boards[name].slots for name in names)

    @cached_property
    def layout(self) -> ActionLayout:
        """The flat action numbering of this config."""
        return ActionLayout(self)

    @property
    def num_actions(self) -> int:
        """Size of the flat action space for this config."""
        return self.layout.num_actions
