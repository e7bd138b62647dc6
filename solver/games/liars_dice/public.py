"""Liar's dice (2 x 1 die) on the public-state protocol (:mod:`spycfr.public.protocol`).

Private state of a seat: its die (face - 1, 0-5). Public state: the history rules' state
with both dice hidden (-1), so the bidding functions of ``rules.py`` run on it unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.liars_dice import rules
from spycfr.games.liars_dice.rules import CALLER, DIE0, LAST, SIDES, LiarsDiceParams
from spycfr.public.protocol import register, uniform_weights


@njit(cache=True)
def num_private(params, seat):
    return np.int64(SIDES)


@njit(cache=True)
def public_of_history(state, params, out):
    out[:] = state
    out[DIE0] = -1
    out[DIE0 + 1] = -1


@njit(cache=True)
def private_of_history(state, params, seat):
    return np.int64(state[DIE0 + seat] - 1)


@njit(cache=True)
def initial_state(params):
    s = rules.initial_state(params)
    out = np.empty_like(s)
    public_of_history(s, params, out)
    return out


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    return 0  # the dice are the deal


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    quantity = pub[LAST] // SIDES + 1
    face = pub[LAST] % SIDES + 1
    matches = 0
    for d in (i + 1, j + 1):
        if d == face or d == SIDES:
            matches += 1
    winner = 1 - pub[CALLER] if matches >= quantity else pub[CALLER]
    return 1.0 if winner == 0 else -1.0


@njit(cache=True)
def max_depth(params):
    return rules.LIAR + 1


register(
    LiarsDiceParams, num_private=num_private, initial_weights=uniform_weights,
    initial_state=initial_state, current_player=rules.current_player,
    legal_actions=rules.legal_actions, chance_outcomes=chance_outcomes,
    apply_action=rules.apply_action, terminal_payoff=terminal_payoff,
    max_actions=rules.max_actions, max_depth=max_depth, public_of_history=public_of_history,
    private_of_history=private_of_history,
)
