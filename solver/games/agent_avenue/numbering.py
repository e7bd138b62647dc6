"""Agent Avenue's public model (public.py): the slots and phases the public state adds to
the rules' state, and the numbering of each seat's private states (its hand, its discards
and a pending name), per the sizes the public state shows (:func:`scheme`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.multiset import SHIFT, multiset_count, rank_multiset, unrank_multiset
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DLEFT,
    HANDSIZE,
    LASTTAKE,
    PH_OVER,
    PH_RECRUIT,
    PH_SWAP_DRAW,
    PHASE,
    PLAY,
    STATE_SIZE,
    UP,
)

TAKEN = 69  # public slot: the recruiter's choice (0 up, 1 down) awaiting the signal, else -1
PH_REVEAL = 7  # the face-down card is revealed (a public signal)
PH_CLEAR = 8  # the previous mover draws its refill and forgets its revealed card
DEAD = 0
NO_NAME = -1


@njit(cache=True)
def scheme(pub, params, seat):
    """(pending, hand size, discards) of the numbering of ``seat``'s states at ``pub``: its
    face-down card is pending from its play until its refill (and at the terminal that
    follows the signal), its hand then without the refill."""
    ph = pub[PHASE]
    a = pub[ACTIVE]
    pending = ((seat == a and (ph == PH_RECRUIT or ph == PH_REVEAL or ph == PH_OVER))
               or (seat != a and ph == PH_CLEAR))
    hs = np.int64(pub[HANDSIZE + seat])
    if pending:
        hs = min(hs, params.hand - 2)
    elif swap_draw(pub, params, seat):  # the name just discarded, until its draw
        return swap_scheme(pub, params, seat)
    return pending, hs, discards_held(pub, params, seat)


@njit(cache=True)
def swap_draw(pub, params, seat):
    """Whether ``seat``'s numbering at ``pub`` keeps the name it just discarded (its pending
    name): at a swap's draw where the model forgets discards (forget.py)."""
    return params.forget != 0 and pub[PHASE] == PH_SWAP_DRAW and seat == pub[ACTIVE]


@njit(cache=True)
def swap_scheme(pub, params, seat):
    """:func:`scheme` where :func:`swap_draw` holds: the name just discarded pending, the
    hand as it stands (the discard made, the draw to come)."""
    return True, np.int64(pub[HANDSIZE + seat]), discards_held(pub, params, seat)


@njit(cache=True)
def discards_held(pub, params, seat):
    """The discards a seat's numbering holds: those it made, none where the model forgets
    them (``params.forget``)."""
    return np.int64(0 if params.forget else params.discards - pub[DLEFT + seat])


@njit(cache=True)
def scheme_size(params, pending, hs, ds):
    """States of a numbering, DEAD included."""
    n = params.n
    k = multiset_count(n, hs) * multiset_count(n, ds)
    return 1 + (k * n if pending else k)


@njit(cache=True)
def index(params, pending, hs, ds, hand, disc, name):
    """The state of hand and discards (multiset codes of sizes hs and ds) and, in a pending
    numbering, the face-down ``name``."""
    n = params.n
    k = rank_multiset(hand, n, hs) * multiset_count(n, ds) + rank_multiset(disc, n, ds)
    return np.int64(1 + (k * n + name if pending else k))


@njit(cache=True)
def decode(params, pending, hs, ds, i):
    """(hand, discards, pending name or NO_NAME) of state i > 0 of a numbering."""
    n = params.n
    k = i - 1
    name = NO_NAME
    if pending:
        name = k % n
        k //= n
    m = multiset_count(n, ds)
    return unrank_multiset(k // m, n, hs), unrank_multiset(k % m, n, ds), name


@njit(cache=True)
def num_private(params, seat):
    hs = max(params.hand - 2, 0)
    ds = 0 if params.forget else params.discards
    most = max(scheme_size(params, False, params.hand, ds), scheme_size(params, True, hs, ds))
    if params.forget and params.discards:  # a swap's draw: the hand and the name discarded
        most = max(most, scheme_size(params, True, params.hand - 1, 0))
    return np.int64(most)


@njit(cache=True)
def code_of(state, base, n):
    """The multiset code of the ``n`` counts ``state[base:base + n]`` (a hand, discards)."""
    code = np.int64(0)
    for t in range(n):
        code |= np.int64(state[base + t]) << (SHIFT * t)
    return code


@njit(cache=True)
def cards_left(pub, params, t):
    """Cards of name t outside play and off the table's face-up card."""
    k = params.copies[t] - pub[PLAY + t] - pub[PLAY + 8 + t]
    return k - 1 if pub[UP] == t else k


assert R.ENDED < TAKEN < STATE_SIZE and TAKEN != LASTTAKE
