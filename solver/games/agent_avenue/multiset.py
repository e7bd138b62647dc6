"""Multisets of card names as codes: a name's count in 4 bits (``SHIFT``), the rank of a
multiset among all of its size, and the counts behind it (the public models' numberings of
hands and discards: public.py, public_advanced.py)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

SHIFT = 4  # a multiset code: 4 bits per name hold its count (a hand and discards: <= 8)


@njit(cache=True)
def binom(n, k):
    """C(n, k) in integers (0 where k is outside 0..n)."""
    if k < 0 or k > n:
        return 0
    out = 1
    for j in range(k):
        out = out * (n - j) // (j + 1)
    return out


@njit(cache=True)
def digit(code, t):
    """The count of name ``t`` in the multiset ``code`` (its SHIFT-bit digit)."""
    return (code >> (SHIFT * t)) & 15


@njit(cache=True)
def unit_code(t):
    """The multiset of one card of name ``t``."""
    return np.int64(1) << (SHIFT * t)


# multiset_count(m, b) for m <= 8 names and b <= 32 cards (SHIFT's digits, 15 at most, of two
# multisets), as math.comb gives it: read from this table in the numberings' ranks, which
# ask for it at every digit of every state (most of a subgame's build on standard)
_COUNTS = np.array([[math.comb(m + b - 1, b) if m else int(b == 0) for b in range(33)]
                    for m in range(9)], np.int64)


@njit(cache=True)
def multiset_count(m, b):
    """Multisets of size exactly b over m names."""
    if b < 0:
        return 0
    if 0 <= m < _COUNTS.shape[0] and b < _COUNTS.shape[1]:
        return _COUNTS[m, b]
    if m == 0:
        return 1 if b == 0 else 0
    return binom(m + b - 1, b)


@njit(cache=True)
def rank_multiset(code, n, size):
    """The rank of a multiset of ``size`` cards over n names (counts in SHIFT-bit digits of
    ``code``) among all of that size, in lexicographic order of the count vector."""
    r = 0
    b = size
    for t in range(n):
        v = digit(code, t)
        for u in range(v):
            r += multiset_count(n - 1 - t, b - u)
        b -= v
    return r


@njit(cache=True)
def unrank_multiset(r, n, size):
    """The inverse of :func:`rank_multiset`: the multiset's code."""
    code = np.int64(0)
    b = size
    for t in range(n):
        v = 0
        while True:
            c = multiset_count(n - 1 - t, b - v)
            if r < c:
                break
            r -= c
            v += 1
        code |= np.int64(v) << (SHIFT * t)
        b -= v
    return code


@njit(cache=True)
def multinomial(code, n, k):
    """k! / prod x_t! of the multiset ``code`` of size k."""
    out = 1.0
    for j in range(2, k + 1):
        out *= j
    for t in range(n):
        for j in range(2, digit(code, t) + 1):
            out /= j
    return out


@njit(cache=True)
def next_multiset(code, n):
    """The next multiset of the same size after ``code`` (lexicographically decreasing
    count vectors, from every card of name 0), or -1 after the last."""
    right = 0
    for j in range(n - 1, -1, -1):
        v = digit(code, j)
        if v > 0 and j < n - 1:
            code -= unit_code(j)
            code &= (np.int64(1) << (SHIFT * (j + 1))) - 1  # names after j cleared
            return code | (np.int64(right + 1) << (SHIFT * (j + 1)))
        right += v
    return np.int64(-1)
