"""Leduc poker on the public-state protocol (:mod:`spycfr.public.protocol`).

Private state of a seat: its card (0-5). Public state: the history rules' state with both
private cards hidden (-1) and the deck holding every card but the board's, so the
betting functions of ``rules.py`` run on it unchanged. The board card is public chance:
each card has probability 1/4 given two private cards it is not (mask 0 on a seat's card).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.leduc import rules
from spycfr.games.leduc.rules import (
    ANTE,
    DEALT,
    DECK,
    FOLDED,
    NUM_CARDS,
    PRIVATE,
    PUBLIC,
    REMAINING,
    LeducParams,
)
from spycfr.public.protocol import register

FULL_DECK = (1 << NUM_CARDS) - 1


@njit(cache=True)
def num_private(params, seat):
    return np.int64(NUM_CARDS)


@njit(cache=True)
def initial_weights(params, seat, out):
    for i in range(NUM_CARDS):
        out[i] = 1.0 / NUM_CARDS


@njit(cache=True)
def compatible(params, i, j):
    return 1.0 if i != j else 0.0


@njit(cache=True)
def public_of_history(state, params, out):
    out[:] = state
    out[PRIVATE] = -1
    out[PRIVATE + 1] = -1
    if state[DEALT] < 2:  # the deal is private: the public root
        out[rules.CUR] = 0
        out[DEALT] = 2
    out[DECK] = FULL_DECK if state[PUBLIC] < 0 else FULL_DECK & ~(1 << state[PUBLIC])


@njit(cache=True)
def private_of_history(state, params, seat):
    return np.int64(state[PRIVATE + seat])


@njit(cache=True)
def initial_state(params):
    s = rules.initial_state(params)
    out = np.empty_like(s)
    public_of_history(s, params, out)
    return out


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    for c in range(NUM_CARDS):
        codes[c] = c
        probs[c] = 1.0 / (NUM_CARDS - 2)  # given the two private cards, which it is not
    return NUM_CARDS


@njit(cache=True)
def chance_mask(pub, params, outcome, seat, out):
    for i in range(NUM_CARDS):
        out[i] = 0.0 if i == outcome else 1.0


@njit(cache=True)
def _rank(board, card):
    lo = min(board, card)
    hi = max(board, card)
    if lo % 2 == 0 and hi == lo + 1:
        return NUM_CARDS * NUM_CARDS + lo  # a pair
    return (hi // 2) * NUM_CARDS + lo // 2


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    if pub[REMAINING] == 1:
        return float(pub[ANTE + 1]) if pub[FOLDED + 1] else -float(pub[ANTE])
    r0 = _rank(pub[PUBLIC], i)
    r1 = _rank(pub[PUBLIC], j)
    if r0 > r1:
        return float(pub[ANTE + 1])
    if r1 > r0:
        return -float(pub[ANTE])
    return 0.0


register(
    LeducParams, num_private=num_private, initial_weights=initial_weights,
    compatible=compatible, initial_state=initial_state, current_player=rules.current_player,
    legal_actions=rules.legal_actions, chance_outcomes=chance_outcomes,
    chance_mask=chance_mask, apply_action=rules.apply_action, terminal_payoff=terminal_payoff,
    max_actions=rules.max_actions, max_depth=rules.max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
)
