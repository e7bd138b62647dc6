"""A small open-addressing hash map int64 -> int64 for numba code.

The map is a pair of plain arrays ``(table, size)`` so it can live in compiled
loops without a jitclass: ``table`` is int64[2 * capacity] holding key and
value side by side (one cache line per probe), capacity is a power of two,
empty slots hold the key ``EMPTY`` (keys must therefore be >= 0), collisions
probe linearly, and ``size`` is an int64[1] entry counter. Functions that may
insert return the (possibly reallocated) table; the caller must keep the
returned one. The table doubles when it would pass 50% load.

Locality: keys that share their bits above ``LOCAL_BITS`` (e.g. ``parent << 24 |
code``) land in one window of ``WINDOW`` slots, so a run of lookups of one
parent's children stays in cache. Keys differing only in their low bits should
therefore number well under ``WINDOW`` per high part on average.
"""

from __future__ import annotations

import numpy as np
from numba import njit

EMPTY = -1
LOCAL_BITS = 24
WINDOW_BITS = 6
WINDOW = 1 << WINDOW_BITS


@njit(cache=True, inline="always")
def _slot(key, mask):
    # splitmix64 finaliser of the high part (spreads structured ids over the table),
    # plus a small offset from the low part (keeps siblings in one window).
    z = np.uint64(key) >> np.uint64(LOCAL_BITS)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    low = (np.uint64(key) & np.uint64((1 << LOCAL_BITS) - 1)) * np.uint64(0x9E3779B97F4A7C15)
    z = z + (low >> np.uint64(64 - WINDOW_BITS))
    return np.int64(z & np.uint64(mask))


@njit(cache=True)
def hm_new(capacity=16):
    """An empty map with room for ``capacity`` slots (rounded up to a power of two >= 16)."""
    cap = 16
    while cap < capacity:
        cap *= 2
    table = np.full(2 * cap, EMPTY, dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)
    return table, size


@njit(cache=True)
def hm_len(size):
    """Number of entries."""
    return size[0]


@njit(cache=True)
def hm_get(table, key, default=-1):
    """The value stored under ``key``, or ``default``."""
    mask = (table.shape[0] >> 1) - 1
    i = _slot(key, mask)
    while True:
        k = table[2 * i]
        if k == key:
            return table[2 * i + 1]
        if k == EMPTY:
            return default
        i = (i + 1) & mask


@njit(cache=True)
def hm_has_room(table, size, extra):
    """Whether ``extra`` more entries fit without passing 50% load."""
    return 4 * (size[0] + extra) <= table.shape[0]


@njit(cache=True)
def hm_rehash_into(table, new):
    """Copy every entry of ``table`` into ``new`` (all EMPTY, power-of-two capacity)."""
    mask = (new.shape[0] >> 1) - 1
    for j in range(table.shape[0] >> 1):
        k = table[2 * j]
        if k != EMPTY:
            i = _slot(k, mask)
            while new[2 * i] != EMPTY:
                i = (i + 1) & mask
            new[2 * i] = k
            new[2 * i + 1] = table[2 * j + 1]


def hm_grown(table: np.ndarray) -> np.ndarray:
    """A copy of ``table`` with twice the capacity, allocated by numpy (Python side).

    numpy asks the kernel for huge pages on large arrays, which makes random
    probes of a big table markedly cheaper than in a numba-allocated one.
    """
    new = np.full(2 * table.shape[0], EMPTY, dtype=np.int64)
    hm_rehash_into(table, new)
    return new


@njit(cache=True)
def hm_grow(table):
    """A copy of ``table`` with twice the capacity (in compiled code; see ``hm_grown``)."""
    new = np.full(2 * table.shape[0], EMPTY, dtype=np.int64)
    hm_rehash_into(table, new)
    return new


@njit(cache=True, inline="always")
def _reserve(table, size):
    if not hm_has_room(table, size, 1):
        return hm_grow(table)
    return table


@njit(cache=True)
def hm_get_or_put(table, size, key, value):
    """Look ``key`` up; if absent store ``value`` under it.

    Returns ``(stored value, inserted?, table)``.
    """
    table = _reserve(table, size)
    stored, inserted = hm_get_or_put_in_room(table, size, key, value)
    return stored, inserted, table


@njit(cache=True, _nrt=False)
def hm_get_or_put_in_room(table, size, key, value):
    """``hm_get_or_put`` on a table with room for one more entry (``hm_has_room(table, size,
    1)``), which it does not grow: ``(stored value, inserted?)``. Compiled without reference
    counting, so that a hot loop can call it without counting references to its arrays."""
    mask = (table.shape[0] >> 1) - 1
    i = _slot(key, mask)
    while True:
        k = table[2 * i]
        if k == key:
            return table[2 * i + 1], False
        if k == EMPTY:
            table[2 * i] = key
            table[2 * i + 1] = value
            size[0] += 1
            return value, True
        i = (i + 1) & mask


@njit(cache=True)
def hm_put(table, size, key, value):
    """Store ``value`` under ``key`` (overwriting). Returns the table."""
    table = _reserve(table, size)
    mask = (table.shape[0] >> 1) - 1
    i = _slot(key, mask)
    while True:
        k = table[2 * i]
        if k == key:
            table[2 * i + 1] = value
            return table
        if k == EMPTY:
            table[2 * i] = key
            table[2 * i + 1] = value
            size[0] += 1
            return table
        i = (i + 1) & mask
