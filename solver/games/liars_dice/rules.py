"""Liar's dice (2 players x 1 die) as numba rules of the game protocol.

The same game as the Python reference (``game.py``, OpenSpiel's ``liars_dice``), with the
same codes: chance outcome k rolls face k+1; bid b is quantity b // 6 + 1 of face
b % 6 + 1; action 12 calls "Liar". State ``int16[5]``: the two dice (0 until rolled),
the number of actions so far, the last bid (-1 before any), and the caller of "Liar"
(-1 while the game goes on).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.engine import protocol
from spycfr.tree import CHANCE, TERMINAL

DIE0 = 0
DIE1 = 1
NACT = 2
LAST = 3
CALLER = 4
SIDES = 6
LIAR = 12
HIDDEN = 15


class LiarsDiceParams(NamedTuple):
    """Liar's dice with OpenSpiel's defaults has no parameters; the type selects the rules."""

    sides: np.int64


@njit(cache=True)
def initial_state(params):
    s = np.zeros(5, dtype=np.int16)
    s[LAST] = -1
    s[CALLER] = -1
    return s


@njit(cache=True)
def current_player(s, params):
    if s[DIE1] == 0:
        return CHANCE
    if s[CALLER] >= 0:
        return TERMINAL
    return np.int64(s[NACT] % 2)


@njit(cache=True)
def legal_actions(s, params, out):
    n = 0
    for b in range(s[LAST] + 1, LIAR):
        out[n] = b
        n += 1
    if s[NACT] > 0:
        out[n] = LIAR
        n += 1
    return n


@njit(cache=True)
def chance_outcomes(s, params, codes, probs):
    for k in range(SIDES):
        codes[k] = k
        probs[k] = 1.0 / SIDES
    return SIDES


@njit(cache=True)
def apply_action(s, params, action, out):
    out[:] = s
    if s[DIE0] == 0:
        out[DIE0] = action + 1
    elif s[DIE1] == 0:
        out[DIE1] = action + 1
    elif action == LIAR:
        out[CALLER] = s[NACT] % 2
        out[NACT] += 1
    else:
        out[LAST] = action
        out[NACT] += 1


@njit(cache=True)
def observation(s, params, action, seat):
    if s[DIE0] == 0:
        return 16 + action if seat == 0 else HIDDEN
    if s[DIE1] == 0:
        return 16 + action if seat == 1 else HIDDEN
    return action


@njit(cache=True)
def returns_p1(s, params):
    caller = s[CALLER]
    quantity = s[LAST] // SIDES + 1
    face = s[LAST] % SIDES + 1
    matches = 0
    for d in (s[DIE0], s[DIE1]):
        if d == face or d == SIDES:
            matches += 1
    winner = 1 - caller if matches >= quantity else caller
    return 1.0 if winner == 0 else -1.0


@njit(cache=True)
def max_actions(params):
    return LIAR + 1


@njit(cache=True)
def max_depth(params):
    return 2 + LIAR + 1


protocol.register(
    LiarsDiceParams, initial_state=initial_state, current_player=current_player,
    legal_actions=legal_actions, chance_outcomes=chance_outcomes, apply_action=apply_action,
    observation=observation, returns_p1=returns_p1, max_actions=max_actions,
    max_depth=max_depth,
)
