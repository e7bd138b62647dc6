"""Leduc poker as numba rules of the game protocol (:mod:`spycfr.engine.protocol`).

The same game as the Python reference (``game.py``, OpenSpiel's ``leduc_poker``), with
the same codes: cards 0-5 (rank = code // 2), actions 0 fold, 1 call/check, 2 raise.
State ``int16[15]`` (fields below). Only the antes matter for the payoff: the winner
takes the loser's ante, a split pot gives 0.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.tree import CHANCE, TERMINAL

CUR = 0  # player to move, -1 for chance
CALLS = 1
RAISES = 2
ROUND = 3  # 1 or 2
STAKES = 4
PUBLIC = 5  # -1 until dealt
DECK = 6  # bit mask of the cards still in the deck
DEALT = 7  # private cards dealt (0..2)
REMAINING = 8  # players who have not folded
PRIVATE = 9  # + player
ANTE = 11  # + player
FOLDED = 13  # + player
STATE_SIZE = 15

FOLD, CALL, RAISE = 0, 1, 2
NUM_CARDS = 6
MAX_RAISES = 2
HIDDEN = 15


class LeducParams(NamedTuple):
    """Leduc poker has no parameters; the type selects these rules."""

    cards: np.int64


@njit(cache=True)
def initial_state(params):
    s = np.zeros(STATE_SIZE, dtype=np.int16)
    s[CUR] = -1
    s[ROUND] = 1
    s[STAKES] = 1
    s[PUBLIC] = -1
    s[DECK] = (1 << NUM_CARDS) - 1
    s[REMAINING] = 2
    s[PRIVATE] = -1
    s[PRIVATE + 1] = -1
    s[ANTE] = 1
    s[ANTE + 1] = 1
    return s


@njit(cache=True)
def _ready(s):
    if s[RAISES] == 0:
        return s[CALLS] == s[REMAINING]
    return s[CALLS] == s[REMAINING] - 1


@njit(cache=True)
def _terminal(s):
    return s[REMAINING] == 1 or (s[ROUND] == 2 and _ready(s))


@njit(cache=True)
def current_player(s, params):
    if _terminal(s):
        return TERMINAL
    if s[CUR] < 0:
        return CHANCE
    return np.int64(s[CUR])


@njit(cache=True)
def legal_actions(s, params, out):
    n = 0
    if s[STAKES] > s[ANTE + s[CUR]]:
        out[n] = FOLD
        n += 1
    out[n] = CALL
    n += 1
    if s[RAISES] < MAX_RAISES:
        out[n] = RAISE
        n += 1
    return n


@njit(cache=True)
def chance_outcomes(s, params, codes, probs):
    n = 0
    for c in range(NUM_CARDS):
        if (s[DECK] >> c) & 1:
            codes[n] = c
            n += 1
    for j in range(n):
        probs[j] = 1.0 / n
    return n


@njit(cache=True)
def _next_player(s):
    start = 1 if s[CUR] < 0 else s[CUR]
    for i in (1, 2):
        p = (start + i) % 2
        if s[FOLDED + p] == 0:
            return p
    return -1


@njit(cache=True)
def apply_action(s, params, action, out):
    out[:] = s
    if s[CUR] < 0:
        out[DECK] &= ~(1 << action)
        if s[DEALT] < 2:
            out[PRIVATE + s[DEALT]] = action
            out[DEALT] += 1
            if out[DEALT] == 2:
                out[CUR] = 0
        else:
            out[PUBLIC] = action
            out[CUR] = _next_player(s)
        return
    p = s[CUR]
    if action == RAISE:
        raise_amount = 2 if s[ROUND] == 1 else 4
        out[STAKES] += raise_amount
        out[ANTE + p] = out[STAKES]  # calls what is owed, then raises
        out[RAISES] += 1
        out[CALLS] = 0
        out[CUR] = _next_player(out)
        return
    if action == FOLD:
        out[FOLDED + p] = 1
        out[REMAINING] -= 1
    else:
        out[ANTE + p] = s[STAKES]
        out[CALLS] += 1
    if _terminal(out):
        return
    if _ready(out):
        out[ROUND] = 2
        out[RAISES] = 0
        out[CALLS] = 0
        out[CUR] = -1
    else:
        out[CUR] = _next_player(out)


@njit(cache=True)
def observation(s, params, action, seat):
    if s[CUR] < 0:
        if s[DEALT] < 2:
            return 16 + action if seat == s[DEALT] else HIDDEN
        return 8 + action  # the public card
    return action


@njit(cache=True)
def _rank(s, p):
    a = s[PUBLIC]
    b = s[PRIVATE + p]
    lo = min(a, b)
    hi = max(a, b)
    if lo % 2 == 0 and hi == lo + 1:
        return NUM_CARDS * NUM_CARDS + lo  # a pair
    return (hi // 2) * NUM_CARDS + lo // 2


@njit(cache=True)
def returns_p1(s, params):
    if s[REMAINING] == 1:
        return float(s[ANTE + 1]) if s[FOLDED + 1] else -float(s[ANTE])
    r0 = _rank(s, 0)
    r1 = _rank(s, 1)
    if r0 > r1:
        return float(s[ANTE + 1])
    if r1 > r0:
        return -float(s[ANTE])
    return 0.0


@njit(cache=True)
def max_actions(params):
    return NUM_CARDS


@njit(cache=True)
def max_depth(params):
    # Two deals, up to 4 actions a round (check/call, raise, raise, call), the public card.
    return 2 + 4 + 1 + 4


protocol.register(
    LeducParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth,
)
