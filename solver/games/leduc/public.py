"""Leduc poker on the public-state protocol (:mod:`spycfr.public.protocol`).

Private state of a seat: its card (0-5). Public state: the history rules' state with both
private cards hidden (-1) and the deck holding every card but the board's, so the
betting functions of ``rules.py`` run on it unchanged. The board card is public chance:
each card has probability 1/4 given two private cards it is not (mask 0 on a seat's card).
``LeducRankParams`` is the same game with the suits merged (below): exact, and a third of the
range entries; the public-tree solver runs on it (the plug-in's ``public_params``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine import protocol as history_protocol
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
from spycfr.public.protocol import register, uniform_weights

FULL_DECK = (1 << NUM_CARDS) - 1


@njit(cache=True)
def num_private(params, seat):
    return np.int64(NUM_CARDS)


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
def _payoff(pub, r0, r1):
    """Seat 0's payoff: a fold loses the folder's ante, a showdown the weaker hand's (hands
    of strength r0 and r1; both models)."""
    if pub[REMAINING] == 1:
        return float(pub[ANTE + 1]) if pub[FOLDED + 1] else -float(pub[ANTE])
    if r0 > r1:
        return float(pub[ANTE + 1])
    if r1 > r0:
        return -float(pub[ANTE])
    return 0.0


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    return _payoff(pub, _rank(pub[PUBLIC], i), _rank(pub[PUBLIC], j))


register(
    LeducParams, num_private=num_private, initial_weights=uniform_weights,
    compatible=compatible, initial_state=initial_state, current_player=rules.current_player,
    legal_actions=rules.legal_actions, chance_outcomes=chance_outcomes,
    chance_mask=chance_mask, apply_action=rules.apply_action, terminal_payoff=terminal_payoff,
    max_actions=rules.max_actions, max_depth=rules.max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
)


# --- Suits merged: a lossless reduction --------------------------------------------------
#
# Suits never matter in Leduc (a pair is two cards of one rank), so a private state can be
# the rank alone: 3 per seat instead of 6, and 3 board outcomes instead of 6. The deal and
# the board keep the deck's odds exactly: a pair of ranks (a, b) is dealt in 4 ways, (a, a)
# in 2 (compatible 1/2); the board is rank c with probability (2 - [a = c] - [b = c]) / 4,
# which is 1/2 times the masks 1 - [a = c] / 2 and 1 - [b = c] / 2 for every pair but
# a = b = c (the product says 1/8, the deck 0): that pair's payoffs are 0 below the board,
# so it weighs nothing. A strategy of ranks is the suit-symmetric strategy of cards, and a
# best response to a suit-symmetric strategy can be suit-symmetric: values, regrets up to a
# positive factor per row, and exploitabilities are the card model's
# (tests/test_public_conformance.py checks them on the history tree).

NUM_RANKS = NUM_CARDS // 2


class LeducRankParams(NamedTuple):
    """Leduc poker with the suits merged (the history rules are Leduc's; the public-state
    model is over ranks)."""

    cards: np.int64


@njit(cache=True)
def rank_num_private(params, seat):
    return np.int64(NUM_RANKS)


@njit(cache=True)
def rank_compatible(params, i, j):
    return 1.0 if i != j else 0.5  # 4 card pairs for two ranks, 2 for one


@njit(cache=True)
def rank_public_of_history(state, params, out):
    public_of_history(state, params, out)
    out[DECK] = FULL_DECK  # the board's rank (PUBLIC) tells the nodes apart
    if state[PUBLIC] >= 0:
        out[PUBLIC] = state[PUBLIC] // 2


@njit(cache=True)
def rank_private_of_history(state, params, seat):
    c = np.int64(state[PRIVATE + seat])
    return c // 2 if c >= 0 else np.int64(-1)


@njit(cache=True)
def rank_initial_state(params):
    s = rules.initial_state(params)
    out = np.empty_like(s)
    rank_public_of_history(s, params, out)
    return out


@njit(cache=True)
def rank_chance_outcomes(pub, params, codes, probs):
    for c in range(NUM_RANKS):
        codes[c] = c
        probs[c] = 0.5  # 2 of the 4 cards left, before the masks
    return NUM_RANKS


@njit(cache=True)
def rank_chance_mask(pub, params, outcome, seat, out):
    for i in range(NUM_RANKS):
        out[i] = 0.5 if i == outcome else 1.0


@njit(cache=True)
def rank_apply_action(pub, params, action, out):
    rules.apply_action(pub, params, action, out)  # a board code is the rank
    out[DECK] = FULL_DECK


@njit(cache=True)
def _rank_strength(board, i):
    if i == board:
        return NUM_RANKS * NUM_RANKS + i  # a pair
    return max(i, board) * NUM_RANKS + min(i, board)


@njit(cache=True)
def rank_terminal_payoff(pub, params, i, j):
    board = pub[PUBLIC]
    if board >= 0 and i == board and j == board:
        return 0.0  # both of the board's rank in hand: impossible (see above)
    return _payoff(pub, _rank_strength(board, i), _rank_strength(board, j))


# The history rules are Leduc's (mapping a strategy onto the history tree walks them).
history_protocol.register(
    LeducRankParams, initial_state=rules.initial_state,
    current_player=rules.current_player, legal_actions=rules.legal_actions,
    chance_outcomes=rules.chance_outcomes, apply_action=rules.apply_action,
    observation=rules.observation, returns_p1=rules.returns_p1,
    max_actions=rules.max_actions, max_depth=rules.max_depth,
)
register(
    LeducRankParams, num_private=rank_num_private, initial_weights=uniform_weights,
    compatible=rank_compatible, initial_state=rank_initial_state,
    current_player=rules.current_player, legal_actions=rules.legal_actions,
    chance_outcomes=rank_chance_outcomes, chance_mask=rank_chance_mask,
    apply_action=rank_apply_action, terminal_payoff=rank_terminal_payoff,
    max_actions=rules.max_actions, max_depth=rules.max_depth,
    public_of_history=rank_public_of_history, private_of_history=rank_private_of_history,
)
