"""Every draw as an explicit chance node (RULES.md section 2 set-up; section 3 columns; the
saloon refill of section 4).

A game made by :func:`~.state.new_game` draws from its seeded ``numpy.random.Generator``: at
set-up it draws the scenario (Legends, when configured ``"random"``/``None``), the boards
(Legends, ``boards="random"``), the order of the plot pile and of the partner stack, and the
rancheros' set-up order; later it pops the next column off the pile and refills the saloon
from the stack. A :class:`ChanceState` (made by :func:`new_chance_game`) plays the same game
with no generator: the pile and the stack are unordered pools (sorted lists, so the state is
public: every drawn piece is face up, nothing else is hidden), and every draw waits for its
outcome::

    state = new_chance_game(GameConfig(num_players=3))
    while not state.is_terminal:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_chance(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply(policy(state))

An outcome is a small int naming which piece comes out of the pool (:class:`DrawKind` says
which pool): a plot kind, a :class:`~.components.PartnerKind`, a scenario or board index, or
a seat. Its probability is exact: the copies of that piece left in the pool over the pool's
size (uniform for the scenario, boards and seats), the same law as the seeded shuffle.
The draws a decision reveals come right after it (:meth:`ChanceState.pending_draws`), before
the next decision, in the engine's order: the column's plots, then the saloon refill.

:func:`seeded_draws` reads the draws a freshly set-up seeded game will make; fed to a
:class:`ChanceState` (:meth:`SeededDraws.outcome_for`) they replay that game exactly (same
columns in the same order, same saloon, same ranches, same scores). The seeded engine itself
is untouched: it neither checks for nor records chance nodes.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from moonriver_env.moonriver.rules.components import LEGENDS_BOARDS, PartnerKind
from moonriver_env.moonriver.rules.config import SCENARIOS, GameConfig
from moonriver_env.moonriver.rules.core import (
    NO_PLOT,
    NO_SEAT,
    IllegalActionError,
    Phase,
    StateCore,
)
from moonriver_env.moonriver.rules.serialization import (
    config_from_raw,
    config_to_raw,
    state_from_json,
    state_to_json,
)
from moonriver_env.moonriver.rules.state import GameState

__all__ = [
    "CHANCE_FORMAT_TAG",
    "ChanceState",
    "DrawKind",
    "SeededDraws",
    "chance_view",
    "new_chance_game",
    "outcome_text",
    "seeded_draws",
]

CHANCE_FORMAT_TAG = "moonriver-chance-game"
_CHANCE_VERSION = 1
_CHANCE_KEYS = ("format", "version", "config", "start", "history")


class DrawKind(IntEnum):
    """The pool a draw comes from, i.e. what its outcome means."""

    SCENARIO = 0  # index into SCENARIOS (Legends, scenario drawn)
    BOARD = 1  # index into LEGENDS_BOARDS, for one seat (Legends, boards="random")
    SEAT = 2  # the next seat of the set-up order (2 players: the first seat)
    PLOT = 3  # a plot kind off the pile, into one position of a column
    TOKEN = 4  # a PartnerKind off the stack, into one saloon space


# A pending draw: its pool and where the piece goes (seat for BOARD, set-up order index for
# SEAT, column position for PLOT, saloon space for TOKEN, 0 for SCENARIO).
Draw = tuple[DrawKind, int]


class ChanceState(GameState):
    """A game whose every draw is an explicit chance node; see the module docstring.

    ``pile`` and ``stack`` hold the undrawn pieces in ascending order (a pool, not a pile),
    so :meth:`~.state.GameState.redetermine` has nothing to re-shuffle. While
    :meth:`is_chance_node` is true no player acts: ``legal_action_list()`` is empty and
    ``apply`` raises; the fields show the pieces drawn so far (an undrawn column position
    is ``-1``).
    """

    __slots__ = ("pending", "history", "start")

    pending: list[Draw]
    # Outcomes and actions applied since ``start``, in order (a replay reproduces the state).
    history: list[int]
    # The engine JSON of the state the history starts from; None: new_chance_game(config).
    start: str | None

    # ------------------------------------------------------------------ chance API
    def is_chance_node(self) -> bool:
        """True while a draw waits for its outcome (:meth:`apply_chance`)."""
        return bool(self.pending)

    def pending_draws(self) -> list[Draw]:
        """The draws still to make before the next decision, in order (first is next)."""
        return list(self.pending)

    def draw_kind(self) -> DrawKind:
        """The pool of the next draw; ``ValueError`` at a decision node."""
        return self._next_draw()[0]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the next draw, outcomes ascending, probabilities
        exact and summing to 1; ``ValueError`` at a decision node."""
        kind, target = self._next_draw()
        if kind == DrawKind.PLOT or kind == DrawKind.TOKEN:
            pool = self.pile if kind == DrawKind.PLOT else self.stack
            size = len(pool)
            return [(k, c / size) for k, c in sorted(Counter(pool).items())]
        if kind == DrawKind.SCENARIO:
            options = list(range(len(SCENARIOS)))
        elif kind == DrawKind.BOARD:
            taken = self.boards[:target]
            options = [i for i, b in enumerate(LEGENDS_BOARDS) if b not in taken]
        else:
            n = self.config.num_players
            options = [0, 1] if n == 2 else [s for s in range(n) if s not in self.setup_order]
        p = 1.0 / len(options)
        return [(o, p) for o in options]

    def apply_chance(self, outcome: int) -> None:
        """Make the next draw come out as ``outcome`` (in place).

        Raises:
            IllegalActionError: no draw is pending or ``outcome`` has probability 0; the
                state is unchanged.
        """
        kind, target = self._next_draw()
        o = int(outcome)
        if kind == DrawKind.PLOT or kind == DrawKind.TOKEN:
            pool = self.pile if kind == DrawKind.PLOT else self.stack
            i = bisect_left(pool, o)
            possible = i < len(pool) and pool[i] == o
        else:
            possible = any(o == k for k, _ in self.chance_outcomes())
        if not possible:
            raise IllegalActionError(f"chance outcome {outcome!r} is impossible for a {kind.name}")
        self.pending.pop(0)
        self.history.append(o)
        self._legal = None
        if kind == DrawKind.PLOT:
            self.pile.pop(bisect_left(self.pile, o))
            col = self.cur_col if self.round == 0 else self.next_col
            col[target] = o
            if not self.pending or self.pending[0][0] != DrawKind.PLOT:
                # A stable sort by the backs: ties stay in draw order, as in _draw_column.
                col.sort(key=self._st.kt.back.__getitem__)
        elif kind == DrawKind.TOKEN:
            self.stack.pop(bisect_left(self.stack, o))
            self.saloon[target] = o
        elif kind == DrawKind.SCENARIO:
            self.scenario = SCENARIOS[o]
        elif kind == DrawKind.BOARD:
            boards = list(self.boards)
            boards[target] = LEGENDS_BOARDS[o]
            if target == self.config.num_players - 1:
                self._set_boards(tuple(boards))
            else:
                self.boards = tuple(boards)
        else:
            self._draw_seat(o)
        if not self.pending and self.config.auto_resolve:
            self._auto_resolve()

    # ------------------------------------------------------------------ GameState overrides
    def legal_action_list(self) -> list[int]:
        """Legal action ids, ascending; empty at a chance node."""
        if self.pending:
            return []
        return GameState.legal_action_list(self)

    def apply(self, action: int) -> None:
        """Play ``action`` for the current seat; ``IllegalActionError`` at a chance node."""
        if self.pending:
            raise IllegalActionError(
                f"action {action!r}: a {self.pending[0][0].name} draw is pending "
                "(apply_chance comes first)"
            )
        GameState.apply(self, action)
        self.history.append(int(action))

    def clone(self) -> ChanceState:
        """An independent copy."""
        new = _with_fields_of(GameState.clone(self))
        new.pending = self.pending.copy()
        new.history = self.history.copy()
        new.start = self.start
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> ChanceState:
        return self.clone()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickles as its JSON (a replay of the history), e.g. for OpenSpiel's serialize.
        return (ChanceState.from_json, (self.to_json(),))

    def redetermine(self, rng: np.random.Generator) -> None:
        """Nothing is hidden: the pools are unordered, every draw is a chance node."""

    def to_json(self) -> str:
        """The game as JSON: its config, the state it started from (``null``: a fresh
        :func:`new_chance_game`) and the outcomes and actions applied since, in order."""
        doc = {
            "format": CHANCE_FORMAT_TAG,
            "version": _CHANCE_VERSION,
            "config": config_to_raw(self.config),
            "start": self.start,
            "history": self.history,
        }
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> ChanceState:
        """Replay a game saved by :meth:`to_json`; ``ValueError`` if it does not replay."""
        doc = json.loads(text)
        if not isinstance(doc, dict) or sorted(doc) != sorted(_CHANCE_KEYS):
            raise ValueError(f"expected an object with keys {_CHANCE_KEYS}")
        if doc["format"] != CHANCE_FORMAT_TAG or doc["version"] != _CHANCE_VERSION:
            raise ValueError(f"expected format {CHANCE_FORMAT_TAG!r} version {_CHANCE_VERSION}")
        start = doc["start"]
        if start is None:
            state = new_chance_game(config_from_raw(doc["config"]))
        else:
            state = chance_view(state_from_json(start, GameState))
        for i, x in enumerate(doc["history"]):
            if isinstance(x, bool) or not isinstance(x, int):
                raise ValueError(f"history[{i}]: expected an int, got {x!r}")
            try:
                if state.pending:
                    state.apply_chance(x)
                else:
                    state.apply(x)
            except IllegalActionError as exc:
                raise ValueError(f"history[{i}]: {exc}") from None
        return state

    # ------------------------------------------------------------------ draws (engine hooks)
    def _draw_column(self) -> list[int]:
        """Instead of popping the pile: one PLOT draw per position, the column all ``-1``."""
        size = self.config.components.column_size
        self.pending.extend((DrawKind.PLOT, p) for p in range(size))
        return [NO_PLOT] * size

    def _refill_saloon(self) -> None:
        # Ruling R14: a short stack fills what it can (one TOKEN draw per filled space).
        left = len(self.stack)
        for i, tok in enumerate(self.saloon):
            if tok < 0 and left:
                self.pending.append((DrawKind.TOKEN, i))
                left -= 1

    def _auto_resolve(self) -> None:
        # GameState._auto_resolve, stopping at a chance node.
        while self.phase != Phase.GAME_OVER and not self.pending:
            legal = self.legal_action_list()
            if len(legal) != 1:
                return
            self._apply(legal[0])

    def _next_draw(self) -> Draw:
        if not self.pending:
            raise ValueError("not a chance node: no draw pending")
        return self.pending[0]

    def _draw_seat(self, seat: int) -> None:
        order = self.setup_order
        order.append(seat)
        n = self.config.num_players
        if n == 2:  # the first seat claims, then the other twice, then the first again
            order.extend([1 - seat, 1 - seat, seat])
        if len(order) == self._st.num_rancheros:
            self.seat = order[0]


def outcome_text(kind: DrawKind, outcome: int) -> str:
    """A short text for a draw's outcome, e.g. ``"plot 23"`` (the kind number of the
    component data, 1-based), ``"token cattle_thief"``, ``"scenario gold_rush"``."""
    if kind == DrawKind.PLOT:
        return f"plot {outcome + 1}"
    if kind == DrawKind.TOKEN:
        return f"token {PartnerKind(outcome).name.lower()}"
    if kind == DrawKind.SCENARIO:
        return f"scenario {SCENARIOS[outcome]}"
    if kind == DrawKind.BOARD:
        return f"board {LEGENDS_BOARDS[outcome]}"
    return f"seat {outcome}"


def new_chance_game(config: GameConfig | None = None) -> ChanceState:
    """A game at its first chance node: set-up as in :func:`~.state.new_game` (RULES.md
    section 2) with every draw pending, in this order: the scenario, the boards (seat by
    seat), the saloon, the first column, the set-up order."""
    if config is None:
        config = GameConfig()
    # The generator is never used: it is there because every state carries one.
    self = ChanceState._empty(config, np.random.default_rng(0))
    _init_chance_fields(self, None)
    comps = config.components
    n = config.num_players
    pending = self.pending
    if config.mode == "legends":
        if config.scenario is None or config.scenario == "random":
            pending.append((DrawKind.SCENARIO, 0))
        else:
            self.scenario = config.scenario
        if config.boards == "random":
            pending.extend((DrawKind.BOARD, s) for s in range(n))
        else:
            boards = config.boards if isinstance(config.boards, tuple) else LEGENDS_BOARDS[:n]
            self._set_boards(boards)
    else:
        self._set_boards(("camp",) * n)
    self.pile = sorted(comps.plot_list())
    self.stack = sorted(comps.partner_list())
    self._refill_saloon()
    self.cur_col = self._draw_column()
    pending.extend((DrawKind.SEAT, i) for i in range(1 if n == 2 else n))
    self.phase = Phase.SETUP_CLAIM
    self.seat = NO_SEAT
    return self


def chance_view(state: GameState) -> ChanceState:
    """``state`` (at a decision node) as a :class:`ChanceState`: the same table, the pile
    and the stack as unordered pools (what the table shows of them). Search that should not
    know the hidden order plays on from here with explicit chance nodes."""
    if isinstance(state, ChanceState) and state.pending:
        raise ValueError("chance_view: the state is at a chance node")
    new = _with_fields_of(GameState.clone(state))
    new.pile.sort()
    new.stack.sort()
    _init_chance_fields(new, state_to_json(new))
    return new


def _with_fields_of(copy: GameState) -> ChanceState:
    """A ChanceState taking over the fields of ``copy`` (a fresh clone, not shared), with
    its own chance fields still to set."""
    new = ChanceState.__new__(ChanceState)
    for name in StateCore.__slots__:
        setattr(new, name, getattr(copy, name))
    return new


def _init_chance_fields(state: ChanceState, start: str | None) -> None:
    state.pending = []
    state.history = []
    state.start = start


@dataclass
class SeededDraws:
    """The draws of a seeded game, per pool in the order the game makes them (from
    :func:`seeded_draws`). :meth:`outcome_for` hands a :class:`ChanceState` the outcome of
    its next draw, so it replays the seeded game."""

    by_kind: dict[DrawKind, list[int]]
    used: dict[DrawKind, int] = field(default_factory=dict)

    def outcome_for(self, state: ChanceState) -> int:
        """The outcome the seeded game drew for ``state``'s next draw."""
        kind = state.draw_kind()
        i = self.used.get(kind, 0)
        draws = self.by_kind[kind]
        if i >= len(draws):
            raise ValueError(f"the seeded game made only {len(draws)} {kind.name} draws")
        self.used[kind] = i + 1
        return draws[i]


def seeded_draws(state: GameState) -> SeededDraws:
    """Every draw a seeded game makes, read off ``state`` right after
    :func:`~.state.new_game` (set-up done, nobody has claimed yet): the set-up draws from
    the table, the later ones from the pile and stack order (next drawn last)."""
    if state.round != 0 or state.setup_idx != 0 or isinstance(state, ChanceState):
        raise ValueError("seeded_draws: expected a seeded game fresh from new_game")
    cfg = state.config
    scenario = [] if state.scenario is None else [SCENARIOS.index(state.scenario)]
    boards = [LEGENDS_BOARDS.index(b) for b in state.boards] if cfg.mode == "legends" else []
    order = state.setup_order[:1] if cfg.num_players == 2 else list(state.setup_order)
    return SeededDraws(
        {
            DrawKind.SCENARIO: scenario,
            DrawKind.BOARD: boards,
            DrawKind.SEAT: order,
            # The first column as it lies (sorting it again leaves it unchanged).
            DrawKind.PLOT: [*state.cur_col, *reversed(state.pile)],
            DrawKind.TOKEN: [t for t in state.saloon if t >= 0] + state.stack[::-1],
        }
    )
