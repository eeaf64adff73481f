"""The Kingdomino game state machine (RULES.md section 13, K2-K8).

A :class:`KingdominoState` is mutated in place by :meth:`KingdominoState.apply`. Each
decision at the table is one action id (:mod:`.actions`): a set-up pick, a placement or a
discard, a pick in the next line. Everything else (drawing a line, passing the turn to the
king on the lowest number, the end of a game, the next game of a Dynasty) happens inside
``apply``. ``legal_actions()`` is empty exactly when the game is over.

The state's fields are declared once (:data:`FIELDS`); ``clone``, JSON and the invariants
(:mod:`.invariants`) are written over that declaration.
"""

from __future__ import annotations

import json
import operator
from bisect import bisect_left
from typing import TYPE_CHECKING, Any

import numpy as np

from moonriver_env.family.draft import draw_column, next_claim
from moonriver_env.family.legal import LegalActions
from moonriver_env.family.rng import copy_rng
from moonriver_env.family.validation import ROOT, JsonTextError, read_json_text
from moonriver_env.kingdomino.rules.actions import ActionLayout, KingdominoAction, action_layout
from moonriver_env.kingdomino.rules.components import NUM_DOMINOES, Domino, dominoes
from moonriver_env.kingdomino.rules.config import KingdominoConfig
from moonriver_env.kingdomino.rules.core import (
    FIELDS,
    NO_DOMINO,
    NO_KING,
    SCHEMA_VERSION,
    IllegalActionError,
    Phase,
    StateFormatError,
)
from moonriver_env.kingdomino.rules.invariants import state_from_data
from moonriver_env.kingdomino.rules.kingdom import Kingdom, placement_ids
from moonriver_env.kingdomino.rules.scoring import (
    KingdomScore,
    kingdom_points,
    largest_territory,
    placement_gain,
    rank_winners,
    score_kingdom,
)

if TYPE_CHECKING:
    pass

__all__ = [
    "FIELDS",
    "NO_DOMINO",
    "NO_KING",
    "IllegalActionError",
    "KingdominoState",
    "Phase",
    "StateFormatError",
    "new_game",
]


MAX_TEXT = 1 << 20
"""The most characters a saved Kingdomino state is read from (one is a few kilobytes)."""


class KingdominoState(LegalActions):
    """A Kingdomino game in progress. Create one with :func:`new_game`.

    The fields (:data:`FIELDS`) are public for encoders, agents and tests; mutate them only
    through :meth:`apply`.
    """

    __slots__ = ("config", "layout", "rng", "_legal", *FIELDS)

    config: KingdominoConfig
    layout: ActionLayout
    rng: np.random.Generator
    _legal: list[int] | None
    game: int
    pile: list[int]
    box: list[int]
    discarded: list[int]
    placed: list[list[int]]
    kingdoms: list[Kingdom]
    cur_line: list[int]
    cur_kings: list[int]
    next_line: list[int]
    next_kings: list[int]
    phase: Phase
    seat: int
    setup_order: list[int]
    setup_idx: int
    turn_pos: int
    results: list[list[int]]

    # ------------------------------------------------------------------ public API
    @property
    def current_seat(self) -> int | None:
        """The seat to act, or ``None`` when the game is over."""
        return None if self.phase == GAME_OVER else self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase == GAME_OVER

    @property
    def final_round(self) -> bool:
        """No next line: the dominoes of this line are the last of the game (seed line 120)."""
        return not self.next_line

    def current_domino(self) -> Domino | None:
        """The domino the acting seat places (phase PLACE), else ``None``."""
        if self.phase != Phase.PLACE:
            return None
        return DOMINOES[self.cur_line[self.turn_pos]]

    def apply(self, action: int | str) -> None:
        """Play ``action`` (an id, or its text form) for the current seat, in place.

        Raises:
            IllegalActionError: naming the action and the phase; the state is unchanged.
        """
        if type(action) is not int:
            action = self._as_id(action)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate_legal()
        i = bisect_left(legal, action)
        if i == len(legal) or legal[i] != action:
            raise IllegalActionError(self._illegal_message(action))
        self._legal = None
        phase = self.phase
        if phase == PLACE:
            self._place(action)
        elif phase == PICK:
            self._pick(action - self.layout.pick_base)
        else:
            self._setup_pick(action - self.layout.pick_base)

    def decode(self, action: int) -> KingdominoAction:
        return self.layout.decode(action)

    def action_to_string(self, action: int) -> str:
        return self.layout.to_text(action)

    def string_to_action(self, text: str) -> int:
        """Parse a text form; ``ValueError`` if it names no action (legality not checked)."""
        return self.layout.from_text(text)

    def scores(self) -> list[KingdomScore]:
        """The :class:`KingdomScore` of every seat's kingdom (this game of a Dynasty)."""
        v = self.config.variants
        return [score_kingdom(k, v) for k in self.kingdoms]

    def points(self) -> list[int]:
        """Each seat's points: this game's total plus, in a Dynasty, the finished games'."""
        totals = self._game_points()
        for game in self.results:
            for s in range(len(totals)):
                totals[s] += game[2 * s]
        return totals

    def rank_keys(self) -> list[tuple[int, int]]:
        """Per seat: points, then the largest single territory (in a Dynasty the largest of
        its kingdoms, ruling KR5)."""
        keys = []
        for s, (pts, largest) in enumerate(zip(self._game_points(), self._largest(), strict=True)):
            for game in self.results:
                pts += game[2 * s]
                largest = max(largest, game[2 * s + 1])
            keys.append((pts, largest))
        return keys

    def winners(self) -> list[int]:
        """The seats that win after the tie-break (several: a shared win), as things stand."""
        return rank_winners(self.rank_keys())

    def unseen(self) -> list[int]:
        """The dominoes nobody has seen (the pile and the box), sorted: public as a set."""
        return sorted(self.pile + self.box)

    def redetermine(self, rng: np.random.Generator) -> None:
        """Re-deal the hidden information with ``rng`` (for determinized search): the unseen
        dominoes, put in a canonical order, shuffled and split again between the pile and
        the box. The result depends only on what the table shows and on ``rng``."""
        unseen = self.unseen()
        rng.shuffle(unseen)
        n = len(self.pile)
        self.pile = unseen[:n]
        self.box = sorted(unseen[n:])

    def clone(self) -> KingdominoState:
        """An independent copy (the kingdoms are values and are shared)."""
        new = object.__new__(type(self))
        new.config = self.config
        new.layout = self.layout
        new.rng = copy_rng(self.rng)
        new._legal = self._legal
        new.game = self.game
        new.pile = self.pile[:]
        new.box = self.box[:]
        new.discarded = self.discarded[:]
        new.placed = [p[:] for p in self.placed]
        new.kingdoms = self.kingdoms[:]
        new.cur_line = self.cur_line[:]
        new.cur_kings = self.cur_kings[:]
        new.next_line = self.next_line[:]
        new.next_kings = self.next_kings[:]
        new.phase = self.phase
        new.seat = self.seat
        new.setup_order = self.setup_order[:]
        new.setup_idx = self.setup_idx
        new.turn_pos = self.turn_pos
        new.results = [r[:] for r in self.results]
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> KingdominoState:
        return self.clone()

    def __repr__(self) -> str:
        return (
            f"KingdominoState({self.config.describe()}, game={self.game}, "
            f"phase={self.phase.name}, seat={self.current_seat})"
        )

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> str:
        """The whole state as versioned JSON (kingdoms in their text form)."""
        data: dict[str, Any] = {
            "schema": SCHEMA_VERSION,
            "game_name": "kingdomino",
            "config": self.config.to_dict(),
            "rng": self.rng.bit_generator.state,
        }
        for name in FIELDS:
            value = getattr(self, name)
            if name == "kingdoms":
                value = [k.to_text() for k in value]
            elif name == "phase":
                value = value.name
            data[name] = value
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> KingdominoState:
        """Load a state saved by :meth:`to_json`; :class:`StateFormatError` naming the bad
        entry (the loaded state is checked with :func:`.invariants.check_state`)."""
        try:  # the strict reader and its words, as Moon River's saved states
            data = read_json_text(text, MAX_TEXT)
        except JsonTextError as exc:
            raise StateFormatError(f"{ROOT}: {exc}") from None
        state: KingdominoState = state_from_data(data, cls)
        return state

    # ------------------------------------------------------------------ rules
    def _game_points(self) -> list[int]:
        """Each seat's total of this game (kept in each kingdom's memo: kingdoms are values)."""
        flags = self.config.bonus_flags
        totals = []
        for k in self.kingdoms:
            pts = k.memo.get(flags)
            if pts is None:
                pts = k.memo[flags] = kingdom_points(k, *flags)
            totals.append(pts)
        return totals

    def _largest(self) -> list[int]:
        """Each seat's largest territory in this game (kept in each kingdom's memo)."""
        out = []
        for k in self.kingdoms:
            largest = k.memo.get(LARGEST_TERRITORY)
            if largest is None:
                largest = k.memo[LARGEST_TERRITORY] = largest_territory(k)
            out.append(largest)
        return out

    def _as_id(self, action: object) -> int:
        if isinstance(action, str):
            try:
                return self.layout.from_text(action)
            except ValueError as exc:
                raise IllegalActionError(str(exc)) from None
        if not isinstance(action, (bool, np.bool_)) and hasattr(action, "__index__"):
            try:
                return operator.index(action)
            except TypeError:  # an array of more than one value has __index__ too
                pass
        raise IllegalActionError(f"action: expected an int id or a text form, got {action!r}")

    def _generate_legal(self) -> list[int]:
        ph = self.phase
        lay = self.layout
        if ph == PLACE:
            ids = placement_ids(self.kingdoms[self.seat], DOMINOES[self.cur_line[self.turn_pos]])
            if not ids or not self.config.must_place:
                ids.append(lay.discard)  # seed lines 95, 112; the author's variant: line 139
            return ids
        if ph == PICK:
            kings = self.next_kings
        elif ph == Phase.SETUP_PICK:
            kings = self.cur_kings
        else:
            return []
        base = lay.pick_base
        return [base + p for p, k in enumerate(kings) if k == NO_KING]

    def _start_game(self) -> None:
        """Set-up (seed lines 54-79), chance drawn from ``self.rng`` in a fixed order: the
        shuffle, the king order."""
        cfg, rng = self.config, self.rng
        n = cfg.num_players
        pile = list(range(NUM_DOMINOES))
        rng.shuffle(pile)
        out = NUM_DOMINOES - cfg.dominoes_in_play  # seed lines 61-63
        self.box = sorted(pile[:out])
        self.pile = pile[out:]
        self.discarded = []
        self.placed = [[] for _ in range(n)]
        self.kingdoms = [Kingdom.empty(cfg.size) for _ in range(n)]
        self.cur_line = draw_column(self.pile, cfg.line_size, NUMBERS)  # seed line 67
        self.cur_kings = [NO_KING] * cfg.line_size
        self.next_line = []
        self.next_kings = []
        if n == 2:  # seed line 75: A, B, B, A
            first = int(rng.integers(2))
            self.setup_order = [first, 1 - first, 1 - first, first]
        else:  # seed line 73: the kings fall from the hand in a random order
            self.setup_order = [int(s) for s in rng.permutation(n)]
        self.setup_idx = 0
        self.turn_pos = -1
        self.phase = Phase.SETUP_PICK
        self.seat = self.setup_order[0]

    def _setup_pick(self, pos: int) -> None:
        self.cur_kings[pos] = self.seat
        self.setup_idx += 1
        if self.setup_idx < len(self.setup_order):
            self.seat = self.setup_order[self.setup_idx]
            return
        self._draw_next_line()  # seed line 79
        self._next_turn()

    def _draw_next_line(self) -> None:
        size = self.config.line_size
        if self.pile:
            self.next_line = draw_column(self.pile, size, NUMBERS)
            self.next_kings = [NO_KING] * size
        else:  # the tower is empty: the last round (seed line 120)
            self.next_line = []
            self.next_kings = []

    def _next_turn(self) -> None:
        """The king on the lowest number still in the line plays next (seed line 89)."""
        pos = next_claim(self.cur_kings)
        if pos >= 0:
            self.turn_pos = pos
            self.seat = self.cur_kings[pos]
            self.phase = PLACE
            return
        if not self.next_line:
            self._end_game()
            return
        self.cur_line = self.next_line  # seed line 98: a new line, the next round
        self.cur_kings = self.next_kings
        self._draw_next_line()
        self._next_turn()

    def _place(self, action: int) -> None:
        pos = self.turn_pos
        seat = self.seat
        d = self.cur_line[pos]
        if action == self.layout.discard:
            self.discarded.append(d)
        else:
            cells = self.layout.cells
            old = self.kingdoms[seat]
            new = self.kingdoms[seat] = old.place(DOMINOES[d], action % cells, action // cells)
            flags = self.config.bonus_flags
            before = old.memo.get(flags)
            if before is not None:  # the new points from the old ones: only the joined territories
                new.memo[flags] = before + placement_gain(
                    old, DOMINOES[d], action % cells, action // cells, *flags
                )
            self.placed[seat].append(d)
        self.cur_line[pos] = NO_DOMINO
        if self.next_line:
            self.phase = PICK
        else:
            self.cur_kings[pos] = NO_KING
            self._next_turn()

    def _pick(self, pos: int) -> None:
        self.next_kings[pos] = self.seat
        self.cur_kings[self.turn_pos] = NO_KING
        self._next_turn()

    def _end_game(self) -> None:
        if self.game + 1 < self.config.num_games:  # Dynasty: the next game (seed line 143)
            row: list[int] = []
            for pts, largest in zip(self._game_points(), self._largest(), strict=True):
                row += [pts, largest]
            self.results.append(row)
            self.game += 1
            self._start_game()
            return
        self.phase = Phase.GAME_OVER
        self.seat = -1
        self.turn_pos = -1


LARGEST_TERRITORY = "largest_territory"  # the memo key of a kingdom's largest territory
PLACE = Phase.PLACE
PICK = Phase.PICK
GAME_OVER = Phase.GAME_OVER
DOMINOES: tuple[Domino, ...] = dominoes()
NUMBERS: tuple[int, ...] = tuple(d.number for d in DOMINOES)


def new_game(config: KingdominoConfig | None = None, seed: int | None = None) -> KingdominoState:
    """A new game (set-up done, the first set-up pick to make), chance drawn from
    ``numpy.random.default_rng(seed)``."""
    if config is None:
        config = KingdominoConfig()
    elif not isinstance(config, KingdominoConfig):
        raise TypeError(f"config: expected a KingdominoConfig, got {type(config).__name__}")
    state = object.__new__(KingdominoState)
    state.config = config
    state.layout = action_layout(config)
    state.rng = np.random.default_rng(seed)
    state._legal = None
    state.game = 0
    state.results = []
    state._start_game()
    return state
