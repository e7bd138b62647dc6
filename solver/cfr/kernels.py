"""Numba kernels of the CFR family over the flat :class:`~spycfr.tree.Tree` arrays.

One kernel family covers every algorithm (see ``notes/algorithms.md``); the
algorithm is a handful of numeric switches (:func:`algorithm_params`). An
iteration is a forward pass in node order (reach probabilities) and a backward
pass in reverse node order (values and instantaneous regrets), once per player
with alternating updates, once in all with simultaneous updates. No recursion,
no allocation per iteration: the caller owns every array.

Reach array ``reach[n, q]``: q = 0/1 the product of that player's own action
probabilities on the path to ``n``, q = 2 the product of chance probabilities.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.tree.passes import backward_values, forward_reach

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "hs-pcfr+")

# (alpha, beta, gamma) when none are given: DCFR's (Brown & Sandholm 2019) for every algorithm
# but discounted predictive CFR+, whose own (Xu et al. 2024: 2.3, -, 5) converge fastest on the
# games measured (benchmarks/README.md); the others ignore them.
DEFAULT_DISCOUNT = (1.5, 0.0, 2.0)
ALGORITHM_DISCOUNT = {"pdcfr+": (2.3, 0.0, 5.0), "hs-pcfr+": (0.0, 0.0, 30.0)}

# The discount switch: 0 none, 1 DCFR's (regrets and strategy sum), 2 the strategy sum only,
# its exponent scheduled (hs-pcfr+: gamma - HS_DROP * min(t, HS_HORIZON) / HS_HORIZON).
DISCOUNT_NONE, DISCOUNT_DCFR, DISCOUNT_SCHEDULED_SUM = 0, 1, 2
HS_HORIZON = 1000.0
HS_DROP = 5.0


def discount_defaults(algorithm: str) -> tuple[float, float, float]:
    """The (alpha, beta, gamma) an algorithm uses when none are given."""
    return ALGORITHM_DISCOUNT.get(algorithm, DEFAULT_DISCOUNT)


def algorithm_params(
    algorithm: str, alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0
) -> tuple[int, int, int, int, float, float, float]:
    """(floor, discount, predictive, weight_power, alpha, beta, gamma) of a named algorithm.

    floor: clamp cumulative regrets at 0 (regret matching+); discount: DCFR
    discounting with (alpha, beta, gamma); predictive: regret matching on R + m;
    weight_power: the strategy-sum weight is t**weight_power. Discounted predictive
    CFR+ (pdcfr+) is all three switches at once: R = [R + r]^+ t^a/(t^a + 1), the next
    strategy regret-matches R + r, and the strategy sum is discounted by (t/(t+1))^gamma.
    hs-pcfr+ (Zhang, McAleer & Sandholm 2024, "Faster game solving via hyperparameter
    schedules") is predictive CFR+ whose strategy sum alone is discounted by
    (t/(t+1))^gamma_t, gamma_t falling linearly from gamma (30) to gamma - 5 over the first
    1,000 iterations and staying there (a weight of about s**gamma for iteration s: the
    average trusts late iterates far more than pcfr+'s quadratic s**2).
    """
    if algorithm == "cfr":
        return 0, 0, 0, 0, 0.0, 0.0, 0.0
    if algorithm == "cfr+":
        return 1, 0, 0, 1, 0.0, 0.0, 0.0
    if algorithm == "lcfr":
        return 0, 1, 0, 0, 1.0, 1.0, 1.0
    if algorithm == "dcfr":
        return 0, 1, 0, 0, float(alpha), float(beta), float(gamma)
    if algorithm == "pcfr+":
        return 1, 0, 1, 2, 0.0, 0.0, 0.0
    if algorithm == "pdcfr+":
        return 1, DISCOUNT_DCFR, 1, 0, float(alpha), float(beta), float(gamma)
    if algorithm == "hs-pcfr+":
        return 1, DISCOUNT_SCHEDULED_SUM, 1, 0, 0.0, 0.0, float(gamma)
    raise ValueError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")


@njit(cache=True)
def accumulate_regrets(
    first_child, num_children, node_infoset, decision_nodes, p, reach, values, target
):
    """target[I, a] += pi_-p(h) (v_p(h.a) - v_p(h)) over p's decision nodes h, in node order.

    Adding node by node straight into the cumulative regrets, in increasing node
    order (the order OpenSpiel's recursion meets an infoset's nodes when the tree is
    numbered breadth-first, as the builders do), repeats OpenSpiel's floating-point
    operations; CFR+ trajectories are chaotic at the ulp level, so the order matters.
    """
    for i in range(decision_nodes.shape[0]):
        n = decision_nodes[i]
        if p == 0:
            w = reach[n, 1] * reach[n, 2]
        else:
            w = -(reach[n, 0] * reach[n, 2])
        if w == 0.0:
            continue
        j = node_infoset[n]
        s = first_child[n]
        v = values[n]
        for a in range(num_children[n]):
            target[j, a] += w * (values[s + a] - v)


@njit(cache=True)
def update_player(
    infosets, infoset_node, infoset_num_actions, reach, p, R, S, sigma, m, inst,
    floor, discount, predictive, weight, pos_factor, neg_factor, sum_factor,
):
    """Steps 2-3 of an iteration on each of player p's infosets j (k actions): the strategy
    sum S (added once per infoset with the infoset's own reach: all its nodes share it, by
    perfect recall), R (and m), then regret matching. solver/cfr/gpu_kernels.py and
    spycfr.public.kernels.update_rows (over flat cells) mirror it switch for switch: a new
    switch goes into all three.

    R already holds R + r (regrets are accumulated in place), except for the predictive
    algorithms where r is in ``inst`` (it becomes the prediction m; ``inst`` is reset to 0).
    The body is written out in the loop: a helper taking the tables would reference-count
    them at every infoset (measured 6x slower on Leduc).
    """
    for i in range(infosets.shape[0]):
        j = infosets[i]
        k = infoset_num_actions[j]
        w = weight * reach[infoset_node[j], p]
        if w != 0.0:
            for a in range(k):
                S[j, a] += w * sigma[j, a]
        total = 0.0
        for a in range(k):
            x = R[j, a]
            if predictive:
                x += inst[j, a]
            if floor and x < 0.0:
                x = 0.0
            if discount:
                if x > 0.0:
                    x *= pos_factor
                elif x < 0.0:
                    x *= neg_factor
            R[j, a] = x
            if predictive:
                m[j, a] = inst[j, a]
                inst[j, a] = 0.0
                x += m[j, a]
            if x > 0.0:
                total += x
        if discount:
            for a in range(k):
                S[j, a] *= sum_factor
        if total > 0.0:
            for a in range(k):
                x = R[j, a] + m[j, a] if predictive else R[j, a]
                sigma[j, a] = x / total if x > 0.0 else 0.0
        else:
            for a in range(k):
                sigma[j, a] = 1.0 / k


@njit(cache=True)
def iteration_factors(t, discount, weight_power, alpha, beta, gamma):
    """(weight, pos_factor, neg_factor, sum_factor) of iteration t: the strategy-sum weight
    t**weight_power and DCFR's discounts (1 without discounting). The GPU backend calls this
    same compiled function, so both get the same bits."""
    tf = float(t)
    weight = tf**weight_power
    pos_factor = 1.0
    neg_factor = 1.0
    sum_factor = 1.0
    if discount == DISCOUNT_DCFR:
        ta = tf**alpha
        tb = tf**beta
        pos_factor = ta / (ta + 1.0)
        neg_factor = tb / (tb + 1.0)
        sum_factor = (tf / (tf + 1.0)) ** gamma
    elif discount == DISCOUNT_SCHEDULED_SUM:
        g = gamma - HS_DROP * min(tf, HS_HORIZON) / HS_HORIZON
        sum_factor = (tf / (tf + 1.0)) ** g
    return weight, pos_factor, neg_factor, sum_factor


@njit(cache=True)
def run_iterations(
    first_child, num_children, node_player, node_infoset, utility, chance_prob,
    infoset_node, infoset_num_actions, infosets0, infosets1, decisions0, decisions1,
    R, S, sigma, m, inst, reach, values,
    t_start, n_iter, alternating, floor, discount, predictive, weight_power, alpha, beta, gamma,
):
    """Run iterations t_start+1 .. t_start+n_iter in place; returns the last iteration number.

    ``infosets0/1`` list each player's infosets, ``decisions0/1`` each player's
    decision nodes in increasing order; ``inst``, ``reach`` and ``values`` are
    scratch (rewritten before being read; ``inst`` must start at 0).
    """
    target = inst if predictive else R
    for n in range(num_children.shape[0]):  # terminal values never change
        if num_children[n] == 0:
            values[n] = utility[n]
    t = t_start
    for _ in range(n_iter):
        t += 1
        weight, pos_factor, neg_factor, sum_factor = iteration_factors(
            t, discount, weight_power, alpha, beta, gamma)
        if alternating:
            for p in range(2):
                forward_reach(
                    first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach
                )
                backward_values(
                    first_child, num_children, node_player, node_infoset, chance_prob,
                    sigma, reach, values, p,
                )
                accumulate_regrets(
                    first_child, num_children, node_infoset, decisions0 if p == 0 else decisions1,
                    p, reach, values, target,
                )
                update_player(
                    infosets0 if p == 0 else infosets1, infoset_node, infoset_num_actions, reach,
                    p, R, S, sigma, m, inst, floor, discount, predictive, weight,
                    pos_factor, neg_factor, sum_factor,
                )
        else:
            forward_reach(
                first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach
            )
            backward_values(
                first_child, num_children, node_player, node_infoset, chance_prob,
                sigma, reach, values, -1,
            )
            for p in range(2):
                accumulate_regrets(
                    first_child, num_children, node_infoset, decisions0 if p == 0 else decisions1,
                    p, reach, values, target,
                )
            for p in range(2):
                update_player(
                    infosets0 if p == 0 else infosets1, infoset_node, infoset_num_actions, reach,
                    p, R, S, sigma, m, inst, floor, discount, predictive, weight,
                    pos_factor, neg_factor, sum_factor,
                )
    return t


@njit(cache=True)
def average_strategy(S, infoset_num_actions):
    """Rows of S normalised; uniform over the legal actions where a row sums to 0."""
    out = np.zeros_like(S)
    for j in range(S.shape[0]):
        k = infoset_num_actions[j]
        total = 0.0
        for a in range(k):
            total += S[j, a]
        if total > 0.0:
            for a in range(k):
                out[j, a] = S[j, a] / total
        else:
            for a in range(k):
                out[j, a] = 1.0 / k
    return out
