"""Multi-threaded CPU kernels of the CFR family, bit-identical to :mod:`solver.cfr.kernels`.

The builders number a tree so that the descendants of every node form one contiguous range of
ids right after its first child (checked by :func:`subtree_layout`). The passes split the tree
at a frontier of subtrees: the few nodes above it run on one thread, and each thread takes
whole subtrees, sweeping each in the sequential kernel's node order, so every node computes
exactly what the sequential pass computes. Regrets are summed per infoset over its nodes in
increasing id (the order the sequential kernel adds them), so each sum is bit for bit the same
too; the infosets' updates are independent. numba's ``prange`` runs the subtrees and the
infosets on ``numba.set_num_threads`` threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from solver.cfr import kernels
from solver.cfr.kernels import iteration_factors
from solver.tree.tree import CHANCE

SUBTREES_PER_THREAD = 16  # load balance: subtrees differ in size
UPDATE_CHUNKS = 1024  # the infosets' updates run in this many chunks (fewer if fewer infosets)


@njit(cache=True)
def _frontier(first_child, num_children, want):
    """(top, frontier): expand breadth-first from the root until at least ``want`` nodes wait
    at the frontier (or nothing is left to expand); ``top`` are the expanded nodes."""
    top = [np.int64(0)]
    top.clear()
    level = [np.int64(0)]
    while True:
        expandable = 0
        for u in level:
            if num_children[u] > 0:
                expandable += 1
        if len(level) >= want or expandable == 0:
            break
        nxt = [np.int64(0)]
        nxt.clear()
        for u in level:
            k = num_children[u]
            if k == 0:
                nxt.append(u)  # a leaf stays at the frontier (an empty subtree)
                continue
            top.append(u)
            s = first_child[u]
            for a in range(k):
                nxt.append(s + a)
        level = nxt
    return np.array(top, dtype=np.int64), np.array(level, dtype=np.int64)


@njit(cache=True)
def _region_ends(first_child, num_children, top, frontier, num_nodes):
    """end[i]: one past the last descendant of frontier[i] (its descendants are the ids
    first_child .. end - 1); -1 where the layout does not hold (the caller then refuses)."""
    starts = np.empty(top.shape[0] + 2 * frontier.shape[0] + 1, dtype=np.int64)
    m = 0
    for u in top:
        starts[m] = u
        m += 1
    for c in frontier:
        starts[m] = c
        m += 1
        if num_children[c] > 0:
            starts[m] = first_child[c]
            m += 1
    starts[m] = num_nodes
    m += 1
    starts = np.sort(starts[:m])
    ends = np.empty(frontier.shape[0], dtype=np.int64)
    for i in range(frontier.shape[0]):
        c = frontier[i]
        if num_children[c] == 0:
            ends[i] = first_child[c]
            continue
        lo = first_child[c]
        ends[i] = starts[np.searchsorted(starts, lo, side="right")]
    return ends


@njit(cache=True)
def _layout_holds(first_child, num_children, frontier, ends):
    """Whether every child of a region's node lies inside that region (so each region is the
    whole subtree of its frontier node and nothing else)."""
    for i in range(frontier.shape[0]):
        c = frontier[i]
        if num_children[c] == 0:
            continue
        lo, hi = first_child[c], ends[i]
        if lo + num_children[c] > hi:
            return False
        for n in range(lo, hi):
            k = num_children[n]
            if k > 0 and (first_child[n] < lo or first_child[n] + k > hi):
                return False
    return True


@njit(cache=True)
def infoset_nodes(node_player, node_infoset, n_infosets):
    """(start, nodes): the decision nodes of infoset j are nodes[start[j]:start[j + 1]], in
    increasing id."""
    start = np.zeros(n_infosets + 1, dtype=np.int64)
    for n in range(node_player.shape[0]):
        if node_player[n] == 0 or node_player[n] == 1:
            start[node_infoset[n] + 1] += 1
    for j in range(n_infosets):
        start[j + 1] += start[j]
    fill = start[:-1].copy()
    nodes = np.empty(start[n_infosets], dtype=np.int64)
    for n in range(node_player.shape[0]):
        if node_player[n] == 0 or node_player[n] == 1:
            j = node_infoset[n]
            nodes[fill[j]] = n
            fill[j] += 1
    return start, nodes


def subtree_layout(first_child: np.ndarray, num_children: np.ndarray,
                   threads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(top, frontier, ends) splitting the tree for ``threads`` threads, or None when the
    tree's numbering does not keep subtrees contiguous (then only one thread can run)."""
    want = max(2, threads * SUBTREES_PER_THREAD)
    top, frontier = _frontier(first_child, num_children, want)
    ends = _region_ends(first_child, num_children, top, frontier, first_child.shape[0])
    if not _layout_holds(first_child, num_children, frontier, ends):
        return None
    return top, frontier, ends


@njit(cache=True, inline="always")
def _forward_node(n, first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                  reach):
    """The sequential forward pass's step at node n: its children's reach."""
    k = num_children[n]
    if k == 0:
        return
    s = first_child[n]
    r0 = reach[n, 0]
    r1 = reach[n, 1]
    rc = reach[n, 2]
    pl = node_player[n]
    j = node_infoset[n]
    if pl == 0:
        for a in range(k):
            reach[s + a, 0] = r0 * sigma[j, a]
            reach[s + a, 1] = r1
            reach[s + a, 2] = rc
    elif pl == 1:
        for a in range(k):
            reach[s + a, 0] = r0
            reach[s + a, 1] = r1 * sigma[j, a]
            reach[s + a, 2] = rc
    else:
        for a in range(k):
            reach[s + a, 0] = r0
            reach[s + a, 1] = r1
            reach[s + a, 2] = rc * chance_prob[j + a]


@njit(cache=True, inline="always")
def _backward_node(n, first_child, num_children, node_player, node_infoset, chance_prob,
                   sigma, reach, values, prune_for):
    """The sequential backward pass's step at node n (see passes.backward_values)."""
    k = num_children[n]
    if k == 0:
        return
    if prune_for >= 0 and reach[n, 1 - prune_for] == 0.0:
        values[n] = 0.0
        return
    s = first_child[n]
    j = node_infoset[n]
    acc = 0.0  # the children's average, inline (see passes.backward_values)
    if node_player[n] == CHANCE:
        for a in range(k):
            acc += chance_prob[j + a] * values[s + a]
    else:
        for a in range(k):
            acc += sigma[j, a] * values[s + a]
    values[n] = acc


@njit(cache=True, parallel=True)
def forward_reach(top, frontier, ends, first_child, num_children, node_player, node_infoset,
                  chance_prob, sigma, reach):
    """passes.forward_reach: the top nodes in id order, then each subtree on its own thread."""
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    reach[0, 2] = 1.0
    for i in range(top.shape[0]):
        _forward_node(top[i], first_child, num_children, node_player, node_infoset,
                      chance_prob, sigma, reach)
    for i in prange(frontier.shape[0]):
        c = frontier[i]
        _forward_node(c, first_child, num_children, node_player, node_infoset, chance_prob,
                      sigma, reach)
        if num_children[c] > 0:
            for n in range(first_child[c], ends[i]):
                _forward_node(n, first_child, num_children, node_player, node_infoset,
                              chance_prob, sigma, reach)


@njit(cache=True, parallel=True)
def backward_values(top, frontier, ends, first_child, num_children, node_player, node_infoset,
                    chance_prob, sigma, reach, values, prune_for):
    """passes.backward_values: each subtree bottom-up on its own thread, then the top nodes."""
    for i in prange(frontier.shape[0]):
        c = frontier[i]
        if num_children[c] > 0:
            for n in range(ends[i] - 1, first_child[c] - 1, -1):
                _backward_node(n, first_child, num_children, node_player, node_infoset,
                               chance_prob, sigma, reach, values, prune_for)
        _backward_node(c, first_child, num_children, node_player, node_infoset, chance_prob,
                       sigma, reach, values, prune_for)
    for i in range(top.shape[0] - 1, -1, -1):
        _backward_node(top[i], first_child, num_children, node_player, node_infoset,
                       chance_prob, sigma, reach, values, prune_for)


@njit(cache=True, parallel=True)
def accumulate_regrets(infosets, node_start, node_list, first_child, num_children, p, reach,
                       values, target):
    """kernels.accumulate_regrets, one infoset per thread, its nodes in increasing id."""
    for i in prange(infosets.shape[0]):
        j = infosets[i]
        for q in range(node_start[j], node_start[j + 1]):
            n = node_list[q]
            if p == 0:
                w = reach[n, 1] * reach[n, 2]
            else:
                w = -(reach[n, 0] * reach[n, 2])
            if w == 0.0:
                continue
            s = first_child[n]
            v = values[n]
            for a in range(num_children[n]):
                target[j, a] += w * (values[s + a] - v)


@njit(cache=True, parallel=True)
def update_player(infosets, infoset_node, infoset_num_actions, reach, p, R, S, sigma, m, inst,
                  floor, discount, predictive, weight, pos_factor, neg_factor, sum_factor):
    """kernels.update_player on a chunk of the infosets per thread (each infoset's update is
    independent of the others')."""
    chunks = min(infosets.shape[0], UPDATE_CHUNKS)
    for c in prange(chunks):
        lo = infosets.shape[0] * c // chunks
        hi = infosets.shape[0] * (c + 1) // chunks
        kernels.update_player(infosets[lo:hi], infoset_node, infoset_num_actions, reach, p, R,
                              S, sigma, m, inst, floor, discount, predictive, weight,
                              pos_factor, neg_factor, sum_factor)


@njit(cache=True)
def run_iterations(
    top, frontier, ends, node_start, node_list,
    first_child, num_children, node_player, node_infoset, utility, chance_prob,
    infoset_node, infoset_num_actions, infosets0, infosets1,
    R, S, sigma, m, inst, reach, values,
    t_start, n_iter, alternating, floor, discount, predictive, weight_power, alpha, beta, gamma,
):
    """kernels.run_iterations on several threads (the same arguments, plus the layout)."""
    target = inst if predictive else R
    for n in range(num_children.shape[0]):
        if num_children[n] == 0:
            values[n] = utility[n]
    t = t_start
    for _ in range(n_iter):
        t += 1
        weight, pos_factor, neg_factor, sum_factor = iteration_factors(
            t, discount, weight_power, alpha, beta, gamma)
        if alternating:
            for p in range(2):
                forward_reach(top, frontier, ends, first_child, num_children, node_player,
                              node_infoset, chance_prob, sigma, reach)
                backward_values(top, frontier, ends, first_child, num_children, node_player,
                                node_infoset, chance_prob, sigma, reach, values, p)
                accumulate_regrets(infosets0 if p == 0 else infosets1, node_start, node_list,
                                   first_child, num_children, p, reach, values, target)
                update_player(infosets0 if p == 0 else infosets1, infoset_node,
                              infoset_num_actions, reach, p, R, S, sigma, m, inst, floor,
                              discount, predictive, weight, pos_factor, neg_factor, sum_factor)
        else:
            forward_reach(top, frontier, ends, first_child, num_children, node_player,
                          node_infoset, chance_prob, sigma, reach)
            backward_values(top, frontier, ends, first_child, num_children, node_player,
                            node_infoset, chance_prob, sigma, reach, values, -1)
            for p in range(2):
                accumulate_regrets(infosets0 if p == 0 else infosets1, node_start, node_list,
                                   first_child, num_children, p, reach, values, target)
            for p in range(2):
                update_player(infosets0 if p == 0 else infosets1, infoset_node,
                              infoset_num_actions, reach, p, R, S, sigma, m, inst, floor,
                              discount, predictive, weight, pos_factor, neg_factor, sum_factor)
    return t
