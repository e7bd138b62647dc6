"""Multi-threaded CPU kernels of the CFR family, bit-identical to :mod:`spycfr.cfr.kernels`.

The builders number a tree so that the descendants of every node form one contiguous range of
ids right after its first child (checked by :func:`subtree_layout`). The passes split the tree
at a frontier of subtrees: the few nodes above it run on one thread, and each thread takes
whole subtrees, sweeping each in the sequential kernel's node order, so every node computes
exactly what the sequential pass computes. Regrets are summed per infoset over its nodes in
increasing id (the order the sequential kernel adds them), so each sum is bit for bit the same
too; the infosets' updates are independent. numba's ``prange`` runs the subtrees and the
infosets on ``numba.set_num_threads`` threads; each thread runs the sequential kernels' own
functions (spycfr.tree.passes' ranges, spycfr.cfr.kernels' regrets and updates) on its part.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spycfr.cfr import kernels
from spycfr.cfr.kernels import iteration_factors
from spycfr.tree.passes import backward_range, forward_range

SUBTREES_PER_THREAD = 16  # load balance: subtrees differ in size
CHUNKS = 1024  # the infosets' regrets and updates run in this many chunks (fewer if fewer)


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
def player_nodes(node_infoset, infosets, infoset_num_nodes, is_decision):
    """(start, nodes) of one player: the decision nodes of its infosets, grouped in the order of
    ``infosets`` (those of infosets[i] are nodes[start[i]:start[i + 1]]), each group in
    increasing id, the order in which kernels.accumulate_regrets adds them."""
    n_inf = infosets.shape[0]
    where = np.full(infoset_num_nodes.shape[0], -1, dtype=np.int64)
    start = np.zeros(n_inf + 1, dtype=np.int64)
    for i in range(n_inf):
        where[infosets[i]] = i
        start[i + 1] = start[i] + infoset_num_nodes[infosets[i]]
    fill = start[:-1].copy()
    nodes = np.empty(start[n_inf], dtype=np.int64)
    for n in range(node_infoset.shape[0]):
        if is_decision[n]:
            i = where[node_infoset[n]]
            if i >= 0:
                nodes[fill[i]] = n
                fill[i] += 1
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


@njit(cache=True, parallel=True)
def forward_reach(top, frontier, ends, first_child, num_children, node_player, node_infoset,
                  chance_prob, sigma, reach):
    """passes.forward_reach: the top nodes in id order, then each subtree on its own thread."""
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    reach[0, 2] = 1.0
    for i in range(top.shape[0]):
        forward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                      reach, top[i], top[i] + 1)
    for i in prange(frontier.shape[0]):
        c = frontier[i]
        forward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                      reach, c, c + 1)
        if num_children[c] > 0:
            forward_range(first_child, num_children, node_player, node_infoset, chance_prob,
                          sigma, reach, first_child[c], ends[i])


@njit(cache=True, parallel=True)
def backward_values(top, frontier, ends, first_child, num_children, node_player, node_infoset,
                    chance_prob, sigma, reach, values, prune_for):
    """passes.backward_values: each subtree bottom-up on its own thread, then the top nodes."""
    for i in prange(frontier.shape[0]):
        c = frontier[i]
        if num_children[c] > 0:
            backward_range(first_child, num_children, node_player, node_infoset, chance_prob,
                           sigma, reach, values, prune_for, first_child[c], ends[i])
        backward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                       reach, values, prune_for, c, c + 1)
    for i in range(top.shape[0] - 1, -1, -1):
        backward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                       reach, values, prune_for, top[i], top[i] + 1)


@njit(cache=True, parallel=True)
def accumulate_regrets(start, nodes, first_child, num_children, node_infoset, p, reach, values,
                       target):
    """kernels.accumulate_regrets on chunks of the player's infosets, one chunk per thread at a
    time: each infoset's nodes in increasing id (``player_nodes``), so each sum adds in the
    sequential kernel's order."""
    n_inf = start.shape[0] - 1
    chunks = min(n_inf, CHUNKS)
    for c in prange(chunks):
        lo = start[n_inf * c // chunks]
        hi = start[n_inf * (c + 1) // chunks]
        kernels.accumulate_regrets(first_child, num_children, node_infoset, nodes[lo:hi], p,
                                   reach, values, target)


@njit(cache=True, parallel=True)
def update_player(infosets, infoset_node, infoset_num_actions, reach, p, R, S, sigma, m, inst,
                  floor, discount, predictive, weight, pos_factor, neg_factor, sum_factor):
    """kernels.update_player on a chunk of the infosets per thread (each infoset's update is
    independent of the others')."""
    chunks = min(infosets.shape[0], CHUNKS)
    for c in prange(chunks):
        lo = infosets.shape[0] * c // chunks
        hi = infosets.shape[0] * (c + 1) // chunks
        kernels.update_player(infosets[lo:hi], infoset_node, infoset_num_actions, reach, p, R,
                              S, sigma, m, inst, floor, discount, predictive, weight,
                              pos_factor, neg_factor, sum_factor)


@njit(cache=True)
def run_iterations(
    top, frontier, ends, start0, nodes0, start1, nodes1,
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
                accumulate_regrets(start0 if p == 0 else start1, nodes0 if p == 0 else nodes1,
                                   first_child, num_children, node_infoset, p, reach, values,
                                   target)
                update_player(infosets0 if p == 0 else infosets1, infoset_node,
                              infoset_num_actions, reach, p, R, S, sigma, m, inst, floor,
                              discount, predictive, weight, pos_factor, neg_factor, sum_factor)
        else:
            forward_reach(top, frontier, ends, first_child, num_children, node_player,
                          node_infoset, chance_prob, sigma, reach)
            backward_values(top, frontier, ends, first_child, num_children, node_player,
                            node_infoset, chance_prob, sigma, reach, values, -1)
            for p in range(2):
                accumulate_regrets(start0 if p == 0 else start1, nodes0 if p == 0 else nodes1,
                                   first_child, num_children, node_infoset, p, reach, values,
                                   target)
            for p in range(2):
                update_player(infosets0 if p == 0 else infosets1, infoset_node,
                              infoset_num_actions, reach, p, R, S, sigma, m, inst, floor,
                              discount, predictive, weight, pos_factor, neg_factor, sum_factor)
    return t
