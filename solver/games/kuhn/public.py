"""Kuhn poker on the public-state protocol (:mod:`spycfr.public.protocol`).

Private state of a seat: its card (0-2). Public state ``int16[2]``: the number of betting
actions and their bit mask (bit i set: action i was a bet), as in the history rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.kuhn import rules
from spycfr.games.kuhn.rules import BETS, CARD0, NBETS, KuhnParams
from spycfr.public.protocol import TERMINAL, register, uniform_weights


@njit(cache=True)
def num_private(params, seat):
    return params.cards


@njit(cache=True)
def compatible(params, i, j):
    return 1.0 if i != j else 0.0  # one deck: the two cards differ


@njit(cache=True)
def initial_state(params):
    return np.zeros(2, dtype=np.int16)


@njit(cache=True)
def _terminal(pub):
    return pub[0] == 3 or (pub[0] == 2 and pub[1] != 2)


@njit(cache=True)
def current_player(pub, params):
    if _terminal(pub):
        return TERMINAL
    return np.int64(pub[0] % 2)


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    return 0  # no public chance


@njit(cache=True)
def apply_action(pub, params, action, out):
    out[:] = pub
    out[1] |= action << pub[0]
    out[0] += 1


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    nbets = pub[0]
    bets = pub[1]
    if nbets == 2 and bets == 1:  # bp: P2 folds
        return 1.0
    if nbets == 3 and bets == 2:  # pbp: P1 folds
        return -1.0
    stake = 1.0 if bets == 0 else 2.0
    return stake if i > j else -stake


@njit(cache=True)
def max_depth(params):
    return 3


@njit(cache=True)
def public_of_history(state, params, out):
    out[0] = state[NBETS]
    out[1] = state[BETS]


@njit(cache=True)
def private_of_history(state, params, seat):
    return np.int64(state[CARD0 + seat])


register(
    KuhnParams, num_private=num_private, initial_weights=uniform_weights,
    compatible=compatible, initial_state=initial_state, current_player=current_player,
    legal_actions=rules.legal_actions, chance_outcomes=chance_outcomes,
    apply_action=apply_action, terminal_payoff=terminal_payoff,
    max_actions=rules.max_actions, max_depth=max_depth, public_of_history=public_of_history,
    private_of_history=private_of_history,
)
