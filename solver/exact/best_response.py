"""Exact best response, expected value, NashConv and counterfactual values of a profile.

Everything is a non-recursive numba pass over the flat tree (O(nodes)). The best
response resolves the responder's infosets deepest-first in the responder's own
sequence order: nodes are bucketed by the number of the responder's decisions
above them, and a bucket is finished (infoset argmax, then values) before the
shallower one; by perfect recall every node of an infoset lies in one bucket.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.tree import CHANCE, Tree
from spycfr.tree.passes import backward_values, forward_reach


@njit(cache=True)
def _values(first_child, num_children, node_player, node_infoset, utility, chance_prob, sigma):
    """values[n]: P1's expected payoff below n when both players follow sigma."""
    values = utility.copy()  # terminal entries stay; the others are rewritten bottom-up
    no_reach = np.empty((1, 3))  # unused without pruning
    backward_values(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                    no_reach, values, -1)
    return values


@njit(cache=True)
def _best_response(
    first_child, num_children, node_player, node_infoset, utility, chance_prob, n_infosets,
    max_actions, sigma, p,
):
    n_nodes = first_child.shape[0]
    sign = 1.0 if p == 0 else -1.0
    # Forward: opponent-and-chance reach, and the responder's decision depth of every node.
    opp = np.empty(n_nodes)
    level = np.zeros(n_nodes, dtype=np.int32)
    opp[0] = 1.0
    max_level = 0
    for n in range(n_nodes):
        k = num_children[n]
        if k == 0:
            continue
        s = first_child[n]
        pl = node_player[n]
        j = node_infoset[n]
        lv = level[n]
        if pl == p:
            lv += 1
            if lv > max_level:
                max_level = lv
            for a in range(k):
                opp[s + a] = opp[n]
                level[s + a] = lv
        elif pl == CHANCE:
            for a in range(k):
                opp[s + a] = opp[n] * chance_prob[j + a]
                level[s + a] = lv
        else:
            for a in range(k):
                opp[s + a] = opp[n] * sigma[j, a]
                level[s + a] = lv
    # Bucket nodes by level (counting sort keeps increasing node order within a level).
    start = np.zeros(max_level + 2, dtype=np.int64)
    for n in range(n_nodes):
        start[level[n] + 1] += 1
    for lv in range(max_level + 1):
        start[lv + 1] += start[lv]
    order = np.empty(n_nodes, dtype=np.int64)
    fill = start[:-1].copy()
    for n in range(n_nodes):
        order[fill[level[n]]] = n
        fill[level[n]] += 1

    q = np.zeros((n_infosets, max_actions))
    opp_sum = np.zeros(n_infosets)  # sum over h in I of pi_-p(h): turns q into conditional values
    best = np.full(n_infosets, -1, dtype=np.int64)
    values = np.empty(n_nodes)  # the responder's payoff
    for lv in range(max_level, -1, -1):
        lo = start[lv]
        hi = start[lv + 1]
        # 1. q[I, a] = sum over h in I of pi_-p(h) v(h.a); children lie one level deeper.
        for i in range(lo, hi):
            n = order[i]
            if node_player[n] == p:
                j = node_infoset[n]
                s = first_child[n]
                w = opp[n]
                opp_sum[j] += w
                for a in range(num_children[n]):
                    q[j, a] += w * values[s + a]
        # 2. argmax per infoset (ties -> lowest action index).
        for i in range(lo, hi):
            n = order[i]
            if node_player[n] == p:
                j = node_infoset[n]
                if best[j] < 0:
                    b = 0
                    for a in range(1, num_children[n]):
                        if q[j, a] > q[j, b]:
                            b = a
                    best[j] = b
        # 3. values of the level, bottom-up.
        for i in range(hi - 1, lo - 1, -1):
            n = order[i]
            k = num_children[n]
            if k == 0:
                values[n] = sign * utility[n]
                continue
            s = first_child[n]
            j = node_infoset[n]
            pl = node_player[n]
            if pl == p:
                values[n] = values[s + best[j]]
                continue
            acc = 0.0  # the children's average, inline (see passes.backward_values)
            if pl == CHANCE:
                for a in range(k):
                    acc += chance_prob[j + a] * values[s + a]
            else:
                for a in range(k):
                    acc += sigma[j, a] * values[s + a]
            values[n] = acc
    return values[0], best, q, opp_sum


@njit(cache=True)
def _counterfactual_values(
    first_child, num_children, node_player, node_infoset, utility, chance_prob, n_infosets,
    max_actions, sigma,
):
    n_nodes = first_child.shape[0]
    reach = np.empty((n_nodes, 3))
    forward_reach(first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach)
    values = _values(
        first_child, num_children, node_player, node_infoset, utility, chance_prob, sigma
    )
    cfv = np.zeros((n_infosets, max_actions))
    infoset_reach = np.zeros(n_infosets)
    opp_reach = np.zeros(n_infosets)
    for n in range(n_nodes):
        k = num_children[n]
        pl = node_player[n]
        if k == 0 or pl == CHANCE:
            continue
        j = node_infoset[n]
        s = first_child[n]
        if pl == 0:
            w = reach[n, 1] * reach[n, 2]
        else:
            w = -(reach[n, 0] * reach[n, 2])
        for a in range(k):
            cfv[j, a] += w * values[s + a]
        infoset_reach[j] += reach[n, 0] * reach[n, 1] * reach[n, 2]
        opp_reach[j] += reach[n, 1 - pl] * reach[n, 2]
    return cfv, infoset_reach, opp_reach


def _arrays(tree: Tree) -> tuple:
    return (
        tree.first_child, tree.num_children, tree.node_player, tree.node_infoset, tree.utility,
        tree.chance_prob,
    )


def _check(tree: Tree, strategy: np.ndarray) -> np.ndarray:
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    if strategy.ndim != 2 or strategy.shape[0] != tree.num_infosets or (
        strategy.shape[1] < tree.max_actions
    ):
        raise ValueError(
            f"strategy of shape {strategy.shape} does not fit the tree "
            f"({tree.num_infosets} infosets, {tree.max_actions} actions)"
        )
    return strategy


def expected_value(tree: Tree, strategy: np.ndarray) -> float:
    """P1's expected payoff when both players follow ``strategy``."""
    return float(node_values(tree, strategy)[0])


def node_values(tree: Tree, strategy: np.ndarray) -> np.ndarray:
    """float64[n]: P1's expected payoff below every node when both follow ``strategy``."""
    strategy = _check(tree, strategy)
    return _values(*_arrays(tree), strategy)


def best_response(tree: Tree, strategy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
    """(value, best action per infoset) of ``player``'s best response to the opponent's strategy.

    ``best`` is -1 on the other player's infosets; ties go to the lowest action index.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    strategy = _check(tree, strategy)
    value, best, _, _ = _best_response(
        *_arrays(tree), tree.num_infosets, strategy.shape[1], strategy, player
    )
    return float(value), best


def best_response_values(
    tree: Tree, strategy: np.ndarray, player: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, best, opp_reach) of ``player``'s best response to the opponent's strategy.

    q[I, a] = sum over h in I of pi_-p(h) * (best-response value of h.a), on ``player``'s
    infosets; q / opp_reach[I] is the value of action a at I, conditional on reaching I,
    when ``player`` plays as well as possible afterwards.
    """
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    strategy = _check(tree, strategy)
    _, best, q, opp = _best_response(
        *_arrays(tree), tree.num_infosets, strategy.shape[1], strategy, player
    )
    return q, best, opp


def nash_conv(tree: Tree, strategy: np.ndarray) -> float:
    """BR_1 + BR_2 - (u_1 + u_2): zero-sum, so the sum of both best-response values."""
    return best_response(tree, strategy, 0)[0] + best_response(tree, strategy, 1)[0]


def exploitability(tree: Tree, strategy: np.ndarray) -> float:
    """NashConv / 2 (OpenSpiel's convention)."""
    return nash_conv(tree, strategy) / 2.0


def infoset_values(
    tree: Tree, strategy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cfv, reach, opp_reach) per infoset under the profile, for the acting player.

    cfv[I, a] = sum_{h in I} pi_-p(h) v_p(h.a); reach[I] = sum_{h in I} pi(h);
    opp_reach[I] = sum_{h in I} pi_-p(h), so cfv / opp_reach is the conditional value.
    """
    strategy = _check(tree, strategy)
    return _counterfactual_values(
        *_arrays(tree), tree.num_infosets, strategy.shape[1], strategy
    )


def counterfactual_values(tree: Tree, strategy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(cfv, reach) of :func:`infoset_values` (kept for callers that need no opponent reach)."""
    cfv, reach, _ = infoset_values(tree, strategy)
    return cfv, reach
