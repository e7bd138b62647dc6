"""Forward and backward passes over the flat tree, shared by CFR and best response.

``reach[n, q]``: q = 0/1 the product of that player's own action probabilities on the path
to ``n``, q = 2 the product of chance probabilities. Parents precede children, so one
forward sweep in node order and one backward sweep in reverse order cover the tree.
"""

from __future__ import annotations

from numba import njit

from spycfr.tree.tree import CHANCE


@njit(cache=True)
def forward_reach(first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach):
    """reach[n, 0/1/2]: P1's, P2's and chance's contribution to the probability of reaching n."""
    reach[0, 0] = 1.0
    reach[0, 1] = 1.0
    reach[0, 2] = 1.0
    forward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach,
                  0, first_child.shape[0])


@njit(cache=True)
def forward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach,
                  lo, hi):
    """The forward pass's step at the nodes lo .. hi - 1, in order: their children's reach
    (the nodes' own reach must be known). spycfr.cfr.threaded runs it on subtrees."""
    for n in range(lo, hi):
        k = num_children[n]
        if k == 0:
            continue
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


@njit(cache=True)
def backward_values(
    first_child, num_children, node_player, node_infoset, chance_prob, sigma, reach,
    values, prune_for,
):
    """values[n]: P1's expected payoff below n under sigma, computed bottom-up.

    Terminal entries of ``values`` must already hold the utilities (never rewritten).

    With ``prune_for`` = p in (0, 1), nodes that p's opponent never reaches are
    skipped (value 0): every regret of p below them is weighted by pi_-p = 0 and
    their parent weighs them by an opponent probability of exactly 0. ``prune_for``
    = -1 computes every node.
    """
    backward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                   reach, values, prune_for, 0, first_child.shape[0])


@njit(cache=True)
def backward_range(first_child, num_children, node_player, node_infoset, chance_prob, sigma,
                   reach, values, prune_for, lo, hi):
    """The backward pass's step at the nodes hi - 1 down to lo (their children are done)."""
    opp = 1 - prune_for
    for n in range(hi - 1, lo - 1, -1):
        k = num_children[n]
        if k == 0:
            continue
        if prune_for >= 0 and reach[n, opp] == 0.0:
            values[n] = 0.0
            continue
        # The children's average, written out here: a helper taking the arrays would
        # reference-count them at every node (measured 8x slower on Leduc).
        s = first_child[n]
        j = node_infoset[n]
        acc = 0.0
        if node_player[n] == CHANCE:
            for a in range(k):
                acc += chance_prob[j + a] * values[s + a]
        else:
            for a in range(k):
                acc += sigma[j, a] * values[s + a]
        values[n] = acc
