"""Solving in reading rounds: a re-solve whose rollout leaves read the focus seat's range at
the leaves (the range reader of :mod:`spycfr.search.continuation`) depends on the strategy
being solved, so it is solved again with the range each solve's strategy gives."""

from __future__ import annotations

from spycfr.search.continuation import Continuations
from spycfr.search.tree import Subtree


def solve_reading(values, tree: Subtree, solve_once):
    """``solve_once()`` (a solve of ``tree`` with ``values``), in rounds where ``values`` (or
    the function it wraps) reads the focus seat's range at the leaves (module notes): first
    with the range pushed through uniform play, then ``reader_rounds`` times with the range
    through the last solve's average strategy."""
    inner = getattr(values, "inner", values)
    if not (isinstance(inner, Continuations) and inner.reads_range
            and inner.focused.reader_root is not None):
        return solve_once()
    inner.read(tree, None)
    sol = solve_once()
    for _ in range(inner.reader_rounds):
        inner.read(tree, sol.strategy)
        sol = solve_once()
    return sol
