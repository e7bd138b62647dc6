"""Kuhn poker, exactly as OpenSpiel's ``kuhn_poker`` (2 players): a validation game.

Three cards J < Q < K (codes 0, 1, 2) are dealt to P1 then P2 by two separate
chance nodes; both ante 1. Actions: 0 = pass, 1 = bet (always both legal).
Histories pp / bb / pbb go to showdown (pot 2 or 4), bp and pbp end with a fold.
Information-state strings are OpenSpiel's (card then the p/b betting string).
"""

from __future__ import annotations

from spycfr.engine.states import CHANCE_PLAYER, TERMINAL_PLAYER
from spycfr.games.plugin import NoParameters

PASS, BET = 0, 1
CARD_NAMES = ("J", "Q", "K")
_TERMINAL_BETS = {"pp", "bp", "bb", "pbp", "pbb"}



class KuhnState:
    """A Kuhn history: the two dealt cards then the betting actions."""

    __slots__ = ("_hist",)

    def __init__(self, hist: tuple[int, ...] = ()) -> None:
        self._hist = hist

    def _bets(self) -> str:
        return "".join("pb"[a] for a in self._hist[2:])

    def is_terminal(self) -> bool:
        return self._bets() in _TERMINAL_BETS

    def current_player(self) -> int:
        if len(self._hist) < 2:
            return CHANCE_PLAYER
        if self.is_terminal():
            return TERMINAL_PLAYER
        return len(self._hist) % 2

    def legal_actions(self) -> list[int]:
        if self.current_player() in (0, 1):
            return [PASS, BET]
        return []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(3) if c not in self._hist[:2]]
        return [(c, 1.0 / len(left)) for c in left]

    def child(self, action: int) -> KuhnState:
        return KuhnState(self._hist + (action,))

    def returns(self) -> tuple[float, float]:
        bets = self._bets()
        if bets not in _TERMINAL_BETS:
            return (0.0, 0.0)
        if bets == "bp":
            u = 1.0
        elif bets == "pbp":
            u = -1.0
        else:
            stake = 1.0 if bets == "pp" else 2.0
            u = stake if self._hist[0] > self._hist[1] else -stake
        return (u, -u)

    def information_state(self, player: int) -> str:
        card = str(self._hist[player]) if len(self._hist) > player else ""
        return card + self._bets()

    def action_label(self, action: int) -> str:
        if len(self._hist) < 2:
            return CARD_NAMES[action]
        return "bet" if action == BET else "pass"

    def __repr__(self) -> str:
        return f"KuhnState({' '.join(CARD_NAMES[c] for c in self._hist[:2])} {self._bets()})"


class KuhnGame:
    """Kuhn poker (no parameters)."""

    name = "kuhn"
    variant_obj = NoParameters()

    @property
    def variant(self) -> dict:
        return {}

    def new_initial_state(self) -> KuhnState:
        return KuhnState()
