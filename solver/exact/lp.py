"""Exact equilibrium of a small tree by the sequence-form linear program (HiGHS).

Used to validate the CFR solvers and, on trees small enough, as the fastest exact solver
(``spycfr solve --algorithm lp``, or ``auto``). P1 maximises min_y x'Ay over realisation plans
(Ex = e, x >= 0), written with the dual of the inner minimisation. P2's half of the strategy
is read from the duals of that program (the opponent's realisation plan), or, with
``both_sides``, found by solving P2's program too (a cross-check of the value, twice the time).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from spycfr.errors import SpycfrError
from spycfr.tree import CHANCE, TERMINAL, Tree

if TYPE_CHECKING:
    from scipy import sparse
# scipy.sparse and scipy.optimize are imported where an LP is built (some 0.5 s): every
# command that imports the solvers' table (spycfr.runs.engines) imports this module

MAX_LP_NODES = 2_000_000


@dataclass
class LPResult:
    """Game value for P1 and a behavioural equilibrium strategy (uniform where unreachable)."""

    value_p1: float
    strategy: np.ndarray  # float64[n_infosets, max_actions]
    # P1's value as found by P2's LP (equals value_p1 up to tolerance); None unless both_sides
    value_p2_side: float | None = None
    seconds: float = 0.0


@njit(cache=True)
def _sequence_pass(first_child, num_children, node_player, node_infoset, utility, chance_prob,
                   seq_start):
    """One pass in node order (parents first): every node's pair of sequences and chance
    reach; returns the payoff entries (row, col, value) and each infoset's parent sequence
    (-2 where an infoset has two: imperfect recall)."""
    n = first_child.shape[0]
    s0 = np.zeros(n, dtype=np.int64)
    s1 = np.zeros(n, dtype=np.int64)
    reach = np.zeros(n)
    reach[0] = 1.0
    parent_seq = np.full(seq_start.shape[0], -1, dtype=np.int64)
    rows = np.empty(n, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    vals = np.empty(n)
    m = 0
    for v in range(n):
        p = node_player[v]
        if p == TERMINAL:
            if utility[v] != 0.0 and reach[v] != 0.0:
                rows[m], cols[m], vals[m] = s0[v], s1[v], reach[v] * utility[v]
                m += 1
            continue
        c = first_child[v]
        i = node_infoset[v]
        for k in range(num_children[v]):
            s0[c + k], s1[c + k] = s0[v], s1[v]
            reach[c + k] = reach[v] * chance_prob[i + k] if p == CHANCE else reach[v]
        if p == CHANCE:
            continue
        own = s0[v] if p == 0 else s1[v]
        if parent_seq[i] == -1:
            parent_seq[i] = own
        elif parent_seq[i] != own:
            parent_seq[i] = -2
        for k in range(num_children[v]):
            if p == 0:
                s0[c + k] = seq_start[i] + k
            else:
                s1[c + k] = seq_start[i] + k
    return rows[:m], cols[:m], vals[:m], parent_seq


def _sequences(tree: Tree):
    """Sequence numbering, parent sequences of infosets and the sparse payoff matrix A."""
    nact = tree.infoset_num_actions.astype(np.int64)
    owner = tree.infoset_player.astype(np.int64)
    seq_start = np.zeros(tree.num_infosets, dtype=np.int64)
    n_seq = [1, 1]  # sequence 0 of each player is the empty sequence
    for p in (0, 1):
        mine = np.flatnonzero(owner == p)
        ends = 1 + np.cumsum(nact[mine])
        seq_start[mine] = ends - nact[mine]
        n_seq[p] = int(ends[-1]) if len(mine) else 1
    rows, cols, vals, parent_seq = _sequence_pass(
        tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
        np.asarray(tree.utility, dtype=np.float64), np.asarray(tree.chance_prob, np.float64),
        seq_start)
    if (parent_seq == -2).any():
        raise SpycfrError("LP needs perfect recall: an infoset has two parent sequences")
    from scipy import sparse

    a = sparse.coo_matrix((vals, (rows, cols)), shape=(n_seq[0], n_seq[1])).tocsr()
    return seq_start, parent_seq, n_seq, a


def _constraints(tree: Tree, player: int, seq_start, parent_seq, n_seq_p: int):
    """Sparse E (one row for the root plus one per infoset of ``player``) with E z = e."""
    from scipy import sparse

    infosets = tree.infosets_of(player).astype(np.int64)
    nact = tree.infoset_num_actions.astype(np.int64)[infosets]
    r = np.arange(1, len(infosets) + 1)
    first = np.repeat(seq_start[infosets] - np.concatenate([[0], np.cumsum(nact)[:-1]]), nact)
    rows = np.concatenate([[0], r, np.repeat(r, nact)])
    cols = np.concatenate([[0], parent_seq[infosets], first + np.arange(int(nact.sum()))])
    vals = np.concatenate([[1.0], -np.ones(len(infosets)), np.ones(int(nact.sum()))])
    return sparse.coo_matrix((vals, (rows, cols)), shape=(len(infosets) + 1, n_seq_p)).tocsr()


def _solve_side(payoff: sparse.csr_matrix, own: sparse.csr_matrix, opp: sparse.csr_matrix):
    """max_z min_w z'Mw over Ez=e, Fw=f: variables (z, q); returns (value, z, w).

    ``payoff`` is M (own sequences x opponent sequences) for the maximising player. The
    minimiser's plan w is the dual of the constraints F'q - M'z <= 0 (one per opponent
    sequence): linprog's marginals of a minimisation are <= 0, so w = -marginals.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    n_z = own.shape[1]
    n_q = opp.shape[0]
    cost = np.zeros(n_z + n_q)
    cost[n_z] = -1.0  # maximise q_root
    # F'q - M'z <= 0 for every opponent sequence.
    a_ub = sparse.hstack([-payoff.T, opp.T]).tocsr()
    b_ub = np.zeros(a_ub.shape[0])
    a_eq = sparse.hstack([own, sparse.csr_matrix((own.shape[0], n_q))]).tocsr()
    b_eq = np.zeros(own.shape[0])
    b_eq[0] = 1.0
    bounds = [(0, None)] * n_z + [(None, None)] * n_q
    res = linprog(
        cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    if res.status != 0 or res.x is None:
        raise SpycfrError(f"sequence-form LP failed: {res.message}")
    w = np.clip(-np.asarray(res.ineqlin.marginals), 0.0, None)
    return -float(res.fun), np.asarray(res.x[:n_z]), w


def solve_lp(tree: Tree, both_sides: bool = True) -> LPResult:
    """Game value for P1 and an equilibrium strategy of a small tree, exactly (up to HiGHS).

    ``both_sides=False`` solves P1's program only and takes P2's plan from its duals.
    """
    if tree.num_nodes > MAX_LP_NODES:
        raise SpycfrError(
            f"tree too big for the exact LP ({tree.num_nodes} nodes; at most {MAX_LP_NODES})"
        )
    start = time.perf_counter()
    seq_start, parent_seq, n_seq, a = _sequences(tree)
    e = _constraints(tree, 0, seq_start, parent_seq, n_seq[0])
    f = _constraints(tree, 1, seq_start, parent_seq, n_seq[1])
    value_p1, x, y = _solve_side(a, e, f)
    value_p2_side = None
    if both_sides:
        neg_value_p2, y, _ = _solve_side((-a.T).tocsr(), f, e)
        value_p2_side = -neg_value_p2

    # Behavioural strategy: each infoset's slice of its owner's plan, normalised (uniform
    # where the plan gives the infoset no weight).
    strategy = tree.uniform_strategy()
    nact = tree.infoset_num_actions.astype(np.int64)
    legal = np.arange(strategy.shape[1])[None, :] < nact[:, None]
    index = np.where(legal, seq_start[:, None] + np.arange(strategy.shape[1])[None, :], 0)
    plans = np.where((tree.infoset_player == 0)[:, None], x[np.minimum(index, len(x) - 1)],
                     y[np.minimum(index, len(y) - 1)])
    rows = np.where(legal, np.clip(plans, 0.0, None), 0.0)
    total = rows.sum(axis=1)
    weighted = total > 1e-12
    strategy[weighted] = rows[weighted] / total[weighted, None]
    return LPResult(
        value_p1=value_p1,
        strategy=strategy,
        value_p2_side=value_p2_side,
        seconds=time.perf_counter() - start,
    )
