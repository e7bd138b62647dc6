"""Every seat's information state at every node of an enumerated tree (the team solver's
connectivity: which nodes a seat cannot tell apart, whether or not it acts there).

The enumerator keeps a seat's observation node only where that seat moves (its infoset).
Here the tree is replayed from the root through the game protocol and each seat's
observation sequence is interned at every node: ``views[v, s]`` is seat s's observation
node at node v, equal at two nodes exactly when s has observed the same codes on the way to
both. Every edge gives every seat one code, so a view also fixes the depth.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol as P
from spycfr.engine.hashmap import hm_get_or_put_in_room, hm_new
from spycfr.engine.playout import game_bounds
from spycfr.errors import SpycfrError
from spycfr.tree import TERMINAL, Tree

OBS_BITS = P.OBS_BITS


@njit(cache=True)
def _replay(params, first_child, num_children, node_player, node_action, root_state,
            views, table, size, stack_cap):
    """Fill ``views`` by a depth-first replay; returns the number of observation nodes, -1 if
    an observation code is out of range, -2 if the stack is too small."""
    n_seats = views.shape[1]
    st_state = np.empty((stack_cap, root_state.shape[0]), dtype=root_state.dtype)
    st_node = np.empty(stack_cap, dtype=np.int64)
    child = np.empty_like(root_state)
    for s in range(n_seats):
        views[0, s] = s
    n_obs = n_seats
    st_state[0] = root_state
    st_node[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = st_node[sp]
        cur = st_state[sp].copy()
        c0 = first_child[v]
        for j in range(num_children[v]):
            c = c0 + j
            a = node_action[c]
            for s in range(n_seats):
                code = P.observation(cur, params, a, s)
                if code < 0 or code >= (1 << OBS_BITS):
                    return -1
                key = (views[v, s] << OBS_BITS) | code
                node, inserted = hm_get_or_put_in_room(table, size, key, n_obs)
                if inserted:
                    n_obs += 1
                views[c, s] = node
            if node_player[c] != TERMINAL:
                if sp >= stack_cap:
                    return -2
                P.apply_action(cur, params, a, child)
                st_state[sp] = child
                st_node[sp] = c
                sp += 1
    return n_obs


@njit(cache=True)
def _initial_state(params):
    return P.initial_state(params)


def seat_views(params, tree: Tree) -> np.ndarray:
    """int64[num_nodes, num_seats]: each seat's observation node at each node (module
    docstring); ``params`` are the numba parameters the tree was enumerated from."""
    n_seats = game_bounds(params)[3]
    if n_seats != tree.num_seats:
        raise SpycfrError(f"the game has {n_seats} seats, the tree {tree.num_seats}")
    views = np.empty((tree.num_nodes, n_seats), dtype=np.int64)
    table, size = hm_new(4 * tree.num_nodes * n_seats + 16)
    stack = (tree.depth() + 1) * max(int(tree.num_children.max()), 1) + 1
    n = _replay(params, tree.first_child, tree.num_children, tree.node_player,
                tree.node_action, _initial_state(params), views, table, size, stack)
    if n < 0:
        raise SpycfrError("replaying the tree for the seats' views failed "
                          f"({'bad observation code' if n == -1 else 'stack too small'})")
    return views
