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

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from solver.errors import SpycfrError
from solver.tree import CHANCE, TERMINAL, Tree

MAX_LP_NODES = 2_000_000


@dataclass
class LPResult:
    """Game value for P1 and a behavioural equilibrium strategy (uniform where unreachable)."""

    value_p1: float
    strategy: np.ndarray  # float64[n_infosets, max_actions]
    # P1's value as found by P2's LP (equals value_p1 up to tolerance); None unless both_sides
    value_p2_side: float | None = None
    seconds: float = 0.0


def _sequences(tree: Tree):
    """Sequence numbering, parent sequences of infosets and the sparse payoff matrix A."""
    n_inf = tree.num_infosets
    nact = tree.infoset_num_actions.tolist()
    owner = tree.infoset_player.tolist()
    seq_start = [0] * n_inf
    n_seq = [1, 1]  # sequence 0 of each player is the empty sequence
    for i in range(n_inf):
        seq_start[i] = n_seq[owner[i]]
        n_seq[owner[i]] += nact[i]

    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    util, cprob = tree.utility.tolist(), tree.chance_prob.tolist()
    n = tree.num_nodes
    s0 = [0] * n
    s1 = [0] * n
    reach = [0.0] * n
    reach[0] = 1.0
    parent_seq = [-1] * n_inf
    rows, cols, vals = [], [], []
    for v in range(n):  # parents precede children
        p = pl[v]
        if p == TERMINAL:
            if util[v] != 0.0 and reach[v] != 0.0:
                rows.append(s0[v])
                cols.append(s1[v])
                vals.append(reach[v] * util[v])
            continue
        c = fc[v]
        if p == CHANCE:
            off = inf[v]
            for k in range(nc[v]):
                s0[c + k], s1[c + k] = s0[v], s1[v]
                reach[c + k] = reach[v] * cprob[off + k]
            continue
        i = inf[v]
        own = s0[v] if p == 0 else s1[v]
        if parent_seq[i] == -1:
            parent_seq[i] = own
        elif parent_seq[i] != own:
            raise SpycfrError("LP needs perfect recall: an infoset has two parent sequences")
        for k in range(nc[v]):
            s0[c + k], s1[c + k] = s0[v], s1[v]
            if p == 0:
                s0[c + k] = seq_start[i] + k
            else:
                s1[c + k] = seq_start[i] + k
            reach[c + k] = reach[v]
    a = sparse.coo_matrix((vals, (rows, cols)), shape=(n_seq[0], n_seq[1])).tocsr()
    return seq_start, parent_seq, n_seq, a


def _constraints(tree: Tree, player: int, seq_start, parent_seq, n_seq_p: int):
    """Sparse E (one row for the root plus one per infoset of ``player``) with E z = e."""
    rows, cols, vals = [0], [0], [1.0]
    infosets = tree.infosets_of(player).tolist()
    nact = tree.infoset_num_actions.tolist()
    for r, i in enumerate(infosets, start=1):
        rows.append(r)
        cols.append(parent_seq[i])
        vals.append(-1.0)
        for k in range(nact[i]):
            rows.append(r)
            cols.append(seq_start[i] + k)
            vals.append(1.0)
    return sparse.coo_matrix((vals, (rows, cols)), shape=(len(infosets) + 1, n_seq_p)).tocsr()


def _solve_side(payoff: sparse.csr_matrix, own: sparse.csr_matrix, opp: sparse.csr_matrix):
    """max_z min_w z'Mw over Ez=e, Fw=f: variables (z, q); returns (value, z, w).

    ``payoff`` is M (own sequences x opponent sequences) for the maximising player. The
    minimiser's plan w is the dual of the constraints F'q - M'z <= 0 (one per opponent
    sequence): linprog's marginals of a minimisation are <= 0, so w = -marginals.
    """
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

    strategy = tree.uniform_strategy()
    nact = tree.infoset_num_actions.tolist()
    for i in range(tree.num_infosets):
        plan = x if tree.infoset_player[i] == 0 else y
        row = np.clip(plan[seq_start[i]: seq_start[i] + nact[i]], 0.0, None)
        total = row.sum()
        if total > 1e-12:
            strategy[i, : nact[i]] = row / total
    return LPResult(
        value_p1=value_p1,
        strategy=strategy,
        value_p2_side=value_p2_side,
        seconds=time.perf_counter() - start,
    )
