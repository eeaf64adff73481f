"""Kingdomino with explicit chance nodes (for OpenSpiel's ``python_kingdomino``).

A :class:`ChanceKingdominoState` plays the same rules as :class:`~.state.KingdominoState` but
draws nothing in advance: the king order of the set-up and every domino of every line are
chance events, resolved one at a time by :meth:`ChanceKingdominoState.apply_chance` with
uniform probabilities over what is still possible (the seats not yet in the order; the
dominoes nobody has seen). Set-aside dominoes (2 and 3 players) are simply never drawn:
drawing the lines uniformly from all 48 is the same distribution as setting some aside
unseen first. Between chance events the state is a decision node of the ordinary engine.
"""

from __future__ import annotations

from moonriver_env.kingdomino.rules.components import NUM_DOMINOES
from moonriver_env.kingdomino.rules.config import KingdominoConfig
from moonriver_env.kingdomino.rules.kingdom import Kingdom
from moonriver_env.kingdomino.rules.state import NO_KING, KingdominoState, Phase, new_game

__all__ = ["ChanceKingdominoState", "new_chance_game"]

SEAT = -2  # a pending draw of the next seat of the set-up order
CURRENT = 0  # a pending draw of a domino of the current line
NEXT = 1  # ... of the next line


class ChanceKingdominoState(KingdominoState):
    """The engine with chance events pending (``pending``: what is drawn next, in order)."""

    __slots__ = ("pending",)

    pending: list[int]

    @property
    def is_chance_node(self) -> bool:
        return bool(self.pending)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` of the next chance event: a seat, or a domino index
        (number - 1)."""
        if not self.pending:
            return []
        if self.pending[0] == SEAT:
            n = self.config.num_players
            if n == 2:
                return [(0, 0.5), (1, 0.5)]
            left = [s for s in range(n) if s not in self.setup_order]
            return [(s, 1.0 / len(left)) for s in left]
        p = 1.0 / len(self.pile)
        return [(d, p) for d in self.pile]

    def apply_chance(self, outcome: int) -> None:
        """Resolve the next chance event; ``ValueError`` for an impossible outcome."""
        if outcome not in {o for o, _ in self.chance_outcomes()}:
            raise ValueError(f"chance outcome {outcome!r} is not possible now")
        kind = self.pending.pop(0)
        self._legal = None
        if kind == SEAT:
            n = self.config.num_players
            if n == 2:
                self.setup_order = [outcome, 1 - outcome, 1 - outcome, outcome]
            else:
                self.setup_order.append(outcome)
            if len(self.setup_order) == self.config.line_size:
                self.seat = self.setup_order[0]
            return
        self.pile.remove(outcome)
        line = self.cur_line if kind == CURRENT else self.next_line
        line[line.index(-1)] = outcome
        if -1 not in line:
            line.sort()  # by number (a domino index is its number - 1)

    def clone(self) -> ChanceKingdominoState:
        new = super().clone()
        assert isinstance(new, ChanceKingdominoState)
        new.pending = self.pending[:]
        return new

    def redetermine(self, rng: object) -> None:
        """Nothing is hidden: the undrawn dominoes are an unordered pool."""

    # -- the engine's chance, made explicit -----------------------------------------------
    def _start_game(self) -> None:
        cfg = self.config
        n = cfg.num_players
        size = cfg.line_size
        self.pile = list(range(NUM_DOMINOES))
        self.box = []
        self.discarded = []
        self.placed = [[] for _ in range(n)]
        self.kingdoms = [Kingdom.empty(cfg.size) for _ in range(n)]
        self.cur_line = [-1] * size
        self.cur_kings = [NO_KING] * size
        self.next_line = []
        self.next_kings = []
        self.setup_order = []
        self.setup_idx = 0
        self.turn_pos = -1
        self.phase = Phase.SETUP_PICK
        self.seat = 0
        self.pending = [SEAT] * (1 if n == 2 else n) + [CURRENT] * size

    def _draw_next_line(self) -> None:
        cfg = self.config
        size = cfg.line_size
        if len(self.pile) > NUM_DOMINOES - cfg.dominoes_in_play:
            self.next_line = [-1] * size
            self.next_kings = [NO_KING] * size
            self.pending += [NEXT] * size
        else:  # the last round; what was never drawn stays in the box, unseen
            self.next_line = []
            self.next_kings = []
            self.box = sorted(self.pile)
            self.pile = []


def new_chance_game(config: KingdominoConfig | None = None) -> ChanceKingdominoState:
    """A game before its first chance event (the set-up order)."""
    base = new_game(config, seed=0)  # the generator is never used for chance here
    state = object.__new__(ChanceKingdominoState)
    for name in (*type(base).__slots__, "config", "layout", "rng"):
        if name != "pending" and hasattr(base, name):
            setattr(state, name, getattr(base, name))
    state.pending = []
    state.game = 0
    state.results = []
    state._start_game()
    return state
