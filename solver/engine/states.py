"""The Python state protocol: a game as plain Python states, for the reference builder,
labels and records (the fast path is the numba protocol of :mod:`spycfr.engine.protocol`).

A game is a factory of immutable-looking states. Chance nodes list their
outcomes with explicit probabilities. Payoffs are zero-sum; ``returns()`` gives
both players' payoffs. Information-state strings must give perfect recall: two
histories share a string for a player iff that player cannot tell them apart.
"""

from __future__ import annotations

from typing import Protocol

CHANCE_PLAYER = 2
TERMINAL_PLAYER = -1


class State(Protocol):
    def is_terminal(self) -> bool: ...

    def current_player(self) -> int:
        """0 or 1 for a decision, CHANCE_PLAYER for chance, TERMINAL_PLAYER when over."""

    def legal_actions(self) -> list[int]:
        """Action codes of the player to move, in a fixed order for every state of an infoset."""

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(outcome code, probability) pairs at a chance node."""

    def child(self, action: int) -> State:
        """The state after ``action`` (self is left unchanged)."""

    def returns(self) -> tuple[float, float]:
        """Payoffs of (P1, P2) at a terminal state."""

    def information_state(self, player: int) -> str:
        """Everything ``player`` knows here, as a string (the infoset key)."""

    def action_label(self, action: int) -> str:
        """Human-readable name of an action available here."""


class Game(Protocol):
    name: str

    @property
    def variant(self) -> dict:
        """The parameters of this game instance (empty for parameterless games)."""

    def new_initial_state(self) -> State: ...
