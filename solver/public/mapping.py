"""A public-tree strategy on the history tree: each history infoset takes the row of its
(public node, private state), action by action (through the bridge of the public-state
protocol), so every analysis command reads a public-tree run like any other."""

from __future__ import annotations

import numpy as np
from numba import njit

from spycfr.engine import protocol as H
from spycfr.errors import SpycfrError
from spycfr.public import protocol as P
from spycfr.public.solver import uniform_strategy
from spycfr.public.tree import PublicTree
from spycfr.tree import CHANCE, Tree
from spycfr.tree.kernels import same_values

OK = 0
NO_PUBLIC_NODE = 1  # a history edge whose public state is neither the node's nor a child's
NOT_A_DECISION = 2  # a history decision whose public node is not the same seat's decision
NO_ENTRY = 3  # a history action that is no action of the public row
INCONSISTENT = 4  # two nodes of one history infoset on different rows or entries
NOT_LIVE = 5  # a history infoset whose private state the public tree rules out there

_ERRORS = {
    NO_PUBLIC_NODE: "a history move whose public state is not a child's in the public tree",
    NOT_A_DECISION: "a history decision whose public node is not that seat's decision",
    NO_ENTRY: "a history action that is no action of its public row",
    INCONSISTENT: "two nodes of one history infoset on different public rows",
    NOT_LIVE: "a history infoset whose private state its public node rules out",
}


@njit(cache=True)
def _folded(pubc, pub_states, pub_player, pub_first, x):
    """Public node x if it has the public state pubc, or its child when x is a private-chance
    step of one child that the history rules fold into the move (Agent Avenue's mover
    forgetting its revealed face-down card); else -1."""
    if same_values(pubc, pub_states[x]):
        return x
    if pub_player[x] >= P.PRIVATE_CHANCE and same_values(pubc, pub_states[pub_first[x]]):
        return pub_first[x]
    return -1


@njit(cache=True)
def _map(params, first_child, num_children, node_player, node_infoset, node_action,
         n_infosets, max_a, pub_states, pub_player, pub_first, pub_num, live_start, live_priv,
         row_start, row_off, ent_kid, ent_next):
    """(status, hist_row[infoset], hist_ent[infoset, action]: the row's cell) by one
    depth-first walk of the history tree beside the public tree. A history edge leads to the
    public node of the same public state: the node itself (a private deal), a child, or a
    child of a public chance child (a signal, such as an answer, that the history rules
    apply with the move), either possibly through a private-chance step of one child
    (:func:`_folded`)."""
    hist_row = np.full(n_infosets, -1, np.int64)
    hist_ent = np.full((n_infosets, max(max_a, 1)), -1, np.int64)
    root = H.initial_state(params)
    depth = H.max_depth(params)
    width = H.max_actions(params)
    cap = (depth + 1) * width + 1
    states = np.empty((cap, root.shape[0]), root.dtype)
    snode = np.empty(cap, np.int64)
    spub = np.empty(cap, np.int64)
    pubc = np.empty(pub_states.shape[1], pub_states.dtype)
    states[0] = root
    snode[0] = 0
    spub[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        n = snode[sp]
        q = spub[sp]
        h = states[sp].copy()
        k = num_children[n]
        if k == 0:
            continue
        pl = node_player[n]
        j = -1
        row = -1
        seen = False
        if pl != CHANCE:
            if pub_player[q] != pl:
                return NOT_A_DECISION, hist_row, hist_ent
            j = node_infoset[n]
            i = P.private_of_history(h, params, pl)
            for e in range(live_start[pl, q], live_start[pl, q + 1]):
                if live_priv[e] == i:
                    row = row_start[q] + e - live_start[pl, q]
            if row < 0:
                return NOT_LIVE, hist_row, hist_ent
            seen = hist_row[j] >= 0
            if seen and hist_row[j] != row:
                return INCONSISTENT, hist_row, hist_ent
            hist_row[j] = row
        for a in range(k):
            c = first_child[n] + a
            H.apply_action(h, params, node_action[c], states[sp])
            P.public_of_history(states[sp], params, pubc)
            qc = -1
            kid = -1
            if same_values(pubc, pub_states[q]):
                qc = q
            else:
                for b in range(pub_num[q]):
                    pc = pub_first[q] + b
                    qc = _folded(pubc, pub_states, pub_player, pub_first, pc)
                    if qc >= 0:
                        kid = b
                        break
                    if pub_player[pc] == P.CHANCE:  # a public signal the history tree folds in
                        for g in range(pub_num[pc]):
                            qc = _folded(pubc, pub_states, pub_player, pub_first,
                                         pub_first[pc] + g)
                            if qc >= 0:
                                kid = b
                                break
                        if qc >= 0:
                            break
            if qc < 0 or (pl != CHANCE and qc == q):
                return NO_PUBLIC_NODE, hist_row, hist_ent
            if pl != CHANCE:
                nxt = P.private_of_history(states[sp], params, pl)
                e = -1
                for x in range(row_off[row], row_off[row + 1]):
                    if ent_kid[x] == kid and ent_next[x] == nxt:
                        e = x
                        break
                if e < 0:
                    return NO_ENTRY, hist_row, hist_ent
                if seen and hist_ent[j, a] != e:
                    return INCONSISTENT, hist_row, hist_ent
                hist_ent[j, a] = e
            snode[sp] = c
            spub[sp] = qc
            sp += 1
    return OK, hist_row, hist_ent


class HistoryMap:
    """Where each infoset of a history tree sits in a public tree: its row and, per
    history action, the row's action (its cell in the public tables)."""

    def __init__(self, public: PublicTree, tree: Tree) -> None:
        if tree.num_seats != 2:
            raise SpycfrError("a public tree maps onto two-seat history trees only")
        status, self.row, self.entry = _map(
            public.params, tree.first_child, tree.num_children, tree.node_player,
            tree.node_infoset, tree.node_action, tree.num_infosets, tree.max_actions,
            public.pub_states, public.node_player, public.first_child, public.num_children,
            public.live_start, public.live_priv, public.row_start, public.row_off,
            public.ent_kid, public.ent_next)
        if status != OK:
            raise SpycfrError(f"{public.game}'s public-state model does not match its history "
                              f"rules: {_ERRORS[status]}")
        self.tree = tree

    def strategy(self, public_strategy: np.ndarray) -> np.ndarray:
        """float64[infosets, max actions] of the history tree from a public-tree strategy
        (float64[cells])."""
        out = np.zeros((self.tree.num_infosets, max(self.tree.max_actions, 1)))
        k = self.tree.infoset_num_actions
        for a in range(out.shape[1]):
            live = k > a
            out[live, a] = public_strategy[self.entry[live, a]]
        return out

    def public_strategy(self, strategy: np.ndarray, public: PublicTree) -> np.ndarray:
        """The reverse: a history-tree strategy on the public tree's rows. A row reached by
        several history infosets (the public tree forgets what does not matter) takes the
        last one's; rows of no infoset (unreachable private states) stay uniform."""
        out = uniform_strategy(public)
        k = self.tree.infoset_num_actions
        for a in range(int(k.max(initial=0))):
            live = k > a
            out[self.entry[live, a]] = strategy[live, a]
        return out
