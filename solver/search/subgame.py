"""The public subgame a search agent re-solves while playing: from the current public state
down to the next ``decisions`` levels of decisions (either seat's), chance in between
expanded, the decisions below cut into leaves. One decision level is one move: its signals
and what they reveal are inside, the next mover's choice is a leaf.

Unlike :func:`spycfr.search.tree.build` (cut at a depth in edges, rows as wide as the
game's widest decision: 720 placements on Agent Hunter's rulesheet deck), a turn-sized cut
keeps the subgame one move deep whatever the number of signals, and the rows are as wide as
this subgame's widest decision (at most 129 moves after the placements), so a subgame of
~750 leaves takes a few MB.
"""

from __future__ import annotations

import numpy as np

from spycfr import memory
from spycfr.public import protocol as pp
from spycfr.search.tree import (
    LEAF,
    GameModel,
    Subtree,
    TooBig,
    _expand,
    _expand_buffers,
    _payoffs,
    expand_bytes,
    tree_bytes,
)

# the lists of a subgame's build are checked against the memory budget before each stretch
# of this many bytes (list_bytes): a stretch holds at most this and one more expansion
CHECK_BYTES = 4 * 2**20
# a Python object's bytes beyond its data, bounds: an ndarray (header, shape and strides,
# the data's allocation), a list's slot (over-allocated, and copied when it grows), an int
# or float past the small ints, a tuple of four
_ARRAY, _SLOT, _NUMBER, _TUPLE = 176, 24, 32, 64


def list_bytes(game: GameModel, root: np.ndarray, nodes: int, rows: int, width: int) -> int:
    """An upper bound on the bytes :func:`subgame`'s lists take for ``nodes`` public nodes
    and ``rows`` private rows ``width`` entries wide: per node its public state and masks
    (two arrays), its parent, label, edge probability and level, and the kind, first child,
    count and row it gets when expanded (nine slots, two numbers); per row three tables and
    the counts (four arrays) in a tuple. Counted from the arrays' own sizes, not from the
    resident memory's growth, which the first steps' one-off allocations (numba loading or
    compiling its kernels) made absurd (Agent Hunter mini's 4-level plan, a build of 2.3 MiB:
    4.2 GiB estimated on a warm cache, 96.9 GiB on a cold one; docs/search.md "Memory
    limits")."""
    nmax = max(game.n)
    per_node = (2 * _ARRAY + root.nbytes + 16 * nmax + 9 * _SLOT + 2 * _NUMBER)
    per_row = _TUPLE + 4 * _ARRAY + 8 * nmax * (3 * width + 1)
    return int(nodes * per_node + rows * per_row)


def subgame(game: GameModel, root: np.ndarray, decisions: int = 1,
            max_nodes: int = 200_000, terminal_leaves: bool = True,
            turn_levels: bool = False) -> Subtree:
    """The public tree below ``root``, every decision node below the first ``decisions``
    levels of decisions cut into a LEAF; with ``terminal_leaves`` terminals are leaves too
    (valued by the caller's value function, exact there: a Subtree's dense payoff matrices
    take n0 * n1 * 8 bytes per terminal, 4 MB each on Agent Hunter's rulesheet deck, and the
    last turn's subgame has hundreds). With ``turn_levels`` a level is a seat's run of
    consecutive decisions, not each decision: a decision of the seat that made the decision
    above it (chance between) adds no level, so a run begun above the cut goes on below it
    (Agent Avenue: a discard-and-draw, the same seat's next swap or play and the opponent's
    recruitment are two levels, as a play and the recruitment are, where each decision
    counted they are three; docs/search.md, "The standard agent's losses to the
    heuristic"). A node at ``decisions`` levels is a leaf either way."""
    params = game.params
    current = pp.python_impl(params, "current_player")
    nmax, amax, pamax = max(game.n), game.max_actions, game.max_private_actions
    pubs, parents, labels, eprob = [np.asarray(root).copy()], [-1], [0], [1.0]
    chance_masks: dict[int, np.ndarray] = {}  # a chance child's masks (the others': ones)
    level = [0]  # decisions above each node (with turn_levels, runs of one seat's)
    last = [-1]  # the seat of the decision above each node (-1: none)
    kinds: list[int] = []
    firsts: list[int] = []
    counts: list[int] = []
    rows: list[int] = []
    tabs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    budget = memory.current_budget()
    built = ("the public chances before the next decision" if decisions == 0 else
             f"a subgame {decisions} decision level{'s' if decisions > 1 else ''} deep")
    # the lists' bytes (and the expanders' buffers), counted as they grow (list_bytes),
    # checked before the first expansion of each stretch of CHECK_BYTES: the stretch holds
    # at most that and one more expansion. The expanders' scratch buffers are made at the
    # first expansion, after the first check, which counts them (a build that expands
    # nothing makes none and checks nothing)
    node_bytes, row_bytes = list_bytes(game, root, 1, 0, 0), list_bytes(game, root, 0, 1, 1)
    scratch = expand_bytes(root, nmax, amax, pamax) + 7 * _ARRAY
    held, checked = scratch, 0
    stretch = CHECK_BYTES + list_bytes(game, root, amax, 1, pamax)
    buffers = None
    i = 0
    while i < len(pubs):
        if len(pubs) > max_nodes:
            raise TooBig(f"the subgame has more than {max_nodes:,} public nodes")
        k0 = int(current(pubs[i], params))
        if (k0 in (0, 1) and level[i] >= decisions) or (k0 == pp.TERMINAL and terminal_leaves):
            kinds.append(LEAF)
            firsts.append(len(pubs))
            counts.append(0)
            rows.append(-1)
            i += 1
            continue
        if budget is not None and held >= checked:  # before an expansion, the only growth
            memory.require(f"building {built}, public nodes ({len(pubs):,} done)",
                           stretch + (scratch if buffers is None else 0))
            checked = held + CHECK_BYTES
        if buffers is None:
            buffers = _expand_buffers(root, nmax, amax, pamax)
        kids_pub, probs, masks, rk, rn, rp, rc = buffers
        # masks is all ones here: made so, and after a chance node's expansion its k
        # children's masks (all chance_mask writes; elsewhere _expand writes ones) are set
        # back to ones below, where the whole buffer was reset before each (amax x 2 x nmax:
        # 19 MB on advanced mode, 455 supplies by 2,641 states, most of a subgame's build)
        # the rows: only the counts are set back, a row's entries past its count keep an
        # earlier node's (tree._fill sets them to 0), harmless where every reader stops at
        # row_count (the passes, beliefs, styles, the agent's moves, LBR; the root's row,
        # the one saved_plan.fits_model compares whole, is the first expansion's, on fresh
        # buffers); setting them costs a pass over the buffers' kept part a node
        rc[:] = 0
        kind, k = _expand(pubs[i], params, nmax, kids_pub, probs, masks, rk, rn, rp, rc)
        if kind != pp.TERMINAL and k == 0:
            raise ValueError(f"public state {pubs[i].tolist()} is not terminal but has no "
                             "labels or outcomes")
        kinds.append(int(kind))
        firsts.append(len(pubs))
        counts.append(int(k))
        if kind in (0, 1) or kind >= pp.PRIVATE_CHANCE:
            width = max(int(rc.max()), 1)
            rows.append(len(tabs))
            tabs.append((rk[:, :width].copy(), rn[:, :width].copy(), rp[:, :width].copy(),
                         rc.copy()))
            held += row_bytes + 24 * nmax * (width - 1)
        else:
            rows.append(-1)
        held += k * node_bytes
        for o in range(k):
            pubs.append(kids_pub[o].copy())
            parents.append(i)
            labels.append(o)
            eprob.append(float(probs[o]))
            if kind == pp.CHANCE:  # else _expand wrote ones
                chance_masks[len(pubs) - 1] = masks[o].copy()
            level.append(level[i] + (kind in (0, 1) and not (turn_levels and kind == last[i])))
            last.append(int(kind) if kind in (0, 1) else last[i])
        if kind == pp.CHANCE:  # only chance_mask writes other than ones
            masks[:k] = 1.0
        i += 1
    width = max([t[0].shape[1] for t in tabs], default=1)
    r = max(len(tabs), 1)
    # before any array: the tree's, the chance children's masks kept until now (at most
    # nodes x 2 x nmax), the terminals' and leaves' indices and the comparisons that find
    # them, the payoffs
    memory.require(f"a subgame of {len(pubs):,} public nodes and {len(tabs):,} private "
                   f"rows {width} wide", tree_bytes(game, len(pubs), r, width, root)
                   + (16.0 * nmax + 24.0) * len(pubs)
                   + 8.0 * kinds.count(pp.TERMINAL) * game.n[0] * game.n[1])
    kind_a = np.array(kinds, np.int64)
    pub = np.array(pubs)
    tnodes = np.flatnonzero(kind_a == pp.TERMINAL)
    term = np.full(kind_a.shape[0], -1, np.int64)
    term[tnodes] = np.arange(tnodes.size)
    payoff = np.zeros((tnodes.size, *game.n))
    if tnodes.size:
        _payoffs(pub[tnodes], params, game.compat, payoff)
    # both seats' masks set where a chance child's are kept, ones elsewhere: no (nodes, 2,
    # nmax) array of every node's masks, nor a copy a child
    mask = (np.ones((len(pubs), game.n[0])), np.ones((len(pubs), game.n[1])))
    for c, m in chance_masks.items():
        mask[0][c] = m[0, :game.n[0]]
        mask[1][c] = m[1, :game.n[1]]
    tab = [np.zeros((r, nmax, width), np.int64), np.zeros((r, nmax, width), np.int64),
           np.zeros((r, nmax, width)), np.zeros((r, nmax), np.int64)]
    for q, t in enumerate(tabs):
        w = t[0].shape[1]
        tab[0][q, :, :w], tab[1][q, :, :w], tab[2][q, :, :w] = t[0], t[1], t[2]
        tab[3][q] = t[3]
    return Subtree(game, pub, kind_a, np.array(parents, np.int64), np.array(labels, np.int64),
                   np.array(firsts, np.int64), np.array(counts, np.int64), np.array(eprob),
                   mask,
                   np.array(rows, np.int64), tab[0], tab[1], tab[2], tab[3], term, payoff,
                   np.flatnonzero(kind_a == LEAF))
