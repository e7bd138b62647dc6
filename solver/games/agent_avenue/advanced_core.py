"""Agent Avenue, advanced mode: the state layout, parameters and movement of the black
market rules (advanced.py has the protocol; advanced_heuristic.py the heuristic player).

State layout (``np.int16[STATE_SIZE]``): slots 0..71 as in rules.py (hands, play, deck,
discards, GAP, ACTIVE, PHASE, ...; slot 71, rules.py's LASTDISC, is REFILLED here), then
POS + p (absolute space of p's meeple: P1 starts on 0, P2 on 7, each moving by its total
movement, mod 14), LAND + p (p's meeple has just landed exactly on a black market space and
p has not taken yet), BMP (the player taking or resolving a card, or drawing after it), CARD
(the card being resolved, -1), BMDECK (cards in the black market deck), SUPPLY (cards in
the supply), LOC + c (where black market card c is: L_DECK, L_SUPPLY, L_OWNER + p for an
ongoing card in front of p, L_HELD while its instant ability resolves, L_DISCARD after),
SWAPPED (the name a swap discarded, until its draw). Every card is in exactly one place.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from spycfr.games.agent_avenue.rules import DECKSIZE, GAP, HAND, HANDSIZE, PLAY

# The agents' local indices: advanced mode has the full deck in the table order.
DA, EN, CB, SA, DD, SE, SK, MO = range(8)

# The black market cards, numbered as in the spec's table minus one.
DEVICE, WATCHTOWER, TWIN, SUPERCOMPUTER, LEADER, GETAWAY, MASTERPLAN, SECURITY = range(8)
OUTPOST, SMOKE, MIND, DOUBLE, TRUCK, SECRET, SPYCATION = range(8, 15)
N_BM = 15
N_ONGOING = 8  # cards 0..7 are ongoing, 8..14 instant
SUPPLY_SIZE = 3

# Slot 71 (unused by rules.py): the cards the mover's play left it to draw before the
# recruitment, recorded at the play for the public model (public_advanced.py), whose refill
# is drawn after the recruitment.
REFILLED = 71
POS = 72
LAND = 74
BMP = 76
CARD = 77
BMDECK = 78
SUPPLY = 79
LOC = 80
# The name a swap discarded, from the swap to its draw (else 0), recorded for the public
# model (public_advanced.py keeps it in the mover's state until the draw, which carries the
# discard's weight): rules.py's LASTDISC, whose slot 71 is REFILLED here.
SWAPPED = 95
STATE_SIZE = 96

L_DECK = 0
L_SUPPLY = 1
L_OWNER = 2  # + p: an ongoing card in front of p
L_HELD = 4  # an instant card whose ability is resolving
L_DISCARD = 5

PH_MARKET = 7
PH_BM_TAKE = 8
PH_BM_SUPPLY = 9
PH_CHOOSE = 10
PH_EFFECT = 11
PH_HAND_DRAW = 12

T_BM = 4
T_ABILITY = 5
EFF_MOVED = 8  # Surveillance Truck's move
EFF_NONE = 15  # the ability is ignored (it cannot be performed)

O_MARKET = 7
SUB_MARKET = 0
SUB_TAKE = 1
SUB_SUPPLY = 2
SUB_ABILITY = 3

# Bits of ENDED beyond rules.py's: the black market's win conditions.
END_P1_LEADER = 256  # three Daredevils with Leader of the Pack: a win instead of a loss
END_P2_LEADER = 512
END_P1_MASTER = 1024  # seven different agents in play with Masterplan
END_P2_MASTER = 2048
END_P1_SECURITY = 4096  # P2's meeple on P1's home space with Security System
END_P2_SECURITY = 8192


class AgentAvenueAdvancedParams(NamedTuple):
    """The numba parameters of the advanced mode (the same fields as the simple mode's, so
    that rules.py's helpers apply; the deck is the full one and the board 14)."""

    n: np.int64
    copies: np.ndarray
    moves: np.ndarray
    cb: np.int64
    dd: np.int64
    hand: np.int64
    discards: np.int64
    board: np.int64
    # the public model (public_advanced.py) forgets which cards a player discarded: always
    # 1 here (as rules.py's field; the exact numbering, 108,901 states a seat, is too big)
    forget: np.int64 = np.int64(1)


# --- helpers ---------------------------------------------------------------------------


@njit(cache=True)
def owns(state, p, card):
    """Whether ``p`` has the ongoing black market card ``card`` in play."""
    return state[LOC + card] == L_OWNER + p


@njit(cache=True)
def is_bm_space(pos):
    """Whether board space ``pos`` is a black market space: the corners 2, 5, 9, 12."""
    return pos == 2 or pos == 5 or pos == 9 or pos == 12


@njit(cache=True)
def recruit_move(state, params, p, name, count):
    """Spaces ``p`` moves on recruiting its ``count``-th ``name``, in the spec's order of
    modifiers: the card's move, Distraction Device's sign, Sinister Twin's doubling, then
    Watchtower's +2 or Supercomputer's +3 (Getaway Car comes last, in advance())."""
    m = params.moves[name, min(count, 3) - 1]
    if name == SA and owns(state, p, DEVICE) and m < 0:
        m = -m  # move forward instead of backward
    if name == DA and owns(state, p, TWIN):
        m *= 2
    if name == EN and owns(state, p, WATCHTOWER):
        m += 2
    if name == CB and owns(state, p, SUPERCOMPUTER):
        m += 3
    return m


@njit(cache=True)
def advance(out, params, p, m):
    """Move p's meeple ``m`` spaces (negative: backward); returns whether it landed exactly on
    a black market space. A move of 0 lands nowhere; stopping on a home space with Getaway
    Car moves 3 more forward (to space 3 or 10: no black market space, no home)."""
    if m == 0:
        return False
    board = params.board
    pos = (out[POS + p] + m) % board
    out[GAP] += -m if p == 0 else m
    if owns(out, p, GETAWAY) and (pos == 0 or pos == board // 2):
        pos = (pos + 3) % board
        out[GAP] += -3 if p == 0 else 3
    out[POS + p] = pos
    return is_bm_space(pos)


@njit(cache=True)
def recruit_one(out, params, p, name):
    """Put one ``name`` in p's play (already taken from wherever it was) and move p by it;
    returns whether p landed on a black market space. Every way of recruiting comes here, so
    the ongoing cards apply to recruits by abilities too (rulebook clarification)."""
    out[PLAY + 8 * p + name] += 1
    return advance(out, params, p, recruit_move(out, params, p, name, out[PLAY + 8 * p + name]))


@njit(cache=True)
def hand_need(state, params, p):
    """Cards ``p`` draws to get back to the hand size (fewer if the deck runs short)."""
    need = params.hand - state[HANDSIZE + p]
    if need <= 0:
        return 0
    return min(need, state[DECKSIZE])


@njit(cache=True)
def is_target(state, i):
    """Whether agent ``i`` is a target of the instant card being resolved: Mind Control a name
    the opponent has in play; Double Trouble a name with two in hand; Secret Recruit a name
    in hand with none in play; Spycation a name in play."""
    p = state[BMP]
    c = state[CARD]
    if c == MIND:
        return state[PLAY + 8 * (1 - p) + i] > 0
    if c == DOUBLE:
        return state[HAND + 8 * p + i] >= 2
    if c == SECRET:
        return state[HAND + 8 * p + i] > 0 and state[PLAY + 8 * p + i] == 0
    if c == SPYCATION:
        return state[PLAY + 8 * p + i] > 0
    return False


@njit(cache=True)
def has_choice(state, params):
    """Whether the instant card being resolved has a target (else it is ignored)."""
    for i in range(params.n):
        if is_target(state, i):
            return True
    return False


@njit(cache=True)
def choice_options(state, params, out):
    """The choices at PH_CHOOSE, in name order: each target (Spycation's twice: kept in
    hand, then recruited at once). Returns their number."""
    k = 0
    for i in range(params.n):
        if is_target(state, i):
            out[k] = (T_ABILITY << 20) | i
            k += 1
            if state[CARD] == SPYCATION:
                out[k] = (T_ABILITY << 20) | (1 << 4) | i
                k += 1
    return k
