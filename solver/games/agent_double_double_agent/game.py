"""Agent Double Double Agent as Python states (solver/engine/states.py): a thin shell over
the numba rules, carrying each seat's view of the record (its information state)."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.record import (
    board_after,
    edge_token,
    empty_board,
    format_record,
)
from spycfr.games.agent_double_double_agent.variant import Variant


class ADDAGame:
    """One variant; states call the numba rules (the only rules code)."""

    name = "agent-double-double-agent"

    def __init__(self, variant: Variant | None = None) -> None:
        self.variant_obj = variant or Variant()
        self.params = self.variant_obj.params
        self.max_actions = int(R.max_actions(self.params))

    @property
    def variant(self) -> dict:
        return self.variant_obj.as_dict()

    def new_initial_state(self) -> ADDAState:
        return ADDAState(self, R.initial_state(self.params), ((), ()), (), empty_board())

    def __repr__(self) -> str:
        return f"ADDAGame({self.variant_obj.describe()})"


class ADDAState:
    """A position, the record so far, each seat's view of it and the cards on each side."""

    def __init__(self, game: ADDAGame, array: np.ndarray, views: tuple, history: tuple,
                 board: tuple) -> None:
        self.game = game
        self.array = array
        self.views = views
        self.history = history
        self.board = board

    def is_terminal(self) -> bool:
        return bool(R.is_terminal(self.array, self.game.params))

    def current_player(self) -> int:
        return int(R.current_player(self.array, self.game.params))

    def legal_actions(self) -> list[int]:
        if self.current_player() not in (0, 1):
            return []
        return R.legal_list(self.array, self.game.params)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != R.CHANCE:
            return []
        params = self.game.params
        codes = np.empty(self.game.max_actions, dtype=np.int32)
        probs = np.empty(self.game.max_actions)
        n = R.chance_outcomes(self.array, params, codes, probs)
        return [(int(codes[i]), float(probs[i])) for i in range(n)]

    def child(self, action: int) -> ADDAState:
        v = self.game.variant_obj
        views = tuple(self.views[p] + (edge_token(v, self.array, action, p, self.board),)
                      for p in range(2))
        board = board_after(self.board, self.array, action, None)
        out = R.step(self.array, self.game.params, action)
        return ADDAState(self.game, out, views, self.history + (int(action),), board)

    def returns(self) -> tuple[float, float]:
        u = float(R.returns_p1(self.array, self.game.params))
        return u + 0.0, 0.0 - u

    def information_state(self, player: int) -> str:
        """``player``'s view of the record so far (``?`` for what it cannot see)."""
        return " ".join(self.views[player])

    def record(self) -> str:
        """The full record so far."""
        return format_record(self.game.variant_obj, self.history)

    def action_label(self, action: int) -> str:
        """The move (or chance outcome) in record notation, as its mover writes it."""
        return edge_token(self.game.variant_obj, self.array, action,
                          int(self.array[L.MOVER]), self.board)

    def __repr__(self) -> str:
        return f"ADDAState({self.record()!r})"
