"""Public-tree enumerator: any game of the public-state protocol -> :class:`PublicTree`.

Two numba passes compiled once per game (the params type selects its functions), both
carrying each seat's live private states: a depth-first count (nodes, range entries, rows,
the largest private action list, terminal pairs, and every contract check), then a
breadth-first fill into arrays of exactly that size.
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
from spycfr.public.tree import DEAD, LIVE_BYTES, TREE_ENTRY_BYTES, PublicTree

DEFAULT_MAX_NODES = 500_000_000
# Terminal payoffs over live pairs are precomputed up to this size (beyond it a game's fast
# terminal hook, or the pair loop, evaluates them at every pass).
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
def _count(params, max_nodes):
    """Depth first, carrying each seat's live private states (the deal's support, narrowed
    by chance masks, moved by the mover's actions); a dead node (a seat without live states)
    is counted but not entered. Checks the contract at every live node and private state.
    Returns (status, nodes, seat 0's entries, seat 1's, rows, largest row, terminal pairs)."""
    root = P.initial_state(params)
    depth = P.max_depth(params)
    max_a = P.max_actions(params)
    max_pa = P.max_private_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    nm = max(n0, n1)
    cap = (depth + 1) * max_a + 1
    stack = np.empty((cap, root.shape[0]), root.dtype)
    sdepth = np.empty(cap, np.int64)
    sup = np.zeros((cap, 2, nm), np.bool_)
    live = np.zeros((2, nm), np.bool_)
    w = np.zeros(nm)
    mbuf = np.zeros(nm)
    codes = np.empty(max_a, np.int32)
    probs = np.empty(max(max_a, max_pa))
    kids = np.empty(max_pa, np.int32)
    nexts = np.empty(max_pa, np.int32)
    P.initial_weights(params, 0, w[:n0])
    for i in range(n0):
        sup[0, 0, i] = w[i] > 0.0
    P.initial_weights(params, 1, w[:n1])
    for i in range(n1):
        sup[0, 1, i] = w[i] > 0.0
    stack[0] = root
    sdepth[0] = 0
    sp = 1
    nodes = 0
    ent0 = 0
    ent1 = 0
    rows = 0
    widest = 1
    pairs = 0
    while sp > 0:
        sp -= 1
        cur = stack[sp].copy()
        live[:, :] = sup[sp]
        d = sdepth[sp]
        nodes += 1
        if nodes > max_nodes:
            return TOO_MANY_NODES, nodes, ent0, ent1, rows, widest, pairs
        c0 = 0
        for i in range(n0):
            c0 += live[0, i]
        c1 = 0
        for i in range(n1):
            c1 += live[1, i]
        if c0 == 0 or c1 == 0:
            continue  # dead: a leaf worth 0
        ent0 += c0
        ent1 += c1
        pl = P.current_player(cur, params)
        if pl == P.TERMINAL:
            pairs += c0 * c1
            continue
        if d >= depth:
            return TOO_DEEP, nodes, ent0, ent1, rows, widest, pairs
        if pl == P.CHANCE:
            k = P.chance_outcomes(cur, params, codes, probs)
            if k > max_a:
                return TOO_MANY_ACTIONS, nodes, ent0, ent1, rows, widest, pairs
            for a in range(k):  # they sum to 1 with the masks, per pair of private states
                if not probs[a] > 0.0:
                    return BAD_PROBABILITY, nodes, ent0, ent1, rows, widest, pairs
                P.apply_action(cur, params, codes[a], stack[sp])
                sdepth[sp] = d + 1
                for s in range(2):
                    n = n0 if s == 0 else n1
                    P.chance_mask(cur, params, codes[a], s, mbuf[:n])
                    for i in range(n):
                        sup[sp, s, i] = live[s, i] and mbuf[i] > 0.0
                sp += 1
            continue
        k = P.legal_actions(cur, params, codes)
        if k > max_a:
            return TOO_MANY_ACTIONS, nodes, ent0, ent1, rows, widest, pairs
        if k < 1:
            return NO_ACTIONS, nodes, ent0, ent1, rows, widest, pairs
        if pl >= P.PRIVATE_CHANCE and k != 1:
            return BAD_PRIVATE_CHANCE, nodes, ent0, ent1, rows, widest, pairs
        s = pl if pl < 2 else pl - P.PRIVATE_CHANCE
        n = n0 if s == 0 else n1
        base = sp
        for a in range(k):
            P.apply_action(cur, params, codes[a], stack[sp])
            sdepth[sp] = d + 1
            sup[sp, 1 - s] = live[1 - s]
            sup[sp, s] = False
            sp += 1
        for i in range(n):
            if not live[s, i]:
                continue
            if pl < 2:
                m = P.private_actions(cur, params, i, k, kids, nexts)
            else:
                m = P.private_chance(cur, params, i, nexts, probs)
                if not _check_probs(probs, m):
                    return BAD_PRIVATE_CHANCE, nodes, ent0, ent1, rows, widest, pairs
            if m < 1:
                return BAD_PRIVATE_ACTION, nodes, ent0, ent1, rows, widest, pairs
            if m > max_pa:
                return TOO_MANY_ACTIONS, nodes, ent0, ent1, rows, widest, pairs
            for e in range(m):
                kid = kids[e] if pl < 2 else 0
                if kid < 0 or kid >= k or nexts[e] < 0 or nexts[e] >= n:
                    return BAD_PRIVATE_ACTION, nodes, ent0, ent1, rows, widest, pairs
                sup[base + kid, s, nexts[e]] = True
            widest = max(widest, m)
            rows += 1
    return OK, nodes, ent0, ent1, rows, widest, pairs


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
def _fill(params, weights, pub_states, node_player, first_child, num_children, node_label,
          child_prob, live_start, live_priv, live_up, live_mask, row_start, row_num, ent_kid,
          ent_next, ent_to, ent_prob, row_node, row_entry, row_priv):
    """Breadth first: the arrays of the tree whose sizes _count measured. A node's entries
    are made with the node (when its parent is expanded), so they run in node order."""
    n_nodes = pub_states.shape[0]
    max_a = P.max_actions(params)
    max_pa = P.max_private_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    nm = max(n0, n1)
    codes = np.empty(max_a, np.int32)
    probs = np.empty(max(max_a, max_pa))
    mbuf = np.zeros((2, nm))
    tk = np.zeros((nm, max_pa), np.int32)  # the live rows of the node being expanded
    tn = np.zeros((nm, max_pa), np.int32)
    tp = np.zeros((nm, max_pa))
    tm = np.zeros(nm, np.int64)
    pos = np.full((max_a, nm), -1, np.int64)  # (child, private state) -> the child's entry
    end = np.zeros((2, n_nodes), np.int64)
    dead = np.zeros(n_nodes, np.bool_)
    cursor = np.zeros(2, np.int64)
    cursor[1] = live_start[1, 0]  # seat 1's entries follow all of seat 0's
    pub_states[0] = P.initial_state(params)
    node_label[0] = -1
    child_prob[0] = 1.0
    for s in range(2):
        live_start[s, 0] = cursor[s]
        for i in range(n0 if s == 0 else n1):
            if weights[s, i] > 0.0:
                e = cursor[s]
                live_priv[e] = i
                live_up[e] = -1
                live_mask[e] = 1.0
                cursor[s] += 1
        end[s, 0] = cursor[s]
    free = 1
    rows = 0
    for q in range(n_nodes):
        cur = pub_states[q]
        row_start[q] = -1
        first_child[q] = free
        num_children[q] = 0
        if dead[q] or end[0, q] == live_start[0, q] or end[1, q] == live_start[1, q]:
            node_player[q] = DEAD
            continue
        pl = P.current_player(cur, params)
        node_player[q] = pl
        if pl == P.TERMINAL:
            continue
        if pl == P.CHANCE:
            k = P.chance_outcomes(cur, params, codes, probs)
        else:
            k = P.legal_actions(cur, params, codes)
        num_children[q] = k
        for a in range(k):
            c = free + a
            P.apply_action(cur, params, codes[a], pub_states[c])
            node_label[c] = codes[a]
            child_prob[c] = probs[a] if pl == P.CHANCE else 1.0
        if pl == P.CHANCE:
            for a in range(k):
                c = free + a
                alive = True
                for s in range(2):
                    P.chance_mask(cur, params, codes[a], s, mbuf[s, :n0 if s == 0 else n1])
                    hit = False
                    for e in range(live_start[s, q], end[s, q]):
                        if mbuf[s, live_priv[e]] > 0.0:
                            hit = True
                    alive = alive and hit
                for s in range(2):
                    live_start[s, c] = cursor[s]
                    if alive:
                        for e in range(live_start[s, q], end[s, q]):
                            f = mbuf[s, live_priv[e]]
                            if f > 0.0:
                                x = cursor[s]
                                live_priv[x] = live_priv[e]
                                live_up[x] = e
                                live_mask[x] = f
                                cursor[s] += 1
                    end[s, c] = cursor[s]
                dead[c] = not alive
            free += k
            continue
        s = pl if pl < 2 else pl - P.PRIVATE_CHANCE
        o = 1 - s
        lo = live_start[s, q]
        hi = end[s, q]
        for x in range(hi - lo):
            i = live_priv[lo + x]
            if pl < 2:
                tm[x] = P.private_actions(cur, params, i, k, tk[x], tn[x])
            else:
                tm[x] = P.private_chance(cur, params, i, tn[x], tp[x])
                for e in range(tm[x]):
                    tk[x, e] = 0
            for e in range(tm[x]):
                pos[tk[x, e], tn[x, e]] = -2  # marked: the child's entry is made below
        for a in range(k):
            c = free + a
            for t in range(2):
                live_start[t, c] = cursor[t]
            n = n0 if s == 0 else n1
            for i in range(n):  # the mover's live states at the child, in order
                if pos[a, i] == -2:
                    x = cursor[s]
                    pos[a, i] = x
                    live_priv[x] = i
                    live_up[x] = -1
                    live_mask[x] = 1.0
                    cursor[s] += 1
            if cursor[s] > live_start[s, c]:
                for e in range(live_start[o, q], end[o, q]):  # the other seat's, passed on
                    x = cursor[o]
                    live_priv[x] = live_priv[e]
                    live_up[x] = e
                    live_mask[x] = 1.0
                    cursor[o] += 1
            else:
                dead[c] = True  # no live state of the mover takes this label
            for t in range(2):
                end[t, c] = cursor[t]
        row_start[q] = rows
        for x in range(hi - lo):
            row_num[rows] = tm[x]
            row_node[rows] = q
            row_entry[rows] = lo + x
            row_priv[rows] = live_priv[lo + x]
            for e in range(tm[x]):
                ent_kid[rows, e] = tk[x, e]
                ent_next[rows, e] = tn[x, e]
                ent_to[rows, e] = pos[tk[x, e], tn[x, e]]
                ent_prob[rows, e] = tp[x, e] if pl >= P.PRIVATE_CHANCE else 0.0
            rows += 1
        for x in range(hi - lo):
            for e in range(tm[x]):
                pos[tk[x, e], tn[x, e]] = -1
        free += k
    for s in range(2):
        live_start[s, n_nodes] = cursor[s]


@njit(cache=True)
def _terminal_blocks(params, pub_states, node_player, live_start, live_priv, compat, inv_z,
                     term_index, term_vals):
    """Each live terminal's block term_vals[t + x0 * l1 + x1] = compat * seat 0's payoff / Z
    for its live pair (x0, x1); term_index[q] = t."""
    t = 0
    for q in range(node_player.shape[0]):
        if node_player[q] != P.TERMINAL:
            continue
        term_index[q] = t
        for e0 in range(live_start[0, q], live_start[0, q + 1]):
            i = live_priv[e0]
            for e1 in range(live_start[1, q], live_start[1, q + 1]):
                j = live_priv[e1]
                c = compat[i, j]
                term_vals[t] = 0.0 if c == 0.0 else (
                    c * inv_z * P.terminal_payoff(pub_states[q], params, i, j))
                t += 1


def public_size(params, max_nodes: int) -> tuple[int, int] | None:
    """(nodes, live range entries) of the public tree of the game of ``params``, counted
    without building it; None beyond ``max_nodes`` nodes. SpycfrError if the model breaks
    the protocol's contract."""
    status, nodes, ent0, ent1, _, _, _ = _count(params, max_nodes)
    if status == TOO_MANY_NODES:
        return None
    if status != OK:
        raise SpycfrError(f"the public-state model has {_ERRORS[status]}")
    return int(nodes), int(ent0 + ent1)


def build_public_tree(game, max_nodes: int = DEFAULT_MAX_NODES,
                      budget: MemoryBudget | None = None) -> PublicTree:
    """The public tree of a game object (from :func:`spycfr.games.make_game`); SpycfrError
    if it has no public-state model or breaks the protocol's contract."""
    params = get_plugin(game.name).numba_params(game.variant_obj)
    if not P.has_public(params):
        raise SpycfrError(f"{game.name} has no public-state model; use --tree history")
    t0 = time.perf_counter()
    status, nodes, ent0, ent1, rows, widest, pairs = _count(params, max_nodes)
    if status == TOO_MANY_NODES:
        raise SpycfrError(f"{game.name}: the public tree has more than {max_nodes:,} nodes")
    if status != OK:
        raise SpycfrError(f"{game.name}'s public-state model has {_ERRORS[status]}")
    n0 = int(P.python_impl(params, "num_private")(params, 0))
    n1 = int(P.python_impl(params, "num_private")(params, 1))
    nmax = max(n0, n1)
    root = P.python_impl(params, "initial_state")(params)
    state_size = root.shape[0]
    entries = ent0 + ent1
    # per node: the arrays below and _fill's scratch (each seat's entry end, a dead flag)
    need = (nodes * (1 + 8 + 4 + 4 + state_size * root.dtype.itemsize + 8 + 16 + 8 + 8 + 17)
            + entries * LIVE_BYTES + rows * (4 + 8 + 8 + 4 + widest * TREE_ENTRY_BYTES)
            + n0 * n1 * 8)
    if budget is not None:
        budget.require(f"the public tree ({nodes:,} nodes, {entries:,} range entries, "
                       f"{rows:,} rows)", need)
    weights = np.zeros((2, nmax))
    compat = np.zeros((n0, n1))
    z = _deal(params, weights, compat)
    if not z > 0.0:
        raise SpycfrError(f"{game.name}'s public-state model has {_ERRORS[BAD_WEIGHTS]}")
    live_start = np.zeros((2, nodes + 1), np.int64)
    live_start[1, 0] = ent0
    arrays: dict[str, Any] = dict(
        pub_states=np.zeros((nodes, state_size), root.dtype),
        node_player=np.zeros(nodes, np.int8),
        first_child=np.zeros(nodes, np.int64),
        num_children=np.zeros(nodes, np.int32),
        node_label=np.zeros(nodes, np.int32),
        child_prob=np.ones(nodes),
        live_start=live_start,
        live_priv=np.zeros(entries, np.int32),
        live_up=np.full(entries, -1, np.int64),
        live_mask=np.ones(entries),
        row_start=np.full(nodes, -1, np.int64),
        row_num=np.zeros(rows, np.int32),
        ent_kid=np.zeros((rows, widest), np.int32),
        ent_next=np.zeros((rows, widest), np.int32),
        ent_to=np.zeros((rows, widest), np.int64),
        ent_prob=np.zeros((rows, widest)),
        row_node=np.zeros(rows, np.int64),
        row_entry=np.zeros(rows, np.int64),
        row_priv=np.zeros(rows, np.int32),
    )
    _fill(params, weights, **arrays)
    # Terminals as dense blocks over their live pairs (compatibility and 1/Z folded in)
    # unless they would be large: then the game's hook (terminal_values) or the pair loop
    # evaluates them at every pass.
    term_index = np.full(nodes, -1, np.int64)
    term_vals = np.zeros(0)
    if pairs * 8 <= MAX_TERMINAL_MATRIX_BYTES:
        if budget is not None:
            budget.require(f"the public tree's terminal payoffs ({pairs:,} pairs)", pairs * 8)
        term_vals = np.zeros(pairs)
        _terminal_blocks(params, arrays["pub_states"], arrays["node_player"], live_start,
                         arrays["live_priv"], compat, 1.0 / z, term_index, term_vals)
    return PublicTree(game=game.name, variant=game.variant_obj.as_dict(), params=params,
                      n_private=(n0, n1), weights=weights, term_index=term_index,
                      term_vals=term_vals, compat=compat, inv_z=1.0 / z,
                      build_seconds=time.perf_counter() - t0, **arrays)
