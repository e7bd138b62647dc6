"""Agent Avenue (simple mode) on the public-state model: what each player knows privately,
what both see.

A player's **private state** is its hand and its discards (face down: hidden), two
multisets over the variant's names, and between its play and the recruitment the card it
played face down (pending). Their sizes are public, so states are numbered *per size*
(:func:`index`): at a public node, index i of seat s means the i-th (hand, discards) pair of
the sizes the node shows for s, or the i-th (hand, discards, pending) triple while s's
face-down card is pending (:func:`scheme`). A seat's scheme changes only at its own moves
and draws, which renumber its states. State 0 is ``DEAD``, where draws that cannot happen
go (below); an index beyond the scheme's count is never reached and behaves as DEAD.

A **public state** is the rules' state array (rules.py) with the hands, discards, deck and
face-down card blanked, so the rules' own end step runs on it. The play is public label
"face-up u" (the face-down name is the mover's private action); the recruiter's choice is a
public label; then a public **signal** reveals the face-down card d (a chance node, mask 1
on the mover's states pending d). The mover's refill is drawn after the recruitment, not
before as in the rules (the recruiter sees only how many cards it draws, which the public
state knows): one private-chance step (``PH_CLEAR``) draws it and forgets the revealed card,
a step the history map folds into the recruitment. So the pending card never meets the
refill and the largest numbering is hands of the full size times discards.

**Draws** (the deal, a discard's draw, the refill) are private chance, modelled as draws
with replacement, each name 1/n (a multiset x of k cards: multinomial(k; x) / n^k), a draw
impossible from the drawer's own view (no copy left outside its hand, discards and play)
going to DEAD. The true probability of the game's draws is the same multinomials times
``prod_t c_t^(D_t) / N^(K)`` (falling factorials: D_t cards of name t drawn by anyone out of
c_t, K of N in all), which depends on both players' cards; the model's is the multinomials
times n^-K. So the terminal payoff carries the ratio ``n^K prod_t c_t^(D_t) / N^(K)``, D = in
play + both hands + both discards: exact values and the card removal between the players
(0 where they hold more than the deck has), with ``compatible`` left at 1. The ratio depends
only on the leaf's public state and private states, so the seats' futures stay Markov in
(public node, private state).

**Forgetting discards** (``params.forget``: the search agent's model of the full game,
whose exact numbering has 108,901 states a seat): a state is the hand alone, and the ratio
weighs the cards it knows. A discarded card d then leaves the ratio, which multiplies each
pair's weight by (N - K + 1) / (n (c_d - D_d + 1)) (docs/search.md, "the forgotten
discard's weight"): the model would value each swap by the card it discards, not by its
worth. So from the discard to its draw the mover's state keeps the name d (a pending
numbering, as a face-down card's: hand and d), and the draw's probabilities carry
``discard_weight``: n times the chance that a card the mover has not seen is a d
(c_d less those in play and in its hand, over all such cards), the factor's mean over the
opponent's hands as the deal draws them (exact for one-copy names, which the opponent
cannot hold). A seat's weight is then kept through a discard on average over the
opponent's prior hands, not pair by pair (that needs the name until the end: the exact
numbering).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.rules import (
    ACTIVE,
    DECK,
    DECKSIZE,
    DISC,
    DLEFT,
    DOWN,
    HAND,
    HANDSIZE,
    LASTDISC,
    LASTTAKE,
    PH_DEAL0,
    PH_DEAL1,
    PH_OVER,
    PH_PLAY,
    PH_RECRUIT,
    PH_REFILL,
    PH_SWAP_DRAW,
    PHASE,
    PLAY,
    STATE_SIZE,
    T_PLAY,
    T_SWAP,
    T_TAKE,
    UP,
    WINNER,
    AgentAvenueParams,
)
from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL, register

TAKEN = 69  # public slot: the recruiter's choice (0 up, 1 down) awaiting the signal, else -1
PH_REVEAL = 7  # the face-down card is revealed (a public signal)
PH_CLEAR = 8  # the previous mover draws its refill and forgets its revealed card
DEAD = 0
NO_NAME = -1
SHIFT = 4  # a multiset code: 4 bits per name hold its count (a hand and discards: <= 8)
SWAP_LABEL = (T_SWAP << 20) | 7  # the discarded name is hidden


# --- multisets ---------------------------------------------------------------------------


@njit(cache=True)
def _binom(n, k):
    if k < 0 or k > n:
        return 0
    out = 1
    for j in range(k):
        out = out * (n - j) // (j + 1)
    return out


@njit(cache=True)
def _digit(code, t):
    return (code >> (SHIFT * t)) & 15


@njit(cache=True)
def _unit(t):
    return np.int64(1) << (SHIFT * t)


# _count(m, b) for m <= 8 names and b <= 32 cards (SHIFT's digits, 15 at most, of two
# multisets), as math.comb gives it: read from this table in the numberings' ranks, which
# ask for it at every digit of every state (most of a subgame's build on standard)
_COUNTS = np.array([[math.comb(m + b - 1, b) if m else int(b == 0) for b in range(33)]
                    for m in range(9)], np.int64)


@njit(cache=True)
def _count(m, b):
    """Multisets of size exactly b over m names."""
    if b < 0:
        return 0
    if 0 <= m < _COUNTS.shape[0] and b < _COUNTS.shape[1]:
        return _COUNTS[m, b]
    if m == 0:
        return 1 if b == 0 else 0
    return _binom(m + b - 1, b)


@njit(cache=True)
def rank_multiset(code, n, size):
    """The rank of a multiset of ``size`` cards over n names (counts in SHIFT-bit digits of
    ``code``) among all of that size, in lexicographic order of the count vector."""
    r = 0
    b = size
    for t in range(n):
        v = _digit(code, t)
        for u in range(v):
            r += _count(n - 1 - t, b - u)
        b -= v
    return r


@njit(cache=True)
def unrank_multiset(r, n, size):
    """The inverse of :func:`rank_multiset`: the multiset's code."""
    code = np.int64(0)
    b = size
    for t in range(n):
        v = 0
        while True:
            c = _count(n - 1 - t, b - v)
            if r < c:
                break
            r -= c
            v += 1
        code |= np.int64(v) << (SHIFT * t)
        b -= v
    return code


@njit(cache=True)
def _multinomial(code, n, k):
    """k! / prod x_t! of the multiset ``code`` of size k."""
    out = 1.0
    for j in range(2, k + 1):
        out *= j
    for t in range(n):
        for j in range(2, _digit(code, t) + 1):
            out /= j
    return out


@njit(cache=True)
def _next_multiset(code, n):
    """The next multiset of the same size after ``code`` (lexicographically decreasing
    count vectors, from every card of name 0), or -1 after the last."""
    right = 0
    for j in range(n - 1, -1, -1):
        v = _digit(code, j)
        if v > 0 and j < n - 1:
            code -= _unit(j)
            code &= (np.int64(1) << (SHIFT * (j + 1))) - 1  # names after j cleared
            return code | (np.int64(right + 1) << (SHIFT * (j + 1)))
        right += v
    return np.int64(-1)


# --- private states ----------------------------------------------------------------------


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
        return _swap_scheme(pub, params, seat)
    return pending, hs, _discarded(pub, params, seat)


@njit(cache=True)
def swap_draw(pub, params, seat):
    """Whether ``seat``'s numbering at ``pub`` keeps the name it just discarded (its pending
    name): at a swap's draw where the model forgets discards (the module notes)."""
    return params.forget != 0 and pub[PHASE] == PH_SWAP_DRAW and seat == pub[ACTIVE]


@njit(cache=True)
def _swap_scheme(pub, params, seat):
    """:func:`scheme` where :func:`swap_draw` holds: the name just discarded pending, the
    hand as it stands (the discard made, the draw to come)."""
    return True, np.int64(pub[HANDSIZE + seat]), _discarded(pub, params, seat)


@njit(cache=True)
def _discarded(pub, params, seat):
    """The discards a seat's numbering holds: those it made, none where the model forgets
    them (``params.forget``)."""
    return np.int64(0 if params.forget else params.discards - pub[DLEFT + seat])


@njit(cache=True)
def scheme_size(params, pending, hs, ds):
    """States of a numbering, DEAD included."""
    n = params.n
    k = _count(n, hs) * _count(n, ds)
    return 1 + (k * n if pending else k)


@njit(cache=True)
def index(params, pending, hs, ds, hand, disc, name):
    """The state of hand and discards (multiset codes of sizes hs and ds) and, in a pending
    numbering, the face-down ``name``."""
    n = params.n
    k = rank_multiset(hand, n, hs) * _count(n, ds) + rank_multiset(disc, n, ds)
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
    m = _count(n, ds)
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
def _code_of(state, base, n):
    code = np.int64(0)
    for t in range(n):
        code |= np.int64(state[base + t]) << (SHIFT * t)
    return code


# --- the public state and the bridge -----------------------------------------------------


@njit(cache=True)
def blank(state, params, out, root):
    """``out``: the rules' state with the hands, discards, deck and face-down card blanked;
    before the deal is over, the public root (phase ``root``, the hands dealt). Advanced
    mode's model shares it."""
    out[:] = state
    for x in range(16):
        out[HAND + x] = 0
        out[DISC + x] = 0
    for x in range(8):
        out[DECK + x] = 0
    out[DOWN] = -1
    out[TAKEN] = -1
    if state[PHASE] == PH_DEAL0 or state[PHASE] == PH_DEAL1:
        out[PHASE] = root
        out[HANDSIZE] = params.hand
        out[HANDSIZE + 1] = params.hand
        total = 0
        for t in range(params.n):
            total += params.copies[t]
        out[DECKSIZE] = total - 2 * params.hand


@njit(cache=True)
def public_of_history(state, params, out):
    """The rules' state blanked (the name a swap discarded too); the deal is the root; from
    the play to the recruitment the mover's hand size and the deck as before its refill
    (drawn later in the public tree)."""
    blank(state, params, out, PH_PLAY)
    out[LASTDISC] = 0
    ph = state[PHASE]
    a = state[ACTIVE]
    if ph == PH_REFILL or ph == PH_RECRUIT:
        out[PHASE] = PH_RECRUIT
        pre = min(state[HANDSIZE + a], params.hand - 2)  # the hand was full if cards are left
        out[DECKSIZE] += state[HANDSIZE + a] - pre
        out[HANDSIZE + a] = pre


@njit(cache=True)
def private_of_history(state, params, seat):
    """-1 before the seat's deal, and for the mover at the recruitment after its refill or
    at the end (the public tree has not drawn the refill; the bridge never asks there)."""
    ph = state[PHASE]
    if ph == PH_DEAL0 or (ph == PH_DEAL1 and seat == 1):
        return np.int64(-1)
    n = params.n
    hand = _code_of(state, HAND + 8 * seat, n)
    disc = np.int64(0) if params.forget else _code_of(state, DISC + 8 * seat, n)
    ds = _discarded(state, params, seat)
    hs = np.int64(state[HANDSIZE + seat])
    if seat == state[ACTIVE] and (ph == PH_REFILL or ph == PH_RECRUIT):
        if hs > params.hand - 2:
            return np.int64(-1)
        return index(params, True, hs, ds, hand, disc, np.int64(state[DOWN]))
    if seat == state[ACTIVE] and ph == PH_OVER:
        return np.int64(-1)
    if swap_draw(state, params, seat):
        return index(params, True, hs, ds, hand, disc, np.int64(state[LASTDISC]))
    return index(params, False, hs, ds, hand, disc, NO_NAME)


@njit(cache=True)
def initial_state(params):
    s = R.initial_state(params)
    out = np.empty_like(s)
    public_of_history(s, params, out)
    return out


@njit(cache=True)
def current_player(pub, params):
    ph = pub[PHASE]
    a = pub[ACTIVE]
    if ph == PH_OVER:
        return TERMINAL
    if ph == PH_PLAY:
        return np.int64(a)
    if ph == PH_RECRUIT:
        return np.int64(1 - a)
    if ph == PH_REVEAL:
        return CHANCE
    if ph == PH_CLEAR:
        return np.int64(PRIVATE_CHANCE + 1 - a)
    return np.int64(PRIVATE_CHANCE + a)  # a discard's draw


@njit(cache=True)
def _left(pub, params, t):
    """Cards of name t outside play and off the table's face-up card."""
    k = params.copies[t] - pub[PLAY + t] - pub[PLAY + 8 + t]
    return k - 1 if pub[UP] == t else k


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
        if _left(pub, params, u) > 0:
            out[k] = (T_PLAY << 20) | (u << 3) | 7
            k += 1
    return k


@njit(cache=True)
def _play_label(pub, params, u):
    """The label index of face-up name u (-1: no card of it can be in a hand)."""
    if _left(pub, params, u) <= 0:
        return -1
    k = 1 if _can_swap(pub) else 0
    for t in range(u):
        if _left(pub, params, t) > 0:
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
                if _digit(hand, x) > 0:
                    kids[m] = 0
                    if params.forget and keep:  # the name kept until the draw
                        nexts[m] = index(params, True, hs - 1, ds, hand - _unit(x), disc,
                                         np.int64(x))
                    elif params.forget:  # the discard leaves the model
                        nexts[m] = index(params, False, hs - 1, ds, hand - _unit(x), disc,
                                         NO_NAME)
                    else:
                        nexts[m] = index(params, False, hs - 1, ds + 1, hand - _unit(x),
                                         disc + _unit(x), NO_NAME)
                    m += 1
        names = 0
        for x in range(n):
            names += _digit(hand, x) > 0
        for u in range(n):
            lab = labels[u]
            if _digit(hand, u) == 0 or lab < 0:
                continue
            for d in range(n):
                ok = d != u and _digit(hand, d) > 0
                if names == 1:  # a hand of one name plays a pair of it
                    ok = d == u and _digit(hand, u) >= 2
                if ok:
                    kids[m] = lab
                    nexts[m] = index(params, True, hs - 2, ds, hand - _unit(u) - _unit(d),
                                     disc, np.int64(d))
                    m += 1
    if m == 0:  # DEAD, or a state no card of which can be left (never reached)
        kids[0] = 0
        nexts[0] = DEAD
        m = 1
    return m


@njit(cache=True)
def _draws(pub, params, hand, disc, hs, ds, k, nexts, probs):
    """(hand, disc), sizes hs and ds, drawing k cards: each multiset x of k names with
    probability multinomial(k; x) / n^k to (hand + x, disc); those the drawer sees cannot
    be (more of a name than are left outside its own cards and play) to DEAD. Returns the
    number of entries."""
    xs, ps, left = _draw_outcomes(pub, params, k)
    return _draw_row(params, xs, ps, left, hand, disc, hs, ds, k, nexts, probs)


@njit(cache=True)
def _draw_outcomes(pub, params, k):
    """What every state's draw of k cards at ``pub`` shares: the multisets x of k names
    (from every card of name 0, in :func:`_next_multiset`'s order), their probabilities
    multinomial(k; x) / n^k, and the cards of each name left outside play (``_left``)."""
    n = params.n
    scale = 1.0 / float(n) ** k
    draws = _count(n, k)
    xs = np.empty(draws, np.int64)
    ps = np.empty(draws)
    x = np.int64(k)  # every card of name 0
    for q in range(draws):
        xs[q] = x
        ps[q] = _multinomial(x, n, k) * scale
        x = _next_multiset(x, n)
    left = np.empty(n, np.int64)
    for t in range(n):
        left[t] = _left(pub, params, t)
    return xs, ps, left


@njit(cache=True)
def _draw_row(params, xs, ps, left, hand, disc, hs, ds, k, nexts, probs):
    """:func:`_draws` given :func:`_draw_outcomes`' arrays."""
    n = params.n
    m = 0
    dead = 0.0
    for q in range(xs.shape[0]):
        x = xs[q]
        ok = True
        for t in range(n):
            if _digit(x, t) > left[t] - _digit(hand, t) - _digit(disc, t):
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
    :func:`discard_weight` (the module notes)."""
    swap = pub[PHASE] == PH_SWAP_DRAW
    seat = pub[ACTIVE] if swap else 1 - pub[ACTIVE]
    pending, hs, ds = scheme(pub, params, seat)
    if 0 < i < scheme_size(params, pending, hs, ds):
        hand, disc, name = decode(params, pending, hs, ds, i)
        k = pub[HANDSIZE + seat] - hs if pending and not swap else 1
        m = _draws(pub, params, hand, disc, hs, ds, k, nexts, probs)
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
    """:func:`_draws` of k cards for states 0..``states - 1`` of the numbering (pending, hs,
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


@njit(cache=True)
def weigh_swap_draw(pub, params, hand, name, probs, m):
    """A swap's draw (:func:`private_chance`, and public_advanced.py's): its ``m`` outcomes'
    probabilities times :func:`discard_weight` of the name discarded, ``name`` (-1: the
    mover's state keeps none, nothing to weigh), so that the swap carries the discard's
    deck probability."""
    if name >= 0:
        f = discard_weight(pub, params, hand, name)
        for e in range(m):
            probs[e] *= f


@njit(cache=True)
def discard_weight(pub, params, hand, d):
    """n times the probability that a card the mover has not seen (not in play, not in
    ``hand``: what it holds after discarding a d) is a d: what a forgetting model's swap
    multiplies its weight by at the draw, so that the mover's weight summed over the
    opponent's hands as the deal draws them is the same as before the discard (the
    discarded card's deck probability in place of the model's 1/n; the module notes)."""
    unseen = 0
    for t in range(params.n):
        unseen += _left(pub, params, t) - _digit(hand, t)
    return params.n * (_left(pub, params, d) - _digit(hand, d)) / float(unseen)


@njit(cache=True)
def state_weight(pub, params, seat, i):
    """The weight a pair's card-removal ratio carries for ``seat``'s state i at ``pub``
    besides the cards it holds: :func:`discard_weight` at a swap's draw where the model
    forgets discards (the draw then carries it), else 1."""
    if not swap_draw(pub, params, seat):
        return 1.0
    pending, hs, ds = _swap_scheme(pub, params, seat)  # scheme's, swap_draw known
    if i == DEAD or i >= scheme_size(params, pending, hs, ds):
        return 1.0
    hand, _, name = decode(params, pending, hs, ds, i)
    return discard_weight(pub, params, hand, name)


@njit(cache=True)
def chance_outcomes(pub, params, codes, probs):
    """The face-down card revealed: each name of which a card can be outside play."""
    k = 0
    for d in range(params.n):
        if _left(pub, params, d) > 0:
            codes[k] = d
            probs[k] = 1.0
            k += 1
    return k


@njit(cache=True)
def chance_mask(pub, params, outcome, seat, out):
    """1 on the mover's states whose pending face-down card is the one revealed."""
    if seat != pub[ACTIVE]:
        out[:] = 1.0
        return
    out[:] = 0.0
    pending, hs, ds = scheme(pub, params, seat)
    for i in range(1, scheme_size(params, pending, hs, ds)):
        if (i - 1) % params.n == outcome:
            out[i] = 1.0


@njit(cache=True)
def apply_action(pub, params, action, out):
    out[:] = pub
    ph = pub[PHASE]
    a = pub[ACTIVE]
    if ph == PH_PLAY:
        if action == SWAP_LABEL:
            out[DLEFT + a] -= 1
            out[HANDSIZE + a] -= 1
            out[PHASE] = PH_SWAP_DRAW
            return
        out[HANDSIZE + a] -= 2
        out[UP] = (action >> 3) & 7
        out[PHASE] = PH_RECRUIT
        return
    if ph == PH_SWAP_DRAW:
        out[HANDSIZE + a] += 1
        out[DECKSIZE] -= 1
        out[PHASE] = PH_PLAY
        return
    if ph == PH_RECRUIT:
        out[TAKEN] = action & 1
        out[PHASE] = PH_REVEAL
        return
    if ph == PH_REVEAL:
        out[DOWN] = action
        R._recruit(out, params, pub[TAKEN])
        out[LASTTAKE] = 1 + pub[TAKEN]
        out[TAKEN] = -1
        k = R._draw_count(out, params, a)  # the refill, drawn at PH_CLEAR: the sizes now
        out[HANDSIZE + a] += k  # (the rules' end step reads them)
        out[DECKSIZE] -= k
        R._end_step(out, params)
        if out[PHASE] != PH_OVER:
            out[PHASE] = PH_CLEAR
        return
    out[PHASE] = PH_PLAY  # PH_CLEAR


# --- payoffs -----------------------------------------------------------------------------


@njit(cache=True)
def _falling(c, d):
    out = 1.0
    for j in range(d):
        out *= c - j
    return out


@njit(cache=True)
def _scale(pub, params):
    """n^K / N^(K), K the cards drawn of N (the mover's refill not yet at a terminal): the
    model's probability of the draws against the deck's."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    a = pub[ACTIVE]
    drawn = total - pub[DECKSIZE] - (pub[HANDSIZE + a] - min(pub[HANDSIZE + a],
                                                               params.hand - 2))
    return _scale_of(pub, params, drawn)


@njit(cache=True)
def _scale_of(pub, params, drawn):
    """n^K / N^(K) for ``drawn`` cards out of the deck. Where the model forgets discards,
    K leaves them out: the ratio weighs the cards it knows (by exchangeability, their true
    probability whatever the discarded cards were), each discarded card taken as any name
    with probability 1/n as the model drew it (an abstraction, not exact)."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    if params.forget:
        drawn -= 2 * params.discards - pub[DLEFT] - pub[DLEFT + 1]
    return float(params.n) ** drawn / _falling(total, drawn)


@njit(cache=True)
def _held(pub, params, seat, i):
    """The cards state i of ``seat`` holds out of the deck at a terminal (its hand and
    discards; its face-down card is in play), or -1 for DEAD and unused indices."""
    pending, hs, ds = scheme(pub, params, seat)
    return held_code(params, pending, hs, ds, i)


@njit(cache=True)
def held_code(params, pending, hs, ds, i):
    """The hand and discards of state i of a numbering as one multiset, -1 for DEAD and
    unused indices."""
    if i == DEAD or i >= scheme_size(params, pending, hs, ds):
        return np.int64(-1)
    hand, disc, _ = decode(params, pending, hs, ds, i)
    return hand + disc


@njit(cache=True)
def _ratio(pub, params, x, y):
    """prod_t c_t^(D_t) with D = in play + the two seats' held cards x and y."""
    out = 1.0
    for t in range(params.n):
        out *= _falling(params.copies[t], pub[PLAY + t] + pub[PLAY + 8 + t] + _digit(x, t)
                        + _digit(y, t))
    return out


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    x = _held(pub, params, 0, i)
    y = _held(pub, params, 1, j)
    if x < 0 or y < 0:
        return 0.0
    u = 1.0 if pub[WINNER] == 0 else -1.0
    return u * _scale(pub, params) * _ratio(pub, params, x, y)


@njit(cache=True)
def terminal_values(pub, params, seat, opp, compat, out):
    """out[i] = sum_j u_seat(i, j) opp[j], the opponent's range bucketed by the multiset it
    holds (the payoff depends on the private states only through the held multisets)."""
    u = 1.0 if pub[WINNER] == 0 else -1.0
    if seat == 1:
        u = -u
    mine = scheme(pub, params, seat)
    theirs = scheme(pub, params, 1 - seat)
    held_values(pub, params, u * _scale(pub, params), mine, theirs, opp, out)


@njit(cache=True)
def held_values(pub, params, u, mine, theirs, opp, out):
    """out[i] = u sum_j ratio(x_i, y_j) opp[j], x_i and y_j the multisets held by the
    seat's state i and the opponent's state j in their numberings ``mine`` and ``theirs``
    (pending, hand size, discards): the terminal values of :func:`terminal_values`
    (advanced mode's model shares it)."""
    n = params.n
    size = theirs[1] + theirs[2]
    mass = np.zeros(_count(n, size))
    for j in range(1, opp.shape[0]):
        if opp[j] != 0.0:
            y = held_code(params, theirs[0], theirs[1], theirs[2], j)
            if y >= 0:
                mass[rank_multiset(y, n, size)] += opp[j]
    live = np.flatnonzero(mass)
    codes = np.empty(live.shape[0], np.int64)
    for y in range(live.shape[0]):
        codes[y] = unrank_multiset(live[y], n, size)
    done = np.full(_count(n, mine[1] + mine[2]), np.nan)
    for i in range(out.shape[0]):
        x = held_code(params, mine[0], mine[1], mine[2], i)
        if x < 0:
            out[i] = 0.0
            continue
        r = rank_multiset(x, n, mine[1] + mine[2])
        if np.isnan(done[r]):
            acc = 0.0
            for y in range(live.shape[0]):
                acc += mass[live[y]] * _ratio(pub, params, x, codes[y])
            done[r] = u * acc
        out[i] = done[r]


# --- the deal and bounds -----------------------------------------------------------------


@njit(cache=True)
def initial_weights(params, seat, out):
    """Each hand of the deal by the model (multinomial / n^hand); those exceeding a name's
    copies, DEAD."""
    n = params.n
    out[:] = 0.0
    total = 0.0
    x = np.int64(params.hand)
    scale = 1.0 / float(n) ** params.hand
    while x >= 0:
        ok = True
        for t in range(n):
            if _digit(x, t) > params.copies[t]:
                ok = False
        p = _multinomial(x, n, params.hand) * scale
        if ok:
            out[index(params, False, params.hand, 0, x, 0, NO_NAME)] = p
            total += p
        x = _next_multiset(x, n)
    out[DEAD] = max(0.0, 1.0 - total)


@njit(cache=True)
def max_actions(params):
    return max(params.n + 1, 2)


@njit(cache=True)
def max_private_actions(params):
    n = params.n
    # plays and swaps; a draw of at most `hand` cards, and DEAD
    return max(n + n * (n - 1), _binom(n + params.hand - 1, params.hand) + 1, 2)


@njit(cache=True)
def max_depth(params):
    # A turn: swaps (a label and a draw each), a play, the recruitment, the signal and the
    # refill; at most total / 2 turns.
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return 2 + 4 * (total // 2 + 1) + 4 * params.discards


assert R.ENDED < TAKEN < STATE_SIZE and TAKEN != LASTTAKE

register(
    AgentAvenueParams, num_private=num_private, initial_weights=initial_weights,
    initial_state=initial_state, current_player=current_player, legal_actions=legal_actions,
    private_actions=private_actions, max_private_actions=max_private_actions,
    private_chance=private_chance, chance_outcomes=chance_outcomes, chance_mask=chance_mask,
    apply_action=apply_action, terminal_payoff=terminal_payoff,
    terminal_values=terminal_values, max_actions=max_actions, max_depth=max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
    private_action_rows=private_action_rows, private_chance_rows=private_chance_rows,
)
