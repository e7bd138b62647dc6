"""What Agent Avenue's two rollout modes share (rollout.py for simple mode,
rollout_advanced.py for advanced): the numba helpers that set up the game a rollout starts
from and weigh a job by card removal.

A rollout's game starts from a leaf's public state with both seats' private states: their
cards written into the hands (and discards), the cards nobody has seen (not in play, not
face up on an open offer, in no hand) become the deck, and what the model does not number
(forgotten discards, a refill the model draws later) is drawn from that deck by numba's
generator. Both modes' states share rules.py's slots for these (advanced.py's layout
extends rules.py's), so one helper serves both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_avenue.leaf import leaf_base, leaf_scale, pair_weight
from spycfr.games.agent_avenue.multiset import digit
from spycfr.games.agent_avenue.numbering import TAKEN
from spycfr.games.agent_avenue.rules import (
    DECK,
    DECKSIZE,
    DISC,
    DLEFT,
    DOWN,
    HAND,
    HANDSIZE,
    MAX_NAMES,
    PLAY,
    UP,
    WINNER,
)


@njit(cache=True)
def draw_card(state, params):
    """A card drawn uniformly from the deck (its name), taken out of it."""
    u = np.random.randint(0, state[DECKSIZE])
    for t in range(params.n):
        if u < state[DECK + t]:
            state[DECK + t] -= 1
            state[DECKSIZE] -= 1
            return t
        u -= state[DECK + t]
    return -1  # never: DECKSIZE is the deck's sum


@njit(cache=True)
def clear_private(state):
    """Blank in ``state`` (a copy of a public state) what the public state does not say: both
    hands and discards, the face-down card, the winner, and TAKEN (a public slot the rules
    leave at 0)."""
    for x in range(16):
        state[HAND + x] = 0
        state[DISC + x] = 0
    state[DOWN] = -1
    state[WINNER] = -1
    state[TAKEN] = 0


@njit(cache=True)
def unseen(pub, params, offer_open):
    """Per name, the cards of the game at ``pub`` not in play, nor face up on the offer
    where ``offer_open``: the hands, the discards, the face-down card and the deck."""
    pool = np.zeros(MAX_NAMES, np.int64)
    for t in range(params.n):
        pool[t] = params.copies[t] - pub[PLAY + t] - pub[PLAY + 8 + t]
    if offer_open:
        pool[pub[UP]] -= 1
    return pool


@njit(cache=True)
def take_cards(state, pool, params, at, code):
    """Write the cards of multiset ``code`` (multiset.py's digits) at ``state[at + name]``,
    taking them out of ``pool``."""
    for t in range(params.n):
        state[at + t] = digit(code, t)
        pool[t] -= digit(code, t)


@njit(cache=True)
def deal_deck(state, pool, params):
    """The deck of ``state``: the cards left in ``pool``; False where the pool is short of a
    name (the pair holds more cards of it than there are)."""
    left = 0
    for t in range(params.n):
        if pool[t] < 0:
            return False
        left += pool[t]
    for t in range(params.n):
        state[DECK + t] = pool[t]
    state[DECKSIZE] = left
    return True


@njit(cache=True)
def draw_discards(state, pub, params):
    """The discards both seats made by ``pub`` (of ``params.discards``, DLEFT left), drawn
    from the deck: the cards a forgetting model does not number."""
    for s in range(2):
        for _d in range(params.discards - pub[DLEFT + s]):
            state[DISC + 8 * s + draw_card(state, params)] += 1


@njit(cache=True)
def draw_refill(state, params, seat, count):
    """``count`` cards drawn from the deck into ``seat``'s hand."""
    for _r in range(count):
        state[HAND + 8 * seat + draw_card(state, params)] += 1
        state[HANDSIZE + seat] += 1


@njit(cache=True)
def leaf_weights(pubs, params, leaf):
    """(scales, bases): leaf.py's ``leaf_scale`` and ``leaf_base`` of each leaf of ``pubs``
    that a job names in ``leaf`` (0 elsewhere), computed once a leaf."""
    used = np.zeros(pubs.shape[0], np.bool_)
    for q in range(leaf.shape[0]):
        used[leaf[q]] = True
    scales = np.zeros(pubs.shape[0])
    bases = np.zeros((pubs.shape[0], params.n), np.int64)
    for lf in range(pubs.shape[0]):
        if used[lf]:
            scales[lf] = leaf_scale(pubs[lf], params)
            bases[lf] = leaf_base(pubs[lf], params)
    return scales, bases


@njit(cache=True)
def job_weight(pubs, params, leaf, i0, i1, scales, bases, q):
    """Job q's card-removal ratio (leaf.py's ``pair_weight`` of its pair at its leaf)."""
    return pair_weight(pubs[leaf[q]], params, scales[leaf[q]], bases[leaf[q]], i0[q], i1[q])
