"""A public subtree in flat arrays: the part of a game's public tree below one public state,
cut at a depth, enumerated through the public-state protocol (:mod:`spycfr.public.protocol`).

The re-solver, the belief tracker and the measurement harness work on it. Nodes are in
breadth-first order (a parent before its children, a node's children contiguous), so a
forward pass is a loop up the indices and a backward pass a loop down them. Each node is a
decision of seat 0 or 1, ``CHANCE``, ``PRIVATE_CHANCE + s``, ``TERMINAL`` or ``LEAF`` (cut by
the depth: its value comes from a value function). Per-private-state rows (a decision's
actions, a private chance's outcomes) are dense tables indexed by a row number per node.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from spycfr import memory
from spycfr.public import protocol as pp

LEAF = -2  # cut by the depth limit


@njit(cache=True)
def _expand(pub, params, nmax, kids_pub, probs, masks, row_kid, row_next, row_prob,
            row_count):
    """One node: its kind and number of children; fills the children's public states, chance
    probabilities and masks, and the per-private-state rows (decision or private chance:
    every state's at once, by the protocol's ``*_rows`` hooks)."""
    kind = pp.current_player(pub, params)
    if kind == pp.TERMINAL:
        return kind, 0
    labels = np.zeros(kids_pub.shape[0], np.int32)
    if kind == pp.CHANCE:
        k = pp.chance_outcomes(pub, params, labels, probs)
        for o in range(k):
            for s in range(2):
                pp.chance_mask(pub, params, labels[o], s, masks[o, s, :pp.num_private(params, s)])
    else:
        k = pp.legal_actions(pub, params, labels)
        for o in range(k):
            probs[o] = 1.0
            masks[o, :, :] = 1.0
    for o in range(k):
        pp.apply_action(pub, params, labels[o], kids_pub[o])
    if kind == 0 or kind == 1:
        pp.private_action_rows(pub, params, kind, k, row_kid, row_next, row_count)
        for i in range(pp.num_private(params, kind)):
            for e in range(row_count[i]):
                row_prob[i, e] = 0.0
    elif kind >= pp.PRIVATE_CHANCE:
        s = kind - pp.PRIVATE_CHANCE
        pp.private_chance_rows(pub, params, s, row_next, row_prob, row_count)
        for i in range(pp.num_private(params, s)):
            for e in range(row_count[i]):
                row_kid[i, e] = 0
    return kind, k


@njit(cache=True)
def _expand_buffers(pub, nmax, amax, pamax):
    """The scratch arrays :func:`_expand` fills, for public states like ``pub`` (1-D): the
    children's states, probabilities and masks (``amax`` children, ``nmax`` private states
    a seat at most) and the rows' kids, nexts, probabilities and counts (``pamax`` wide).
    One allocation for every builder of a tree (:func:`_fill`, subgame.subgame)."""
    return (np.zeros((amax, pub.shape[0]), pub.dtype), np.zeros(amax),
            np.ones((amax, 2, nmax)), np.zeros((nmax, pamax), np.int64),
            np.zeros((nmax, pamax), np.int64), np.zeros((nmax, pamax)),
            np.zeros(nmax, np.int64))


def expand_bytes(pub: np.ndarray, nmax: int, amax: int, pamax: int) -> int:
    """The bytes of :func:`_expand_buffers`' arrays for public states like ``pub``, known
    before they are made (a budget's check comes first)."""
    return int(amax * pub.shape[0] * pub.dtype.itemsize + 8 * amax + 16 * amax * nmax
               + 24 * nmax * pamax + 8 * nmax)


@njit(cache=True, nogil=True)
def _payoffs(pubs, params, compat, out):
    """``out[t, i, j] = compat[i, j] * u_0(i, j)`` at each terminal public state."""
    for t in range(pubs.shape[0]):
        for i in range(out.shape[1]):
            for j in range(out.shape[2]):
                c = compat[i, j]
                out[t, i, j] = c * pp.terminal_payoff(pubs[t], params, i, j) if c != 0.0 else 0.0


@njit(cache=True, nogil=True)
def _live_pairs(pubs, params, compat, r0, r1, start, i_out, j_out, v_out):
    """At each terminal t, the nonzero ``compat * u_0(i, j)`` of the pairs both reaches
    allow (``r0[t, i]`` and ``r1[t, j]``) as triplets from ``start[t]`` to ``start[t + 1]``."""
    p = 0
    for t in range(pubs.shape[0]):
        start[t] = p
        for i in range(r0.shape[1]):
            if not r0[t, i]:
                continue
            for j in range(r1.shape[1]):
                c = compat[i, j]
                if not r1[t, j] or c == 0.0:
                    continue
                v = c * pp.terminal_payoff(pubs[t], params, i, j)
                if v != 0.0:
                    i_out[p] = i
                    j_out[p] = j
                    v_out[p] = v
                    p += 1
    start[pubs.shape[0]] = p


@njit(cache=True, nogil=True)
def _reachable(seat, kind, first, count, mask, row, row_kid, row_next, row_prob, row_count,
               r):
    """``r[node, i]``: whether some play leads seat's private state i to the node from the
    states ``r[0]`` holds (a reach pass with every action and outcome taken)."""
    for n in range(kind.shape[0]):
        k = kind[n]
        f = first[n]
        if k == pp.TERMINAL or k == LEAF:
            continue
        if k == seat or k == pp.PRIVATE_CHANCE + seat:
            q = row[n]
            for i in range(r.shape[1]):
                if not r[n, i]:
                    continue
                for e in range(row_count[q, i]):
                    if k == seat:
                        r[f + row_kid[q, i, e], row_next[q, i, e]] = True
                    elif row_prob[q, i, e] > 0.0:
                        r[f, row_next[q, i, e]] = True
        else:
            for c in range(f, f + count[n]):
                for i in range(r.shape[1]):
                    r[c, i] = r[n, i] and (k != pp.CHANCE or mask[c, i] != 0.0)


@njit(cache=True)
def public_path_states(start, target, params, depth, amax):
    """The public states from ``start`` (excluded) to ``target`` (included), found breadth
    first on the public protocol alone (each node's children in the protocol's order: a
    chance node's outcomes, else its legal actions), ``depth`` public steps at most, as rows
    of an array; no row where ``target`` is not that near. A child equals ``target`` where
    every entry is equal by value (``np.array_equal`` for arrays of one length). The last
    level's children are compared, not kept. One numba call, where a Python call a child
    was most of an Agent Hunter review's time (SearchAgent.public_path; docs/search.md)."""
    width = start.shape[0]
    none = np.empty((0, width), start.dtype)
    if target.shape[0] != width:
        return none
    cap = 1024
    kept = np.empty((cap, width), start.dtype)  # the nodes to expand, level after level
    parent = np.empty(cap, np.int64)
    kept[0] = start
    parent[0] = -1
    n, lo, hi = 1, 0, 1
    codes = np.empty(max(amax, 1), np.int32)
    probs = np.empty(max(amax, 1))
    kid = np.empty(width, start.dtype)
    for level in range(depth):
        for q in range(lo, hi):
            pub = kept[q]
            kind = pp.current_player(pub, params)
            if kind == pp.TERMINAL:
                continue
            if kind == pp.CHANCE:
                k = pp.chance_outcomes(pub, params, codes, probs)
            else:
                k = pp.legal_actions(pub, params, codes)
            for o in range(k):
                pp.apply_action(pub, params, codes[o], kid)
                same = True
                for i in range(width):
                    if kid[i] != target[i]:
                        same = False
                        break
                if same:
                    path = np.empty((level + 1, width), start.dtype)
                    path[level] = kid
                    p = q
                    for j in range(level - 1, -1, -1):
                        path[j] = kept[p]
                        p = parent[p]
                    return path
                if level + 1 < depth:
                    if n == cap:
                        cap *= 2
                        grown = np.empty((cap, width), start.dtype)
                        grown[:n] = kept[:n]
                        kept = grown
                        more = np.empty(cap, np.int64)
                        more[:n] = parent[:n]
                        parent = more
                    kept[n] = kid
                    parent[n] = q
                    n += 1
        lo, hi = hi, n
    return none


@njit(cache=True)
def _game_constants(params, w0, w1, compat):
    pp.initial_weights(params, 0, w0)
    pp.initial_weights(params, 1, w1)
    for i in range(w0.shape[0]):
        for j in range(w1.shape[0]):
            compat[i, j] = pp.compatible(params, i, j)
    return pp.max_actions(params), pp.max_private_actions(params)


@njit(cache=True)
def _root(params):
    return pp.initial_state(params)


@dataclass
class GameModel:
    """What every subtree of one game shares: sizes, priors, compatibility, normaliser."""

    params: object
    n: tuple[int, int]  # private states per seat
    weights: tuple[np.ndarray, np.ndarray]  # the deal's prior weights per seat
    compat: np.ndarray  # (n0, n1) compatibility weights
    z: float  # sum of w0[i] w1[j] compat[i, j]: the deal's normaliser
    max_actions: int
    max_private_actions: int

    @classmethod
    def of(cls, params) -> GameModel:
        if not pp.has_public(params):
            raise ValueError(f"{type(params).__name__} has no public-state model")
        num_private = pp.python_impl(params, "num_private")
        n = (int(num_private(params, 0)), int(num_private(params, 1)))
        w0, w1 = np.zeros(n[0]), np.zeros(n[1])
        compat = np.zeros(n)
        a, pa = _game_constants(params, w0, w1, compat)
        return cls(params, n, (w0, w1), compat, float(w0 @ compat @ w1), int(a), int(pa))

    def root(self) -> np.ndarray:
        return _root(self.params)


@dataclass
class Subtree:
    """The public tree below ``pub[0]`` cut at ``depth`` edges (None: to the end)."""

    game: GameModel
    pub: np.ndarray  # (N, P) public states
    kind: np.ndarray  # (N,) int64: 0, 1, CHANCE, PRIVATE_CHANCE + s, TERMINAL, LEAF
    parent: np.ndarray  # (N,) parent node (-1 at the root)
    label: np.ndarray  # (N,) index of this node among its parent's children
    first: np.ndarray  # (N,) first child
    count: np.ndarray  # (N,) number of children
    prob: np.ndarray  # (N,) public chance probability of the edge into the node (1 if none)
    mask: tuple[np.ndarray, np.ndarray]  # per seat (N, n_s): chance mask of the edge in
    row: np.ndarray  # (N,) row of a decision or private chance (-1 otherwise)
    row_kid: np.ndarray  # (R, nmax, PA) child (label index) of each private action
    row_next: np.ndarray  # (R, nmax, PA) next private state of each action / outcome
    row_prob: np.ndarray  # (R, nmax, PA) private chance probability (0 at decisions)
    row_count: np.ndarray  # (R, nmax) actions (outcomes) per private state
    term: np.ndarray  # (N,) index into ``payoff`` of a terminal (-1 otherwise)
    payoff: np.ndarray  # (T, n0, n1) compat * seat 0's payoff
    leaves: np.ndarray  # node indices of LEAF nodes
    source_row: np.ndarray | None = None  # extracted: each row's row in the source tree
    origin: np.ndarray | None = None  # extracted: each node's node in the source tree

    @property
    def size(self) -> int:
        return int(self.kind.shape[0])

    def seat_arrays(self, seat: int) -> tuple:
        """The arguments of :func:`spycfr.search.passes.forward` that describe the tree for
        ``seat`` (before its strategy, root reach and output)."""
        return (self.kind, self.first, self.count, self.mask[seat], self.row, self.row_kid,
                self.row_next, self.row_prob, self.row_count)

    def find(self, pub: np.ndarray) -> int:
        """The node whose public state is ``pub`` (-1 if absent)."""
        hit = np.flatnonzero((self.pub == pub).all(axis=1))
        return int(hit[0]) if hit.size else -1


OK = 0
TOO_MANY = 1
NO_LABELS = 2


@njit(cache=True, nogil=True)
def _count(params, root, depth, max_nodes, bad, widths=False):
    """Depth first below ``root`` (cut ``depth`` edges below it; depth < 0: to the end):
    (status, nodes, rows, widest) where ``widest`` is the most entries of a private row
    (decision or private chance), counted with ``widths`` only (else 0): what build's
    tables need, known before any is made. NO_LABELS writes the offending public state
    into ``bad``."""
    amax = pp.max_actions(params)
    pamax = pp.max_private_actions(params)
    cap = (pp.max_depth(params) + 1) * amax + 1
    stack = np.empty((cap, root.shape[0]), root.dtype)
    sdep = np.empty(cap, np.int64)
    labels = np.empty(amax, np.int32)
    probs = np.empty(amax)
    # every state's row at once (the protocol's *_rows hooks, as _expand asks), where the
    # count asked the per-state functions state by state: the same counts (buffers the
    # size of _fill's, expand_bytes, which the build's memory check counts after)
    nmax = max(pp.num_private(params, 0), pp.num_private(params, 1)) if widths else 0
    w = pamax if widths else 0
    rk = np.zeros((nmax, w), np.int64)
    rn = np.zeros((nmax, w), np.int64)
    rp = np.zeros((nmax, w))
    rc = np.zeros(nmax, np.int64)
    stack[0] = root
    sdep[0] = 0
    sp = 1
    nodes = 0
    rows = 0
    widest = 0
    while sp > 0:
        sp -= 1
        cur = stack[sp].copy()
        d = sdep[sp]
        nodes += 1
        if nodes > max_nodes:
            return TOO_MANY, nodes, rows, widest
        kind = pp.current_player(cur, params)
        if kind == pp.TERMINAL or (depth >= 0 and d >= depth):
            continue
        if kind == pp.CHANCE:
            k = pp.chance_outcomes(cur, params, labels, probs)
        else:
            k = pp.legal_actions(cur, params, labels)
            rows += 1
            if widths and (kind == 0 or kind == 1):
                pp.private_action_rows(cur, params, kind, k, rk, rn, rc)
                for i in range(pp.num_private(params, kind)):
                    widest = max(widest, rc[i])
            elif widths and kind >= pp.PRIVATE_CHANCE:
                s = kind - pp.PRIVATE_CHANCE
                pp.private_chance_rows(cur, params, s, rn, rp, rc)
                for i in range(pp.num_private(params, s)):
                    widest = max(widest, rc[i])
        if k == 0:
            bad[:] = cur
            return NO_LABELS, nodes, rows, widest
        for o in range(k):
            pp.apply_action(cur, params, labels[o], stack[sp])
            sdep[sp] = d + 1
            sp += 1
    return OK, nodes, rows, widest


@njit(cache=True, nogil=True)
def _fill(params, depth, nmax, pub, kind, parent, label, first, count, prob, mask0, mask1,
          row, row_kid, row_next, row_prob, row_count):
    """Breadth first: the subtree's arrays, of the sizes _count measured (pub[0] is the root;
    the rows' tables at least as wide as the widest private row)."""
    amax = pp.max_actions(params)
    pamax = pp.max_private_actions(params)
    n0 = mask0.shape[1]
    n1 = mask1.shape[1]
    kids_pub, probs, masks, rk, rn, rp, rc = _expand_buffers(pub[0], nmax, amax, pamax)
    dep = np.zeros(pub.shape[0], np.int64)
    width = row_kid.shape[2]
    widest = 0
    parent[0] = -1
    label[0] = 0
    prob[0] = 1.0
    mask0[0] = 1.0
    mask1[0] = 1.0
    free = 1
    r = 0
    for i in range(pub.shape[0]):
        first[i] = free
        row[i] = -1
        if depth >= 0 and dep[i] >= depth and pp.current_player(pub[i], params) != pp.TERMINAL:
            kind[i] = LEAF
            count[i] = 0
            continue
        # only the part of the rows' buffers a table keeps (the width) is set back to 0,
        # where all of it was (nmax x pamax: 12 MB a node on Agent Hunter): the protocol's
        # hooks read back only what they wrote, so what is copied is the same
        rk[:, :width] = 0
        rn[:, :width] = 0
        rp[:, :width] = 0.0
        rc[:] = 0
        kd, k = _expand(pub[i], params, nmax, kids_pub, probs, masks, rk, rn, rp, rc)
        kind[i] = kd
        count[i] = k
        if kd == 0 or kd == 1 or kd >= pp.PRIVATE_CHANCE:
            row[i] = r
            widest = max(widest, rc.max())
            row_kid[r] = rk[:, :width]
            row_next[r] = rn[:, :width]
            row_prob[r] = rp[:, :width]
            row_count[r] = rc
            r += 1
        for o in range(k):
            c = free + o
            pub[c] = kids_pub[o]
            parent[c] = i
            label[c] = o
            prob[c] = probs[o]
            mask0[c] = masks[o, 0, :n0]
            mask1[c] = masks[o, 1, :n1]
            dep[c] = dep[i] + 1
        # masks is all ones before each expansion (made so; _expand writes only its k
        # children's, set back here), where the whole buffer was reset before each:
        # amax x 2 x nmax, 19 MB a node on advanced mode (subgame.subgame does the same)
        masks[:k] = 1.0
        free += k
    return widest


class TooBig(ValueError):
    """A tree past build's ``max_work``."""


def build(game: GameModel, root: np.ndarray | None = None, depth: int | None = None,
          max_nodes: int = 2_000_000, live: bool = False,
          start: tuple[np.ndarray, np.ndarray] | None = None,
          max_work: int | None = None) -> Subtree:
    """Enumerate the public tree below ``root`` (the game's root by default), cutting every
    non-terminal node ``depth`` edges below it into a LEAF (two numba passes: count, fill).
    With ``live`` the payoffs are only those of pairs some play reaches (:func:`_live_payoff`:
    the values of every reachable private state are the same, and Agent Avenue ``mini``'s
    22,800 terminals share 509 matrices instead of taking 7.4 GB) from the private states
    ``start`` says each seat may hold at the root (booleans; by default the deal's prior at
    the game's root, any state elsewhere), and rows are as wide as the tree's widest; past
    ``max_work`` (:func:`work`, checked as soon as each part is known) it raises TooBig."""
    params = game.params
    root = game.root() if root is None else np.asarray(root)
    cut = -1 if depth is None else int(depth)
    bad = np.zeros_like(root)
    status, nodes, rows, widest = _count(params, root, cut, max_nodes, bad, live)
    if status == TOO_MANY:
        raise ValueError(f"the subtree has more than {max_nodes} public nodes")
    if status == NO_LABELS:
        raise ValueError(f"public state {bad.tolist()} is not terminal but has no labels or "
                         "outcomes")
    nmax, pamax = max(game.n), game.max_private_actions
    r = max(rows, 1)
    width = pamax
    if live:  # the rows' width known from the count: over budget before any table is made
        width = max(int(widest), 1)
        if max_work is not None and (nodes + rows * width) * nmax > max_work:
            raise TooBig(f"the subtree takes more than {max_work:,} node-states")
    # the tree's arrays, and the scratch buffers _fill makes (and its nodes' depths)
    memory.require(f"a public tree of {nodes:,} nodes and {rows:,} private rows "
                   f"{width} wide", tree_bytes(game, nodes, rows, width, root)
                   + expand_bytes(root, nmax, game.max_actions, pamax) + 8 * nodes)
    pub = np.zeros((nodes, root.shape[0]), root.dtype)
    pub[0] = root
    kind = np.zeros(nodes, np.int64)
    parent, label = np.zeros(nodes, np.int64), np.zeros(nodes, np.int64)
    first, count = np.zeros(nodes, np.int64), np.zeros(nodes, np.int64)
    prob, row = np.ones(nodes), np.full(nodes, -1, np.int64)
    mask = (np.ones((nodes, game.n[0])), np.ones((nodes, game.n[1])))
    tab = [np.zeros((r, nmax, width), np.int64), np.zeros((r, nmax, width), np.int64),
           np.zeros((r, nmax, width)), np.zeros((r, nmax), np.int64)]
    filled = _fill(params, cut, nmax, pub, kind, parent, label, first, count, prob, mask[0],
                   mask[1], row, *tab)
    if filled > width:  # the count's private rows and the fill's must be the same
        raise RuntimeError(f"a private row of {filled} entries where the count saw {width}")
    tnodes = np.flatnonzero(kind == pp.TERMINAL)
    term = np.full(nodes, -1, np.int64)
    if live:
        out = Subtree(game, pub, kind, parent, label, first, count, prob, mask, row, tab[0],
                      tab[1], tab[2], tab[3], term, np.zeros((0, *game.n)),
                      np.flatnonzero(kind == LEAF))
        spent = (nodes + rows * width) * nmax
        if tnodes.size:
            if start is None and np.array_equal(root, game.root()):
                start = (game.weights[0] > 0, game.weights[1] > 0)
            term[tnodes], out.payoff = _live_payoff(
                out, tnodes, start, None if max_work is None else max_work - spent)
        return out
    term[tnodes] = np.arange(tnodes.size)
    memory.require(f"the payoff matrices of a public tree's {tnodes.size:,} terminals",
                   8.0 * tnodes.size * game.n[0] * game.n[1])
    payoff = np.zeros((tnodes.size, *game.n))
    if tnodes.size:
        _payoffs(pub[tnodes], params, game.compat, payoff)
    return Subtree(game, pub, kind, parent, label, first, count, prob, mask, row, tab[0],
                   tab[1], tab[2], tab[3], term, payoff, np.flatnonzero(kind == LEAF))


def tree_bytes(game: GameModel, nodes: int, rows: int, width: int, root: np.ndarray) -> int:
    """The bytes of :func:`build`'s arrays for a tree of ``nodes`` public nodes and ``rows``
    private rows ``width`` entries wide, before its terminals' payoffs (known from its count,
    before any array is made): per node its public state, seven int64 fields, the edge's
    probability and both seats' masks; per row three tables of entries and the counts."""
    nmax = max(game.n)
    per_node = root.shape[0] * root.dtype.itemsize + 8 * 8 + 8 * (game.n[0] + game.n[1])
    return int(nodes * per_node + max(rows, 1) * nmax * (3 * width + 1) * 8)


def nodes_to_end(game: GameModel, root: np.ndarray, max_nodes: int) -> int | None:
    """The public nodes from ``root`` to the end of the game (None: more than ``max_nodes``);
    a depth-first count in numba that stops at ``max_nodes``, so it costs no more than
    that many nodes' labels (about 0.15 us a node on Agent Avenue)."""
    bad = np.zeros_like(root)
    status, nodes, _, _ = _count(game.params, np.asarray(root), -1, max_nodes, bad)
    if status == NO_LABELS:
        raise ValueError(f"public state {bad.tolist()} is not terminal but has no labels or "
                         "outcomes")
    return None if status == TOO_MANY else int(nodes)


def work(tree: Subtree, start: tuple[np.ndarray, np.ndarray] | None = None) -> int:
    """A whole tree's node-states, what a CFR+ iteration's passes touch once each per private
    state: nodes and row entries (rows times their width) times private states a seat, and
    at each terminal, for each seat, its private states times the opponent's that some play
    reaches there from ``start`` (the backward pass sums only those)."""
    nmax = max(tree.game.n)
    rows = int((tree.row >= 0).sum())
    reach = [reachable(tree, s, np.ones(tree.game.n[s], np.bool_) if start is None
                       else np.asarray(start[s], np.bool_))[tree.term >= 0] for s in (0, 1)]
    return (tree.size + rows * tree.row_kid.shape[2]) * nmax + _terminal_work(tree.game, reach)


def _terminal_work(game: GameModel, reach: list[np.ndarray]) -> int:
    return int(game.n[0] * reach[1].sum() + game.n[1] * reach[0].sum())


def _live_payoff(t: Subtree, tnodes: np.ndarray, held: tuple[np.ndarray, np.ndarray] | None,
                 max_work: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each terminal's payoff matrix on the pairs that some play reaches from the private
    states ``held`` allows at the root (None: any), 0 on the others, which no range from
    those states ever weighs; equal matrices stored once. Returns (each terminal's matrix by
    its index in the matrices, the matrices); TooBig when the terminals' node-states
    (:func:`work`) pass ``max_work``, before any pair is valued."""
    game = t.game
    reach = [reachable(t, s, np.ones(game.n[s], np.bool_) if held is None
                       else np.asarray(held[s], np.bool_))[tnodes] for s in (0, 1)]
    if max_work is not None and _terminal_work(game, reach) > max_work:
        raise TooBig(f"the subtree's terminals take more than {max_work:,} node-states")
    pairs = int((reach[0].sum(1) * reach[1].sum(1)).sum())
    memory.require(f"the live payoffs of a public tree's {tnodes.size:,} terminals "
                   f"({pairs:,} pairs of private states)", 24.0 * pairs)
    start = np.zeros(tnodes.size + 1, np.int64)
    i_of, j_of, v_of = np.zeros(pairs, np.int64), np.zeros(pairs, np.int64), np.zeros(pairs)
    _live_pairs(t.pub[tnodes], game.params, game.compat, reach[0], reach[1], start, i_of, j_of,
                v_of)
    seen: dict[bytes, int] = {}
    which = np.zeros(tnodes.size, np.int64)
    first: list[int] = []
    for x in range(tnodes.size):
        a, b = start[x], start[x + 1]
        key = i_of[a:b].tobytes() + j_of[a:b].tobytes() + v_of[a:b].tobytes()
        which[x] = seen.setdefault(key, len(seen))
        if which[x] == len(first):
            first.append(x)
    memory.require(f"{len(first):,} distinct payoff matrices of a public tree's terminals",
                   8.0 * len(first) * game.n[0] * game.n[1])
    payoff = np.zeros((len(first), *game.n))
    for u, x in enumerate(first):
        a, b = start[x], start[x + 1]
        payoff[u, i_of[a:b], j_of[a:b]] = v_of[a:b]
    return which, payoff


def reachable(tree: Subtree, seat: int, start: np.ndarray) -> np.ndarray:
    """(nodes, n_seat) booleans: the private states of ``seat`` that some play leads to each
    node from those ``start`` holds at the root (every action and outcome taken)."""
    r = np.zeros((tree.size, tree.game.n[seat]), np.bool_)
    r[0] = start
    _reachable(seat, *tree.seat_arrays(seat), r)
    return r


def extract(tree: Subtree, node: int, depth: int | None = None) -> Subtree:
    """The part of ``tree`` below ``node`` (cut ``depth`` edges below it), without asking
    the game again: what :func:`build` from ``tree.pub[node]`` would give."""
    order = [node]
    dep = {node: 0}
    cut = set()
    i = 0
    while i < len(order):
        n = order[i]
        i += 1
        if tree.kind[n] == pp.TERMINAL or tree.kind[n] == LEAF:
            continue
        if depth is not None and dep[n] >= depth:
            cut.add(n)
            continue
        for c in range(tree.first[n], tree.first[n] + tree.count[n]):
            dep[c] = dep[n] + 1
            order.append(c)
    old = np.array(order, np.int64)
    new = np.full(tree.size, -1, np.int64)
    new[old] = np.arange(old.size)
    kind = tree.kind[old].copy()
    kind[[new[n] for n in cut]] = LEAF
    first = np.where(tree.count[old] > 0, new[np.minimum(tree.first[old], tree.size - 1)],
                     old.size)
    first[kind == LEAF] = old.size
    count = np.where(kind == LEAF, 0, tree.count[old])
    rows = tree.row[old]
    has = np.flatnonzero((rows >= 0) & (kind != LEAF))
    row = np.full(old.size, -1, np.int64)
    row[has] = np.arange(has.size)
    take = rows[has] if has.size else np.zeros(1, np.int64)
    terms = tree.term[old]
    is_term = np.flatnonzero(terms >= 0)
    term = np.full(old.size, -1, np.int64)
    # terminals sharing a matrix (build's ``live``) keep sharing it
    kept, term[is_term] = np.unique(terms[is_term], return_inverse=True)
    parent = np.where(tree.parent[old] >= 0, new[np.maximum(tree.parent[old], 0)], -1)
    parent[0] = -1
    label = tree.label[old].copy()
    label[0] = 0
    prob = tree.prob[old].copy()
    mask = (tree.mask[0][old], tree.mask[1][old])
    prob[0] = 1.0  # the root's own edge is no part of the subtree
    mask[0][0] = 1.0
    mask[1][0] = 1.0
    return Subtree(tree.game, tree.pub[old], kind, parent, label, first, count, prob, mask, row,
                   tree.row_kid[take], tree.row_next[take], tree.row_prob[take],
                   tree.row_count[take], term, tree.payoff[kept],
                   np.flatnonzero(kind == LEAF), take, tree.origin[old] if tree.origin is not None
                   else old)
