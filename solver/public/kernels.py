"""Range-vector kernels over the :class:`~spycfr.public.tree.PublicTree` arrays.

Ranges and values are flat over the tree's live entries (one per node, seat and private
state the public history allows), so a pass costs the live entries, not nodes x private
states. Down the tree (node order) a seat's range ``reach[e]``; up the tree (reverse order)
one seat's counterfactual values ``values[e]`` (docs/public-tree.md, "The engine"). One up
pass serves CFR (regrets accumulated at the seat's rows), best response (max over the row's
actions) and plain evaluation. An iteration of the CFR family runs the history tree's
update rule (:func:`spycfr.cfr.kernels.update_player`, written out over flat cells in
:func:`update_rows`) with the rows as infosets, so every algorithm and switch is the same.
Tables are flat over the rows' cells, each row at its own width (``row_off``). Compiled
once per game: only a terminal without a precomputed block calls the game
(``terminal_values``, its fast hook or the pair loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.cfr.kernels import iteration_factors
from spycfr.public import protocol as P

MODE_REGRET = 0  # values under sigma, instantaneous regrets added to the target rows
MODE_BEST = 1  # values of the seat's best response
MODE_VALUE = 2  # values under sigma only


@njit(cache=True)
def forward_range(node_player, first_child, num_children, live_start, live_priv, live_up,
                  live_mask, row_start, row_off, row_entry, ent_to, ent_prob, weights, sigma,
                  reach, seat):
    """reach[e] over seat's entries: the deal's weight of the entry's private state times
    the seat's own action and chance probabilities on the way (summed over the states that
    lead to it)."""
    for e in range(live_start[seat, 0], live_start[seat, 1]):
        reach[e] = weights[seat, live_priv[e]]
    for q in range(node_player.shape[0]):
        pl = node_player[q]
        k = num_children[q]
        if k == 0:  # terminal, dead or a dead-end chance node
            continue
        s0 = first_child[q]
        lo = live_start[seat, s0]
        hi = live_start[seat, s0 + k]
        if pl == seat or pl == P.PRIVATE_CHANCE + seat:
            for e in range(lo, hi):
                reach[e] = 0.0
            r0 = row_start[q]
            for r in range(r0, r0 + live_start[seat, q + 1] - live_start[seat, q]):
                x = reach[row_entry[r]]
                if x == 0.0:
                    continue
                for c in range(row_off[r], row_off[r + 1]):
                    pr = sigma[c] if pl < 2 else ent_prob[c]
                    reach[ent_to[c]] += x * pr
        else:  # chance (masks) or the other seat's move: passed on
            for e in range(lo, hi):
                reach[e] = reach[live_up[e]] * live_mask[e]


@njit(cache=True, inline="always")
def terminal_block(term_vals, t, reach, values, lo0, l0, lo1, l1, p):
    """p's values at a terminal from its block (``term_vals[t + x * l1 + y]``: seat 0's
    payoff / Z at live pair (x, y)) and the other seat's reach. Inlined (numba IR): a
    called helper would reference-count its array arguments at every terminal."""
    if p == 0:
        for x in range(l0):
            acc = 0.0
            b = t + x * l1
            for y in range(l1):
                acc += term_vals[b + y] * reach[lo1 + y]
            values[lo0 + x] = acc
    else:
        for y in range(l1):
            values[lo1 + y] = 0.0
        for x in range(l0):
            r = reach[lo0 + x]
            if r != 0.0:
                b = t + x * l1
                for y in range(l1):
                    values[lo1 + y] -= term_vals[b + y] * r


@njit(cache=True)
def backward_values(params, pub_states, node_player, first_child, num_children, child_prob,
                    live_start, live_priv, live_up, live_mask, row_start, row_off, row_entry,
                    ent_to, ent_prob, n0, n1, weights, compat, inv_z, term_index, term_vals,
                    sigma, reach, values, p, mode, target):
    """values[e] over p's entries: p's counterfactual value at the entry's node holding its
    private state (the other seat's range and chance in, p's own reach out). MODE_REGRET adds
    v(child entry) - v(entry) to target[c] at the cells of p's rows. Returns p's value at the
    root."""
    o = 1 - p
    opp = np.zeros(n1 if p == 0 else n0)
    out = np.zeros(n0 if p == 0 else n1)
    for q in range(node_player.shape[0] - 1, -1, -1):
        pl = node_player[q]
        lo = live_start[p, q]
        hi = live_start[p, q + 1]
        if pl == P.TERMINAL:
            lo0 = live_start[0, q]
            l0 = live_start[0, q + 1] - lo0
            lo1 = live_start[1, q]
            l1 = live_start[1, q + 1] - lo1
            t = term_index[q]
            if t >= 0:  # a block over the live pairs: compatibility and 1/Z folded in
                terminal_block(term_vals, t, reach, values, lo0, l0, lo1, l1, p)
                continue
            # The game's hook on dense vectors (opp is zero outside the live entries).
            ol = live_start[o, q]
            oh = live_start[o, q + 1]
            for e in range(ol, oh):
                opp[live_priv[e]] = reach[e]
            P.terminal_values(pub_states[q], params, p, opp, compat, out)
            for e in range(lo, hi):
                values[e] = out[live_priv[e]] * inv_z
            for e in range(ol, oh):
                opp[live_priv[e]] = 0.0
            continue
        k = num_children[q]
        s0 = first_child[q]
        if pl == p:
            r0 = row_start[q]
            for r in range(r0, r0 + hi - lo):
                c0 = row_off[r]
                c1 = row_off[r + 1]
                if mode == MODE_BEST:
                    best = -np.inf
                    for c in range(c0, c1):
                        v = values[ent_to[c]]
                        if v > best:
                            best = v
                    values[lo + r - r0] = best
                    continue
                acc = 0.0
                for c in range(c0, c1):
                    acc += sigma[c] * values[ent_to[c]]
                values[lo + r - r0] = acc
                if mode == MODE_REGRET:
                    for c in range(c0, c1):
                        target[c] += values[ent_to[c]] - acc
        elif pl == P.PRIVATE_CHANCE + p:
            r0 = row_start[q]
            for r in range(r0, r0 + hi - lo):
                acc = 0.0
                for c in range(row_off[r], row_off[r + 1]):
                    acc += ent_prob[c] * values[ent_to[c]]
                values[lo + r - r0] = acc
        else:  # chance or the other seat's move: the children's values, summed back
            for e in range(lo, hi):
                values[e] = 0.0
            for c in range(s0, s0 + k):
                w = child_prob[c]
                for e in range(live_start[p, c], live_start[p, c + 1]):
                    values[live_up[e]] += w * live_mask[e] * values[e]
    total = 0.0
    for e in range(live_start[p, 0], live_start[p, 1]):
        total += weights[p, live_priv[e]] * values[e]
    return total


@njit(cache=True)
def update_rows(rows, row_entry, row_off, reach, R, S, sigma, m, inst, floor, discount,
                predictive, weight, pos_factor, neg_factor, sum_factor):
    """:func:`spycfr.cfr.kernels.update_player` on the given rows of flat tables (row r's
    actions are the cells ``row_off[r] .. row_off[r + 1] - 1``; its reach is that of its
    entry): strategy sums, regrets (and predictions), regret matching. Switch for switch the
    same rule; tests/test_public_tree.py checks every algorithm against the history solver."""
    for i in range(rows.shape[0]):
        r = rows[i]
        c0 = row_off[r]
        c1 = row_off[r + 1]
        w = weight * reach[row_entry[r]]
        if w != 0.0:
            for c in range(c0, c1):
                S[c] += w * sigma[c]
        total = 0.0
        for c in range(c0, c1):
            x = R[c]
            if predictive:
                x += inst[c]
            if floor and x < 0.0:
                x = 0.0
            if discount:
                if x > 0.0:
                    x *= pos_factor
                elif x < 0.0:
                    x *= neg_factor
            R[c] = x
            if predictive:
                m[c] = inst[c]
                inst[c] = 0.0
                x += m[c]
            if x > 0.0:
                total += x
        if discount:
            for c in range(c0, c1):
                S[c] *= sum_factor
        if total > 0.0:
            for c in range(c0, c1):
                x = R[c] + m[c] if predictive else R[c]
                sigma[c] = x / total if x > 0.0 else 0.0
        else:
            for c in range(c0, c1):
                sigma[c] = 1.0 / (c1 - c0)


@njit(cache=True)
def average_cells(S, row_off):
    """Each row's strategy sums normalised; uniform where a row sums to 0."""
    out = np.zeros_like(S)
    for r in range(row_off.shape[0] - 1):
        c0 = row_off[r]
        c1 = row_off[r + 1]
        total = 0.0
        for c in range(c0, c1):
            total += S[c]
        for c in range(c0, c1):
            out[c] = S[c] / total if total > 0.0 else 1.0 / (c1 - c0)
    return out


@njit(cache=True)
def run_iterations(
    params, pub_states, node_player, first_child, num_children, child_prob, live_start,
    live_priv, live_up, live_mask, row_start, row_off, row_entry, ent_to, ent_prob, n0, n1,
    weights, compat, inv_z, term_index, term_vals, rows0, rows1,
    R, S, sigma, m, inst, reach, values,
    t_start, n_iter, alternating, floor, discount, predictive, weight_power, alpha, beta, gamma,
):
    """Iterations t_start+1 .. t_start+n_iter of the CFR family in place (the switches of
    :func:`spycfr.cfr.kernels.algorithm_params`); returns the last iteration number."""
    target = inst if predictive else R
    # Each seat's range once per iteration: seat p's regrets need the other seat's range
    # under its current strategy and p's own (the strategy-sum weights), which p's last
    # update has not changed since it was computed for the other seat's pass.
    if n_iter > 0:
        forward_range(node_player, first_child, num_children, live_start, live_priv, live_up,
                      live_mask, row_start, row_off, row_entry, ent_to, ent_prob, weights,
                      sigma, reach, 0)
    t = t_start
    for _ in range(n_iter):
        t += 1
        weight, pos_factor, neg_factor, sum_factor = iteration_factors(
            t, discount, weight_power, alpha, beta, gamma)
        for p in range(2):
            if alternating or p == 0:
                forward_range(node_player, first_child, num_children, live_start, live_priv,
                              live_up, live_mask, row_start, row_off, row_entry, ent_to,
                              ent_prob, weights, sigma, reach, 1 - p)
            backward_values(params, pub_states, node_player, first_child, num_children,
                            child_prob, live_start, live_priv, live_up, live_mask, row_start,
                            row_off, row_entry, ent_to, ent_prob, n0, n1, weights, compat,
                            inv_z, term_index, term_vals, sigma, reach, values, p, MODE_REGRET,
                            target)
            if alternating:
                update_rows(rows0 if p == 0 else rows1, row_entry, row_off, reach, R, S, sigma,
                            m, inst, floor, discount, predictive, weight, pos_factor,
                            neg_factor, sum_factor)
        if not alternating:
            for p in range(2):
                update_rows(rows0 if p == 0 else rows1, row_entry, row_off, reach, R, S, sigma,
                            m, inst, floor, discount, predictive, weight, pos_factor,
                            neg_factor, sum_factor)
            forward_range(node_player, first_child, num_children, live_start, live_priv,
                          live_up, live_mask, row_start, row_off, row_entry, ent_to, ent_prob,
                          weights, sigma, reach, 0)
    return t


@njit(cache=True)
def seat_values(
    params, pub_states, node_player, first_child, num_children, child_prob, live_start,
    live_priv, live_up, live_mask, row_start, row_off, row_entry, ent_to, ent_prob, n0, n1,
    weights, compat, inv_z, term_index, term_vals, sigma, mode,
):
    """(seat 0's, seat 1's) value of ``sigma`` (MODE_VALUE) or of each seat's best response
    to it (MODE_BEST)."""
    n = live_priv.shape[0]
    reach = np.zeros(n)
    values = np.zeros(n)
    no_target = np.zeros((0, 0))
    for s in range(2):
        forward_range(node_player, first_child, num_children, live_start, live_priv, live_up,
                      live_mask, row_start, row_off, row_entry, ent_to, ent_prob, weights,
                      sigma, reach, s)
    out = np.zeros(2)
    for p in range(2):
        out[p] = backward_values(params, pub_states, node_player, first_child, num_children,
                                 child_prob, live_start, live_priv, live_up, live_mask,
                                 row_start, row_off, row_entry, ent_to, ent_prob, n0, n1,
                                 weights, compat, inv_z, term_index, term_vals, sigma, reach,
                                 values, p, mode, no_target)
    return out
