"""Range-vector kernels over the :class:`~spycfr.public.tree.PublicTree` arrays.

Down the tree (node order) each seat's range ``reach[q, s, i]``; up the tree (reverse
order) one seat's counterfactual values ``values[q, i]`` (docs/public-tree.md, "The
engine"). One up pass serves CFR (regrets accumulated at the seat's rows), best response
(max over the row's actions) and plain evaluation. An iteration of the CFR family reuses
the history tree's update rule (:func:`spycfr.cfr.kernels.update_player`) with the rows as
infosets, so every algorithm and switch is the same code. Compiled once per game: only a
terminal calls the game (``terminal_values``, its fast hook or the generic pair loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.cfr.kernels import iteration_factors, update_player
from spycfr.public import protocol as P

MODE_REGRET = 0  # values under sigma, instantaneous regrets added to the target rows
MODE_BEST = 1  # values of the seat's best response
MODE_VALUE = 2  # values under sigma only


@njit(cache=True)
def forward_range(node_player, first_child, num_children, child_mask, masks, row_start,
                  row_num, ent_kid, ent_next, ent_prob, n_s, weights, sigma, reach, seat):
    """reach[q, seat, i]: the deal's weight of the seat's private state i times its own
    action and chance probabilities on the way to q (summed over the states leading to i)."""
    for i in range(n_s):
        reach[0, seat, i] = weights[seat, i]
    for q in range(node_player.shape[0]):
        pl = node_player[q]
        if pl == P.TERMINAL:
            continue
        s0 = first_child[q]
        k = num_children[q]
        if pl == P.CHANCE:
            for a in range(k):
                c = s0 + a
                mi = child_mask[c]
                for i in range(n_s):
                    reach[c, seat, i] = reach[q, seat, i] * masks[mi, seat, i]
        elif pl == seat or pl == P.PRIVATE_CHANCE + seat:
            for a in range(k):
                for i in range(n_s):
                    reach[s0 + a, seat, i] = 0.0
            r0 = row_start[q]
            for i in range(n_s):
                x = reach[q, seat, i]
                if x == 0.0:
                    continue
                r = r0 + i
                for e in range(row_num[r]):
                    pr = sigma[r, e] if pl < 2 else ent_prob[r, e]
                    reach[s0 + ent_kid[r, e], seat, ent_next[r, e]] += x * pr
        else:  # the other seat acts or draws: nothing this seat does
            for a in range(k):
                for i in range(n_s):
                    reach[s0 + a, seat, i] = reach[q, seat, i]


@njit(cache=True)
def forward_ranges(node_player, first_child, num_children, child_mask, masks, row_start,
                   row_num, ent_kid, ent_next, ent_prob, n0, n1, weights, sigma, reach):
    """Both seats' ranges (:func:`forward_range`)."""
    forward_range(node_player, first_child, num_children, child_mask, masks, row_start,
                  row_num, ent_kid, ent_next, ent_prob, n0, weights, sigma, reach, 0)
    forward_range(node_player, first_child, num_children, child_mask, masks, row_start,
                  row_num, ent_kid, ent_next, ent_prob, n1, weights, sigma, reach, 1)


@njit(cache=True)
def backward_values(params, pub_states, node_player, first_child, num_children, child_prob,
                    child_mask, masks, row_start, row_num, ent_kid, ent_next, ent_prob, n0, n1,
                    weights, compat, inv_z, term_index, term_mat, sigma, reach, values, p, mode,
                    target):
    """values[q, i]: seat p's counterfactual value at q holding i (the other seat's range
    and chance in, p's own reach out). MODE_REGRET adds v(child, next) - v(q, i) to
    target[r, e] at p's rows. Returns p's value at the root (sum_i w_p[i] values[0, i])."""
    o = 1 - p
    n_p = n0 if p == 0 else n1
    n_o = n1 if p == 0 else n0
    for q in range(node_player.shape[0] - 1, -1, -1):
        pl = node_player[q]
        if pl == P.TERMINAL:
            t = term_index[q]
            if t >= 0:  # a dense matrix: compatibility and 1/Z folded in
                if p == 0:
                    for i in range(n0):
                        acc = 0.0
                        for j in range(n1):
                            acc += term_mat[t, i, j] * reach[q, 1, j]
                        values[q, i] = acc
                else:
                    for j in range(n1):
                        values[q, j] = 0.0
                    for i in range(n0):
                        x = reach[q, 0, i]
                        if x != 0.0:
                            for j in range(n1):
                                values[q, j] -= term_mat[t, i, j] * x
                continue
            out = values[q, :n_p]
            P.terminal_values(pub_states[q], params, p, reach[q, o, :n_o], compat, out)
            for i in range(n_p):
                out[i] *= inv_z
            continue
        s0 = first_child[q]
        k = num_children[q]
        if pl == P.CHANCE:
            for i in range(n_p):
                acc = 0.0
                for a in range(k):
                    c = s0 + a
                    acc += child_prob[c] * masks[child_mask[c], p, i] * values[c, i]
                values[q, i] = acc
        elif pl == p:
            r0 = row_start[q]
            for i in range(n_p):
                r = r0 + i
                m = row_num[r]
                if mode == MODE_BEST:
                    best = -np.inf
                    for e in range(m):
                        v = values[s0 + ent_kid[r, e], ent_next[r, e]]
                        if v > best:
                            best = v
                    values[q, i] = best
                    continue
                acc = 0.0
                for e in range(m):
                    acc += sigma[r, e] * values[s0 + ent_kid[r, e], ent_next[r, e]]
                values[q, i] = acc
                if mode == MODE_REGRET:
                    for e in range(m):
                        target[r, e] += values[s0 + ent_kid[r, e], ent_next[r, e]] - acc
        elif pl == o:
            for i in range(n_p):
                acc = 0.0
                for a in range(k):
                    acc += values[s0 + a, i]
                values[q, i] = acc
        elif pl == P.PRIVATE_CHANCE + p:
            r0 = row_start[q]
            for i in range(n_p):
                r = r0 + i
                acc = 0.0
                for e in range(row_num[r]):
                    acc += ent_prob[r, e] * values[s0, ent_next[r, e]]
                values[q, i] = acc
        else:  # the other seat's private chance: nothing p sees
            for i in range(n_p):
                values[q, i] = values[s0, i]
    total = 0.0
    for i in range(n_p):
        total += weights[p, i] * values[0, i]
    return total


@njit(cache=True)
def _row_reach(rows, row_node, row_priv, reach, p, row_reach):
    """row_reach[r, p] = p's range at the row's node and private state (the strategy-sum
    weight :func:`update_player` reads as the infoset's reach)."""
    for x in range(rows.shape[0]):
        r = rows[x]
        row_reach[r, p] = reach[row_node[r], p, row_priv[r]]


@njit(cache=True)
def run_iterations(
    params, pub_states, node_player, first_child, num_children, child_prob, child_mask, masks,
    row_start, row_num, ent_kid, ent_next, ent_prob, row_node, row_priv, row_ident, n0, n1,
    weights, compat, inv_z, term_index, term_mat, rows0, rows1,
    R, S, sigma, m, inst, row_reach, reach, values,
    t_start, n_iter, alternating, floor, discount, predictive, weight_power, alpha, beta, gamma,
):
    """Iterations t_start+1 .. t_start+n_iter of the CFR family in place (the switches of
    :func:`spycfr.cfr.kernels.algorithm_params`); returns the last iteration number."""
    target = inst if predictive else R
    # Each seat's range once per iteration: seat p's regrets need the other seat's range
    # under its current strategy and p's own (the strategy-sum weights), which p's last
    # update has not changed since it was computed for the other seat's pass.
    if n_iter > 0:
        forward_range(node_player, first_child, num_children, child_mask, masks, row_start,
                      row_num, ent_kid, ent_next, ent_prob, n0, weights, sigma, reach, 0)
    t = t_start
    for _ in range(n_iter):
        t += 1
        weight, pos_factor, neg_factor, sum_factor = iteration_factors(
            t, discount, weight_power, alpha, beta, gamma)
        for p in range(2):
            o = 1 - p
            if alternating or p == 0:
                forward_range(node_player, first_child, num_children, child_mask, masks,
                              row_start, row_num, ent_kid, ent_next, ent_prob,
                              n1 if o == 1 else n0, weights, sigma, reach, o)
            backward_values(params, pub_states, node_player, first_child, num_children,
                            child_prob, child_mask, masks, row_start, row_num, ent_kid, ent_next,
                            ent_prob, n0, n1, weights, compat, inv_z, term_index, term_mat,
                            sigma, reach, values, p, MODE_REGRET, target)
            if alternating:
                rows = rows0 if p == 0 else rows1
                _row_reach(rows, row_node, row_priv, reach, p, row_reach)
                update_player(rows, row_ident, row_num, row_reach, p, R, S, sigma, m, inst,
                              floor, discount, predictive, weight, pos_factor, neg_factor,
                              sum_factor)
        if not alternating:
            for p in range(2):
                rows = rows0 if p == 0 else rows1
                _row_reach(rows, row_node, row_priv, reach, p, row_reach)
                update_player(rows, row_ident, row_num, row_reach, p, R, S, sigma, m, inst,
                              floor, discount, predictive, weight, pos_factor, neg_factor,
                              sum_factor)
            forward_range(node_player, first_child, num_children, child_mask, masks,
                          row_start, row_num, ent_kid, ent_next, ent_prob, n0, weights,
                          sigma, reach, 0)
    return t


@njit(cache=True)
def seat_values(
    params, pub_states, node_player, first_child, num_children, child_prob, child_mask, masks,
    row_start, row_num, ent_kid, ent_next, ent_prob, n0, n1, weights, compat, inv_z, term_index,
    term_mat, sigma, mode,
):
    """(seat 0's, seat 1's) value of ``sigma`` (MODE_VALUE) or of each seat's best response
    to it (MODE_BEST)."""
    nmax = max(n0, n1)
    n = node_player.shape[0]
    reach = np.zeros((n, 2, nmax))
    values = np.zeros((n, nmax))
    no_target = np.zeros((0, 0))
    forward_ranges(node_player, first_child, num_children, child_mask, masks, row_start,
                   row_num, ent_kid, ent_next, ent_prob, n0, n1, weights, sigma, reach)
    out = np.zeros(2)
    for p in range(2):
        out[p] = backward_values(params, pub_states, node_player, first_child, num_children,
                                 child_prob, child_mask, masks, row_start, row_num, ent_kid,
                                 ent_next, ent_prob, n0, n1, weights, compat, inv_z, term_index,
                                 term_mat, sigma, reach, values, p, mode, no_target)
    return out
