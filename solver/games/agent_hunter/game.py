"""Agent Hunter as Python states (solver/engine/states.py): a thin shell over rules.py."""

from __future__ import annotations

import numpy as np

from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.variant import Variant


class AgentHunterGame:
    """Agent Hunter for one variant; states call the numba rules (the only rules code)."""

    name = "agent-hunter"

    def __init__(self, variant: Variant | None = None) -> None:
        self.variant_obj = variant or Variant()
        self.params = self.variant_obj.to_params()
        self.max_actions = R.max_actions(self.variant_obj)

    @property
    def variant(self) -> dict:
        return self.variant_obj.as_dict()

    def new_initial_state(self) -> AgentHunterState:
        return AgentHunterState(self, R.initial_state(self.params), ((), ()), ())

    def __repr__(self) -> str:
        return f"AgentHunterGame({self.variant_obj.describe()})"


class AgentHunterState:
    """One position plus each player's view of the record so far (the information states)."""

    def __init__(self, game: AgentHunterGame, array: np.ndarray,
                 views: tuple[tuple[str, ...], tuple[str, ...]], history: tuple[int, ...]) -> None:
        self.game = game
        self.array = array
        self.views = views
        self.history = history

    def is_terminal(self) -> bool:
        return bool(R.is_terminal(self.array, self.game.params))

    def current_player(self) -> int:
        return int(R.current_player(self.array))

    def legal_actions(self) -> list[int]:
        buf = np.empty(self.game.max_actions, dtype=np.int32)
        n = R.legal_actions(self.array, self.game.params, buf)
        return [int(a) for a in buf[:n]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def child(self, action: int) -> AgentHunterState:
        from spycfr.games.agent_hunter.record import extend_view

        params = self.game.params
        out = np.empty(R.STATE_SIZE, dtype=np.int16)
        views = (extend_view(self.views[0], self.array, params, action, 0),
                 extend_view(self.views[1], self.array, params, action, 1))
        R.apply_action(self.array, params, np.int32(action), out)
        return AgentHunterState(self.game, out, views, self.history + (int(action),))

    def returns(self) -> tuple[float, float]:
        u = float(R.returns_p1(self.array, self.game.params))
        return u, 0.0 - u

    def information_state(self, player: int) -> str:
        """``player``'s view of the record so far (spec notation, ``?`` for hidden cards)."""
        return " ".join(self.views[player])

    def record(self) -> str:
        """The full record so far."""
        from spycfr.games.agent_hunter.record import format_record

        return format_record(self.game.variant_obj, self.history)

    def action_label(self, action: int) -> str:
        """Record-like label: place:3-7-1, hand:5>2, switch:1=4>6@2, house:2=6>3, refill:5."""
        from spycfr.games.agent_hunter.record import action_label

        return action_label(self.array, self.game.params, action)

    def __repr__(self) -> str:
        return f"AgentHunterState({self.record()!r})"
