"""Agent Avenue's public model (public.py): the moves, as the protocol gives them: the
public labels, each private state's actions (a swap, a play) and its draws (private
chance), one state at a time and every state of a node at once (the rows)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.forget import weigh_swap_draw
from spycfr.games.agent_avenue.multiset import (
    digit,
    multinomial,
    multiset_count,
    next_multiset,
    unit_code,
)
from spycfr.games.agent_avenue.numbering import (
    DEAD,
    NO_NAME,
    PH_REVEAL,
    cards_left,
    decode,
    index,
    num_private,
    scheme,
    scheme_size,
)
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECKSIZE,
    DLEFT,
    HANDSIZE,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_SWAP_DRAW,
    PHASE,
    T_PLAY,
    T_SWAP,
    T_TAKE,
)

SWAP_LABEL = (T_SWAP << 20) | 7  # the discarded name is hidden


@njit(cache=True)
def _can_swap(pub):
    return pub[DLEFT + pub[ACTIVE]] > 0 and pub[DECKSIZE] > 0


@njit(cache=True)
def legal_actions(pub, params, out):
    """A swap (the discarded name hidden), then a play per face-up name of which a card can
    be in a hand; take up/down; one label at private chance."""
    ph = pub[PHASE]
    if ph == PH_RECRUIT:
        out[0] = (T_TAKE << 20) | R.TAKE_UP
        out[1] = (T_TAKE << 20) | R.TAKE_DOWN
        return 2
    if ph != PH_PLAY:
        out[0] = 0
        return 0 if ph == PH_REVEAL or ph == PH_OVER else 1
    k = 0
    if _can_swap(pub):
        out[0] = SWAP_LABEL
        k = 1
    for u in range(params.n):
        if cards_left(pub, params, u) > 0:
            out[k] = (T_PLAY << 20) | (u << 3) | 7
            k += 1
    return k


@njit(cache=True)
def _play_label(pub, params, u):
    """The label index of face-up name u (-1: no card of it can be in a hand)."""
    if cards_left(pub, params, u) <= 0:
        return -1
    k = 1 if _can_swap(pub) else 0
    for t in range(u):
        if cards_left(pub, params, t) > 0:
            k += 1
    return k


@njit(cache=True)
def private_actions(pub, params, i, n_labels, kids, nexts):
    """The recruiter keeps its state. The mover discards a name of its hand (the swap
    label) or plays face-up u with face-down d (label u; d pending)."""
    if pub[PHASE] == PH_RECRUIT:
        for k in range(n_labels):
            kids[k] = k
            nexts[k] = i
        return n_labels
    pending, hs, ds = scheme(pub, params, pub[ACTIVE])
    return play_actions(pub, params, i, pending, hs, ds, kids, nexts, True)


@njit(cache=True)
def play_actions(pub, params, i, pending, hs, ds, kids, nexts, keep):
    """At a play: state i (of the numbering pending, hs, ds) discards a name of its hand
    (the swap label) or plays face-up u with face-down d (label u; d pending); DEAD and
    unused indices go to DEAD (advanced mode's model shares it). Where the model forgets
    discards, a swap's state keeps the name until its draw if ``keep`` (this module's
    model; advanced mode's but from a hand of 6, public_advanced.py's ``keeps_name``)."""
    return _play_row(params, _can_swap(pub), _play_labels(pub, params), i, pending, hs, ds,
                     kids, nexts, keep)


@njit(cache=True)
def _play_labels(pub, params):
    """Each face-up name's label index (:func:`_play_label`), the same for every state."""
    labels = np.empty(params.n, np.int64)
    for u in range(params.n):
        labels[u] = _play_label(pub, params, u)
    return labels


@njit(cache=True)
def _play_row(params, swap, labels, i, pending, hs, ds, kids, nexts, keep):
    """:func:`play_actions`' row of state i, given what every state of the node shares:
    whether the mover may swap and the play labels (:func:`_play_labels`)."""
    m = 0
    if 0 < i < scheme_size(params, pending, hs, ds):
        hand, disc, _ = decode(params, pending, hs, ds, i)
        n = params.n
        if swap:
            for x in range(n):
                if digit(hand, x) > 0:
                    kids[m] = 0
                    if params.forget and keep:  # the name kept until the draw
                        nexts[m] = index(params, True, hs - 1, ds, hand - unit_code(x), disc,
                                         np.int64(x))
                    elif params.forget:  # the discard leaves the model
                        nexts[m] = index(params, False, hs - 1, ds, hand - unit_code(x), disc,
                                         NO_NAME)
                    else:
                        nexts[m] = index(params, False, hs - 1, ds + 1, hand - unit_code(x),
                                         disc + unit_code(x), NO_NAME)
                    m += 1
        names = 0
        for x in range(n):
            names += digit(hand, x) > 0
        for u in range(n):
            lab = labels[u]
            if digit(hand, u) == 0 or lab < 0:
                continue
            for d in range(n):
                ok = d != u and digit(hand, d) > 0
                if names == 1:  # a hand of one name plays a pair of it
                    ok = d == u and digit(hand, u) >= 2
                if ok:
                    kids[m] = lab
                    nexts[m] = index(params, True, hs - 2, ds, hand - unit_code(u) - unit_code(d),
                                     disc, np.int64(d))
                    m += 1
    if m == 0:  # DEAD, or a state no card of which can be left (never reached)
        kids[0] = 0
        nexts[0] = DEAD
        m = 1
    return m


@njit(cache=True)
def hand_draws(pub, params, hand, disc, hs, ds, k, nexts, probs):
    """(hand, disc), sizes hs and ds, drawing k cards: each multiset x of k names with
    probability multinomial(k; x) / n^k to (hand + x, disc); those the drawer sees cannot
    be (more of a name than are left outside its own cards and play) to DEAD. Returns the
    number of entries."""
    xs, ps, left = _draw_outcomes(pub, params, k)
    return _draw_row(params, xs, ps, left, hand, disc, hs, ds, k, nexts, probs)


@njit(cache=True)
def _draw_outcomes(pub, params, k):
    """What every state's draw of k cards at ``pub`` shares: the multisets x of k names
    (from every card of name 0, in :func:`next_multiset`'s order), their probabilities
    multinomial(k; x) / n^k, and the cards of each name left outside play (``cards_left``)."""
    n = params.n
    scale = 1.0 / float(n) ** k
    draws = multiset_count(n, k)
    xs = np.empty(draws, np.int64)
    ps = np.empty(draws)
    x = np.int64(k)  # every card of name 0
    for q in range(draws):
        xs[q] = x
        ps[q] = multinomial(x, n, k) * scale
        x = next_multiset(x, n)
    left = np.empty(n, np.int64)
    for t in range(n):
        left[t] = cards_left(pub, params, t)
    return xs, ps, left


@njit(cache=True)
def _draw_row(params, xs, ps, left, hand, disc, hs, ds, k, nexts, probs):
    """:func:`hand_draws` given :func:`_draw_outcomes`' arrays."""
    n = params.n
    m = 0
    dead = 0.0
    for q in range(xs.shape[0]):
        x = xs[q]
        ok = True
        for t in range(n):
            if digit(x, t) > left[t] - digit(hand, t) - digit(disc, t):
                ok = False
                break
        if ok:
            nexts[m] = index(params, False, hs + k, ds, hand + x, disc, NO_NAME)
            probs[m] = ps[q]
            m += 1
        else:
            dead += ps[q]
    if dead > 0.0:
        nexts[m] = DEAD
        probs[m] = dead
        m += 1
    return m


@njit(cache=True)
def private_chance(pub, params, i, nexts, probs):
    """A discard's draw (1 card), or the previous mover's refill (back up to the hand size,
    deck permitting) with its revealed face-down card forgotten. Where the model forgets
    discards, a discard's draw forgets the name discarded and its probabilities carry
    :func:`discard_weight` (forget.py)."""
    swap = pub[PHASE] == PH_SWAP_DRAW
    seat = pub[ACTIVE] if swap else 1 - pub[ACTIVE]
    pending, hs, ds = scheme(pub, params, seat)
    if 0 < i < scheme_size(params, pending, hs, ds):
        hand, disc, name = decode(params, pending, hs, ds, i)
        k = pub[HANDSIZE + seat] - hs if pending and not swap else 1
        m = hand_draws(pub, params, hand, disc, hs, ds, k, nexts, probs)
        if swap:
            weigh_swap_draw(pub, params, hand, name, probs, m)
        return m
    nexts[0] = DEAD
    probs[0] = 1.0
    return 1


# --- every state's rows at once ------------------------------------------------------------
# The protocol's private_action_rows / private_chance_rows: the per-state functions' rows
# (_play_row, _draw_row) for every state, what a node's states share (the play labels, the
# draws' multisets and probabilities, the cards left) computed once, where the per-state
# functions compute it for each state: most of a subgame's build on standard (a refill's 36
# draws for each of 289 states). The same entries, bit for bit (test_resolve_speed).


@njit(cache=True)
def play_rows(pub, params, pending, hs, ds, keep, states, kids, nexts, counts):
    """:func:`play_actions` of states 0..``states - 1`` at once (rows ``kids[i]``,
    ``nexts[i]``, ``counts[i]``: the same entries); the swap's test and the play labels
    computed once (advanced mode's model shares it)."""
    swap = _can_swap(pub)
    labels = _play_labels(pub, params)
    for i in range(states):
        counts[i] = _play_row(params, swap, labels, i, pending, hs, ds, kids[i], nexts[i],
                              keep)


@njit(cache=True)
def draw_rows(pub, params, pending, hs, ds, k, weigh, states, nexts, probs, counts):
    """:func:`hand_draws` of k cards for states 0..``states - 1`` of the numbering (pending, hs,
    ds) at once, each state's probabilities times :func:`weigh_swap_draw` with ``weigh``
    (the rows of :func:`private_chance`, and of advanced mode's: the same entries, DEAD
    and unused indices to DEAD); the multisets drawn, their probabilities and the cards
    left computed once."""
    size = scheme_size(params, pending, hs, ds)
    xs, ps, left = _draw_outcomes(pub, params, k)
    for i in range(states):
        if not 0 < i < size:
            nexts[i, 0] = DEAD
            probs[i, 0] = 1.0
            counts[i] = 1
            continue
        hand, disc, name = decode(params, pending, hs, ds, i)
        m = _draw_row(params, xs, ps, left, hand, disc, hs, ds, k, nexts[i], probs[i])
        if weigh:
            weigh_swap_draw(pub, params, hand, name, probs[i], m)
        counts[i] = m


@njit(cache=True)
def private_action_rows(pub, params, seat, n_labels, kids, nexts, counts):
    """:func:`private_actions` of every state of ``seat`` at once (the protocol's hook)."""
    states = num_private(params, seat)
    if pub[PHASE] == PH_RECRUIT:
        for i in range(states):
            counts[i] = private_actions(pub, params, i, n_labels, kids[i], nexts[i])
        return
    pending, hs, ds = scheme(pub, params, pub[ACTIVE])
    play_rows(pub, params, pending, hs, ds, True, states, kids, nexts, counts)


@njit(cache=True)
def private_chance_rows(pub, params, seat, nexts, probs, counts):
    """:func:`private_chance` of every state of ``seat`` at once (the protocol's hook)."""
    swap = pub[PHASE] == PH_SWAP_DRAW
    s = pub[ACTIVE] if swap else 1 - pub[ACTIVE]
    pending, hs, ds = scheme(pub, params, s)
    k = pub[HANDSIZE + s] - hs if pending and not swap else 1
    draw_rows(pub, params, pending, hs, ds, np.int64(k), swap, num_private(params, seat),
              nexts, probs, counts)
