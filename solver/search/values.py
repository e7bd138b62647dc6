"""Value functions for the leaves of a depth-limited subgame.

A value function maps public states and both seats' ranges there to each seat's
counterfactual values per private state (DeepStack's and ReBeL's interface, batched so that a
network can serve it): ``values(pubs (L, P), r0 (L, n0), r1 (L, n1)) -> (v0, v1)`` with
``v_s[l, i]`` in the engine's scale (seat 0's: ``sum_j compat * u_0(i, j) * r1[j] / Z`` under
the play that the function assumes below the leaf).

:class:`BlueprintValues` is the simplest exact one: the values of a fixed strategy profile
(a blueprint, e.g. an equilibrium of the whole game) below each leaf, computed once per node
as a matrix of seat 0's expected payoff per pair of private states; a lookup and a product
per leaf. A learned function plugs in with the same method.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit

from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL
from spycfr.search.tree import LEAF, Subtree


class ValueFunction(Protocol):
    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Both seats' counterfactual values at each leaf (public state, ranges)."""


@njit(cache=True)
def payoff_matrices(kind, first, count, prob, mask0, mask1, row, row_kid, row_next, row_prob,
                    row_count, term, payoff, sigma, out):
    """``out[n, i, j]``: seat 0's expected payoff (times compat) from node n when seat 0
    holds i and seat 1 holds j and both play ``sigma`` below."""
    n0, n1 = out.shape[1], out.shape[2]
    for n in range(kind.shape[0] - 1, -1, -1):
        k = kind[n]
        f = first[n]
        out[n] = 0.0
        if k == TERMINAL:
            out[n] = payoff[term[n]]
        elif k == LEAF:
            raise ValueError("payoff matrices need a tree that reaches the end of the game")
        elif k == 0 or k == PRIVATE_CHANCE:
            q = row[n]
            for i in range(n0):
                for e in range(row_count[q, i]):
                    w = sigma[q, i, e] if k == 0 else row_prob[q, i, e]
                    if w != 0.0:
                        out[n, i, :] += w * out[f + row_kid[q, i, e], row_next[q, i, e], :]
        elif k == 1 or k == PRIVATE_CHANCE + 1:
            q = row[n]
            for j in range(n1):
                for e in range(row_count[q, j]):
                    w = sigma[q, j, e] if k == 1 else row_prob[q, j, e]
                    if w != 0.0:
                        out[n, :, j] += w * out[f + row_kid[q, j, e], :, row_next[q, j, e]]
        elif k == CHANCE:
            for c in range(f, f + count[n]):
                for i in range(n0):
                    for j in range(n1):
                        out[n, i, j] += prob[c] * mask0[c, i] * mask1[c, j] * out[c, i, j]


class BlueprintValues:
    """Leaf values of a fixed profile ``strategy`` (rows of the full tree ``tree``): exact for
    that profile, whatever the ranges; not an equilibrium value of the leaf's belief state."""

    def __init__(self, tree: Subtree, strategy: np.ndarray):
        t = tree
        self.z = t.game.z
        self.m = np.zeros((t.size, *t.game.n))
        payoff_matrices(t.kind, t.first, t.count, t.prob, t.mask[0], t.mask[1], t.row,
                        t.row_kid, t.row_next, t.row_prob, t.row_count, t.term, t.payoff,
                        strategy, self.m)
        self.index = {p.tobytes(): n for n, p in enumerate(t.pub)}

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        m = self.m[[self.index[p.tobytes()] for p in pubs]]
        v0 = np.einsum("lij,lj->li", m, r1) / self.z
        v1 = -np.einsum("lij,li->lj", m, r0) / self.z
        return v0, v1
