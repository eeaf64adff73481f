"""Setting up the table and keeping it stocked: the plot pile, the columns, the saloon
(RULES.md section 2 and the round structure of section 3; rulings R6, R12, R14).

:class:`TableRules` is a mixin of :class:`.state.GameState`: the setup draws chance in a fixed
order from the game's generator; a column is drawn from the pile and sorted by the numbers on
the plots' backs; the saloon refills from the partner stack.
"""

from __future__ import annotations

from moonriver_env.family.draft import draw_column
from moonriver_env.moonriver.rules.components import LEGENDS_BOARDS
from moonriver_env.moonriver.rules.config import SCENARIOS
from moonriver_env.moonriver.rules.core import NO_PLOT, NO_SEAT, Phase, StateCore


class TableRules(StateCore):
    """Setup, drawing columns, refilling the saloon."""

    __slots__ = ()

    def _setup(self) -> None:
        """RULES.md section 2, drawing chance in a fixed order from ``self.rng``: the scenario,
        the boards, the plot shuffle, the partner shuffle, the rancheros' order."""
        cfg, rng = self.config, self.rng
        comps = cfg.components
        n = cfg.num_players
        if cfg.mode == "legends":
            scen = cfg.scenario
            if scen is None or scen == "random":
                scen = SCENARIOS[int(rng.integers(len(SCENARIOS)))]
            self.scenario = scen
            if cfg.boards is None:
                boards = LEGENDS_BOARDS[:n]
            elif cfg.boards == "random":
                perm = rng.permutation(len(LEGENDS_BOARDS))
                boards = tuple(LEGENDS_BOARDS[int(i)] for i in perm[:n])
            else:
                assert isinstance(cfg.boards, tuple)
                boards = cfg.boards
        else:
            boards = ("camp",) * n
        self._set_boards(tuple(boards))
        pile = comps.plot_list()
        rng.shuffle(pile)
        self.pile = pile
        stack = comps.partner_list()
        rng.shuffle(stack)
        self.stack = stack
        self._refill_saloon()
        self.cur_col = self._draw_column()
        self.cur_claim = [NO_SEAT] * comps.column_size
        if n == 2:
            first = int(rng.integers(2))
            self.setup_order = [first, 1 - first, 1 - first, first]
        else:
            self.setup_order = [int(s) for s in rng.permutation(n)]
        self.setup_idx = 0
        self.phase = Phase.SETUP_CLAIM
        self.seat = self.setup_order[0]

    def _draw_column(self) -> list[int]:
        """Draw a column and sort it by the numbers on the backs, ties in draw order."""
        return draw_column(self.pile, self.config.components.column_size, self._st.kt.back)

    def _refill_saloon(self) -> None:
        # Ruling R14: a short stack fills what it can.
        saloon, stack = self.saloon, self.stack
        for i, tok in enumerate(saloon):
            if tok < 0 and stack:
                saloon[i] = stack.pop()

    def _remove_unclaimed(self, col: list[int], claim: list[int]) -> None:
        # Ruling R12: with 3 players the unclaimed plot leaves the game once all have claimed.
        for p, c in enumerate(claim):
            if c < 0 and col[p] >= 0:
                self.removed.append(col[p])
                col[p] = NO_PLOT

    def _open_next_column(self) -> None:
        size = self.config.components.column_size
        if len(self.pile) >= size:
            self.next_col = self._draw_column()
        else:
            # Ruling R6: a short remainder is discarded; the final round follows.
            self.discarded.extend(self.pile)
            self.pile.clear()
            self.next_col = [NO_PLOT] * size
            self.final_round = True
        self.next_claim = [NO_SEAT] * size
