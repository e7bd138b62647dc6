"""numba.cuda twins of the public tree's range-vector kernels (:mod:`spycfr.public.kernels`),
on the layout of :mod:`spycfr.public.gpu` (imported only when a GPU run is asked for: it
imports numba.cuda).

One thread per range entry of one depth (forward and up passes) or per row (updates): the
CPU's node-order loops split only where their operations are independent. Where the CPU
scatters into an entry (``reach[ent_to[c]] += ...`` after a private transition; the
children's values summed back into ``values[live_up[e]]``) the thread gathers through an
index that lists the sources in the CPU's order, with correctly rounded adds and multiplies
(:mod:`spycfr.cfr.gpu_kernels`: no fused multiply-add), so every value is the CPU's bit for
bit.
"""

from __future__ import annotations

import math

from spycfr.cfr.gpu_kernels import SIMULATOR, add, cuda, mul, sub, update_infoset
from spycfr.public.kernels import MODE_BEST, MODE_REGRET
from spycfr.public.protocol import PRIVATE_CHANCE, TERMINAL

__all__ = ["SIMULATOR", "cuda"]


@cuda.jit(cache=True)
def forward_level(lo, hi, entry_node, live_priv, live_up, live_mask, src_start, src_cell,
                  cell_row, row_entry, row_chance, ent_prob, weights, sigma, seat, reach):
    """forward_range on the entries lo..hi-1 (one seat, one depth): a root entry its deal
    weight, a passed-on entry its parent entry's reach times the mask, an entry a row leads
    to the sum over those cells (src_cell, in cell order: the CPU's) of the row's reach times
    the action's (or private chance's) probability."""
    e = lo + cuda.grid(1)
    if e >= hi:
        return
    up = live_up[e]
    if up >= 0:
        reach[e] = mul(reach[up], live_mask[e])
        return
    if entry_node[e] == 0:
        reach[e] = weights[seat, live_priv[e]]
        return
    acc = 0.0
    for i in range(src_start[e], src_start[e + 1]):
        c = src_cell[i]
        r = cell_row[c]
        x = reach[row_entry[r]]
        if x == 0.0:
            continue
        pr = ent_prob[c] if row_chance[r] else sigma[c]
        acc = add(acc, mul(x, pr))
    reach[e] = acc


@cuda.jit(cache=True)
def backward_level(lo, hi, p, entry_node, node_player, node_prob, live_start, live_mask,
                   row_start, row_off, ent_to, ent_prob, down_start, down_entry, term_index,
                   term_vals, sigma, reach, values, mode, target):
    """backward_values on seat p's entries lo..hi-1 of one depth (their children are done):
    a terminal's block against the other seat's range, a row's expectation (or best action;
    MODE_REGRET adds each action's regret to ``target``), or the children's entries that pass
    this one on, summed in the CPU's order (down_entry)."""
    e = lo + cuda.grid(1)
    if e >= hi:
        return
    q = entry_node[e]
    pl = node_player[q]
    if pl == TERMINAL:
        t = term_index[q]
        lo0 = live_start[0, q]
        l0 = live_start[0, q + 1] - lo0
        lo1 = live_start[1, q]
        l1 = live_start[1, q + 1] - lo1
        if p == 0:
            x = e - lo0
            b = t + x * l1
            acc = 0.0
            for y in range(l1):
                acc = add(acc, mul(term_vals[b + y], reach[lo1 + y]))
            values[e] = acc
        else:
            y = e - lo1
            acc = 0.0
            for x in range(l0):
                r = reach[lo0 + x]
                if r != 0.0:
                    acc = sub(acc, mul(term_vals[t + x * l1 + y], r))
            values[e] = acc
        return
    if pl == p or pl == PRIVATE_CHANCE + p:
        row = row_start[q] + e - live_start[p, q]
        c0 = row_off[row]
        c1 = row_off[row + 1]
        if pl == p and mode == MODE_BEST:
            best = -math.inf
            for c in range(c0, c1):
                v = values[ent_to[c]]
                if v > best:
                    best = v
            values[e] = best
            return
        acc = 0.0
        for c in range(c0, c1):
            pr = sigma[c] if pl == p else ent_prob[c]
            acc = add(acc, mul(pr, values[ent_to[c]]))
        values[e] = acc
        if pl == p and mode == MODE_REGRET:
            for c in range(c0, c1):
                target[c] = add(target[c], sub(values[ent_to[c]], acc))
        return
    acc = 0.0
    for i in range(down_start[e], down_start[e + 1]):
        d = down_entry[i]
        acc = add(acc, mul(mul(node_prob[entry_node[d]], live_mask[d]), values[d]))
    values[e] = acc


@cuda.jit(cache=True)
def update_rows(lo, hi, rows, row_entry, row_off, reach, R, S, sigma, m, inst, floor, discount,
                predictive, weight, pos_factor, neg_factor, sum_factor):
    """spycfr.public.kernels.update_rows, one thread per row rows[lo:hi]: the history
    backend's step on one infoset (update_infoset), the row's cells as the infoset's."""
    i = lo + cuda.grid(1)
    if i >= hi:
        return
    r = rows[i]
    c0 = row_off[r]
    update_infoset(c0, row_off[r + 1] - c0, mul(weight, reach[row_entry[r]]), R, S, sigma, m,
                   inst, floor, discount, predictive, pos_factor, neg_factor, sum_factor)


@cuda.jit(cache=True)
def average_cells(S, row_off, out):
    """spycfr.public.kernels.average_cells, one thread per row."""
    r = cuda.grid(1)
    if r >= row_off.shape[0] - 1:
        return
    c0 = row_off[r]
    c1 = row_off[r + 1]
    total = 0.0
    for c in range(c0, c1):
        total = add(total, S[c])
    for c in range(c0, c1):
        out[c] = S[c] / total if total > 0.0 else 1.0 / (c1 - c0)
