"""numba.cuda kernels of the CFR family and of the best response, on the breadth-first tree
of :mod:`spycfr.cfr.gpu` (imported only when a GPU run is asked for: it imports numba.cuda).

Every kernel repeats the floating-point operations of its CPU twin (solver/cfr/kernels.py,
solver/tree/passes.py, solver/exact/best_response.py) in the same order, with correctly
rounded adds and multiplies (libdevice ``dadd_rn``/``dmul_rn``): left to itself the CUDA
compiler fuses ``a * b + c`` into one fused multiply-add, whose single rounding differs in
the last bit, and CFR+ amplifies such differences. Parallel work is only ever split where
the CPU's operations are independent: nodes of one depth, infosets of one player.

The tables are flat on the GPU (no padding to the widest infoset): action a of infoset j is
cell ``cell_start[j] + a``; a decision node's ``node_cell`` is its infoset's first cell, a chance
node's its first outcome in ``chance_prob``.
"""

from __future__ import annotations

import warnings

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still calls np.row_stack (gone in numpy 2.5)
    np.row_stack = np.vstack

from numba import config, cuda  # noqa: E402

from spycfr.tree import CHANCE  # noqa: E402

# A pass launches one kernel per depth of the tree, small depths included: numba's warning
# that such a grid cannot fill the GPU says nothing to a solver's user.
warnings.filterwarnings("ignore", message=r"Grid size \d+ will likely result in GPU under")

SIMULATOR = bool(getattr(config, "ENABLE_CUDASIM", 0))  # NUMBA_ENABLE_CUDASIM=1

if SIMULATOR:  # the simulator's libdevice functions are stubs; Python's + and *
    # on floats are the correctly rounded IEEE operations already
    @cuda.jit(device=True)
    def add(x, y):
        return x + y

    @cuda.jit(device=True)
    def mul(x, y):
        return x * y
else:
    from numba.cuda import libdevice

    add = libdevice.dadd_rn
    mul = libdevice.dmul_rn


@cuda.jit(device=True)
def sub(x, y):
    """x - y, correctly rounded (libdevice has no dsub_rn; negation is exact)."""
    return add(x, -y)


# --- CFR iteration -------------------------------------------------------------------------


@cuda.jit(cache=True)
def forward_level(lo, hi, first_child, num_children, node_player, node_cell, chance_prob,
                  sigma, reach0, reach1, reach2, mask):
    """forward_reach on the nodes lo..hi-1 of one depth: their children's reach. ``mask``
    picks the reach rows to write (1: P1's, 2: P2's, 4: chance's); the others still hold
    what the same pass would write again."""
    n = lo + cuda.grid(1)
    if n >= hi:
        return
    k = num_children[n]
    if k == 0:
        return
    s = first_child[n]
    pl = node_player[n]
    j = node_cell[n]
    if mask & 1:
        r0 = reach0[n]
        for a in range(k):
            reach0[s + a] = mul(r0, sigma[j + a]) if pl == 0 else r0
    if mask & 2:
        r1 = reach1[n]
        for a in range(k):
            reach1[s + a] = mul(r1, sigma[j + a]) if pl == 1 else r1
    if mask & 4:
        rc = reach2[n]
        for a in range(k):
            reach2[s + a] = mul(rc, chance_prob[j + a]) if pl == CHANCE else rc


@cuda.jit(device=True)
def child_average(player, s, j, k, chance_prob, sigma, values):
    """The children's average of spycfr.tree.passes.backward_values."""
    acc = 0.0
    if player == CHANCE:
        for a in range(k):
            acc = add(acc, mul(chance_prob[j + a], values[s + a]))
    else:
        for a in range(k):
            acc = add(acc, mul(sigma[j + a], values[s + a]))
    return acc


@cuda.jit(cache=True)
def backward_level(lo, hi, first_child, num_children, node_player, node_cell, chance_prob,
                   sigma, reach_opp, values, prune):
    """backward_values on the nodes lo..hi-1 of one depth (their children are done); with
    ``prune``, nodes the opponent never reaches (reach_opp == 0) get value 0."""
    n = lo + cuda.grid(1)
    if n >= hi:
        return
    k = num_children[n]
    if k == 0:
        return
    if prune and reach_opp[n] == 0.0:
        values[n] = 0.0
        return
    values[n] = child_average(node_player[n], first_child[n], node_cell[n], k, chance_prob,
                              sigma, values)


@cuda.jit(device=True)
def update_infoset(o, k, w, R, S, sigma, m, inst, floor, discount, predictive, pos_factor,
                   neg_factor, sum_factor):
    """spycfr.cfr.kernels.update_player's step on one infoset, switch for switch (keep the two
    in step), on the infoset whose cells start at o."""
    if w != 0.0:
        for a in range(k):
            S[o + a] = add(S[o + a], mul(w, sigma[o + a]))
    total = 0.0
    for a in range(k):
        x = R[o + a]
        if predictive:
            x = add(x, inst[o + a])
        if floor and x < 0.0:
            x = 0.0
        if discount:
            if x > 0.0:
                x = mul(x, pos_factor)
            elif x < 0.0:
                x = mul(x, neg_factor)
        R[o + a] = x
        if predictive:
            m[o + a] = inst[o + a]
            inst[o + a] = 0.0
            x = add(x, m[o + a])
        if x > 0.0:
            total = add(total, x)
    if discount:
        for a in range(k):
            S[o + a] = mul(S[o + a], sum_factor)
    if total > 0.0:
        for a in range(k):
            x = add(R[o + a], m[o + a]) if predictive else R[o + a]
            sigma[o + a] = x / total if x > 0.0 else 0.0
    else:
        for a in range(k):
            sigma[o + a] = 1.0 / k


@cuda.jit(cache=True)
def regrets_and_update(lo, hi, infosets, node_start, node_list, first_child, num_children,
                       infoset_node, infoset_num_actions, cell_start, reach0, reach1, reach2,
                       values, p, target, R, S, sigma, m, inst, floor, discount, predictive, weight,
                       pos_factor, neg_factor, sum_factor):
    """accumulate_regrets then update_player, one thread per infoset infosets[lo:hi] of
    player p: its nodes (node_list[node_start[j]:node_start[j + 1]]) in the CPU's node order,
    so every regret sums in the CPU's order; infosets are independent in both steps."""
    i = lo + cuda.grid(1)
    if i >= hi:
        return
    j = infosets[i]
    o = cell_start[j]
    for t in range(node_start[j], node_start[j + 1]):
        n = node_list[t]
        if p == 0:
            w = mul(reach1[n], reach2[n])
        else:
            w = -mul(reach0[n], reach2[n])
        if w == 0.0:
            continue
        s = first_child[n]
        v = values[n]
        for a in range(num_children[n]):
            target[o + a] = add(target[o + a], mul(w, sub(values[s + a], v)))
    own = reach0 if p == 0 else reach1
    update_infoset(o, infoset_num_actions[j], mul(weight, own[infoset_node[j]]), R, S, sigma,
                   m, inst, floor, discount, predictive, pos_factor, neg_factor, sum_factor)


@cuda.jit(cache=True)
def average_strategy(S, infoset_num_actions, cell_start, out):
    """spycfr.cfr.kernels.average_strategy, one thread per infoset."""
    j = cuda.grid(1)
    if j >= infoset_num_actions.shape[0]:
        return
    k = infoset_num_actions[j]
    o = cell_start[j]
    total = 0.0
    for a in range(k):
        total = add(total, S[o + a])
    if total > 0.0:
        for a in range(k):
            out[o + a] = S[o + a] / total
    else:
        for a in range(k):
            out[o + a] = 1.0 / k


# --- best response (spycfr.exact.best_response._best_response) -------------------------------


@cuda.jit(cache=True)
def br_forward_level(lo, hi, first_child, num_children, node_player, node_cell,
                     chance_prob, sigma, p, opp):
    """The opponent-and-chance reach of the children of the nodes lo..hi-1 of one depth."""
    n = lo + cuda.grid(1)
    if n >= hi:
        return
    k = num_children[n]
    if k == 0:
        return
    s = first_child[n]
    pl = node_player[n]
    j = node_cell[n]
    r = opp[n]
    for a in range(k):
        if pl == p:
            opp[s + a] = r
        elif pl == CHANCE:
            opp[s + a] = mul(r, chance_prob[j + a])
        else:
            opp[s + a] = mul(r, sigma[j + a])


@cuda.jit(cache=True)
def br_choose(infosets, lo, hi, node_start, node_list, first_child, infoset_num_actions,
              cell_start, opp, values, best):
    """Best action of the responder's infosets infosets[lo:hi] (one decision level): argmax
    over a of q[I, a] = sum over the infoset's nodes, in node order, of opp * value of the
    child a; ties go to the lowest action. Stored in the infoset's first cell of ``best``."""
    i = lo + cuda.grid(1)
    if i >= hi:
        return
    j = infosets[i]
    b = 0
    qb = 0.0
    for a in range(infoset_num_actions[j]):
        q = 0.0
        for t in range(node_start[j], node_start[j + 1]):
            n = node_list[t]
            q = add(q, mul(opp[n], values[first_child[n] + a]))
        if a == 0 or q > qb:
            b = a
            qb = q
    best[cell_start[j]] = b


@cuda.jit(cache=True)
def br_values_level(lo, hi, lv, level, first_child, num_children, node_player, node_cell,
                    chance_prob, sigma, utility, sign, p, best, values):
    """The responder's value of the nodes lo..hi-1 of one depth that lie at decision level
    ``lv`` (their children are done). ``utility`` holds P1's payoff at terminals."""
    n = lo + cuda.grid(1)
    if n >= hi or level[n] != lv:
        return
    k = num_children[n]
    if k == 0:
        values[n] = mul(sign, utility[n])
        return
    s = first_child[n]
    j = node_cell[n]
    pl = node_player[n]
    if pl == p:
        values[n] = values[s + best[j]]
        return
    values[n] = child_average(pl, s, j, k, chance_prob, sigma, values)
