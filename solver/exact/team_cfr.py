"""Team equilibria (TMECor) by regret minimisation on the teams' belief DAGs.

Each team's correlated strategies are the flows of its belief DAG (solver/exact/team_dag.py),
and team 0's payoff is bilinear in the two flows: the sum over terminals of chance reach x
payoff x team 0's reach x team 1's reach. Predictive CFR+ (Farina, Kroer & Sandholm 2021)
runs at every belief of both DAGs, alternating, with quadratic averaging of the flows. Every
few iterations each team's exact best response to the other's average (backward induction on
its DAG) certifies an interval [lower, upper] holding the TMECor value; the printed bounds are
the best seen so far (each is a guarantee of the average strategy that achieved it), so the
interval never widens.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit
from scipy import sparse

from spycfr.exact.team import CertifiedInterval
from spycfr.exact.team_dag import BeliefDag
from spycfr.tree import TERMINAL, Tree
from spycfr.tree.passes import forward_reach


@njit(cache=True)
def _edge_values(dag_be, dag_ec, dag_cl, a_start, a_col, a_val, other_flow, sigma,
                 belief_value, edge_value, best):
    """Backward pass: value of each edge (its payoff row against the other team's edge
    flows, plus its child beliefs) and of each belief (under ``sigma``, or the best edge
    when ``best``)."""
    n_b = dag_be.shape[0] - 1
    for b in range(n_b - 1, -1, -1):
        v_b = -np.inf if best else 0.0
        for e in range(dag_be[b], dag_be[b + 1]):
            v = 0.0
            for k in range(a_start[e], a_start[e + 1]):
                v += a_val[k] * other_flow[a_col[k]]
            for k in range(dag_ec[e], dag_ec[e + 1]):
                v += belief_value[dag_cl[k]]
            edge_value[e] = v
            if best:
                if v > v_b:
                    v_b = v
            else:
                v_b += sigma[e] * v
        belief_value[b] = v_b


@njit(cache=True)
def _pcfr_update(dag_be, edge_value, belief_value, regret, sigma):
    """Predictive CFR+: R <- [R + r]+, next strategy proportional to [R + r]+ (the last
    instantaneous regret r as the prediction)."""
    n_b = dag_be.shape[0] - 1
    for b in range(n_b):
        s, t = dag_be[b], dag_be[b + 1]
        total = 0.0
        for e in range(s, t):
            r = edge_value[e] - belief_value[b]
            regret[e] = max(regret[e] + r, 0.0)
            p = max(regret[e] + r, 0.0)
            sigma[e] = p
            total += p
        if total > 0.0:
            for e in range(s, t):
                sigma[e] /= total
        else:
            for e in range(s, t):
                sigma[e] = 1.0 / (t - s)


@njit(cache=True)
def _flows(dag_be, dag_ec, dag_cl, sigma, belief_flow, edge_flow):
    """Forward pass: the flows of beliefs and edges."""
    belief_flow[:] = 0.0
    belief_flow[0] = 1.0
    n_b = dag_be.shape[0] - 1
    for b in range(n_b):
        f = belief_flow[b]
        for e in range(dag_be[b], dag_be[b + 1]):
            x = f * sigma[e]
            edge_flow[e] = x
            for k in range(dag_ec[e], dag_ec[e + 1]):
                belief_flow[dag_cl[k]] += x


@njit(cache=True)
def _reach_of_edges(dag_et, dag_tl, edge_flow, term_reach):
    """Each terminal's team reach: the flows of the edges that lead to it."""
    for k in range(dag_tl.shape[0]):
        term_reach[dag_tl[k]] = 0.0
    for e in range(dag_et.shape[0] - 1):
        for k in range(dag_et[e], dag_et[e + 1]):
            term_reach[dag_tl[k]] += edge_flow[e]


@njit(cache=True)
def _pairs(et0, tl0, et1, tl1, cu, num_nodes):
    """(edge of team 0, edge of team 1, chance x payoff) for every terminal and every pair
    of edges of the two teams that lead to it."""
    first1 = np.zeros(num_nodes + 1, dtype=np.int64)  # team 1's edges by terminal (CSR)
    for k in range(tl1.shape[0]):
        first1[tl1[k] + 1] += 1
    for v in range(num_nodes):
        first1[v + 1] += first1[v]
    by_term = np.empty(tl1.shape[0], dtype=np.int64)
    fill = first1[:-1].copy()
    for e in range(et1.shape[0] - 1):
        for k in range(et1[e], et1[e + 1]):
            by_term[fill[tl1[k]]] = e
            fill[tl1[k]] += 1
    n = 0
    for e in range(et0.shape[0] - 1):
        for k in range(et0[e], et0[e + 1]):
            if cu[tl0[k]] != 0.0:
                n += first1[tl0[k] + 1] - first1[tl0[k]]
    rows = np.empty(n, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    vals = np.empty(n)
    n = 0
    for e in range(et0.shape[0] - 1):
        for k in range(et0[e], et0[e + 1]):
            z = tl0[k]
            if cu[z] == 0.0:
                continue
            for j in range(first1[z], first1[z + 1]):
                rows[n] = e
                cols[n] = by_term[j]
                vals[n] = cu[z]
                n += 1
    return rows, cols, vals


def payoff_matrix(tree: Tree, dags: list[BeliefDag]) -> sparse.csr_matrix:
    """Team 0's payoff as a bilinear form of the two teams' edge flows: A[e0, e1] = the sum
    over terminals both edges lead to of chance reach x payoff (x^T A y is the payoff)."""
    cu = terminal_payoffs(tree)
    rows, cols, vals = _pairs(dags[0].edge_terms, dags[0].term_list, dags[1].edge_terms,
                              dags[1].term_list, cu, tree.num_nodes)
    a = sparse.coo_matrix((vals, (rows, cols)), shape=(dags[0].num_edges, dags[1].num_edges))
    return a.tocsr()


class _Side:
    """One team's DAG, its payoff rows (against the other team's edges) and its regret
    minimiser's state."""

    def __init__(self, dag: BeliefDag, payoff: sparse.csr_matrix) -> None:
        self.dag = dag
        self.payoff = (payoff.indptr.astype(np.int64), payoff.indices.astype(np.int64),
                       payoff.data)
        self.arrays = (dag.belief_edges, dag.edge_children, dag.child_list)
        n_e = dag.num_edges
        self.regret = np.zeros(n_e)
        self.sigma = np.zeros(n_e)
        self.edge_value = np.zeros(n_e)
        self.belief_value = np.zeros(dag.num_beliefs)
        self.belief_flow = np.zeros(dag.num_beliefs)
        self.flow = np.zeros(n_e)
        self.avg_flow = np.zeros(n_e)
        _uniform(dag.belief_edges, self.sigma)
        _flows(*self.arrays, self.sigma, self.belief_flow, self.flow)

    def step(self, other_flow: np.ndarray, weight: float) -> None:
        """One regret update against the other team's flows, the new strategy's flows, the
        average's update."""
        _edge_values(*self.arrays, *self.payoff, other_flow, self.sigma, self.belief_value,
                     self.edge_value, False)
        _pcfr_update(self.dag.belief_edges, self.edge_value, self.belief_value, self.regret,
                     self.sigma)
        _flows(*self.arrays, self.sigma, self.belief_flow, self.flow)
        self.avg_flow += weight * self.flow

    def average(self) -> np.ndarray:
        return self.avg_flow / self.avg_flow[0]  # edge 0: the start's only edge

    def best_response(self, other_flow: np.ndarray) -> float:
        _edge_values(*self.arrays, *self.payoff, other_flow, self.sigma, self.belief_value,
                     self.edge_value, True)
        return float(self.belief_value[0])


@njit(cache=True)
def _uniform(belief_edges, sigma):
    for b in range(belief_edges.shape[0] - 1):
        s, t = belief_edges[b], belief_edges[b + 1]
        for e in range(s, t):
            sigma[e] = 1.0 / (t - s)


def terminal_payoffs(tree: Tree) -> np.ndarray:
    """Chance reach x team 0's payoff at every terminal (0 elsewhere)."""
    reach = np.zeros((tree.num_nodes, 3))
    sigma = tree.uniform_strategy()  # the players' parts are not used
    forward_reach(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
                  tree.chance_prob, sigma, reach)
    return np.where(tree.node_player == TERMINAL, reach[:, 2] * tree.utility, 0.0)


@dataclass
class DagResult(CertifiedInterval):
    """The certified interval of team 0's TMECor value (``value``: the payoff of the two
    averages that hold the bounds) and the average flows that hold it."""

    flows: list = field(default_factory=list)  # per team: the average edge flows kept
    dags: list = field(default_factory=list)


def solve_dags(tree: Tree, dags: list[BeliefDag], tolerance: float = 1e-9,
               max_iterations: int = 10**9, time_limit: float | None = None,
               check_every: int = 10,
               progress: Callable[[int, float, float], None] | None = None,
               state: dict | None = None,
               checkpoint: Callable[[dict], None] | None = None,
               checkpoint_seconds: float = 60.0) -> DagResult:
    """Predictive CFR+ on both teams' DAGs until the certified gap is at most ``tolerance``
    (or a limit); ``state`` resumes a checkpoint (see ``checkpoint_state``), ``checkpoint``
    receives one every ``checkpoint_seconds`` and at the end."""
    start = time.perf_counter()
    a = payoff_matrix(tree, dags)
    sides = [_Side(dags[0], a), _Side(dags[1], -a.T.tocsr())]
    it = 0
    lower, upper = -np.inf, np.inf
    kept: list[np.ndarray | None] = [None, None]  # per team: the averages that hold the bounds
    if state is not None:
        it = int(state["iterations"])
        lower, upper = float(state["lower"]), float(state["upper"])
        for t, side in enumerate(sides):
            side.regret[:] = state[f"regret{t}"]
            side.sigma[:] = state[f"sigma{t}"]
            side.avg_flow[:] = state[f"avg{t}"]
            _flows(*side.arrays, side.sigma, side.belief_flow, side.flow)
            kept[t] = state[f"kept{t}"]
    converged = False
    saved = time.perf_counter()
    while True:
        it += 1
        w = float(it) ** 2
        sides[0].step(sides[1].flow, w)
        sides[1].step(sides[0].flow, w)
        late = time_limit is not None and time.perf_counter() - start >= time_limit
        if it % check_every == 0 or it >= max_iterations or late:
            x, y = sides[0].average(), sides[1].average()
            low = -sides[1].best_response(x)
            up = sides[0].best_response(y)
            if low > lower:
                lower, kept[0] = low, x
            if up < upper:
                upper, kept[1] = up, y
            if progress is not None:
                progress(it, lower, upper)
            converged = upper - lower <= tolerance
            if checkpoint is not None and time.perf_counter() - saved >= checkpoint_seconds:
                checkpoint(checkpoint_state(sides, it, lower, upper, kept))
                saved = time.perf_counter()
            if converged or it >= max_iterations or late:
                break
    if kept[0] is None or kept[1] is None:  # (``None @``: the same TypeError as ever)
        raise TypeError("no averages were kept: the bounds never improved on infinity")
    value = float(kept[0] @ (a @ kept[1]))
    result = DagResult(value=value, lower=lower, upper=upper, iterations=it,
                       seconds=time.perf_counter() - start, converged=converged, flows=kept,
                       dags=dags)
    if checkpoint is not None:
        checkpoint(checkpoint_state(sides, it, lower, upper, kept))
    return result


def checkpoint_state(sides: list[_Side], it: int, lower: float, upper: float,
                     kept: list) -> dict:
    """The arrays that resume a solve exactly."""
    out: dict[str, int | float | np.ndarray] = {"iterations": it, "lower": lower,
                                                "upper": upper}
    for t, side in enumerate(sides):
        out[f"regret{t}"] = side.regret
        out[f"sigma{t}"] = side.sigma
        out[f"avg{t}"] = side.avg_flow
        out[f"kept{t}"] = kept[t]
    return out
