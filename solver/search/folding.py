"""Leaf values that are linear in the ranges folded into payoff matrices, so that a
depth-limited subgame is solved like one reaching the end of the game: the whole CFR+ loop
in one numba call (:func:`spycfr.search.passes.cfr_plus`) instead of a Python loop that
calls the value function twice an iteration (measured on Agent Hunter ``tiny``: 32 ms a
re-solve of 100 iterations before, docs/search.md).

A value function declares itself linear (``linear = True``) when its values at a leaf are
a zero-sum matrix times the other seat's range (``scored-now``, the game scored as it
stands: the exact terminal values at a terminal). Its matrices are read by probing it with
unit ranges; a subgame is folded only when both seats' probes agree on one zero-sum matrix
per leaf and the matrices fit :data:`FOLD_BYTES`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from spycfr.public.protocol import TERMINAL
from spycfr.search import resolve
from spycfr.search.resolve import Solution
from spycfr.search.tree import Subtree
from spycfr.search.values import ValueFunction

# the most bytes of leaf payoff matrices a folded subgame may add (Agent Hunter's rulesheet
# deck: 4 MB a leaf, so a one-turn subgame of hundreds of leaves is not folded)
FOLD_BYTES = 256 * 2 ** 20
# leaves probed at once (the probe's public states are repeated once per private state)
PROBE_CHUNK = 2048


def foldable(tree: Subtree, value_function: ValueFunction | None) -> bool:
    """Whether ``tree``'s leaves can be folded: a linear value function and room for them."""
    n0, n1 = tree.game.n
    return (value_function is not None and getattr(value_function, "linear", False)
            and 0 < tree.leaves.size * n0 * n1 * 8 <= FOLD_BYTES)


def leaf_matrices(tree: Subtree, value_function: ValueFunction) -> np.ndarray | None:
    """``(L, n0, n1)``: at each leaf, seat 0's payoff times compat per pair of private
    states (the game's ``payoff`` convention) that ``value_function`` amounts to; None if
    its two seats' values are not one zero-sum matrix (then it is not linear after all)."""
    t, z = tree, tree.game.z
    n0, n1 = t.game.n
    m = max(n0, n1)
    out = np.empty((t.leaves.size, n0, n1))
    eye0 = np.eye(m, n0)  # probe k: unit range k for each seat (zero past its size)
    eye1 = np.eye(m, n1)
    for lo in range(0, t.leaves.size, PROBE_CHUNK):
        leaves = t.leaves[lo:lo + PROBE_CHUNK]
        k = leaves.size
        pubs = np.repeat(t.pub[leaves], m, axis=0)
        nodes = None if t.origin is None else np.repeat(t.origin[leaves], m)
        v0, v1 = value_function.values(pubs, np.tile(eye0, (k, 1)), np.tile(eye1, (k, 1)),
                                       nodes)
        # v0[(l, j), i] = M[l, i, j] / z;  v1[(l, i), j] = -M[l, i, j] / z
        from_0 = v0.reshape(k, m, n0)[:, :n1, :].transpose(0, 2, 1) * z
        from_1 = -v1.reshape(k, m, n1)[:, :n0, :] * z
        if not np.allclose(from_0, from_1, rtol=1e-12, atol=1e-12):
            return None
        out[lo:lo + k] = from_0
    return out


def folded(tree: Subtree, value_function: ValueFunction | None) -> Subtree | None:
    """``tree`` with every leaf a terminal whose payoff matrix is the value function's
    (the same nodes, rows and order), or None where it cannot be folded (:func:`foldable`,
    :func:`leaf_matrices`)."""
    if not foldable(tree, value_function):
        return None
    assert value_function is not None
    m = leaf_matrices(tree, value_function)
    if m is None:
        return None
    t = tree
    kind = t.kind.copy()
    kind[t.leaves] = TERMINAL
    term = t.term.copy()
    term[t.leaves] = t.payoff.shape[0] + np.arange(t.leaves.size)
    payoff = np.concatenate([t.payoff, m]) if t.payoff.shape[0] else m
    return replace(t, kind=kind, term=term, payoff=payoff, leaves=np.zeros(0, np.int64))


def solve(tree: Subtree, ranges: tuple[np.ndarray, np.ndarray], iterations: int,
          value_function: ValueFunction | None = None, **options) -> Solution:
    """:func:`spycfr.search.resolve.solve`, on the folded tree where it can be folded (the
    solution then names ``tree``, its leaves still LEAF). With a ``progress`` callback the
    iterations stay a Python loop over the numba passes, so that it hears of each one."""
    flat = folded(tree, value_function)
    if flat is None:
        return resolve.solve(tree, ranges, iterations, value_function, **options)
    in_numba = options.pop("in_numba", True) and options.get("progress") is None
    return replace(resolve.solve(flat, ranges, iterations, None, in_numba=in_numba, **options),
                   tree=tree)
