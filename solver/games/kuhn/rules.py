"""Kuhn poker as numba rules of the game protocol (:mod:`spycfr.engine.protocol`).

The same game as the Python reference (``game.py``, OpenSpiel's ``kuhn_poker``), with
the same action and chance codes. State ``int16[5]``: P1's card, P2's card (-1 until
dealt), the number of betting actions, then the betting actions as a bit mask (bit i set:
action i was a bet).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.tree import CHANCE, TERMINAL

CARD0 = 0
CARD1 = 1
NBETS = 2
BETS = 3  # bit mask of the betting actions that were bets
HIDDEN = 15  # observation of a card dealt to the other player


class KuhnParams(NamedTuple):
    """Kuhn poker has no parameters; the type selects these rules."""

    cards: np.int64


@njit(cache=True)
def initial_state(params):
    s = np.zeros(5, dtype=np.int16)
    s[CARD0] = -1
    s[CARD1] = -1
    return s


@njit(cache=True)
def _terminal(s):
    # pp, bp, bb end after two actions; pbp, pbb after three.
    return s[NBETS] == 3 or (s[NBETS] == 2 and s[BETS] != 2)


@njit(cache=True)
def current_player(s, params):
    if s[CARD1] < 0:
        return CHANCE
    if _terminal(s):
        return TERMINAL
    return np.int64(s[NBETS] % 2)


@njit(cache=True)
def legal_actions(s, params, out):
    out[0] = 0  # pass
    out[1] = 1  # bet
    return 2


@njit(cache=True)
def chance_outcomes(s, params, codes, probs):
    n = 0
    for c in range(params.cards):
        if c != s[CARD0]:
            codes[n] = c
            n += 1
    for j in range(n):
        probs[j] = 1.0 / n
    return n


@njit(cache=True)
def apply_action(s, params, action, out):
    out[:] = s
    if s[CARD0] < 0:
        out[CARD0] = action
    elif s[CARD1] < 0:
        out[CARD1] = action
    else:
        out[BETS] |= action << s[NBETS]
        out[NBETS] += 1


@njit(cache=True)
def observation(s, params, action, seat):
    if s[CARD0] < 0:
        return 16 + action if seat == 0 else HIDDEN
    if s[CARD1] < 0:
        return 16 + action if seat == 1 else HIDDEN
    return action


@njit(cache=True)
def returns_p1(s, params):
    bets = s[BETS]
    if s[NBETS] == 2 and bets == 1:  # bp: P2 folds
        return 1.0
    if s[NBETS] == 3 and bets == 2:  # pbp: P1 folds
        return -1.0
    stake = 1.0 if bets == 0 else 2.0
    return stake if s[CARD0] > s[CARD1] else -stake


@njit(cache=True)
def max_actions(params):
    return 3


@njit(cache=True)
def max_depth(params):
    return 5


protocol.register(
    KuhnParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth,
)
