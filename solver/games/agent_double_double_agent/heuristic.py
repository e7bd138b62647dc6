"""A simple, sensible Agent Double Double Agent player, for head-to-head measurements.

It uses only what the seat to move sees (its own tokens and hand, the public board):
loyalty: the high tokens under agents whose counter starts on its own side (ties go to
that side); a turn: a card that makes an agent deliver is worth its pot, plus or minus
as the player expects to win or lose it (its loyalty against the opponent's mean token);
any other card (loyalty margin) * (value + 1), i.e. high files where it expects to win, low
files where it expects to lose; face up only when nothing can go face down; counters: on the
agent where its own token is highest. Ties are split evenly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_double_double_agent.layout import (
    CNT,
    K_P,
    KIND_VALUE,
    LOY,
    MOVER,
    PAYLOAD,
    PER,
    PH_COUNTER,
    PH_LOYAL,
    PH_PLAY,
    PHASE,
    POS,
    SHIFT,
    SUM,
    T_FILE,
    THR,
    A,
    nearest,
    side_of,
)


@njit(cache=True)
def _score(state, params, action, mean_token):
    ph = state[PHASE]
    p = state[MOVER]
    o = 1 - p
    pay = action & PAYLOAD
    if ph == PH_LOYAL:
        total = 0.0
        rest = pay
        for a in range(params.agents):
            own_side = (params.start[a] < params.track // 2) == (p == 0)
            if own_side:
                total += rest % 10
            rest //= 10
        return total
    if ph == PH_COUNTER:
        return float(state[LOY + p * A + pay])
    if (action >> SHIFT) != T_FILE:  # face up: only when nothing else is legal
        return -1000.0 - KIND_VALUE[pay]
    a = pay >> 5
    k = pay & 31
    pos = state[POS + a]
    mine = state[LOY + p * A + a] + state[PER + p * A + a] + (1 if k == K_P else 0)
    mine += 1 if pos == nearest(p, params) else 0
    theirs = mean_token + state[PER + o * A + a] + (1 if pos == nearest(o, params) else 0)
    margin = mine - theirs + (0.25 if side_of(state, params, a) == p else -0.25)
    if state[CNT + a] + state[CNT + A + a] + 1 >= state[THR + a]:
        # The card makes the agent deliver now: take the pot if it should be ours, else
        # give away as little as possible.
        pot = state[SUM + a] + state[SUM + A + a] + KIND_VALUE[k]
        return pot + 1.0 if margin > 0 else -pot - 1.0
    return 0.3 * margin * (KIND_VALUE[k] + 1.0)


@njit(cache=True)
def heuristic_policy(state, params, actions, k, probs):
    """Write the heuristic's distribution over ``actions[:k]`` into ``probs[:k]``."""
    if state[PHASE] not in (PH_LOYAL, PH_PLAY, PH_COUNTER) or k <= 0:
        for i in range(k):
            probs[i] = 1.0 / max(k, 1)
        return
    mean_token = params.tokens.sum() / params.agents
    scores = np.empty(k)
    for i in range(k):
        scores[i] = _score(state, params, actions[i], mean_token)
    best = scores.max()
    ties = 0
    for i in range(k):
        if scores[i] >= best - 1e-9:
            ties += 1
    for i in range(k):
        probs[i] = 1.0 / ties if scores[i] >= best - 1e-9 else 0.0
