"""Agent Avenue's public model (public.py): the terminal payoffs, each pair of private
states' win or loss times the card-removal ratio of the draws (public.py's module notes)."""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.games.agent_avenue.multiset import digit, multiset_count, rank_multiset, unrank_multiset
from spycfr.games.agent_avenue.numbering import DEAD, decode, scheme, scheme_size
from spycfr.games.agent_avenue.rules import ACTIVE, DECKSIZE, DLEFT, HANDSIZE, PLAY, WINNER


@njit(cache=True)
def falling(c, d):
    """The falling factorial c (c - 1) ... (c - d + 1) (1.0 for d = 0)."""
    out = 1.0
    for j in range(d):
        out *= c - j
    return out


@njit(cache=True)
def draw_scale(pub, params):
    """n^K / N^(K), K the cards drawn of N (the mover's refill not yet at a terminal): the
    model's probability of the draws against the deck's."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    a = pub[ACTIVE]
    drawn = total - pub[DECKSIZE] - (pub[HANDSIZE + a] - min(pub[HANDSIZE + a],
                                                               params.hand - 2))
    return scale_of(pub, params, drawn)


@njit(cache=True)
def scale_of(pub, params, drawn):
    """n^K / N^(K) for ``drawn`` cards out of the deck. Where the model forgets discards,
    K leaves them out: the ratio weighs the cards it knows (by exchangeability, their true
    probability whatever the discarded cards were), each discarded card taken as any name
    with probability 1/n as the model drew it (an abstraction, not exact)."""
    total = 0
    for t in range(params.n):
        total += params.copies[t]
    if params.forget:
        drawn -= 2 * params.discards - pub[DLEFT] - pub[DLEFT + 1]
    return float(params.n) ** drawn / falling(total, drawn)


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
def play_ratio(pub, params, x, y):
    """prod_t c_t^(D_t) with D = in play + the two seats' held cards x and y."""
    out = 1.0
    for t in range(params.n):
        out *= falling(params.copies[t], pub[PLAY + t] + pub[PLAY + 8 + t] + digit(x, t)
                        + digit(y, t))
    return out


@njit(cache=True)
def terminal_payoff(pub, params, i, j):
    x = _held(pub, params, 0, i)
    y = _held(pub, params, 1, j)
    if x < 0 or y < 0:
        return 0.0
    u = 1.0 if pub[WINNER] == 0 else -1.0
    return u * draw_scale(pub, params) * play_ratio(pub, params, x, y)


@njit(cache=True)
def terminal_values(pub, params, seat, opp, compat, out):
    """out[i] = sum_j u_seat(i, j) opp[j], the opponent's range bucketed by the multiset it
    holds (the payoff depends on the private states only through the held multisets)."""
    u = 1.0 if pub[WINNER] == 0 else -1.0
    if seat == 1:
        u = -u
    mine = scheme(pub, params, seat)
    theirs = scheme(pub, params, 1 - seat)
    held_values(pub, params, u * draw_scale(pub, params), mine, theirs, opp, out)


@njit(cache=True)
def held_values(pub, params, u, mine, theirs, opp, out):
    """out[i] = u sum_j ratio(x_i, y_j) opp[j], x_i and y_j the multisets held by the
    seat's state i and the opponent's state j in their numberings ``mine`` and ``theirs``
    (pending, hand size, discards): the terminal values of :func:`terminal_values`
    (advanced mode's model shares it)."""
    n = params.n
    size = theirs[1] + theirs[2]
    mass = np.zeros(multiset_count(n, size))
    for j in range(1, opp.shape[0]):
        if opp[j] != 0.0:
            y = held_code(params, theirs[0], theirs[1], theirs[2], j)
            if y >= 0:
                mass[rank_multiset(y, n, size)] += opp[j]
    live = np.flatnonzero(mass)
    codes = np.empty(live.shape[0], np.int64)
    for y in range(live.shape[0]):
        codes[y] = unrank_multiset(live[y], n, size)
    done = np.full(multiset_count(n, mine[1] + mine[2]), np.nan)
    for i in range(out.shape[0]):
        x = held_code(params, mine[0], mine[1], mine[2], i)
        if x < 0:
            out[i] = 0.0
            continue
        r = rank_multiset(x, n, mine[1] + mine[2])
        if np.isnan(done[r]):
            acc = 0.0
            for y in range(live.shape[0]):
                acc += mass[live[y]] * play_ratio(pub, params, x, codes[y])
            done[r] = u * acc
        out[i] = done[r]
