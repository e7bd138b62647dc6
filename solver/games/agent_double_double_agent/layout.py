"""Agent Double Double Agent: the numba state layout, card kinds, codes and params record.

Shared by the rules (``rules.py``) and the heuristic player (``heuristic.py``); nothing
here moves the game on. The state is ``np.int16[STATE_SIZE]``; per-agent fields are blocks
of ``MAX_AGENTS`` entries (``FIELD + a``, or ``FIELD + p * MAX_AGENTS + a`` per player),
per-player card fields blocks of ``NKINDS`` (``FIELD + p * NKINDS + k``).

Card kinds (the universe; a deck holds some of them):

- 0..7: simple file of value v (its back shows v);
- 8 ``P``: Personal Files (simple file of value 0, back ``0``; +1 loyalty to its owner);
- 9, 10: ``0/7`` cards worth 0 and 7 (back ``0/7``);
- 11..18: ``?`` cards (file/action cards) worth 0..7 (back ``?``).

Action and chance-outcome codes are ``type << 20 | payload``; observation codes the same
with the types below (all < 2**24).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

MAX_AGENTS = 6
NKINDS = 19
K_P = 8
K_Z0 = 9
K_Z7 = 10
K_Q0 = 11

KIND_VALUE = np.array([0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 7, 0, 1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
# The back seen by the opponent: 0..7 a value, BACK_ZS the 0/7 back, BACK_Q the ? back.
BACK_ZS = 19
BACK_Q = 20
KIND_BACK = np.array([0, 1, 2, 3, 4, 5, 6, 7, 0, BACK_ZS, BACK_ZS] + [BACK_Q] * 8,
                     dtype=np.int64)
KIND_LABELS = ("0", "1", "2", "3", "4", "5", "6", "7", "P", "0/7=0", "0/7=7",
               "?=0", "?=1", "?=2", "?=3", "?=4", "?=5", "?=6", "?=7")

# --- state layout ------------------------------------------------------------------------
A = MAX_AGENTS
LOY = 0  # + p*A + a: player p's loyalty token under agent a (-1 before the assignment)
POS = 12  # + a: space of agent a's influence counter (0 = nearest P1 .. track-1 = nearest P2)
ACT = 18  # + a: 1 once the counter is activated
THR = 24  # + a: cards needed for agent a to deliver
STAT = 30  # + a: ST_PLAY, ST_P1 / ST_P2 (delivered to), ST_ABSENT (a >= agents)
CNT = 36  # + p*A + a: file cards on p's side of agent a
SUM = 48  # + p*A + a: their total value
PER = 60  # + p*A + a: Personal Files among them
Z7 = 72  # + p*A + a: 0/7 cards worth 7 among them
QK = 84  # + p*A + a: kind of the ? card among them, or -1
HAND = 96  # + p*NKINDS + k: copies of kind k in p's hand
PILE = 134  # + p*NKINDS + k: copies of kind k in p's draw pile
PTURN = 172  # + p: turns p has completed
SCORE = 174  # + p: total value of p's score pile
SCARDS = 176  # + p: cards in p's score pile
NHAND = 178  # + p: cards in p's hand
NPILE = 180  # + p: cards in p's draw pile
PHASE = 182
MOVER = 183  # who acts (or whose deal / draw it is)
PENDING = 184  # bit mask of delivered agents whose reveal is pending
TURN = 185  # turns completed
STATE_SIZE = 186

ST_PLAY = 0
ST_P1 = 1
ST_P2 = 2
ST_ABSENT = 3

PH_LOYAL = 0  # a player assigns loyalty tokens (P1 then P2)
PH_DEAL = 1  # chance: a player's first hand (P1 then P2)
PH_PLAY = 2  # the mover plays a card
PH_REVEAL = 3  # chance (one outcome): an agent delivers, its tokens and cards are revealed
PH_COUNTER = 4  # the mover activates an influence counter (first turns only)
PH_DRAW = 5  # chance: the mover refills from its draw pile
PH_OVER = 6
PHASE_NAMES = ("loyalty", "deal", "play", "delivery", "counter", "draw", "over")

# --- codes -------------------------------------------------------------------------------
SHIFT = 20
PAYLOAD = (1 << SHIFT) - 1
T_LOYAL = 0  # payload: sum of token[a] * 10**a
T_DEAL = 1  # payload: index of the hand in params.deal_sets
T_FILE = 2  # payload: a << 5 | kind (face down on the mover's side of agent a)
T_UP = 3  # payload: kind (played face up: no effect, it leaves the game)
T_REVEAL = 4  # payload: agent
T_COUNTER = 5  # payload: agent
T_DRAW = 6  # payload: kind
# Observation types for what a seat cannot see (the others reuse the action types).
O_LOYAL_HIDDEN = 8
O_DEAL_HIDDEN = 9
O_FILE_BACK = 10  # payload: a << 5 | back
O_DRAW_HIDDEN = 11
# Reveal observation payload: agent | other's token << 3 | other's 0/7=7 count << 7 |
# (other's ? kind - K_Q0 + 1, or 0) << 11, "other" being the observer's opponent.


class ADDAParams(NamedTuple):
    """The numba parameters record of a variant (built by ``Variant.to_params``)."""

    agents: np.int64
    hand: np.int64
    threshold: np.int64
    neighbour_threshold: np.int64
    track: np.int64
    counters: np.int64
    faceup: np.int64  # 0 stuck (face up only when nothing can go face down), 1 always
    payoff: np.int64  # 0 win (+1/0/-1), 1 margin (score difference)
    deck_size: np.int64
    n_perms: np.int64  # distinct loyalty assignments
    tokens: np.ndarray  # int64[agents], sorted
    start: np.ndarray  # int64[MAX_AGENTS]: starting space of each counter
    plus: np.ndarray  # int64[MAX_AGENTS]: 1 where a `+1 file` counter sits
    deck: np.ndarray  # int64[NKINDS]: copies of each kind in a player's deck
    deal_sets: np.ndarray  # int16[n_sets, NKINDS]: the possible first hands
    deal_probs: np.ndarray  # float64[n_sets]: their probabilities


@njit(cache=True)
def code(typ, payload):
    return np.int32((typ << SHIFT) | payload)


@njit(cache=True)
def nearest(p, params):
    """The track space nearest to player p (where p's counter bonus applies)."""
    return 0 if p == 0 else params.track - 1


@njit(cache=True)
def side_of(state, params, a):
    """The player on whose side agent a's counter stands (ties of loyalty go to them)."""
    return 0 if state[POS + a] < params.track // 2 else 1


@njit(cache=True)
def loyalty(state, params, p, a):
    """p's loyalty to agent a at delivery: token, +1 if the counter is on p's nearest
    space, +1 per Personal Files card p put on the agent."""
    bonus = 1 if state[POS + a] == nearest(p, params) else 0
    return state[LOY + p * A + a] + bonus + state[PER + p * A + a]


@njit(cache=True)
def winner(state, params, a):
    """Who takes agent a's files: the higher loyalty; a tie goes to the counter's side."""
    l0 = loyalty(state, params, 0, a)
    l1 = loyalty(state, params, 1, a)
    if l0 > l1:
        return 0
    if l1 > l0:
        return 1
    return side_of(state, params, a)


@njit(cache=True)
def has_question(state, a):
    """Whether a ? card lies on agent a (at most one, both sides together)."""
    return state[QK + a] >= 0 or state[QK + A + a] >= 0


@njit(cache=True)
def in_play(state, params):
    """Number of agents that have not delivered."""
    n = 0
    for a in range(params.agents):
        if state[STAT + a] == ST_PLAY:
            n += 1
    return n


@njit(cache=True)
def counter_movable(state, params, p, a):
    """Whether p may activate agent a's counter (in play, not yet moved, not at p's end)."""
    return (state[STAT + a] == ST_PLAY and state[ACT + a] == 0
            and state[POS + a] != nearest(p, params))
