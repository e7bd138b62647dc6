"""Public-tree enumerator: any game of the public-state protocol -> :class:`PublicTree`.

Two numba passes compiled once per game (the params type selects its functions): a depth
first count (nodes, rows, chance children, the largest private action list, and every
contract check), then a breadth-first fill into arrays of exactly that size.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numba import njit

from spycfr.errors import SpycfrError
from spycfr.games import get_plugin
from spycfr.memory import MemoryBudget
from spycfr.public import protocol as P
from spycfr.public.tree import TREE_ENTRY_BYTES, PublicTree

DEFAULT_MAX_NODES = 500_000_000
# Terminal payoff matrices are precomputed up to this size (a game's fast terminal hook, or
# the pair loop beyond it, evaluates the others at every pass).
MAX_TERMINAL_MATRIX_BYTES = 256 * 2**20

OK = 0
TOO_MANY_NODES = 1
TOO_DEEP = 2
NO_ACTIONS = 3
BAD_PROBABILITY = 4
BAD_PRIVATE_ACTION = 5
BAD_PRIVATE_CHANCE = 6
TOO_MANY_ACTIONS = 7
BAD_WEIGHTS = 8

_ERRORS = {
    TOO_DEEP: "a path longer than its max_depth",
    NO_ACTIONS: "a decision or private chance node without labels",
    BAD_PROBABILITY: "a chance outcome whose probability is not positive",
    BAD_PRIVATE_ACTION: "a private state without actions, or an action whose label or next "
                        "private state is out of range",
    BAD_PRIVATE_CHANCE: "a private chance node with more than one label, or a private "
                        "state whose transition probabilities are not positive or do not "
                        "sum to 1",
    TOO_MANY_ACTIONS: "more labels or private actions than its max_actions / "
                      "max_private_actions",
    BAD_WEIGHTS: "deal weights that are negative or give no compatible pair",
}


@njit(cache=True)
def _check_probs(probs, k):
    total = 0.0
    for a in range(k):
        if not probs[a] > 0.0:
            return False
        total += probs[a]
    return abs(total - 1.0) <= 1e-9


@njit(cache=True)
def _expand_rows(pub, params, pl, k, n0, n1, kids, nexts, probs, max_pa):
    """Checks the rows of a decision or private chance node; (status, largest row)."""
    seat = pl if pl < 2 else pl - P.PRIVATE_CHANCE
    n = n0 if seat == 0 else n1
    most = 0
    for i in range(n):
        if pl < 2:
            m = P.private_actions(pub, params, i, k, kids, nexts)
        else:
            m = P.private_chance(pub, params, i, nexts, probs)
            if not _check_probs(probs, m):
                return BAD_PRIVATE_CHANCE, most
        if m < 1:
            return BAD_PRIVATE_ACTION, most
        if m > max_pa:
            return TOO_MANY_ACTIONS, most
        for e in range(m):
            kid = kids[e] if pl < 2 else 0
            if kid < 0 or kid >= k or nexts[e] < 0 or nexts[e] >= n:
                return BAD_PRIVATE_ACTION, most
        most = max(most, m)
    return OK, most


@njit(cache=True)
def _count(params, max_nodes):
    """(status, nodes, rows, chance children, largest private action list)."""
    root = P.initial_state(params)
    depth = P.max_depth(params)
    max_a = P.max_actions(params)
    max_pa = P.max_private_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    stack = np.empty(((depth + 1) * max_a + 1, root.shape[0]), root.dtype)
    sdepth = np.empty(stack.shape[0], np.int64)
    codes = np.empty(max_a, np.int32)
    probs = np.empty(max(max_a, max_pa))
    kids = np.empty(max_pa, np.int32)
    nexts = np.empty(max_pa, np.int32)
    stack[0] = root
    sdepth[0] = 0
    sp = 1
    nodes = 0
    rows = 0
    chance = 0
    widest = 1
    while sp > 0:
        sp -= 1
        cur = stack[sp].copy()
        d = sdepth[sp]
        nodes += 1
        if nodes > max_nodes:
            return TOO_MANY_NODES, nodes, rows, chance, widest
        pl = P.current_player(cur, params)
        if pl == P.TERMINAL:
            continue
        if d >= depth:
            return TOO_DEEP, nodes, rows, chance, widest
        if pl == P.CHANCE:
            k = P.chance_outcomes(cur, params, codes, probs)
            if k > max_a:
                return TOO_MANY_ACTIONS, nodes, rows, chance, widest
            for a in range(k):  # they sum to 1 with the masks, per pair of private states
                if not probs[a] > 0.0:
                    return BAD_PROBABILITY, nodes, rows, chance, widest
            chance += k
        else:
            k = P.legal_actions(cur, params, codes)
            if k > max_a:
                return TOO_MANY_ACTIONS, nodes, rows, chance, widest
            if pl >= P.PRIVATE_CHANCE and k != 1:
                return BAD_PRIVATE_CHANCE, nodes, rows, chance, widest
            status, most = _expand_rows(cur, params, pl, k, n0, n1, kids, nexts, probs, max_pa)
            if status != OK:
                return status, nodes, rows, chance, widest
            widest = max(widest, most)
            rows += n0 if (pl == 0 or pl == P.PRIVATE_CHANCE) else n1
        if k < 1 and pl != P.CHANCE:  # a chance node without outcomes is a dead end
            return NO_ACTIONS, nodes, rows, chance, widest
        for a in range(k):
            P.apply_action(cur, params, codes[a], stack[sp])
            sdepth[sp] = d + 1
            sp += 1
    return OK, nodes, rows, chance, widest


@njit(cache=True)
def _deal(params, weights, compat):
    """The deal's weights and compatibility; returns the normaliser Z (<= 0: invalid)."""
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    P.initial_weights(params, 0, weights[0, :n0])
    P.initial_weights(params, 1, weights[1, :n1])
    z = 0.0
    for i in range(n0):
        if weights[0, i] < 0.0:
            return -1.0
        for j in range(n1):
            c = P.compatible(params, i, j)
            if c < 0.0 or weights[1, j] < 0.0:
                return -1.0
            compat[i, j] = c
            z += weights[0, i] * weights[1, j] * c
    return z


@njit(cache=True)
def _fill(params, pub_states, node_player, first_child, num_children, node_label,
          child_prob, child_mask, masks, row_start, row_num, ent_kid, ent_next, ent_prob,
          row_node, row_priv):
    """Breadth first: the arrays of the tree whose sizes _count measured."""
    max_a = P.max_actions(params)
    max_pa = P.max_private_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    codes = np.empty(max_a, np.int32)
    probs = np.empty(max(max_a, max_pa))
    kids = np.empty(max_pa, np.int32)
    nexts = np.empty(max_pa, np.int32)
    pub_states[0] = P.initial_state(params)
    node_label[0] = -1
    child_prob[0] = 1.0
    child_mask[0] = -1
    free = 1
    rows = 0
    n_masks = 0
    for q in range(pub_states.shape[0]):
        cur = pub_states[q]
        pl = P.current_player(cur, params)
        node_player[q] = pl
        row_start[q] = -1
        if pl == P.TERMINAL:
            first_child[q] = 0
            num_children[q] = 0
            continue
        if pl == P.CHANCE:
            k = P.chance_outcomes(cur, params, codes, probs)
        else:
            k = P.legal_actions(cur, params, codes)
        first_child[q] = free
        num_children[q] = k
        for a in range(k):
            c = free + a
            P.apply_action(cur, params, codes[a], pub_states[c])
            node_label[c] = codes[a]
            child_prob[c] = 1.0
            child_mask[c] = -1
            if pl == P.CHANCE:
                child_prob[c] = probs[a]
                child_mask[c] = n_masks
                P.chance_mask(cur, params, codes[a], 0, masks[n_masks, 0, :n0])
                P.chance_mask(cur, params, codes[a], 1, masks[n_masks, 1, :n1])
                n_masks += 1
        free += k
        if pl == P.CHANCE:
            continue
        seat = pl if pl < 2 else pl - P.PRIVATE_CHANCE
        row_start[q] = rows
        for i in range(n0 if seat == 0 else n1):
            if pl < 2:
                m = P.private_actions(cur, params, i, k, kids, nexts)
                for e in range(m):
                    ent_kid[rows, e] = kids[e]
                    ent_next[rows, e] = nexts[e]
                    ent_prob[rows, e] = 0.0
            else:
                m = P.private_chance(cur, params, i, nexts, probs)
                for e in range(m):
                    ent_kid[rows, e] = 0
                    ent_next[rows, e] = nexts[e]
                    ent_prob[rows, e] = probs[e]
            row_num[rows] = m
            row_node[rows] = q
            row_priv[rows] = i
            rows += 1


@njit(cache=True)
def _terminal_matrices(params, pub_states, node_player, compat, inv_z, term_index, term_mat):
    """term_mat[t] = compat * seat 0's payoff / Z at the t-th terminal (node order)."""
    t = 0
    for q in range(node_player.shape[0]):
        if node_player[q] != P.TERMINAL:
            continue
        term_index[q] = t
        for i in range(compat.shape[0]):
            for j in range(compat.shape[1]):
                c = compat[i, j]
                term_mat[t, i, j] = 0.0 if c == 0.0 else (
                    c * inv_z * P.terminal_payoff(pub_states[q], params, i, j))
        t += 1


def build_public_tree(game, max_nodes: int = DEFAULT_MAX_NODES,
                      budget: MemoryBudget | None = None) -> PublicTree:
    """The public tree of a game object (from :func:`spycfr.games.make_game`); SpycfrError
    if it has no public-state model or breaks the protocol's contract."""
    params = get_plugin(game.name).numba_params(game.variant_obj)
    if not P.has_public(params):
        raise SpycfrError(f"{game.name} has no public-state model; use --tree history")
    t0 = time.perf_counter()
    status, nodes, rows, chance, widest = _count(params, max_nodes)
    if status == TOO_MANY_NODES:
        raise SpycfrError(f"{game.name}: the public tree has more than {max_nodes:,} nodes")
    if status != OK:
        raise SpycfrError(f"{game.name}'s public-state model has {_ERRORS[status]}")
    n0 = int(P.python_impl(params, "num_private")(params, 0))
    n1 = int(P.python_impl(params, "num_private")(params, 1))
    nmax = max(n0, n1)
    state_size = P.python_impl(params, "initial_state")(params).shape[0]
    need = (nodes * (1 + 8 + 4 + 4 + 8 * state_size + 8 + 8 + 8) + chance * 2 * nmax * 8
            + rows * (4 + 8 + 4 + widest * TREE_ENTRY_BYTES) + n0 * n1 * 8)
    if budget is not None:
        budget.require(f"the public tree ({nodes:,} nodes, {rows:,} rows)", need)
    root = P.python_impl(params, "initial_state")(params)
    weights = np.zeros((2, nmax))
    compat = np.zeros((n0, n1))
    z = _deal(params, weights, compat)
    if not z > 0.0:
        raise SpycfrError(f"{game.name}'s public-state model has {_ERRORS[BAD_WEIGHTS]}")
    arrays: dict[str, Any] = dict(
        pub_states=np.zeros((nodes, state_size), root.dtype),
        node_player=np.zeros(nodes, np.int8),
        first_child=np.zeros(nodes, np.int64),
        num_children=np.zeros(nodes, np.int32),
        node_label=np.zeros(nodes, np.int32),
        child_prob=np.ones(nodes),
        child_mask=np.full(nodes, -1, np.int64),
        masks=np.ones((chance, 2, nmax)),
        row_start=np.full(nodes, -1, np.int64),
        row_num=np.zeros(rows, np.int32),
        ent_kid=np.zeros((rows, widest), np.int32),
        ent_next=np.zeros((rows, widest), np.int32),
        ent_prob=np.zeros((rows, widest)),
        row_node=np.zeros(rows, np.int64),
        row_priv=np.zeros(rows, np.int32),
    )
    _fill(params, **arrays)
    # Terminals as dense matrices (compatibility and 1/Z folded in) unless the game evaluates
    # them itself (terminal_values) or they would be large.
    terminals = int(np.count_nonzero(arrays["node_player"] == P.TERMINAL))
    term_bytes = terminals * n0 * n1 * 8
    term_index = np.full(nodes, -1, np.int64)
    term_mat = np.zeros((0, n0, n1))
    if not P.has_hook(params, "terminal_values") and term_bytes <= MAX_TERMINAL_MATRIX_BYTES:
        if budget is not None:
            budget.require(f"the public tree's terminal matrices ({terminals:,})", term_bytes)
        term_mat = np.zeros((terminals, n0, n1))
        _terminal_matrices(params, arrays["pub_states"], arrays["node_player"], compat, 1.0 / z,
                           term_index, term_mat)
    return PublicTree(game=game.name, variant=game.variant_obj.as_dict(), params=params,
                      n_private=(n0, n1), weights=weights, term_index=term_index,
                      term_mat=term_mat, compat=compat, inv_z=1.0 / z,
                      build_seconds=time.perf_counter() - t0, **arrays)
