"""The reach-weighted walk of a run's tree that every game's report sections use.

One numba depth-first pass follows every path of positive probability under a strategy
(chance included), replaying the game's rules (:mod:`spycfr.engine.protocol`) so that each
node's state is at hand, and calls the game's tally at every decision and every edge with
the probability of reaching it. A game's sections declare what they count as a *tally*: a
``typing.NamedTuple`` class of arrays (the counters, and any inputs such as node values),
registered with :func:`register_tally` together with its two ``@njit`` visitors:

- ``node(tally, state, params, player, infoset, first, k, reach, sigma)``: at a node
  reached with probability ``reach`` (before its children; ``first`` is the first child's
  index, ``k`` their number);
- ``edge(tally, state, child, params, player, code, weight, leaf, utility)``: on the edge
  to a child reached with probability ``weight``, after the rules wrote its state into
  ``child``; ``leaf`` says whether the child ends the game (``utility``: P1's payoff there).

As with the game protocol, numba resolves the visitors at compile time from the tally's
class, so the walk is compiled and cached once per (game, tally) and no Python runs inside.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from spycfr.engine import protocol as P
from spycfr.tree import CHANCE, Tree

_VISITORS: dict[type, dict] = {}


def register_tally(tally_class: type, node=None, edge=None) -> None:
    """Make the ``@njit`` functions ``node`` and ``edge`` (either may be None: nothing to do
    there) the visitors of tallies of ``tally_class`` (a ``typing.NamedTuple`` subclass)."""
    _VISITORS[tally_class] = {"node": node, "edge": edge}


def visit_node(tally, state, params, player, infoset, first, k, reach, sigma):
    raise NotImplementedError("visitors run inside numba code only")


def visit_edge(tally, state, child, params, player, code, weight, leaf, utility):
    raise NotImplementedError("visitors run inside numba code only")


def _visitor(name: str, tally):
    if isinstance(tally, types.BaseNamedTuple) and tally.instance_class in _VISITORS:  # type: ignore[attr-defined]  # numba's annotations omit this run-time export
        return _VISITORS[tally.instance_class][name]
    raise TypeError(f"no tally visitors registered for {tally}")


@overload(visit_node)
def _visit_node(tally, state, params, player, infoset, first, k, reach, sigma):
    f = _visitor("node", tally)
    if f is None:
        return lambda tally, state, params, player, infoset, first, k, reach, sigma: None
    return lambda tally, state, params, player, infoset, first, k, reach, sigma: f(
        tally, state, params, player, infoset, first, k, reach, sigma)


@overload(visit_edge)
def _visit_edge(tally, state, child, params, player, code, weight, leaf, utility):
    f = _visitor("edge", tally)
    if f is None:
        return lambda tally, state, child, params, player, code, weight, leaf, utility: None
    return lambda tally, state, child, params, player, code, weight, leaf, utility: f(
        tally, state, child, params, player, code, weight, leaf, utility)


@njit(cache=True)
def _walk(first_child, num_children, node_player, node_infoset, node_action, chance_prob,
          utility, sigma, params, stack_cap, tally):
    root = P.initial_state(params)
    st_node = np.empty(stack_cap, dtype=np.int64)
    st_state = np.empty((stack_cap, root.shape[0]), dtype=root.dtype)
    st_reach = np.empty(stack_cap)
    cur = np.empty_like(root)
    child = np.empty_like(root)
    st_node[0] = 0
    st_state[0] = root
    st_reach[0] = 1.0
    sp = 1
    while sp > 0:
        sp -= 1
        n = st_node[sp]
        r = st_reach[sp]
        cur[:] = st_state[sp]
        p = node_player[n]
        j = node_infoset[n]
        s = first_child[n]
        k = num_children[n]
        visit_node(tally, cur, params, p, j, s, k, r, sigma)
        for a in range(k):
            w = r * (chance_prob[j + a] if p == CHANCE else sigma[j, a])
            if w <= 0.0:
                continue
            c = s + a
            P.apply_action(cur, params, node_action[c], child)
            leaf = num_children[c] == 0
            visit_edge(tally, cur, child, params, p, node_action[c], w, leaf, utility[c])
            if leaf:
                continue
            st_node[sp] = c
            st_reach[sp] = w
            st_state[sp] = child
            sp += 1


def reach_walk(tree: Tree, strategy: np.ndarray, params, tally) -> None:
    """Walk ``tree`` under ``strategy`` with the game's rules for ``params`` (its numba params
    record), adding into ``tally`` (see the module docstring)."""
    cap = (tree.depth() + 2) * max(int(tree.num_children.max()), 1) + 1
    _walk(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
          tree.node_action, tree.chance_prob, tree.utility, np.ascontiguousarray(strategy),
          params, np.int64(cap), tally)
