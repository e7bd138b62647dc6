"""Small numba passes over the flat tree (parents, depth) used by :class:`Tree`, and the
element-wise comparison that the kernels over trees share."""

import numpy as np
from numba import njit


@njit(cache=True)
def parents(first_child, num_children):
    n = first_child.shape[0]
    par = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        s = first_child[v]
        for k in range(num_children[v]):
            par[s + k] = v
    return par


@njit(cache=True)
def max_depth(first_child, num_children):
    # Parents precede children, so one forward pass suffices.
    n = first_child.shape[0]
    d = np.zeros(n, dtype=np.int32)
    best = 0
    for v in range(n):
        s = first_child[v]
        for k in range(num_children[v]):
            d[s + k] = d[v] + 1
            if d[v] + 1 > best:
                best = d[v] + 1
    return best


@njit(cache=True)
def same_values(a, b):
    """Whether 1-D arrays ``a`` and ``b`` (``b`` at least as long) agree on ``a``'s entries:
    a public state against a tree's row, without the temporary that ``np.array_equal``
    allocates in numba."""
    for x in range(a.shape[0]):
        if a[x] != b[x]:
            return False
    return True
