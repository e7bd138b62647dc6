"""Liar's dice, exactly as OpenSpiel's ``liars_dice`` with default options: a validation game.

Two players, one six-sided die each; chance rolls P1's die then P2's (outcome
code k = face k+1). P1 bids first, then the players alternate. Bids use
OpenSpiel's "reset-face" encoding: bid id b (0-11) means quantity b // 6 + 1 of
face b % 6 + 1; each bid must be strictly higher than the previous one. Action
12 calls "Liar" (legal once a bid has been made) and ends the game. Face 6 is
wild. The bidder wins (+1, caller -1) if at least ``quantity`` dice show the
face or a 6; otherwise the caller wins. Information-state strings are
OpenSpiel's: the player's die then " q-f" per bid and " Liar".
"""

from __future__ import annotations

from spycfr.engine.states import CHANCE_PLAYER, TERMINAL_PLAYER
from spycfr.games.plugin import NoParameters

NUM_PLAYERS = 2
DICE_SIDES = 6
TOTAL_DICE = 2  # one die per player
LIAR = TOTAL_DICE * DICE_SIDES  # action id of calling "Liar" (12)
_INVALID_OUTCOME = -1  # OpenSpiel's kInvalidOutcome (an unrolled die in its strings)


def unrank_bid(bid: int) -> tuple[int, int]:
    """(quantity, face) of bid id ``bid`` under the reset-face rule."""
    return bid // DICE_SIDES + 1, bid % DICE_SIDES + 1


def _bid_string(action: int) -> str:
    if action == LIAR:
        return "Liar"
    q, f = unrank_bid(action)
    return f"{q}-{f}"


class LiarsDiceState:
    """A history: the dice rolled so far (faces 1-6), then the bids (ids, LIAR last)."""

    __slots__ = ("_dice", "_bids")

    def __init__(self, dice: tuple[int, ...] = (), bids: tuple[int, ...] = ()) -> None:
        self._dice = dice
        self._bids = bids

    def is_terminal(self) -> bool:
        return bool(self._bids) and self._bids[-1] == LIAR

    def current_player(self) -> int:
        if len(self._dice) < NUM_PLAYERS:
            return CHANCE_PLAYER
        if self.is_terminal():
            return TERMINAL_PLAYER
        return len(self._bids) % NUM_PLAYERS

    def legal_actions(self) -> list[int]:
        if self.current_player() not in (0, 1):
            return []
        last = self._bids[-1] if self._bids else -1
        actions = list(range(last + 1, LIAR))
        if self._bids:
            actions.append(LIAR)
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE_PLAYER:
            return []
        return [(k, 1.0 / DICE_SIDES) for k in range(DICE_SIDES)]

    def child(self, action: int) -> LiarsDiceState:
        if len(self._dice) < NUM_PLAYERS:
            if not 0 <= action < DICE_SIDES:
                raise ValueError(f"illegal die roll outcome {action}")
            return LiarsDiceState(self._dice + (action + 1,), self._bids)
        if self.is_terminal() or action not in self.legal_actions():
            raise ValueError(f"illegal liar's dice action {action} after bids {self._bids}")
        return LiarsDiceState(self._dice, self._bids + (action,))

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        caller = (len(self._bids) - 1) % NUM_PLAYERS
        bidder = 1 - caller  # the previous bid was made by the other player
        quantity, face = unrank_bid(self._bids[-2])
        matches = sum(1 for d in self._dice if d == face or d == DICE_SIDES)
        winner = bidder if matches >= quantity else caller
        return (1.0, -1.0) if winner == 0 else (-1.0, 1.0)

    def information_state(self, player: int) -> str:
        die = self._dice[player] if len(self._dice) > player else _INVALID_OUTCOME
        return str(die) + "".join(" " + _bid_string(b) for b in self._bids)

    def action_label(self, action: int) -> str:
        if len(self._dice) < NUM_PLAYERS:
            return f"Roll {action + 1}"
        return _bid_string(action)

    def __repr__(self) -> str:
        dice = " ".join(str(d) for d in self._dice)
        return f"LiarsDiceState({dice}{''.join(' ' + _bid_string(b) for b in self._bids)})"


class LiarsDiceGame:
    """Liar's dice, 2 players x 1 six-sided die (no parameters)."""

    name = "liars-dice"
    variant_obj = NoParameters()

    @property
    def variant(self) -> dict:
        return {}

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState()
