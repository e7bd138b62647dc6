"""Agent Hunter: simple heuristic players for head-to-head measurements (registered with
the rules in rules.py). Each uses only what the seat to move knows: its own position, the
public one, and the values still consistent with what was revealed of each opposing house
(the KNOW fields of the state, public bookkeeping).

Styles (``HEURISTIC_STYLES``; style 0 is the game's ``heuristic`` player):

- ``hunter``: never switches. Eliminates a house whose card it knows (by hand attack, or
  house attack when the card is in one of its houses); otherwise a hand attack on the
  opposing house with the fewest consistent values, with the hand card nearest their
  median (the most likely to equal it, else the one that halves them).
- ``switcher``: as ``hunter``, but first switches an own house whose card the opponent
  knows (when it has a decoy and no sure elimination), with a decoy beside the own house
  the opponent knows least about.
- ``prober``: a uniformly random hand attack (never switches, never attacks with a house).

Placements and refills are uniformly random in every style.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_hunter import rules as R

HEURISTIC_STYLES = ("hunter", "switcher", "prober")
HUNTER, SWITCHER, PROBER = 0, 1, 2
_SET_BITS = (1 << 15) - 1  # known_sets marks a house in play with bit 15


@njit(cache=True, inline="always")
def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _pick(actions, k, probs, code):
    """probs = 1 on ``code`` if it is among the legal actions; returns whether it was."""
    for j in range(k):
        if actions[j] == code:
            for i in range(k):
                probs[i] = 0.0
            probs[j] = 1.0
            return True
    return False


@njit(cache=True, inline="always")
def _uniform_over(actions, k, probs, typ):
    """Uniform over the legal actions of type ``typ`` (all of them if there is none)."""
    n = 0
    for j in range(k):
        if (actions[j] >> 12) == typ:
            n += 1
    for j in range(k):
        if n == 0:
            probs[j] = 1.0 / k
        else:
            probs[j] = 1.0 / n if (actions[j] >> 12) == typ else 0.0


@njit(cache=True)
def _sure_elimination(state, params, actions, k, probs, theirs):
    """Attack an opposing house whose card is known (hand first, else a house)."""
    me = state[R.TO_MOVE]
    base = me * R.PSTRIDE
    hand = state[base + R.O_HAND]
    for t in range(params[R.P_HOUSES]):
        s = theirs[t] & _SET_BITS if theirs[t] >= (1 << 15) else 0
        if s == 0 or _popcount(s) != 1:
            continue
        v = 0
        while not (s >> v) & 1:
            v += 1
        if (hand >> v) & 1 and _pick(actions, k, probs, (R.T_HAND << 12) | (v << 2) | t):
            return True
        for a in range(params[R.P_HOUSES]):
            if state[base + R.O_HOUSE + a] == v and _pick(
                    actions, k, probs, (R.T_HOUSE << 12) | (a << 2) | t):
                return True
    return False


@njit(cache=True)
def _probe(state, params, actions, k, probs, theirs):
    """Hand attack on the opposing house with the fewest consistent values, with the hand
    card in that set nearest its median; uniform over hand attacks if none is useful."""
    me = state[R.TO_MOVE]
    hand = state[me * R.PSTRIDE + R.O_HAND]
    best_t, best_n = -1, 99
    for t in range(params[R.P_HOUSES]):
        s = theirs[t] & _SET_BITS if theirs[t] >= (1 << 15) else 0
        n = _popcount(s & hand)
        if n > 0 and _popcount(s) < best_n:
            best_t, best_n = t, _popcount(s)
    if best_t < 0:
        _uniform_over(actions, k, probs, R.T_HAND)
        return
    s = theirs[best_t] & _SET_BITS
    half = _popcount(s) // 2
    median = 0
    seen = 0
    for c in range(16):
        if (s >> c) & 1:
            if seen == half:
                median = c
            seen += 1
    best_c, best_d = -1, 99
    for c in range(16):
        if (s >> c) & 1 and (hand >> c) & 1 and abs(c - median) < best_d:
            best_c, best_d = c, abs(c - median)
    if not _pick(actions, k, probs, (R.T_HAND << 12) | (best_c << 2) | best_t):
        _uniform_over(actions, k, probs, R.T_HAND)


@njit(cache=True)
def _switch_exposed(state, params, actions, k, probs):
    """Switch an own house whose card the opponent knows; returns whether it did."""
    me = state[R.TO_MOVE]
    base = me * R.PSTRIDE
    if state[base + R.O_SUPPLY] <= 0:
        return False
    kh = params[R.P_HOUSES]
    mine = R.known_sets(state, 1 - me, kh, state[base + R.O_OUT])
    exposed, hidden, widest = -1, -1, -1
    for h in range(kh):
        if mine[h] < (1 << 15):
            continue
        n = _popcount(mine[h] & _SET_BITS)
        if n == 1 and exposed < 0:
            exposed = h
        if n > widest:
            hidden, widest = h, n
    if exposed < 0:
        return False
    v = state[base + R.O_HOUSE + exposed]
    hand = state[base + R.O_HAND]
    for w in range(params[R.P_CARDS]):
        if w != v and (hand >> w) & 1:
            for d in (hidden, exposed):
                if _pick(actions, k, probs,
                         (R.T_SWITCH << 12) | (exposed << 6) | (w << 2) | d):
                    return True
    return False


@njit(cache=True)
def styled_heuristic(state, params, style, actions, k, probs):
    """The heuristic player ``HEURISTIC_STYLES[style]``: a distribution over the ``k`` legal
    ``actions`` written into ``probs`` (module notes)."""
    phase = state[R.PHASE]
    if phase != R.PH_TURN:  # placements and refills
        for j in range(k):
            probs[j] = 1.0 / k
        return
    if style == PROBER:
        _uniform_over(actions, k, probs, R.T_HAND)
        return
    me = state[R.TO_MOVE]
    theirs = R.known_sets(state, me, params[R.P_HOUSES], state[me * R.PSTRIDE + R.O_OUT])
    if _sure_elimination(state, params, actions, k, probs, theirs):
        return
    if style == SWITCHER and _switch_exposed(state, params, actions, k, probs):
        return
    _probe(state, params, actions, k, probs, theirs)


@njit(cache=True)
def heuristic_policy(state, params, actions, k, probs):
    """The game's heuristic player: the ``hunter`` style."""
    styled_heuristic(state, params, np.int64(HUNTER), actions, k, probs)
