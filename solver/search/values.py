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
from spycfr.search import passes
from spycfr.search.tree import LEAF, Subtree, extract


class ValueFunction(Protocol):
    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Both seats' counterfactual values at each leaf (public state, ranges); ``nodes``
        are the leaves' nodes in the whole game's tree when the caller knows them (a
        blueprint's values need them where one public state ends several histories, as
        in Leduc; a function of the public state ignores them)."""


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

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        m = self.m[_nodes(self.index, pubs, nodes)]
        v0 = np.einsum("lij,lj->li", m, r1) / self.z
        v1 = -np.einsum("lij,li->lj", m, r0) / self.z
        return v0, v1


class CommittedValues:
    """Leaf values where the agent (``seat``) keeps playing ``strategy`` (a blueprint, rows of
    the full tree ``tree``) below the leaf and the opponent best-responds to it from the
    leaf's ranges: the values a later safe re-solve can always achieve (its gadget targets
    are these best-response values), so depth-limited re-solving with them stays safe.
    Unlike :class:`BlueprintValues` they move with the agent's range; they cost one forward
    and two backward passes over the leaf's subtree per call. ``for_agent`` picks the seat.
    """

    def __init__(self, tree: Subtree, strategy: np.ndarray, seat: int = 0):
        self.tree = tree
        self.strategy = strategy
        self.seat = seat
        self.index = {p.tobytes(): n for n, p in enumerate(tree.pub)}
        self._subtrees: dict[int, Subtree] = {}

    def for_agent(self, seat: int) -> CommittedValues:
        out = CommittedValues.__new__(CommittedValues)
        out.__dict__.update(self.__dict__, seat=seat)
        return out

    def _subtree(self, node: int) -> Subtree:
        if node not in self._subtrees:
            self._subtrees[node] = extract(self.tree, node)
        return self._subtrees[node]

    def values(self, pubs: np.ndarray, r0: np.ndarray, r1: np.ndarray,
               nodes: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        agent, opp = self.seat, 1 - self.seat
        out = (np.zeros_like(r0), np.zeros_like(r1))
        for leaf, node in enumerate(_nodes(self.index, pubs, nodes)):
            t = self._subtree(node)
            sigma = self.strategy[t.source_row].copy()
            reach = (np.zeros((t.size, t.game.n[0])), np.zeros((t.size, t.game.n[1])))
            roots = (r0[leaf], r1[leaf])
            passes.forward(agent, *t.seat_arrays(agent), sigma, roots[agent], reach[agent])
            v_opp = np.zeros((t.size, t.game.n[opp]))
            _backward(t, opp, sigma, reach[agent], True, v_opp)
            passes.best_rows(opp, t.kind, t.first, t.row, t.row_kid, t.row_next, t.row_count,
                             v_opp, sigma)
            passes.forward(opp, *t.seat_arrays(opp), sigma, roots[opp], reach[opp])
            v_agent = np.zeros((t.size, t.game.n[agent]))
            _backward(t, agent, sigma, reach[opp], False, v_agent)
            out[agent][leaf] = v_agent[0]
            out[opp][leaf] = v_opp[0]
        return out


def _nodes(index: dict, pubs: np.ndarray, nodes: np.ndarray | None) -> list[int]:
    return list(nodes) if nodes is not None else [index[p.tobytes()] for p in pubs]



def _backward(t: Subtree, seat: int, sigma, opp_reach, best: bool, v) -> None:
    passes.backward(seat, t.kind, t.first, t.count, t.prob, t.mask[seat], t.row, t.row_kid,
                    t.row_next, t.row_prob, t.row_count, t.term, t.payoff, t.game.z, sigma,
                    opp_reach, _NO_LEAVES, _NO_VALUES, best, v)


_NO_LEAVES = np.zeros(1, np.int64)
_NO_VALUES = np.zeros((1, 1))
