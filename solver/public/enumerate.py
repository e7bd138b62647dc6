"""Public-tree enumerator: any game of the public-state protocol -> :class:`PublicTree`.

Two numba passes compiled once per game (the params type selects its functions), both
carrying each seat's live private states: a depth-first count (nodes, range entries, rows,
their cells (actions), the largest private action list, terminal pairs, and every contract
check), then a breadth-first fill into arrays of exactly that size.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from spycfr.errors import SpycfrError
from spycfr.games import get_plugin
from spycfr.memory import MemoryBudget, MemoryLimitError, rss_bytes
from spycfr.public import protocol as P
from spycfr.public.tree import DEAD, LIVE_BYTES, TREE_CELL_BYTES, TREE_ROW_BYTES, PublicTree

DEFAULT_MAX_NODES = 500_000_000
# Terminal payoffs over live pairs are precomputed as blocks up to this size in all, or the
# bytes of the tree's live range entries where more (terminal_cap; beyond it a game's fast
# terminal hook, or the pair loop, evaluates them at every pass).
MAX_TERMINAL_MATRIX_BYTES = 256 * 2**20
NO_BLOCK_MAX = np.iinfo(np.int64).max  # every terminal a block (a game without the hook)

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


# The count's running totals (int64 array): stack pointer, nodes, each seat's entries, rows,
# the widest row, terminal pairs, the rows' cells (actions summed over rows), the pairs of
# the terminals that get a block (block_max).
SP, NODES, ENT0, ENT1, ROWS, WIDEST, PAIRS, CELLS, BLOCK_PAIRS = range(9)
PAUSED = -1  # _count_steps stopped after its steps: call it again to go on
# Work per call of _count_steps between progress reports, in private states looked at (a
# node costs n0 + n1): a million Leduc nodes, 14,000 of Agent Hunter's rulesheet game, 92
# of Agent Avenue's standard game (108,901 private states per seat).
COUNT_STEPS = 20_000_000


@njit(cache=True)
def _count_start(params):
    """The count's stack (public states, depths, each seat's live states) holding the root
    with the deal's support, and its totals."""
    root = P.initial_state(params)
    depth = P.max_depth(params)
    max_a = P.max_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    nm = max(n0, n1)
    cap = (depth + 1) * max_a + 1
    stack = np.empty((cap, root.shape[0]), root.dtype)
    sdepth = np.empty(cap, np.int64)
    sup = np.zeros((cap, 2, nm), np.bool_)
    w = np.zeros(nm)
    P.initial_weights(params, 0, w[:n0])
    for i in range(n0):
        sup[0, 0, i] = w[i] > 0.0
    P.initial_weights(params, 1, w[:n1])
    for i in range(n1):
        sup[0, 1, i] = w[i] > 0.0
    stack[0] = root
    sdepth[0] = 0
    acc = np.zeros(9, np.int64)
    acc[SP] = 1
    acc[WIDEST] = 1
    return stack, sdepth, sup, acc


@njit(cache=True)
def _count_steps(params, stack, sdepth, sup, acc, max_nodes, max_entries, steps, block_max):
    """Depth first, carrying each seat's live private states (the deal's support, narrowed
    by chance masks, moved by the mover's actions); a dead node (a seat without live states)
    is counted but not entered. Checks the contract at every live node and private state.
    Goes on from the stack and totals ``acc`` for ``steps`` private states looked at
    (``steps // (n0 + n1)`` nodes, at least one; then PAUSED), to the end (OK), or until
    more than ``max_nodes`` nodes or ``max_entries`` range entries (TOO_MANY_NODES); another
    status is a broken contract. A terminal of at most ``block_max`` live pairs counts in
    BLOCK_PAIRS too."""
    depth = P.max_depth(params)
    max_a = P.max_actions(params)
    max_pa = P.max_private_actions(params)
    n0 = P.num_private(params, 0)
    n1 = P.num_private(params, 1)
    nm = max(n0, n1)
    live = np.zeros((2, nm), np.bool_)
    mbuf = np.zeros(nm)
    codes = np.empty(max_a, np.int32)
    probs = np.empty(max(max_a, max_pa))
    kids = np.empty(max_pa, np.int32)
    nexts = np.empty(max_pa, np.int32)
    sp = acc[SP]
    stop = acc[NODES] + max(1, steps // (n0 + n1))
    status = OK
    while sp > 0:
        if acc[NODES] >= stop:
            status = PAUSED
            break
        sp -= 1
        cur = stack[sp].copy()
        live[:, :] = sup[sp]
        d = sdepth[sp]
        acc[NODES] += 1
        if acc[NODES] > max_nodes:
            status = TOO_MANY_NODES
            break
        c0 = 0
        for i in range(n0):
            c0 += live[0, i]
        c1 = 0
        for i in range(n1):
            c1 += live[1, i]
        if c0 == 0 or c1 == 0:
            continue  # dead: a leaf worth 0
        acc[ENT0] += c0
        acc[ENT1] += c1
        if acc[ENT0] + acc[ENT1] > max_entries:
            status = TOO_MANY_NODES
            break
        pl = P.current_player(cur, params)
        if pl == P.TERMINAL:
            acc[PAIRS] += c0 * c1
            if c0 * c1 <= block_max:
                acc[BLOCK_PAIRS] += c0 * c1
            continue
        if d >= depth:
            status = TOO_DEEP
            break
        if pl == P.CHANCE:
            k = P.chance_outcomes(cur, params, codes, probs)
            if k > max_a:
                status = TOO_MANY_ACTIONS
                break
            for a in range(k):  # they sum to 1 with the masks, per pair of private states
                if not probs[a] > 0.0:
                    status = BAD_PROBABILITY
                    break
                P.apply_action(cur, params, codes[a], stack[sp])
                sdepth[sp] = d + 1
                for s in range(2):
                    n = n0 if s == 0 else n1
                    P.chance_mask(cur, params, codes[a], s, mbuf[:n])
                    for i in range(n):
                        sup[sp, s, i] = live[s, i] and mbuf[i] > 0.0
                sp += 1
            if status != OK:
                break
            continue
        k = P.legal_actions(cur, params, codes)
        if k > max_a:
            status = TOO_MANY_ACTIONS
            break
        if k < 1:
            status = NO_ACTIONS
            break
        if pl >= P.PRIVATE_CHANCE and k != 1:
            status = BAD_PRIVATE_CHANCE
            break
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
                    status = BAD_PRIVATE_CHANCE
                    break
            if m < 1:
                status = BAD_PRIVATE_ACTION
                break
            if m > max_pa:
                status = TOO_MANY_ACTIONS
                break
            for e in range(m):
                kid = kids[e] if pl < 2 else 0
                if kid < 0 or kid >= k or nexts[e] < 0 or nexts[e] >= n:
                    status = BAD_PRIVATE_ACTION
                    break
                sup[base + kid, s, nexts[e]] = True
            if status != OK:
                break
            acc[WIDEST] = max(acc[WIDEST], m)
            acc[ROWS] += 1
            acc[CELLS] += m
        if status != OK:
            break
    acc[SP] = sp
    return status


def terminal_block_max(params) -> int:
    """Where the blocks of all terminals would not fit, the most live pairs a terminal may
    have to get one: any number for a game without the fast hook (the pair loop calls the
    game at every pair and pass); with it, n0 + n1, the size of the hook's pass over dense
    vectors of both seats' private states (Agent Hunter 5/2/1/4: 98% of its terminals as
    blocks, 2.3-2.5x less CPU per pdcfr+ iteration than the hook at every terminal)."""
    if not P.has_hook(params, "terminal_values"):
        return int(NO_BLOCK_MAX)
    num_private = P.python_impl(params, "num_private")
    return int(num_private(params, 0)) + int(num_private(params, 1))


def count_public(params, max_nodes: int = DEFAULT_MAX_NODES, max_entries: int | None = None,
                 note: Callable[[int, int], None] | None = None) -> tuple[int, np.ndarray]:
    """(status, totals indexed by NODES, ENT0, ...) of the public tree of the game of
    ``params``, counted depth first without building it, stopping beyond ``max_nodes``
    nodes or ``max_entries`` range entries (TOO_MANY_NODES). ``note(nodes, entries)``
    hears the totals after every COUNT_STEPS private states looked at (a big tree takes
    minutes)."""
    stack, sdepth, sup, acc = _count_start(params)
    limit = np.iinfo(np.int64).max if max_entries is None else int(max_entries)
    block_max = terminal_block_max(params)
    while True:
        status = _count_steps(params, stack, sdepth, sup, acc, max_nodes, limit, COUNT_STEPS,
                              block_max)
        if status != PAUSED:
            return int(status), acc
        if note is not None:
            note(int(acc[NODES]), int(acc[ENT0] + acc[ENT1]))


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
          child_prob, live_start, live_priv, live_up, live_mask, row_start, row_num, row_off,
          ent_kid, ent_next, ent_to, ent_prob, row_node, row_entry, row_priv):
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
    cells = 0
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
            row_off[rows] = cells
            for e in range(tm[x]):
                ent_kid[cells] = tk[x, e]
                ent_next[cells] = tn[x, e]
                ent_to[cells] = pos[tk[x, e], tn[x, e]]
                ent_prob[cells] = tp[x, e] if pl >= P.PRIVATE_CHANCE else 0.0
                cells += 1
            rows += 1
        for x in range(hi - lo):
            for e in range(tm[x]):
                pos[tk[x, e], tn[x, e]] = -1
        free += k
    row_off[rows] = cells
    for s in range(2):
        live_start[s, n_nodes] = cursor[s]


@njit(cache=True)
def _terminal_blocks(params, pub_states, node_player, live_start, live_priv, compat, inv_z,
                     block_max, term_index, term_vals):
    """The block of each live terminal of at most ``block_max`` live pairs:
    term_vals[t + x0 * l1 + x1] = compat * seat 0's payoff / Z for its live pair (x0, x1);
    term_index[q] = t (the others keep -1: the hook or the pair loop)."""
    t = 0
    for q in range(node_player.shape[0]):
        if node_player[q] != P.TERMINAL:
            continue
        if ((live_start[0, q + 1] - live_start[0, q])
                * (live_start[1, q + 1] - live_start[1, q]) > block_max):
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


def public_size(params, max_nodes: int = DEFAULT_MAX_NODES, max_entries: int | None = None,
                note: Callable[[int, int], None] | None = None) -> np.ndarray | None:
    """The count's totals (indexed by NODES, ENT0, ENT1, ROWS, WIDEST, PAIRS, CELLS,
    BLOCK_PAIRS) of the public tree of the game of ``params``, counted without building it;
    None beyond ``max_nodes`` nodes or ``max_entries`` range entries. SpycfrError if the
    model breaks the protocol's contract."""
    status, acc = count_public(params, max_nodes, max_entries, note)
    if status == TOO_MANY_NODES:
        return None
    if status != OK:
        raise SpycfrError(f"the public-state model has {_ERRORS[status]}")
    return acc


def terminal_cap(entries: int) -> int:
    """Bytes the terminal blocks may take: 256 MiB, or the live range entries' bytes where
    more."""
    return max(MAX_TERMINAL_MATRIX_BYTES, entries * LIVE_BYTES)


def terminal_bytes(acc: np.ndarray) -> int:
    """Bytes of the terminals' precomputed blocks for a count's totals: every terminal's
    where they fit terminal_cap (faster than the hook at any size measured: Agent Hunter
    small 1-5%, Agent Avenue small 15-25% per pdcfr+ iteration), else those of the
    terminals of at most terminal_block_max pairs where they fit (the hook takes the larger
    ones), else 0 (the hook or the pair loop everywhere)."""
    cap = terminal_cap(int(acc[ENT0] + acc[ENT1]))
    for pairs in (int(acc[PAIRS]), int(acc[BLOCK_PAIRS])):
        if pairs * 8 <= cap:
            return pairs * 8
    return 0


def tree_bytes(params, acc: np.ndarray) -> int:
    """Bytes that building the public tree of a count's totals allocates (its arrays,
    _fill's scratch and the terminal blocks)."""
    n0 = int(P.python_impl(params, "num_private")(params, 0))
    n1 = int(P.python_impl(params, "num_private")(params, 1))
    root = P.python_impl(params, "initial_state")(params)
    nodes, rows, cells = int(acc[NODES]), int(acc[ROWS]), int(acc[CELLS])
    # per node: the arrays and _fill's scratch (each seat's entry end, a dead flag)
    return (nodes * (1 + 8 + 4 + 4 + root.shape[0] * root.dtype.itemsize + 8 + 16 + 8 + 8 + 17)
            + int(acc[ENT0] + acc[ENT1]) * LIVE_BYTES
            + (rows + 1) * TREE_ROW_BYTES + cells * TREE_CELL_BYTES + n0 * n1 * 8
            + terminal_bytes(acc))


def solver_params(game) -> Any:
    """The params of the public model the solver runs on for a game object: the plug-in's
    lossless reduction (``public_params``) where it has one, else its rules' params."""
    plugin = get_plugin(game.name)
    return (plugin.public_params or plugin.numba_params)(game.variant_obj)


def build_public_tree(game, max_nodes: int = DEFAULT_MAX_NODES,
                      budget: MemoryBudget | None = None, params: Any = None) -> PublicTree:
    """The public tree of a game object (from :func:`spycfr.games.make_game`), of the model
    of ``params`` (default: the rules' params; :func:`solver_params` the solver's model);
    SpycfrError if it has no public-state model or breaks the protocol's contract."""
    if params is None:
        params = get_plugin(game.name).numba_params(game.variant_obj)
    if not P.has_public(params):
        raise SpycfrError(f"{game.name} has no public-state model; use --tree history")
    t0 = time.perf_counter()
    # Under a budget the count stops where the live range entries alone would not fit, so
    # that a tree far too large is refused after a bounded count.
    max_entries = None if budget is None else max(
        0, int(budget.limit_bytes - rss_bytes()) // LIVE_BYTES)
    status, acc = count_public(params, max_nodes, max_entries)
    nodes, ent0, ent1, rows, cells = (int(acc[x]) for x in (NODES, ENT0, ENT1, ROWS, CELLS))
    if status == TOO_MANY_NODES and budget is not None and max_entries is not None \
            and ent0 + ent1 > max_entries:
        raise MemoryLimitError(
            f"{budget.name}: the public tree has at least {ent0 + ent1:,} live range entries "
            f"(the count stopped there), {(ent0 + ent1) * LIVE_BYTES / 2**30:.3g} GiB at "
            f"{LIVE_BYTES} B each: more than the limit leaves")
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
    if budget is not None:
        budget.require(f"the public tree ({nodes:,} nodes, {entries:,} range entries, "
                       f"{rows:,} rows, {cells:,} cells)",
                       tree_bytes(params, acc) - terminal_bytes(acc))
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
        row_off=np.zeros(rows + 1, np.int64),
        ent_kid=np.zeros(cells, np.int32),
        ent_next=np.zeros(cells, np.int32),
        ent_to=np.zeros(cells, np.int64),
        ent_prob=np.zeros(cells),
        row_node=np.zeros(rows, np.int64),
        row_entry=np.zeros(rows, np.int64),
        row_priv=np.zeros(rows, np.int32),
    )
    _fill(params, weights, **arrays)
    # Terminals as dense blocks over their live pairs (compatibility and 1/Z folded in):
    # all where they fit, else those small enough (terminal_block_max) where those fit
    # (terminal_bytes); the others take the game's hook (terminal_values) or the pair loop
    # at every pass.
    term_index = np.full(nodes, -1, np.int64)
    term_vals = np.zeros(0)
    pairs = terminal_bytes(acc) // 8
    if pairs:
        if budget is not None:
            budget.require(f"the public tree's terminal payoffs ({pairs:,} pairs)", pairs * 8)
        term_vals = np.zeros(pairs)
        block_max = NO_BLOCK_MAX if pairs == int(acc[PAIRS]) else terminal_block_max(params)
        _terminal_blocks(params, arrays["pub_states"], arrays["node_player"], live_start,
                         arrays["live_priv"], compat, 1.0 / z, block_max, term_index,
                         term_vals)
    return PublicTree(game=game.name, variant=game.variant_obj.as_dict(), params=params,
                      n_private=(n0, n1), weights=weights, term_index=term_index,
                      term_vals=term_vals, compat=compat, inv_z=1.0 / z,
                      build_seconds=time.perf_counter() - t0, **arrays)
