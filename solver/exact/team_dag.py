"""The team belief DAG (Zhang, Farina & Sandholm, ICML 2023) of one team of a flat tree.

A team that agrees on a plan before the game (TMECor) but whose members see different
things acts like one player whose "information" is a *belief*: the set of histories the
team's common knowledge cannot tell apart. Two histories at the same depth are connected
when some member has the same view at both (engine/seat_views.py); a belief is a connected
set of histories. At a belief the team picks a *prescription* (an action at each of its
members' infosets in the belief); the histories that follow (chance and the other team
branch freely) split again into connected sets: the child beliefs. Every edge (belief,
prescription) is a sequence of this decision problem, and a terminal's team reach is the
sum of the flows of the edges that lead to it: the team's correlated strategies are
exactly the flows of the DAG, so best responses are backward induction and regret
minimisation runs on it as on a tree (solver/exact/team_cfr.py).

A set with no decision of the team is not a belief: its histories are followed one more
step at once (the DAG keeps only the team's decisions). For a team of one seat the beliefs
are the seat's infosets and the DAG is its sequence form.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from spycfr.engine.hashmap import hm_get, hm_new, hm_put
from spycfr.errors import SpycfrError
from spycfr.tree import CHANCE, TERMINAL, Tree


@dataclass
class BeliefDag:
    """CSR arrays of a team's DAG, beliefs in depth order (parents before children); belief
    0 is the root (one edge: the game's start)."""

    team: int
    seats: list
    belief_edges: np.ndarray  # int64[B + 1]: edges of belief b are [belief_edges[b], [b+1])
    edge_children: np.ndarray  # int64[E + 1] into child_list
    child_list: np.ndarray  # int64: child beliefs of each edge
    edge_terms: np.ndarray  # int64[E + 1] into term_list
    term_list: np.ndarray  # int64: terminal nodes each edge leads to
    presc_start: np.ndarray  # int64[E + 1] into presc_infoset / presc_action
    presc_infoset: np.ndarray  # int32: the infosets an edge's prescription covers
    presc_action: np.ndarray  # int16: and the action it prescribes there

    @property
    def num_beliefs(self) -> int:
        return len(self.belief_edges) - 1

    @property
    def num_edges(self) -> int:
        return len(self.edge_children) - 1

    @property
    def size(self) -> int:
        """Beliefs + edges: the DAG size reported."""
        return self.num_beliefs + self.num_edges


@njit(cache=True)
def _grown(a, need):
    """``a`` or a copy with room for ``need`` entries (doubling)."""
    if need <= a.shape[0]:
        return a
    size = max(2 * a.shape[0], need)
    out = np.empty(size, dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def _components(live, views):
    """Label each node of ``live`` (sorted, one depth) with its connected set: two nodes
    are joined when some member has the same view at both. Returns (labels, count), labels
    numbered in order of first appearance."""
    m = live.shape[0]
    parent = np.arange(m)
    for s in range(views.shape[1]):
        keys = np.empty(m, dtype=np.int64)
        for k in range(m):
            keys[k] = views[live[k], s]
        order = np.argsort(keys)
        for j in range(1, m):
            if keys[order[j]] == keys[order[j - 1]]:
                a, b = _find(parent, order[j]), _find(parent, order[j - 1])
                if a != b:
                    parent[a] = b
    label = np.full(m, -1, dtype=np.int64)
    root_label = np.full(m, -1, dtype=np.int64)
    count = 0
    for k in range(m):
        r = _find(parent, k)
        if root_label[r] < 0:
            root_label[r] = count
            count += 1
        label[k] = root_label[r]
    return label, count


@njit(cache=True)
def _hash(nodes):
    h = np.uint64(1469598103934665603)
    for v in nodes:
        h = (h ^ np.uint64(v)) * np.uint64(1099511628211)
    return np.int64(h >> np.uint64(2))  # >= 0: the hash map's keys


# The builder's counters (int64 array): beliefs found, edges, child entries, terminal
# entries, prescription entries, the next belief to expand, status (0, or 1: too many edges),
# and 1 when that belief is half expanded (its next prescription is kept in ``resume``).
N_BEL, N_EDGE, N_CH, N_TM, N_PR, NEXT, STATUS, MIDWAY = range(8)


@njit(cache=True)
def _build_step(fc, nc, pl, inf, nact, views, team, max_edges, max_work, cnt, resume,
                bel_start, bel_nodes, table, tsize, edge_bel, ch_start, ch_list, tm_start,
                tm_list, pr_start, pr_inf, pr_act):
    """Expand beliefs (module docstring) from ``cnt[NEXT]`` on until about ``max_work``
    histories were followed (checked between prescriptions: a belief with many can stop
    halfway, its next prescription kept in ``resume``), appending to the growing arrays,
    which are returned (reallocated when they grew); ``cnt`` holds the counters. Beliefs
    are numbered in discovery order (the caller sorts them by depth)."""
    n_bel, n_edge, n_ch, n_tm, n_pr = cnt[N_BEL], cnt[N_EDGE], cnt[N_CH], cnt[N_TM], cnt[N_PR]
    b = cnt[NEXT]
    status = cnt[STATUS]
    work_done = 0
    while b < n_bel and status == 0 and work_done < max_work:
        if b == 0:
            nodes = np.zeros(1, dtype=np.int64)  # the root history
            own = np.empty(0, dtype=np.int64)
        else:
            nodes = bel_nodes[bel_start[b]:bel_start[b + 1]].copy()
            n_own = 0
            tmp = np.empty(nodes.shape[0], dtype=np.int64)
            for v in nodes:
                if pl[v] == team:
                    tmp[n_own] = inf[v]
                    n_own += 1
            own = np.unique(tmp[:n_own])
        m = own.shape[0]
        acts = np.zeros(m, dtype=np.int64)
        if cnt[MIDWAY] == 1:  # this belief's prescriptions before ``resume`` are done
            acts[:] = resume[:m]
            cnt[MIDWAY] = 0
        while True:  # every prescription (mixed-radix counter over own's actions)
            # the histories that follow
            size = 0
            for v in nodes:
                if b > 0 and pl[v] == team:
                    size += 1
                else:
                    size += nc[v] if b > 0 else 1
            work = np.empty(size, dtype=np.int64)
            size = 0
            for v in nodes:
                if b == 0:
                    work[size] = v
                    size += 1
                elif pl[v] == team:
                    work[size] = fc[v] + acts[np.searchsorted(own, inf[v])]
                    size += 1
                else:
                    for j in range(nc[v]):
                        work[size] = fc[v] + j
                        size += 1
            # resolve: terminals, child beliefs, sets without a team decision followed on
            while work.shape[0] > 0:
                work_done += work.shape[0]
                work = np.sort(work)
                live_n = 0
                for v in work:
                    if pl[v] == TERMINAL:
                        tm_list = _grown(tm_list, n_tm + 1)
                        tm_list[n_tm] = v
                        n_tm += 1
                    else:
                        live_n += 1
                live = np.empty(live_n, dtype=np.int64)
                k = 0
                for v in work:
                    if pl[v] != TERMINAL:
                        live[k] = v
                        k += 1
                label, count = _components(live, views)
                order = np.argsort(label, kind="mergesort")  # stable: nodes stay sorted
                nxt_n = 0
                lo = 0
                nxt = np.empty(0, dtype=np.int64)
                for c in range(count):
                    hi = lo
                    while hi < live_n and label[order[hi]] == c:
                        hi += 1
                    comp = live[order[lo:hi]]
                    lo = hi
                    decides = False
                    for v in comp:
                        if pl[v] == team:
                            decides = True
                            break
                    if decides:
                        h = _hash(comp)
                        found = -1
                        while True:
                            cand = hm_get(table, h, -1)
                            if cand < 0:
                                break
                            s0, s1 = bel_start[cand], bel_start[cand + 1]
                            if s1 - s0 == comp.shape[0] and np.all(bel_nodes[s0:s1] == comp):
                                found = cand
                                break
                            h = (h * 31 + 7) & ((1 << 62) - 1)
                        if found < 0:
                            found = n_bel
                            table = hm_put(table, tsize, h, found)
                            bel_start = _grown(bel_start, n_bel + 2)
                            e0 = bel_start[n_bel]
                            bel_nodes = _grown(bel_nodes, e0 + comp.shape[0])
                            bel_nodes[e0:e0 + comp.shape[0]] = comp
                            bel_start[n_bel + 1] = e0 + comp.shape[0]
                            n_bel += 1
                        ch_list = _grown(ch_list, n_ch + 1)
                        ch_list[n_ch] = found
                        n_ch += 1
                    else:
                        extra = 0
                        for v in comp:
                            extra += nc[v]
                        grown = np.empty(nxt_n + extra, dtype=np.int64)
                        grown[:nxt_n] = nxt[:nxt_n]
                        for v in comp:
                            for j in range(nc[v]):
                                grown[nxt_n] = fc[v] + j
                                nxt_n += 1
                        nxt = grown
                work = nxt[:nxt_n]
            # the edge
            edge_bel = _grown(edge_bel, n_edge + 1)
            edge_bel[n_edge] = b
            pr_inf = _grown(pr_inf, n_pr + m)
            pr_act = _grown(pr_act, n_pr + m)
            for j in range(m):
                pr_inf[n_pr + j] = own[j]
                pr_act[n_pr + j] = acts[j]
            n_pr += m
            n_edge += 1
            ch_start = _grown(ch_start, n_edge + 1)
            tm_start = _grown(tm_start, n_edge + 1)
            pr_start = _grown(pr_start, n_edge + 1)
            ch_start[n_edge] = n_ch
            tm_start[n_edge] = n_tm
            pr_start[n_edge] = n_pr
            if n_edge > max_edges:
                status = 1
                break
            # next prescription
            j = 0
            while j < m:
                acts[j] += 1
                if acts[j] < nact[own[j]]:
                    break
                acts[j] = 0
                j += 1
            if j == m:
                break
            if work_done >= max_work:  # stop halfway: the next prescription is ``acts``
                resume[:m] = acts
                cnt[MIDWAY] = 1
                break
        if status != 0 or cnt[MIDWAY] == 1:
            break
        b += 1
    cnt[N_BEL], cnt[N_EDGE], cnt[N_CH], cnt[N_TM], cnt[N_PR] = n_bel, n_edge, n_ch, n_tm, n_pr
    cnt[NEXT] = b
    cnt[STATUS] = status
    return (bel_start, bel_nodes, table, edge_bel, ch_start, ch_list, tm_start, tm_list,
            pr_start, pr_inf, pr_act)


@njit(cache=True)
def _depths(first_child, num_children):
    depth = np.zeros(first_child.shape[0], dtype=np.int64)
    for v in range(first_child.shape[0]):  # parents precede children
        for j in range(num_children[v]):
            depth[first_child[v] + j] = depth[v] + 1
    return depth


@njit(cache=True)
def _permuted(start, body, perm):
    """A CSR (start, body) with its rows in the order ``perm``."""
    new_start = np.zeros(perm.shape[0] + 1, dtype=np.int64)
    for i in range(perm.shape[0]):
        r = perm[i]
        new_start[i + 1] = new_start[i] + start[r + 1] - start[r]
    new_body = np.empty(new_start[-1], dtype=body.dtype)
    for i in range(perm.shape[0]):
        r = perm[i]
        new_body[new_start[i]:new_start[i + 1]] = body[start[r]:start[r + 1]]
    return new_start, new_body


def team_seats(tree: Tree) -> list[list[int]]:
    """The seats of each team (a seat plays for one team only)."""
    teams: list[list[int]] = [[], []]
    for s in range(tree.num_seats):
        owners = set(tree.infoset_player[tree.infoset_seat == s].tolist())
        if len(owners) > 1:
            raise SpycfrError(f"seat {s} plays for both teams")
        if owners:
            teams[owners.pop()].append(s)
    return teams


class DagBuilder:
    """The belief DAG of ``team`` (its ``seats``) on ``tree`` with the seats' ``views``,
    built in bounded steps (:meth:`step`) so that a caller can check its limits, show
    progress or stop between them; :meth:`dag` gives the DAG once :attr:`done`."""

    # Histories followed per step: about 0.1-0.5 s of one core on Agent Avenue's team trees.
    STEP_WORK = 2_000_000

    def __init__(self, tree: Tree, views: np.ndarray, team: int, seats: list,
                 max_edges: int = 50_000_000) -> None:
        if views.shape != (tree.num_nodes, tree.num_seats):
            raise SpycfrError("the seats' views do not match the tree")
        if CHANCE == team:
            raise SpycfrError("chance is not a team")
        self.tree, self.team, self.seats, self.max_edges = tree, team, list(seats), max_edges
        self._rules = (tree.first_child, tree.num_children.astype(np.int64), tree.node_player,
                       tree.node_infoset, tree.infoset_num_actions,
                       np.ascontiguousarray(views[:, seats]), team, max_edges)
        self.counters = np.zeros(8, dtype=np.int64)
        # a team's infosets in one belief: at most all of them
        self._resume = np.zeros(max(int(np.count_nonzero(tree.infoset_player == team)), 1),
                                dtype=np.int64)
        self.counters[N_BEL] = 1  # belief 0: the start (no nodes)
        table, self._tsize = hm_new(1 << 12)
        self._arrays = (np.zeros(1024, dtype=np.int64), np.empty(1 << 16, dtype=np.int64),
                        table, np.empty(1024, dtype=np.int64), np.zeros(1025, dtype=np.int64),
                        np.empty(1024, dtype=np.int64), np.zeros(1025, dtype=np.int64),
                        np.empty(1024, dtype=np.int64), np.zeros(1025, dtype=np.int64),
                        np.empty(1024, dtype=np.int32), np.empty(1024, dtype=np.int16))

    @property
    def done(self) -> bool:
        return bool(self.counters[NEXT] >= self.counters[N_BEL])

    @property
    def beliefs(self) -> int:
        """Beliefs found so far (expanded or waiting)."""
        return int(self.counters[N_BEL])

    @property
    def expanded(self) -> int:
        return int(self.counters[NEXT])

    @property
    def edges(self) -> int:
        return int(self.counters[N_EDGE])

    def step(self, work: int | None = None) -> None:
        """Expand beliefs until about ``work`` histories were followed (one bounded call)."""
        a = self._arrays
        self._arrays = _build_step(*self._rules, work or self.STEP_WORK, self.counters,
                                   self._resume, a[0], a[1], a[2], self._tsize, *a[3:])
        if self.counters[STATUS] == 1:
            raise SpycfrError(f"the team belief DAG of team {self.team} passes "
                              f"{self.max_edges:,} edges (too big for the memory allowed)")

    def dag(self) -> BeliefDag:
        """The finished DAG, beliefs renumbered by depth (a topological order: a child is
        deeper than its parents), each belief's edges moved along."""
        if not self.done:
            raise RuntimeError("the DAG is not built yet")
        tree, c = self.tree, self.counters
        n_bel, n_edge = int(c[N_BEL]), int(c[N_EDGE])
        (bel_start, bel_nodes, _, edge_bel, ch_start, ch_list, tm_start, tm_list, pr_start,
         pr_inf, pr_act) = self._arrays
        bel_start, edge_bel = bel_start[:n_bel + 1], edge_bel[:n_edge]
        ch_start, tm_start, pr_start = (x[:n_edge + 1] for x in (ch_start, tm_start, pr_start))
        ch_list, tm_list = ch_list[:c[N_CH]], tm_list[:c[N_TM]]
        pr_inf, pr_act = pr_inf[:c[N_PR]], pr_act[:c[N_PR]]
        depth = _depths(tree.first_child, tree.num_children.astype(np.int64))
        bel_depth = np.full(n_bel, -1, dtype=np.int64)
        bel_depth[1:] = depth[bel_nodes[bel_start[1:-1]]]
        order = np.argsort(bel_depth, kind="stable")
        new = np.empty_like(order)
        new[order] = np.arange(n_bel)
        first_edge = np.searchsorted(edge_bel, np.arange(n_bel + 1))
        count = np.diff(first_edge)[order]
        # each belief's edges in the new order: first_edge[b] .. + count, concatenated
        offsets = np.repeat(first_edge[order] - np.cumsum(count) + count, count)
        perm = offsets + np.arange(n_edge)
        belief_edges = np.zeros(n_bel + 1, dtype=np.int64)
        belief_edges[1:] = np.cumsum(count)
        edge_children, child_list = _permuted(ch_start, new[ch_list], perm)
        edge_terms, term_list = _permuted(tm_start, tm_list, perm)
        presc_start, presc_infoset = _permuted(pr_start, pr_inf, perm)
        _, presc_action = _permuted(pr_start, pr_act, perm)
        return BeliefDag(self.team, self.seats, belief_edges, edge_children, child_list,
                         edge_terms, term_list, presc_start, presc_infoset, presc_action)


def build_dag(tree: Tree, views: np.ndarray, team: int, seats: list,
              max_edges: int = 50_000_000) -> BeliefDag:
    """The belief DAG of ``team`` (its ``seats``) on ``tree`` with the seats' ``views``, in
    one go (:class:`DagBuilder` builds it in bounded steps)."""
    builder = DagBuilder(tree, views, team, seats, max_edges)
    while not builder.done:
        builder.step()
    return builder.dag()


@njit(cache=True)
def _decompose(belief_edges, edge_children, child_list, presc_start, presc_infoset,
               presc_action, flow, num_infosets, max_plans):
    """Greedy flow decomposition: repeatedly the pure strategy that takes, at every belief
    it reaches, the edge with the most flow left, weighted by the least flow left on its
    edges. Returns (plans int16[K, num_infosets] with -1 where unset, weights, flow left)."""
    n_b = belief_edges.shape[0] - 1
    residual = flow.copy()
    plans = np.full((max_plans, num_infosets), -1, dtype=np.int16)
    weights = np.zeros(max_plans)
    reached = np.zeros(n_b)
    chosen = np.full(n_b, -1, dtype=np.int64)
    k = 0
    left = residual[belief_edges[0]:belief_edges[1]].sum()
    while left > 1e-12 and k < max_plans:
        reached[:] = 0.0
        reached[0] = 1.0
        w = np.inf
        for b in range(n_b):
            if reached[b] == 0.0:
                continue
            best = belief_edges[b]
            for e in range(belief_edges[b], belief_edges[b + 1]):
                if residual[e] > residual[best]:
                    best = e
            chosen[b] = best
            w = min(w, residual[best] / reached[b])
            for j in range(edge_children[best], edge_children[best + 1]):
                reached[child_list[j]] += reached[b]
            for j in range(presc_start[best], presc_start[best + 1]):
                plans[k, presc_infoset[j]] = presc_action[j]
        if not w > 1e-15:
            break
        for b in range(n_b):
            if reached[b] > 0.0:
                e = chosen[b]
                residual[e] = max(residual[e] - w * reached[b], 0.0)
        weights[k] = w
        k += 1
        left -= w
    return plans[:k], weights[:k], left


def flow_plans(dag: BeliefDag, flow: np.ndarray, tree: Tree,
               max_plans: int = 4096) -> tuple[np.ndarray, np.ndarray] | None:
    """The team's flow as a mixture of joint pure plans (action per infoset of the team,
    -1 on the other team's), or None when it takes more than ``max_plans``."""
    plans, weights, left = _decompose(dag.belief_edges, dag.edge_children, dag.child_list,
                                      dag.presc_start, dag.presc_infoset, dag.presc_action,
                                      flow, tree.num_infosets, max_plans)
    if left > 1e-9:
        return None
    own = np.flatnonzero(tree.infoset_player == dag.team)
    unset = plans[:, own] < 0  # infosets a plan never reaches: any action
    plans[:, own] = np.where(unset, 0, plans[:, own])
    return plans, weights / weights.sum()
