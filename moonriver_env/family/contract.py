"""The game contract: what a game of the family offers every generic layer (environments,
vector dispatch, agents, runner, tournaments, play, replays, benchmarks, training).

A game is registered by one :class:`~moonriver_env.games.GameEntry` (its ``game.py``); the
entry's configuration class builds configurations (:class:`GameConfigLike`), ``new_game``
deals states (:class:`GameStateLike`) and the encoder turns a state into the observation
(:class:`EncoderLike`). The generic layers are typed against these protocols and never import
a game: what else they need of a game (its env, vector game, agents, score columns, replay
frames) the entry names by ``"module:attribute"``, the way Gymnasium names environments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DEFAULT_MODE",
    "DEFAULT_NUM_PLAYERS",
    "EncoderLike",
    "GameConfigLike",
    "GameStateLike",
    "ScoreLike",
]

DEFAULT_NUM_PLAYERS = 2
"""The number of players when none is named (every game of the family plays 2)."""
DEFAULT_MODE = "base"
"""The mode played when none is named (every game's plain rules are called ``"base"``)."""

S = TypeVar("S", bound="GameStateLike")


@runtime_checkable
class GameConfigLike(Protocol):
    """A game's configuration: checked at construction, immutable."""

    @property
    def num_players(self) -> int: ...

    @property
    def num_actions(self) -> int:
        """The size of the flat action space."""
        ...


class ScoreLike(Protocol):
    """One seat's final score: its total (games add their own parts)."""

    @property
    def total(self) -> int: ...


@runtime_checkable
class GameStateLike(Protocol):
    """One game in progress: the seat to move, its legal actions, applying one, copying,
    re-drawing what is hidden, the end, scores and winners, JSON."""

    @property
    def config(self) -> Any: ...

    @property
    def current_seat(self) -> int | None:
        """The seat to decide, ``None`` once the game is over."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    def legal_actions(self) -> NDArray[np.int64]:
        """The legal action ids, sorted."""
        ...

    def legal_action_mask(self) -> NDArray[np.bool_]: ...

    def legal_action_list(self) -> list[int]:
        """The legal action ids, ascending, as a Python list (not to be mutated): what the
        generic layers' hot loops read (the AEC env's mask, the OpenSpiel state)."""
        ...

    def is_legal(self, action: int) -> bool: ...

    def apply(self, action: int) -> None:
        """Play ``action`` in place (the game's ``IllegalActionError`` if it is not legal;
        the state is then unchanged)."""
        ...

    def clone(self) -> Any: ...

    def redetermine(self, rng: np.random.Generator) -> None:
        """Re-draw what no seat can see (the order of hidden piles) from ``rng``."""
        ...

    def action_to_string(self, action: int) -> str: ...

    def string_to_action(self, text: str) -> int: ...

    def scores(self) -> Sequence[Any]: ...

    def winners(self) -> list[int]: ...

    def to_json(self) -> str: ...


class EncoderLike(Protocol):
    """A game's observation encoder: a state seen from a seat as one flat float32 vector."""

    def encode_flat(self, state: Any, seat: int) -> NDArray[np.float32]: ...
