"""Range-vector passes over a :class:`~spycfr.search.tree.Subtree` (numba, flat arrays).

One seat at a time: ``forward`` writes the seat's reach at every node from its strategy,
chance masks and private chance; ``backward`` writes the seat's counterfactual values from
the other seat's reach (the seat's own decisions weighted by its strategy, or maximised for a
best response); ``regrets`` applies one CFR+ update and accumulates the average strategy.
Reach excludes public chance probabilities, which enter the values on the way up (so a node's
values and reaches are those of the node taken as a root). Conventions as docs/public-tree.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL
from spycfr.search.tree import LEAF


@njit(cache=True)
def forward(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
            sigma, root_reach, r):
    """``r[node, i]``: seat's reach of private state i at each node (``sigma`` its strategy
    rows)."""
    _forward(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
             sigma, 0, root_reach, None, None, r)


@njit(cache=True)
def forward_from(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
                 sigma, start, start_reach, r):
    """:func:`forward` from node ``start`` with reach ``start_reach`` there: the reach at
    every node below it (0 at every other node: a node's children come after it)."""
    _forward(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
             sigma, start, start_reach, None, None, r)


@njit(cache=True)
def _forward(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
             sigma, start, start_reach, lp, li, r):
    """The reach pass of :func:`forward_from` (``lp`` None: every private state) and of
    :func:`forward_live` (``start`` 0; ``lp``/``li`` the live lists). ``lp is None`` is
    decided when numba compiles (it prunes the other branch), so each rule is written once
    and the full pass pays nothing for the live one."""
    if lp is None:
        r[:, :] = 0.0
        r[start, :] = start_reach
    else:
        for y in range(lp[start], lp[start + 1]):
            r[start, li[y]] = start_reach[li[y]]
    for n in range(start, kind.shape[0]):
        k = kind[n]
        f = first[n]
        if k == TERMINAL or k == LEAF:
            continue
        if k == seat or k == PRIVATE_CHANCE + seat:
            if lp is not None:
                # the children's live entries are written only through these rows: clear them
                for c in range(f, f + count[n]):
                    for y in range(lp[c], lp[c + 1]):
                        r[c, li[y]] = 0.0
            q = row[n]
            lo, hi = _span(lp, n, r.shape[1])
            for y in range(lo, hi):
                i = y if li is None else li[y]
                x = r[n, i]
                if x == 0.0:
                    continue
                if k == seat:
                    for e in range(row_count[q, i]):
                        r[f + row_kid[q, i, e], row_next[q, i, e]] += x * sigma[q, i, e]
                else:
                    for e in range(row_count[q, i]):
                        r[f, row_next[q, i, e]] += x * row_prob[q, i, e]
        elif k == CHANCE:
            for c in range(f, f + count[n]):
                lo, hi = _span(lp, c, r.shape[1])
                for y in range(lo, hi):
                    i = y if li is None else li[y]
                    r[c, i] = r[n, i] * mask[c, i]
        else:  # the other seat's decision or private chance: seat's range passes unchanged
            for c in range(f, f + count[n]):
                lo, hi = _span(lp, c, r.shape[1])
                for y in range(lo, hi):
                    i = y if li is None else li[y]
                    r[c, i] = r[n, i]


@njit(cache=True, inline="always")
def _span(lp, n, size):
    """The positions of node ``n``'s private states in its live list ``lp`` (None: every
    state, 0 to ``size``)."""
    if lp is None:
        return 0, size
    return lp[n], lp[n + 1]


@njit(cache=True)
def backward(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
             row_count, term, payoff, z, sigma, opp_reach, leaf_index, leaf_values, best, v):
    """``v[node, i]``: seat's counterfactual value of private state i at each node, against
    the other seat's reach ``opp_reach``; a best response where ``best``. At a terminal only
    the opponent's private states it reaches are summed (the same sums: Agent Avenue's
    terminals are reached by a few of 201 private states a seat)."""
    _backward(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
              row_count, term, payoff, z, sigma, opp_reach, leaf_index, leaf_values, best,
              None, None, None, None, v)


@njit(cache=True)
def _backward(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
              row_count, term, payoff, z, sigma, opp_reach, leaf_index, leaf_values, best,
              lp, li, op, oi, v):
    """The value pass of :func:`backward` (``lp``, ``li``, ``op``, ``oi`` None: every
    private state) and of :func:`backward_live` (seat's live lists, the other seat's);
    pruned when numba compiles, as :func:`_forward`."""
    live = np.empty(opp_reach.shape[1], np.int64)
    for n in range(kind.shape[0] - 1, -1, -1):
        k = kind[n]
        f = first[n]
        lo, hi = _span(lp, n, v.shape[1])
        if k == TERMINAL:
            t = term[n]
            m = 0
            olo, ohi = _span(op, n, opp_reach.shape[1])
            for y in range(olo, ohi):
                j = y if oi is None else oi[y]
                if opp_reach[n, j] != 0.0:
                    live[m] = j
                    m += 1
            if seat == 0:
                for y in range(lo, hi):
                    i = y if li is None else li[y]
                    acc = 0.0
                    for x in range(m):
                        j = live[x]
                        acc += payoff[t, i, j] * opp_reach[n, j]
                    v[n, i] = acc / z
            else:
                for y in range(lo, hi):
                    i = y if li is None else li[y]
                    acc = 0.0
                    for x in range(m):
                        j = live[x]
                        acc -= payoff[t, j, i] * opp_reach[n, j]
                    v[n, i] = acc / z
        elif k == LEAF:
            lv = leaf_index[n]
            for y in range(lo, hi):
                i = y if li is None else li[y]
                v[n, i] = leaf_values[lv, i]
        elif k == seat:
            q = row[n]
            for y in range(lo, hi):
                i = y if li is None else li[y]
                acc = -np.inf if best else 0.0
                for e in range(row_count[q, i]):
                    x = v[f + row_kid[q, i, e], row_next[q, i, e]]
                    if best:
                        acc = max(acc, x)
                    else:
                        acc += sigma[q, i, e] * x
                v[n, i] = acc if row_count[q, i] > 0 else 0.0
        elif k == PRIVATE_CHANCE + seat:
            q = row[n]
            for y in range(lo, hi):
                i = y if li is None else li[y]
                acc = 0.0
                for e in range(row_count[q, i]):
                    acc += row_prob[q, i, e] * v[f, row_next[q, i, e]]
                v[n, i] = acc
        elif k == CHANCE:
            for y in range(lo, hi):
                i = y if li is None else li[y]
                acc = 0.0
                for c in range(f, f + count[n]):
                    acc += prob[c] * mask[c, i] * v[c, i]
                v[n, i] = acc
        else:
            for y in range(lo, hi):
                i = y if li is None else li[y]
                acc = 0.0
                for c in range(f, f + count[n]):
                    acc += v[c, i]
                v[n, i] = acc


@njit(cache=True)
def regrets(seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight, regret,
            sigma, avg):
    """CFR+ at seat's decisions: regrets from ``v``, floored at 0; ``avg`` += weight * reach *
    sigma; then ``sigma`` = regret matching on the new regrets."""
    _seat_rows(False, seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight,
               regret, sigma, avg, None, None)


@njit(cache=True)
def best_rows(seat, kind, first, row, row_kid, row_next, row_count, v, sigma):
    """Seat's rows of ``sigma`` made a pure best response to the values ``v`` (the first of
    the best actions)."""
    _seat_rows(True, seat, kind, first, row, row_kid, row_next, row_count, v, v, 0.0, sigma,
               sigma, sigma, None, None)


@njit(cache=True)
def _seat_rows(best, seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight,
               regret, sigma, avg, lp, li):
    """Seat's rows of ``sigma`` from its action values in ``v``: a pure best response
    (``best``; ``reach``, ``weight``, ``regret`` and ``avg`` unused) or one CFR+ step; on
    every private state's row (``lp``, ``li`` None) or on those of each node's live states
    (pruned when numba compiles, as :func:`_forward`)."""
    for n in range(kind.shape[0]):
        if kind[n] != seat:
            continue
        q = row[n]
        f = first[n]
        lo, hi = _span(lp, n, v.shape[1])
        for y in range(lo, hi):
            i = y if li is None else li[y]
            m = row_count[q, i]
            if m == 0:
                continue
            if best:
                b = 0
                for e in range(1, m):
                    if v[f + row_kid[q, i, e], row_next[q, i, e]] > v[
                            f + row_kid[q, i, b], row_next[q, i, b]]:
                        b = e
                for e in range(m):
                    sigma[q, i, e] = 1.0 if e == b else 0.0
                continue
            _regret_row(n, q, i, m, f, row_kid, row_next, v, reach, weight, regret, sigma, avg)


@njit(cache=True, inline="always")
def _regret_row(n, q, i, m, f, row_kid, row_next, v, reach, weight, regret, sigma, avg):
    """One CFR+ step on row ``q`` (decision node ``n``, first child ``f``) for private state
    ``i`` and its ``m`` > 0 actions: ``avg`` += weight * reach * sigma, the regrets from
    ``v`` floored at 0, then ``sigma`` = regret matching on them (uniform where all are 0).
    The step of :func:`_seat_rows` (:func:`regrets`, :func:`regrets_live`); inlined
    (``inline="always"``): called per row it made both 1.4-1.6x slower
    (benchmarks/README.md)."""
    x = reach[n, i]
    total = 0.0
    for e in range(m):
        avg[q, i, e] += weight * x * sigma[q, i, e]
        g = regret[q, i, e] + v[f + row_kid[q, i, e], row_next[q, i, e]] - v[n, i]
        g = max(g, 0.0)
        regret[q, i, e] = g
        total += g
    for e in range(m):
        sigma[q, i, e] = regret[q, i, e] / total if total > 0.0 else 1.0 / m


@njit(cache=True)
def uniform(kind, row, row_count, sigma):
    """Every row of every decision uniform over its actions: what :func:`normalise` writes
    from an all-zero average and current strategy (1/m, the same bits), without making
    that zero array (the size of the whole strategy: tens of ms a call on advanced mode)."""
    for n in range(kind.shape[0]):
        if kind[n] != 0 and kind[n] != 1:
            continue
        q = row[n]
        for i in range(row_count.shape[1]):
            m = row_count[q, i]
            for e in range(m):
                sigma[q, i, e] = 1.0 / m


@njit(cache=True)
def normalise(kind, row, row_count, avg, current, out):
    """The average strategy: each row of ``avg`` normalised. A row never reached (all 0: a
    private state the seat's range excludes, such as a queried placement off the opening
    mixture) takes the last ``current`` strategy, whose regrets do not depend on the seat's
    own reach, or uniform where that is all 0 too."""
    for n in range(kind.shape[0]):
        if kind[n] != 0 and kind[n] != 1:
            continue
        q = row[n]
        for i in range(row_count.shape[1]):
            m = row_count[q, i]
            total = 0.0
            for e in range(m):
                total += avg[q, i, e]
            src = avg
            if total <= 0.0:
                src = current
                for e in range(m):
                    total += current[q, i, e]
            for e in range(m):
                out[q, i, e] = src[q, i, e] / total if total > 0.0 else 1.0 / m


@njit(cache=True)
def _seat_pass(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
               row_count, term, payoff, z, sigma, opp_reach, weight, regret, avg, reach, v,
               no_leaf, no_values):
    backward(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob, row_count,
             term, payoff, z, sigma, opp_reach, no_leaf, no_values, False, v)
    regrets(seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight, regret,
            sigma, avg)


@njit(cache=True)
def cfr_plus(kind, first, count, prob, mask0, mask1, row, row_kid, row_next, row_prob,
             row_count, term, payoff, z, it_from, it_to, root0, root1, opponent, alt, support,
             sigma, regret, avg, reach0, reach1, v0, v1, enter, g_regret, enter_avg):
    """Iterations ``it_from`` to ``it_to`` (inclusive) of alternating CFR+ (linear averaging)
    on a subtree without leaves, all in numba, resumable: a solve may run in chunks (its
    progress told between them); with ``opponent`` >= 0 the re-solving gadget for that seat
    (``alt`` its values for leaving, ``support`` where it can be, ``enter`` its current entry
    probabilities, ``g_regret`` (J, 2) its regrets and ``enter_avg`` the entries' weighted
    sum, all carried from chunk to chunk). What :func:`spycfr.search.resolve.solve` does step
    by step."""
    no_leaf = np.zeros(1, np.int64)
    no_values = np.zeros((1, 1))
    for it in range(it_from, it_to + 1):
        for seat in range(2):
            if opponent == 0:
                root0[:] = enter * support
            elif opponent == 1:
                root1[:] = enter * support
            forward(0, kind, first, count, mask0, row, row_kid, row_next, row_prob, row_count,
                    sigma, root0, reach0)
            forward(1, kind, first, count, mask1, row, row_kid, row_next, row_prob, row_count,
                    sigma, root1, reach1)
            if seat == 0:
                _seat_pass(0, kind, first, count, prob, mask0, row, row_kid, row_next, row_prob,
                           row_count, term, payoff, z, sigma, reach1, float(it), regret, avg,
                           reach0, v0, no_leaf, no_values)
                v = v0
            else:
                _seat_pass(1, kind, first, count, prob, mask1, row, row_kid, row_next, row_prob,
                           row_count, term, payoff, z, sigma, reach0, float(it), regret, avg,
                           reach1, v1, no_leaf, no_values)
                v = v1
            if seat == opponent:
                gadget_step(it, alt, v[0], enter, g_regret, enter_avg)


@njit(cache=True)
def gadget_step(it, alt, root_values, enter, g_regret, enter_avg):
    """The re-solving gadget's CFR+ step at iteration ``it``, after its opponent's pass
    (``root_values`` the opponent's values at the subgame's root), for each of its private
    states j: ``enter_avg`` += it * enter, the regrets of leaving (for ``alt[j]``) and of
    entering floored at 0, then ``enter`` = regret matching on them (0.5 where both are 0).
    Both loops of a solve take it: :func:`cfr_plus` and spycfr.search.resolve.solve's."""
    for j in range(alt.shape[0]):
        enter_avg[j] += it * enter[j]
        u = (1.0 - enter[j]) * alt[j] + enter[j] * root_values[j]
        g_regret[j, 0] = max(g_regret[j, 0] + alt[j] - u, 0.0)
        g_regret[j, 1] = max(g_regret[j, 1] + root_values[j] - u, 0.0)
        total = g_regret[j, 0] + g_regret[j, 1]
        enter[j] = g_regret[j, 1] / total if total > 0.0 else 0.5


# --- the passes over each node's live private states ----------------------------------------
#
# A subgame's ranges hold few of a seat's private states at each node (Agent Avenue advanced:
# 260-331 of 2,641): ``lp``/``li`` list, per node n, the states ``li[lp[n]:lp[n + 1]]`` that
# some play leads to from the root's range (spycfr.search.tree.reachable; a CSR of its rows).
# The passes below visit those alone: each is the full pass's kernel (_forward, _backward,
# _seat_rows) given the lists, where the full pass gives None. Their reaches and values
# there are the full passes' (a reach outside them is 0, a node's values there read only its
# children's live states); outside them they write nothing (the caller's zeros stay), and
# ``regrets_live`` leaves those rows' strategies as they are (the full passes update rows
# that no play reaches too).


@njit(cache=True)
def live_lists(r):
    """(``lp``, ``li``): the CSR lists of the True entries of each row of ``r`` (nodes x
    private states)."""
    lp = np.zeros(r.shape[0] + 1, np.int64)
    m = 0
    for n in range(r.shape[0]):
        for i in range(r.shape[1]):
            if r[n, i]:
                m += 1
        lp[n + 1] = m
    li = np.empty(m, np.int64)
    m = 0
    for n in range(r.shape[0]):
        for i in range(r.shape[1]):
            if r[n, i]:
                li[m] = i
                m += 1
    return lp, li


@njit(cache=True)
def forward_live(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
                 sigma, root_reach, lp, li, r):
    """:func:`forward` over each node's live states (``r`` 0 elsewhere: not written)."""
    _forward(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
             sigma, 0, root_reach, lp, li, r)


@njit(cache=True)
def backward_live(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
                  row_count, term, payoff, z, sigma, opp_reach, leaf_index, leaf_values, best,
                  lp, li, op, oi, v):
    """:func:`backward` over each node's live states (``lp``/``li``: seat's; ``op``/``oi``:
    the other seat's, whose reach the terminals sum over); ``v`` 0 elsewhere: not written."""
    _backward(seat, kind, first, count, prob, mask, row, row_kid, row_next, row_prob,
              row_count, term, payoff, z, sigma, opp_reach, leaf_index, leaf_values, best,
              lp, li, op, oi, v)


@njit(cache=True)
def regrets_live(seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight,
                 regret, sigma, avg, lp, li):
    """:func:`regrets` on the rows of each node's live states."""
    _seat_rows(False, seat, kind, first, row, row_kid, row_next, row_count, v, reach, weight,
               regret, sigma, avg, lp, li)
