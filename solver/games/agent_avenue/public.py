"""Agent Avenue (simple mode) on the public-state model: what each player knows privately,
what both see.

A player's **private state** is its hand, its discards (face down: hidden) and, between its
play and the recruitment, the card it played face down: a triple (hand, discards, pending)
of two multisets over the variant's names and a name or none, numbered by :func:`index`;
state 0 is ``DEAD``, where draws that cannot happen go (below). Everything else is public:
the cards in play, the face-up card, the meeples, the hand, deck and discard sizes.

A **public state** is the rules' state array (rules.py) with the hands, discards, deck and
face-down card blanked, so the rules' own end step runs on it. The play is public label
"face-up u" (the face-down name is the mover's private action); the recruiter's choice is a
public label; then a public **signal** reveals the face-down card d (a chance node, mask 1
on the mover's states pending d), and a private-chance step of the mover clears its pending
card (``PH_CLEAR``, a step the history rules fold into the recruitment).

**Draws** (the deal, a discard's draw, the refill) are private chance. They are modelled
as draws with replacement, each name 1/n (a multiset of k cards: multinomial(k; x) / n^k),
a draw impossible from the drawer's own view (no copy left outside its hand, discards and
play) going to ``DEAD``. The true probability of the whole game's draws is the multinomials
times ``prod_t c_t^(D_t) / N^(K)`` (falling factorials: D_t cards of name t drawn by anyone
out of c_t, K of N in all), which depends on both players' cards; the model's is the
multinomials times n^-K. So the terminal payoff carries the ratio
``n^K prod_t c_t^(D_t) / N^(K)``, D = in play + both hands + both discards: exact values
and the card removal between the players (0 where they hold more than the deck has),
with ``compatible`` left at 1. The ratio depends only on the leaf's public state and
private states, so the seats' futures stay Markov in (public node, private state).
"""

from __future__ import annotations

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
PH_CLEAR = 8  # the previous mover's pending card leaves its private state (private chance)
DEAD = 0
SHIFT = 4  # a multiset code: 4 bits per name hold its count (a hand and discards: <= 8)
SWAP_LABEL = (T_SWAP << 20) | 7  # the discarded name is hidden
NO_NAME = -1


# --- multisets and private states --------------------------------------------------------


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
def _size(code, n):
    s = 0
    for t in range(n):
        s += _digit(code, t)
    return s


@njit(cache=True)
def rank_multiset(code, n, budget):
    """The rank of a multiset over n names (counts in SHIFT-bit digits of ``code``) among all
    multisets of size at most ``budget``, in lexicographic order of the count vector."""
    r = 0
    b = budget
    for t in range(n):
        v = _digit(code, t)
        for u in range(v):
            r += _binom(n - 1 - t + b - u, b - u)
        b -= v
    return r


@njit(cache=True)
def unrank_multiset(r, n, budget):
    """The inverse of :func:`rank_multiset`: the multiset's code."""
    code = 0
    b = budget
    for t in range(n):
        v = 0
        while True:
            c = _binom(n - 1 - t + b - v, b - v)
            if r < c:
                break
            r -= c
            v += 1
        code |= v << (SHIFT * t)
        b -= v
    return code


@njit(cache=True)
def _sizes(params):
    """(hand multisets, discard multisets): multisets of size <= hand and <= discards."""
    n = params.n
    return _binom(n + params.hand, params.hand), _binom(n + params.discards, params.discards)


@njit(cache=True)
def num_private(params, seat):
    hands, discs = _sizes(params)
    return np.int64(1 + hands * discs * (params.n + 1))


@njit(cache=True)
def index(params, hand, disc, pending):
    """The private state of hand and discards (multiset codes) and a pending face-down name
    (NO_NAME: none)."""
    _, discs = _sizes(params)
    h = rank_multiset(hand, params.n, params.hand)
    d = rank_multiset(disc, params.n, params.discards)
    return np.int64(1 + (h * discs + d) * (params.n + 1) + pending + 1)


@njit(cache=True)
def decode(params, i):
    """(hand, discards, pending) of a private state other than DEAD."""
    _, discs = _sizes(params)
    k = i - 1
    pending = k % (params.n + 1) - 1
    k //= params.n + 1
    return (unrank_multiset(k // discs, params.n, params.hand),
            unrank_multiset(k % discs, params.n, params.discards), pending)


@njit(cache=True)
def _code_of(state, base, n):
    code = 0
    for t in range(n):
        code |= np.int64(state[base + t]) << (SHIFT * t)
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
def _next_multiset(code, n, k):
    """The next multiset of size k after ``code`` (lexicographically decreasing counts, as
    rules._draws), or -1 after the last."""
    right = 0
    for j in range(n - 1, -1, -1):
        v = _digit(code, j)
        if v > 0 and j < n - 1:
            code -= 1 << (SHIFT * j)
            code &= (1 << (SHIFT * (j + 1))) - 1  # clear names after j, then refill j + 1
            return code | ((right + 1) << (SHIFT * (j + 1)))
        right += v
    return -1


@njit(cache=True)
def _first_multiset(k):
    return np.int64(k)  # every card of name 0


# --- the public state --------------------------------------------------------------------


@njit(cache=True)
def public_of_history(state, params, out):
    out[:] = state
    for x in range(16):
        out[HAND + x] = 0
        out[DISC + x] = 0
    for x in range(8):
        out[DECK + x] = 0
    out[DOWN] = -1
    out[TAKEN] = -1
    if state[PHASE] == PH_DEAL0 or state[PHASE] == PH_DEAL1:  # the deal is private: the root
        out[PHASE] = PH_PLAY
        out[HANDSIZE] = params.hand
        out[HANDSIZE + 1] = params.hand
        total = 0
        for t in range(params.n):
            total += params.copies[t]
        out[DECKSIZE] = total - 2 * params.hand


@njit(cache=True)
def private_of_history(state, params, seat):
    ph = state[PHASE]
    if ph == PH_DEAL0 or (ph == PH_DEAL1 and seat == 1):
        return np.int64(-1)
    pending = NO_NAME
    if state[ACTIVE] == seat and (ph == PH_REFILL or ph == PH_RECRUIT):
        pending = state[DOWN]
    return index(params, _code_of(state, HAND + 8 * seat, params.n),
                 _code_of(state, DISC + 8 * seat, params.n), pending)


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
    return np.int64(PRIVATE_CHANCE + a)  # a discard's draw or the refill


@njit(cache=True)
def _left(pub, params, t):
    """Cards of name t outside play (and off the table's face-up card)."""
    k = params.copies[t] - pub[PLAY + t] - pub[PLAY + 8 + t]
    return k - 1 if pub[UP] == t else k


@njit(cache=True)
def _can_swap(pub):
    return pub[DLEFT + pub[ACTIVE]] > 0 and pub[DECKSIZE] > 0


@njit(cache=True)
def legal_actions(pub, params, out):
    """A swap (the discarded name hidden), then a play per face-up name some hand can hold;
    take up/down; one label at private chance."""
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
    """The label index of face-up name u (-1: publicly impossible)."""
    if _left(pub, params, u) <= 0:
        return -1
    k = 1 if _can_swap(pub) else 0
    for t in range(u):
        if _left(pub, params, t) > 0:
            k += 1
    return k


@njit(cache=True)
def _consistent(pub, params, hand, disc, pending, seat):
    """Whether a private state has the sizes the public state shows for ``seat``."""
    return (_size(hand, params.n) == pub[HANDSIZE + seat]
            and _size(disc, params.n) == params.discards - pub[DLEFT + seat]
            and pending == NO_NAME)


@njit(cache=True)
def private_actions(pub, params, i, n_labels, kids, nexts):
    """The recruiter keeps its state. The mover discards a name of its hand (the swap
    label) or plays face-up u with face-down d (label u, pending d). A state the public
    state rules out gets one action, to DEAD."""
    if pub[PHASE] == PH_RECRUIT:
        for k in range(n_labels):
            kids[k] = k
            nexts[k] = i
        return n_labels
    m = 0
    if i != DEAD:
        hand, disc, pending = decode(params, i)
        if _consistent(pub, params, hand, disc, pending, pub[ACTIVE]):
            n = params.n
            if _can_swap(pub):
                for x in range(n):
                    if _digit(hand, x) > 0:
                        kids[m] = 0
                        nexts[m] = index(params, hand - (1 << (SHIFT * x)),
                                         disc + (1 << (SHIFT * x)), NO_NAME)
                        m += 1
            names = 0
            for x in range(n):
                names += _digit(hand, x) > 0
            for u in range(n):
                lab = _play_label(pub, params, u)
                if _digit(hand, u) == 0 or lab < 0:
                    continue
                for d in range(n):
                    ok = d != u and _digit(hand, d) > 0
                    if names == 1:  # a hand of one name plays a pair of it
                        ok = d == u and _digit(hand, u) >= 2
                    if ok:
                        kids[m] = lab
                        nexts[m] = index(params, hand - (1 << (SHIFT * u)) - (1 << (SHIFT * d)), disc,
                                         d)
                        m += 1
    if m == 0:
        kids[0] = 0
        nexts[0] = DEAD
        m = 1
    return m


@njit(cache=True)
def _draws(pub, params, hand, disc, pending, k, nexts, probs):
    """Private state (hand, disc, pending) drawing k cards: each multiset x of k names with
    probability multinomial(k; x) / n^k; those the drawer sees cannot be (more of a name
    than are left outside its cards and play) go to DEAD. Returns the number of entries."""
    n = params.n
    scale = 1.0 / float(n) ** k
    m = 0
    dead = 0.0
    x = _first_multiset(k)
    while x >= 0:
        p = _multinomial(x, n, k) * scale
        ok = True
        for t in range(n):
            own = _digit(hand, t) + _digit(disc, t) + (1 if pending == t else 0)
            if _digit(x, t) > _left(pub, params, t) - own:
                ok = False
                break
        if ok:
            nexts[m] = index(params, hand + x, disc, pending)
            probs[m] = p
            m += 1
        else:
            dead += p
        x = _next_multiset(x, n, k)
    if dead > 0.0:
        nexts[m] = DEAD
        probs[m] = dead
        m += 1
    return m


@njit(cache=True)
def private_chance(pub, params, i, nexts, probs):
    """A discard's draw (1 card) or the refill (back up to the hand size), or the step that
    clears the pending face-down card once revealed."""
    ph = pub[PHASE]
    if i != DEAD:
        hand, disc, pending = decode(params, i)
        if ph == PH_CLEAR:
            nexts[0] = index(params, hand, disc, NO_NAME)
            probs[0] = 1.0
            return 1
        a = pub[ACTIVE]
        if ph == PH_SWAP_DRAW:
            if _consistent(pub, params, hand, disc, pending, a):
                return _draws(pub, params, hand, disc, pending, 1, nexts, probs)
        elif (_size(hand, params.n) == pub[HANDSIZE + a] and pending != NO_NAME
              and _size(disc, params.n) == params.discards - pub[DLEFT + a]):
            return _draws(pub, params, hand, disc, pending, R._draw_count(pub, params, a),
                          nexts, probs)
    nexts[0] = DEAD
    probs[0] = 1.0
    return 1


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
    if seat != pub[ACTIVE]:
        out[:] = 1.0
        return
    out[DEAD] = 0.0
    for i in range(1, out.shape[0]):
        out[i] = 1.0 if decode(params, i)[2] == outcome else 0.0


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
        R._after_play_draws(out, params)
        return
    if ph == PH_SWAP_DRAW:
        out[HANDSIZE + a] += 1
        out[DECKSIZE] -= 1
        out[PHASE] = PH_PLAY
        return
    if ph == PH_REFILL:
        k = R._draw_count(pub, params, a)
        out[HANDSIZE + a] += k
        out[DECKSIZE] -= k
        out[PHASE] = PH_RECRUIT
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
    """n^K / N^(K): K cards drawn of N (the model's probability against the deck's)."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    drawn = total - pub[DECKSIZE]
    return float(params.n) ** drawn / _falling(total, drawn)


@njit(cache=True)
def _held(params, i):
    """The cards a private state holds out of the deck: its hand and discards (a pending
    card at a terminal is revealed, in play)."""
    hand, disc, _ = decode(params, i)
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
    if i == DEAD or j == DEAD:
        return 0.0
    u = 1.0 if pub[WINNER] == 0 else -1.0
    return u * _scale(pub, params) * _ratio(pub, params, _held(params, i), _held(params, j))


@njit(cache=True)
def terminal_values(pub, params, seat, opp, compat, out):
    """out[i] = sum_j u_seat(i, j) opp[j], the opponent's range bucketed by the multiset it
    holds (the payoff depends on the private states only through the held multisets)."""
    n = params.n
    budget = params.hand + params.discards
    mass = np.zeros(_binom(n + budget, budget))
    for j in range(1, opp.shape[0]):
        if opp[j] != 0.0:
            mass[rank_multiset(_held(params, j), n, budget)] += opp[j]
    live = np.flatnonzero(mass)
    codes = np.empty(live.shape[0], np.int64)
    for y in range(live.shape[0]):
        codes[y] = unrank_multiset(live[y], n, budget)
    u = 1.0 if pub[WINNER] == 0 else -1.0
    if seat == 1:
        u = -u
    u *= _scale(pub, params)
    done = np.full(mass.shape[0], np.nan)
    out[DEAD] = 0.0
    for i in range(1, out.shape[0]):
        x = _held(params, i)
        r = rank_multiset(x, n, budget)
        if np.isnan(done[r]):
            acc = 0.0
            for y in range(live.shape[0]):
                acc += mass[live[y]] * _ratio(pub, params, x, codes[y])
            done[r] = u * acc
        out[i] = done[r]


# --- bounds and the deal -----------------------------------------------------------------


@njit(cache=True)
def initial_weights(params, seat, out):
    """Each hand of the deal's size by the model (multinomial / n^hand); the hands that
    exceed a name's copies, DEAD."""
    n = params.n
    out[:] = 0.0
    total = 0.0
    x = _first_multiset(params.hand)
    scale = 1.0 / float(n) ** params.hand
    while x >= 0:
        ok = True
        for t in range(n):
            if _digit(x, t) > params.copies[t]:
                ok = False
        if ok:
            p = _multinomial(x, n, params.hand) * scale
            out[index(params, x, 0, NO_NAME)] = p
            total += p
        x = _next_multiset(x, n, params.hand)
    out[DEAD] = max(0.0, 1.0 - total)


@njit(cache=True)
def max_actions(params):
    return max(params.n + 1, 2)


@njit(cache=True)
def max_private_actions(params):
    n = params.n
    # plays and swaps; a draw of up to `hand` cards and DEAD
    return max(n + n * (n - 1), _binom(n + params.hand - 1, params.hand) + 1, 2)


@njit(cache=True)
def max_depth(params):
    # A turn: swaps (a label and a draw each), a play, the refill, the recruitment, the
    # signal and the clearing step; at most total / 2 + 1 turns.
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    return 2 + 5 * (total // 2 + 1) + 4 * params.discards


assert R.ENDED < TAKEN < STATE_SIZE and TAKEN != LASTTAKE

register(
    AgentAvenueParams, num_private=num_private, initial_weights=initial_weights,
    initial_state=initial_state, current_player=current_player, legal_actions=legal_actions,
    private_actions=private_actions, max_private_actions=max_private_actions,
    private_chance=private_chance, chance_outcomes=chance_outcomes, chance_mask=chance_mask,
    apply_action=apply_action, terminal_payoff=terminal_payoff,
    terminal_values=terminal_values, max_actions=max_actions, max_depth=max_depth,
    public_of_history=public_of_history, private_of_history=private_of_history,
)
