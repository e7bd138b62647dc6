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
    tree_bytes,
)


def subgame(game: GameModel, root: np.ndarray, decisions: int = 1,
            max_nodes: int = 200_000, terminal_leaves: bool = True) -> Subtree:
    """The public tree below ``root``, every decision node below the first ``decisions``
    levels of decisions cut into a LEAF; with ``terminal_leaves`` terminals are leaves too
    (valued by the caller's value function, exact there: a Subtree's dense payoff matrices
    take n0 * n1 * 8 bytes per terminal, 4 MB each on Agent Hunter's rulesheet deck, and the
    last turn's subgame has hundreds)."""
    params = game.params
    current = pp.python_impl(params, "current_player")
    nmax, amax, pamax = max(game.n), game.max_actions, game.max_private_actions
    kids_pub, probs, masks, rk, rn, rp, rc = _expand_buffers(root, nmax, amax, pamax)
    pubs, parents, labels, eprob = [np.asarray(root).copy()], [-1], [0], [1.0]
    emask = [np.ones((2, nmax))]
    level = [0]  # decisions above each node
    kinds: list[int] = []
    firsts: list[int] = []
    counts: list[int] = []
    rows: list[int] = []
    tabs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    budget = memory.current_budget()
    built = ("the public chances before the next decision" if decisions == 0 else
             f"a subgame {decisions} decision level{'s' if decisions > 1 else ''} deep")
    growth = None if budget is None else budget.tracker(f"building {built}, public nodes")
    i = 0
    while i < len(pubs):
        if len(pubs) > max_nodes:
            raise TooBig(f"the subgame has more than {max_nodes:,} public nodes")
        if growth is not None:
            growth.tick(len(pubs))
        k0 = int(current(pubs[i], params))
        if (k0 in (0, 1) and level[i] >= decisions) or (k0 == pp.TERMINAL and terminal_leaves):
            kinds.append(LEAF)
            firsts.append(len(pubs))
            counts.append(0)
            rows.append(-1)
            i += 1
            continue
        masks[:] = 1.0
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
        else:
            rows.append(-1)
        for o in range(k):
            pubs.append(kids_pub[o].copy())
            parents.append(i)
            labels.append(o)
            eprob.append(float(probs[o]))
            emask.append(masks[o].copy())
            level.append(level[i] + (kind in (0, 1)))
        i += 1
    kind_a = np.array(kinds, np.int64)
    pub = np.array(pubs)
    tnodes = np.flatnonzero(kind_a == pp.TERMINAL)
    term = np.full(kind_a.shape[0], -1, np.int64)
    term[tnodes] = np.arange(tnodes.size)
    width = max([t[0].shape[1] for t in tabs], default=1)
    r = max(len(tabs), 1)
    memory.require(f"a subgame of {pub.shape[0]:,} public nodes and {len(tabs):,} private "
                   f"rows {width} wide", tree_bytes(game, pub.shape[0], r, width, root)
                   + 8.0 * tnodes.size * game.n[0] * game.n[1])
    payoff = np.zeros((tnodes.size, *game.n))
    if tnodes.size:
        _payoffs(pub[tnodes], params, game.compat, payoff)
    em = np.array(emask)
    tab = [np.zeros((r, nmax, width), np.int64), np.zeros((r, nmax, width), np.int64),
           np.zeros((r, nmax, width)), np.zeros((r, nmax), np.int64)]
    for q, t in enumerate(tabs):
        w = t[0].shape[1]
        tab[0][q, :, :w], tab[1][q, :, :w], tab[2][q, :, :w] = t[0], t[1], t[2]
        tab[3][q] = t[3]
    return Subtree(game, pub, kind_a, np.array(parents, np.int64), np.array(labels, np.int64),
                   np.array(firsts, np.int64), np.array(counts, np.int64), np.array(eprob),
                   (np.ascontiguousarray(em[:, 0, :game.n[0]]),
                    np.ascontiguousarray(em[:, 1, :game.n[1]])),
                   np.array(rows, np.int64), tab[0], tab[1], tab[2], tab[3], term, payoff,
                   np.flatnonzero(kind_a == LEAF))
