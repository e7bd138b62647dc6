"""Splitmix64 random numbers and observation-sequence hashing for numba samplers.

The generator state is one uint64 (an array of one, advanced in place), so a sampler's
state is part of its checkpoint and a resumed run is bit-identical to an uninterrupted
one. An information state is keyed by a 63-bit hash of the seat's observation sequence
(the codes of :func:`spycfr.engine.protocol.observation`), folded from a per-seat root.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
ADD = np.uint64(0x632BE59BD9B4E019)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S1 = np.uint64(1)
_TWO_M53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def fmix(z):
    """The splitmix64 finaliser."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def root_key(seat):
    """Key of ``seat``'s empty observation sequence (different for every seat)."""
    return np.int64(fmix(np.uint64(seat + 1) * GOLDEN + ADD) >> _S1)


@njit(cache=True, inline="always")
def combine_key(h, code):
    """Key of an observation sequence extended by ``code`` (63 bits, never negative)."""
    z = np.uint64(h) * GOLDEN + np.uint64(code) + ADD
    return np.int64(fmix(z) >> _S1)


@njit(cache=True, inline="always")
def game_stream(seed, g):
    """The generator state (uint64) of game ``g`` of a match played from ``seed`` (int64s):
    each game its own stream, so a game's deal and draws do not depend on the games before
    it (head to head, the search agent's games, LBR's)."""
    return fmix(np.uint64(seed) * GOLDEN + np.uint64(g))


def new_rng(seed: int) -> np.ndarray:
    """The generator state of ``seed``."""
    return np.array([fmix(np.uint64(seed) ^ GOLDEN)], dtype=np.uint64)


@njit(cache=True, inline="always")
def next_u64(rng):
    rng[0] += GOLDEN
    return fmix(rng[0])


@njit(cache=True, inline="always")
def uniform(rng):
    """A double in [0, 1) from the stream ``rng`` (uint64[1], advanced)."""
    return np.float64(next_u64(rng) >> _S11) * _TWO_M53


@njit(cache=True, inline="always")
def sample(probs, k, u):
    """Index drawn from probs[:k] with the uniform ``u`` (rounding falls to the last k>0)."""
    acc = 0.0
    last = 0
    for a in range(k):
        p = probs[a]
        if p > 0.0:
            acc += p
            last = a
            if u < acc:
                return a
    return last
