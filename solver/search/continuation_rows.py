"""The continuation rows: what the games of a re-solve give each row valued by rollouts (a
private state of the focus seat at a leaf), and the arithmetic that makes them
(:mod:`spycfr.search.continuation`'s notes: the ratio estimate, the draws per row)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class DrawValues(NamedTuple):
    """A row's values draw by draw (``choice`` "state"): ``values[a, b, m]`` over the draws'
    mean pair weight (the guesses' draws past ``guess_draws`` taken as their mean), and the
    opposing private state each draw was played against, ``states[m]``."""

    values: np.ndarray
    states: np.ndarray


class ValuedRow(NamedTuple):
    """One row valued by rollouts: the seat valued, the leaf, the row (the seat's private
    state), its mean payoff per pair of continuations ``values[a, b]`` (own a, opposing b:
    the game's opposing continuations, then the guesses) over its draws' mean pair weight,
    the row's weight of each opposing private state, and (``choice`` "state") its values
    draw by draw."""

    seat: int
    leaf: int
    row: int
    values: np.ndarray
    weights: np.ndarray
    draws: DrawValues | None = None


class RowValues(NamedTuple):
    """One seat's rows valued each by its own ``max_a min_b`` (``choice`` "row"): their
    leaves, rows, values (before the opposing mass) and weights of each opposing private
    state, row by row."""

    leaf: np.ndarray
    rows: np.ndarray
    value: np.ndarray
    weights: np.ndarray


def ratio_estimate(mean: np.ndarray, w: np.ndarray, js: np.ndarray) -> np.ndarray:
    """Games' mean payoffs over the mean weight ``w`` of their opposing draws ``js`` (the
    games' payoffs carry these weights: the ratio estimate of the continuation notes)."""
    drawn = float(w[js].mean())
    return mean / drawn if drawn > 0 else np.zeros_like(mean)


def draws_per_row(jobs: int, reps: int, budget: int, floor: int, cap: int) -> int:
    """Draws per row when ``jobs`` rows of ``reps`` games each share ``budget`` games (at
    least ``floor``, at most ``cap``)."""
    return min(cap, max(floor, budget // (jobs * reps)))
