"""Agent Avenue as Python states (solver/engine/states.py): a thin shell over the numba
rules of the variant's mode (rules.py, or advanced.py for the black market)."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue import team_record
from spycfr.games.agent_avenue.record import action_label, extend_view
from spycfr.games.agent_avenue.variant import Variant


class AgentAvenueGame:
    """Agent Avenue for one variant; states call the numba rules (the only rules code)."""

    name = "agent-avenue"

    def __init__(self, variant: Variant | None = None) -> None:
        self.variant_obj = variant or Variant()
        self.params = self.variant_obj.to_params()
        self.rules = self.variant_obj.rules
        self.max_actions = int(self.rules.max_actions(self.params))

    @property
    def variant(self) -> dict:
        return self.variant_obj.as_dict()

    @property
    def num_seats(self) -> int:
        return self.variant_obj.num_seats

    def new_initial_state(self) -> AgentAvenueState:
        return AgentAvenueState(self, self.rules.initial_state(self.params),
                                ((),) * self.num_seats)

    def __repr__(self) -> str:
        return f"AgentAvenueGame({self.variant_obj.describe()})"


class AgentAvenueState:
    """One position plus each seat's view of the record so far (the information states)."""

    def __init__(self, game: AgentAvenueGame, array: np.ndarray,
                 views: tuple[tuple[str, ...], ...], history: tuple[int, ...] = ()) -> None:
        self.game = game
        self.array = array
        self.views = views
        self.history = history  # the actions from the start (the full record's codes)

    def is_terminal(self) -> bool:
        return int(self.array[R.PHASE]) == R.PH_OVER

    def current_player(self) -> int:
        return int(self.game.rules.current_player(self.array, self.game.params))

    def _list(self) -> tuple[np.ndarray, np.ndarray, int]:
        codes = np.empty(self.game.max_actions, dtype=np.int32)
        probs = np.empty(self.game.max_actions)
        if self.current_player() == R.CHANCE:
            k = self.game.rules.chance_outcomes(self.array, self.game.params, codes, probs)
        else:
            k = self.game.rules.legal_actions(self.array, self.game.params, codes)
        return codes, probs, int(k)

    def legal_actions(self) -> list[int]:
        if self.current_player() == R.CHANCE:
            return []
        codes, _, k = self._list()
        return [int(a) for a in codes[:k]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != R.CHANCE:
            return []
        codes, probs, k = self._list()
        return [(int(c), float(p)) for c, p in zip(codes[:k], probs[:k], strict=True)]

    def child(self, action: int) -> AgentAvenueState:
        g = self.game
        if g.num_seats > 2:  # a team variant: tokens name the seat (team_record.py)
            views = tuple(v + (team_record.token(g.variant_obj, self.array, g.params, action,
                                                 p),) for p, v in enumerate(self.views))
        else:
            views = tuple(extend_view(v, g.variant_obj, self.array, g.params, action, p)
                          for p, v in enumerate(self.views))
        out = np.empty_like(self.array)
        g.rules.apply_action(self.array, g.params, np.int32(action), out)
        return AgentAvenueState(g, out, views, self.history + (int(action),))

    def returns(self) -> tuple[float, float]:
        u = float(self.game.rules.returns_p1(self.array, self.game.params))
        return u, 0.0 - u

    def information_state(self, player: int) -> str:
        """Seat ``player``'s view of the record so far (``?`` for hidden cards)."""
        return " ".join(self.views[player])

    def record(self) -> str | None:
        """The full record so far, every card shown (None for a team variant: its records
        are seats' views)."""
        if self.game.num_seats > 2:
            return None
        from spycfr.games.agent_avenue.record import format_record

        return format_record(self.game.variant_obj, self.history)

    def action_label(self, action: int) -> str:
        g = self.game
        if g.num_seats > 2:
            return team_record.action_label(g.variant_obj, self.array, g.params, action)
        return action_label(g.variant_obj, self.array, action)

    def __repr__(self) -> str:
        return f"AgentAvenueState({' '.join(self.views[0])!r})"
