"""Team equilibria of a small tree with seats: TMECor by column generation (HiGHS).

A side (team) of one or two seats whose members see different things is not a player with
perfect recall, so CFR and the sequence-form LP have no guarantee on it. Here each team may
correlate its members on a plan agreed before the game (ex-ante coordination, TMECor:
Farina, Celli, Gatti & Sandholm 2018; Celli & Gatti 2018): a team strategy is a probability
distribution over joint pure plans (one pure plan per seat). The game between the two
teams is then a matrix game over joint plans, solved by double oracle column generation:

- the master LP solves the matrix game restricted to the plans found so far (HiGHS);
- each side's oracle is its exact best response (a joint pure plan) to the other side's
  mixture: for one seat a perfect-recall best response by backward induction; for two
  seats an exact MILP (scipy.optimize.milp: one seat's sequences binary, the teammate's
  continuous, the product at each leaf linearised), then the teammate's best response to
  that plan;
- it stops when the two best responses meet (``gap`` = team 0's best response to team 1's
  mixture minus team 1's best response to team 0's, both as team 0's payoff; the value lies
  in between, so the interval is certified; the bounds kept are the best so far, each with
  the mixture that holds it, so the interval never widens).

Everything works on the flat tree (``infoset_seat``, ``infoset_player``) and knows nothing of
any game. Leaves are terminals grouped by the sequence of every seat (chance folded in).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from spycfr.errors import SpycfrError
from spycfr.tree import CHANCE, TERMINAL, Tree

MAX_TEAM_NODES = 500_000


@dataclass
class SeatForm:
    """Sequence form of one seat: sequence 0 is empty; infoset i's actions are sequences
    ``start[i] .. start[i] + nact[i] - 1``; ``order`` lists its infosets parents first."""

    seat: int
    infosets: np.ndarray  # tree infoset ids, in ``order``
    start: dict
    parent: dict
    num_sequences: int


@dataclass
class Leaves:
    """Terminals grouped by the sequence of every seat: team 0's payoff weight per group."""

    seq: np.ndarray  # int64[L, num_seats]
    weight: np.ndarray  # float64[L]: sum of chance reach * team 0's utility


@dataclass
class CertifiedInterval:
    """Team 0's TMECor value in a certified interval, as both team solvers report it."""

    value: float  # team 0's payoff when both teams play the strategies kept
    lower: float  # best so far: team 1's best response to team 0's strategy (team 0's payoff)
    upper: float  # best so far: team 0's best response to team 1's strategy
    iterations: int
    seconds: float
    converged: bool  # the interval closed to the tolerance (else a limit stopped it)

    @property
    def gap(self) -> float:
        """upper - lower: the sum of both teams' gains by deviating (NashConv)."""
        return self.upper - self.lower

    @property
    def exploitability(self) -> float:
        """gap / 2 (the NashConv / 2 convention of the two-player solvers)."""
        return self.gap / 2.0


@dataclass
class TeamResult(CertifiedInterval):
    """TMECor of a two-team game by column generation: the interval and the mixtures."""

    sides: list = field(default_factory=list)  # per team: seats, plans, weights


def seat_forms(tree: Tree) -> tuple[list[SeatForm], Leaves, list[list[int]]]:
    """Sequence forms of every seat, the leaves, and the seats of each team (perfect recall
    per seat is checked: every infoset has one parent sequence of its seat)."""
    if tree.num_nodes > MAX_TEAM_NODES:
        raise SpycfrError(f"tree too big for the team solver ({tree.num_nodes:,} nodes; at "
                          f"most {MAX_TEAM_NODES:,})")
    k = tree.num_seats
    seat_of = tree.infoset_seat.tolist()
    nact = tree.infoset_num_actions.tolist()
    teams: list[list[int]] = [[], []]
    for s in range(k):
        owners = set(tree.infoset_player[tree.infoset_seat == s].tolist())
        if len(owners) > 1:
            raise SpycfrError(f"seat {s} plays for both teams")
        if owners:
            teams[owners.pop()].append(s)
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    util, cprob = tree.utility.tolist(), tree.chance_prob.tolist()
    start: dict = {}
    parent: dict = {}
    order: list[list[int]] = [[] for _ in range(k)]
    count = [1] * k
    cur = np.zeros((tree.num_nodes, k), dtype=np.int64)
    reach = np.zeros(tree.num_nodes)
    reach[0] = 1.0
    groups: dict = {}
    for v in range(tree.num_nodes):  # parents precede children
        p = pl[v]
        if p == TERMINAL:
            if util[v] != 0.0:
                key = tuple(cur[v].tolist())
                groups[key] = groups.get(key, 0.0) + reach[v] * util[v]
            continue
        c, m = fc[v], nc[v]
        cur[c:c + m] = cur[v]
        if p == CHANCE:
            off = inf[v]
            reach[c:c + m] = reach[v] * np.asarray(cprob[off:off + m])
            continue
        reach[c:c + m] = reach[v]
        i = inf[v]
        s = seat_of[i]
        if i not in start:
            start[i] = count[s]
            count[s] += nact[i]
            parent[i] = int(cur[v, s])
            order[s].append(i)
        elif parent[i] != cur[v, s]:
            raise SpycfrError(f"seat {s} forgets: infoset {i} has two parent sequences")
        cur[c:c + m, s] = start[i] + np.arange(m)
    forms = [SeatForm(s, np.asarray(order[s], dtype=np.int64), start, parent, count[s])
             for s in range(k)]
    keys = list(groups)
    seq = np.asarray(keys, dtype=np.int64).reshape(len(keys), k)
    return forms, Leaves(seq, np.asarray([groups[x] for x in keys])), teams


def best_response_seat(form: SeatForm, gain: np.ndarray, nact: list) -> tuple[float, dict]:
    """Max of ``gain . x`` over the seat's realization plans x, by backward induction:
    (value, action chosen at each of its infosets)."""
    below = np.zeros(form.num_sequences)
    best: dict = {}
    for i in form.infosets[::-1].tolist():
        s0 = form.start[i]
        vals = gain[s0:s0 + nact[i]] + below[s0:s0 + nact[i]]
        a = int(np.argmax(vals))
        best[i] = a
        below[form.parent[i]] += vals[a]
    return float(gain[0] + below[0]), best


def realization(form: SeatForm, plan: dict) -> np.ndarray:
    """The 0/1 realization plan of a pure plan (action per infoset)."""
    x = np.zeros(form.num_sequences)
    x[0] = 1.0
    for i in form.infosets.tolist():
        x[form.start[i] + plan[i]] = x[form.parent[i]]
    return x


def _constraints(form: SeatForm, nact: list, offset: int, n_vars: int):
    """Rows of the seat's sequence-form equalities (x[0] = 1; children sum to the parent)."""
    rows, cols, vals = [0], [offset], [1.0]
    for r, i in enumerate(form.infosets.tolist(), start=1):
        rows.append(r)
        cols.append(offset + form.parent[i])
        vals.append(-1.0)
        for a in range(nact[i]):
            rows.append(r)
            cols.append(offset + form.start[i] + a)
            vals.append(1.0)
    n_rows = len(form.infosets) + 1
    a = sparse.coo_matrix((vals, (rows, cols)), shape=(n_rows, n_vars)).tocsr()
    b = np.zeros(n_rows)
    b[0] = 1.0
    return a, b


def _team_oracle(forms: list[SeatForm], seats: list[int], leaves: Leaves, w: np.ndarray,
                 nact: list) -> tuple[float, dict]:
    """The side's best joint pure plan against leaf weights ``w`` (its own payoff): value and
    {seat: plan}. One seat: backward induction; two: an exact MILP, then the second seat's
    best response to the first seat's plan."""
    keep = w != 0.0
    w, seq = w[keep], leaves.seq[keep]
    if len(seats) == 1:
        s = seats[0]
        gain = np.bincount(seq[:, s], weights=w, minlength=forms[s].num_sequences)
        value, plan = best_response_seat(forms[s], gain, nact)
        return value, {s: plan}
    if len(seats) != 2:
        raise SpycfrError(f"a team of {len(seats)} seats: the team solver takes one or two")
    a_seat, b_seat = sorted(seats, key=lambda s: forms[s].num_sequences)  # fewer binaries
    fa, fb = forms[a_seat], forms[b_seat]
    na, nb = fa.num_sequences, fb.num_sequences
    pairs: dict = {}
    for (sa, sb), x in zip(seq[:, [a_seat, b_seat]].tolist(), w.tolist(), strict=True):
        pairs[(sa, sb)] = pairs.get((sa, sb), 0.0) + x
    pair_keys = [k for k, x in pairs.items() if x != 0.0]
    nw = len(pair_keys)
    n_vars = na + nb + nw
    cost = np.zeros(n_vars)  # milp minimises: the negated objective
    ub_rows, ub_cols, ub_vals, ub_hi = [], [], [], []
    r = 0
    for j, (sa, sb) in enumerate(pair_keys):
        x = pairs[(sa, sb)]
        col = na + nb + j
        cost[col] = -x
        if x > 0:  # w <= xa, w <= xb
            ub_rows += [r, r, r + 1, r + 1]
            ub_cols += [col, sa, col, na + sb]
            ub_vals += [1.0, -1.0, 1.0, -1.0]
            ub_hi += [0.0, 0.0]
            r += 2
        else:  # w >= xa + xb - 1
            ub_rows += [r, r, r]
            ub_cols += [sa, na + sb, col]
            ub_vals += [1.0, 1.0, -1.0]
            ub_hi += [1.0]
            r += 1
    ea, ba = _constraints(fa, nact, 0, n_vars)
    eb, bb = _constraints(fb, nact, na, n_vars)
    cons = [LinearConstraint(sparse.vstack([ea, eb]).tocsr(), np.concatenate([ba, bb]),
                             np.concatenate([ba, bb]))]
    if r:
        a_ub = sparse.coo_matrix((ub_vals, (ub_rows, ub_cols)), shape=(r, n_vars)).tocsr()
        cons.append(LinearConstraint(a_ub, -np.inf, np.asarray(ub_hi)))
    integrality = np.zeros(n_vars)
    integrality[:na] = 1
    res = milp(cost, constraints=cons, integrality=integrality, bounds=Bounds(0.0, 1.0),
               options={"mip_rel_gap": 0.0, "presolve": True})
    if res.status != 0 or res.x is None:
        raise SpycfrError(f"team best-response MILP failed: {res.message}")
    xa = np.round(res.x[:na])
    plan_a = {i: int(np.argmax(xa[fa.start[i]:fa.start[i] + nact[i]]))
              for i in fa.infosets.tolist()}
    xa = realization(fa, plan_a)
    gain = np.bincount(seq[:, b_seat], weights=w * xa[seq[:, a_seat]], minlength=nb)
    value, plan_b = best_response_seat(fb, gain, nact)
    return value, {a_seat: plan_a, b_seat: plan_b}


def _column(forms: list[SeatForm], leaves: Leaves, plans: dict) -> np.ndarray:
    """r[L]: whether the joint pure plan reaches leaf L (product over its seats)."""
    r = np.ones(len(leaves.weight))
    for s, plan in plans.items():
        r *= realization(forms[s], plan)[leaves.seq[:, s]]
    return r


def _matrix_game(m: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Value and optimal mixtures (row maximises) of the matrix game ``m``."""
    n_rows, n_cols = m.shape
    cost = np.zeros(n_rows + 1)
    cost[-1] = -1.0
    a_ub = np.hstack([-m.T, np.ones((n_cols, 1))])
    a_eq = np.zeros((1, n_rows + 1))
    a_eq[0, :n_rows] = 1.0
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(n_cols), A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * n_rows + [(None, None)], method="highs",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    if res.status != 0 or res.x is None:
        raise SpycfrError(f"team master LP failed: {res.message}")
    lam = np.clip(res.x[:n_rows], 0.0, None)
    mu = np.clip(-res.ineqlin.marginals, 0.0, None)
    return -float(res.fun), lam / lam.sum(), mu / mu.sum()


def solve_team(tree: Tree, tolerance: float = 1e-9, max_iterations: int = 10_000,
               time_limit: float | None = None,
               progress: Callable[[int, float, float], None] | None = None) -> TeamResult:
    """TMECor of ``tree`` (two teams of one or two seats) by double oracle column generation
    (module docstring); stops when the interval [lower, upper] is at most ``tolerance``, or
    at ``max_iterations`` or ``time_limit`` seconds (the interval then stays certified)."""
    start_time = time.perf_counter()
    forms, leaves, teams = seat_forms(tree)
    nact = tree.infoset_num_actions.tolist()
    c = leaves.weight
    first = [{s: {i: 0 for i in forms[s].infosets.tolist()} for s in team} for team in teams]
    plans: list[list[dict]] = [[first[0]], [first[1]]]
    cols = [[_column(forms, leaves, first[0])], [_column(forms, leaves, first[1])]]
    it = 0
    lower, upper = -np.inf, np.inf  # the best bounds so far: the interval never widens
    kept: list = [None, None]  # the mixtures that hold them (over the plans of the time)
    while True:
        it += 1
        r0, r1 = np.asarray(cols[0]), np.asarray(cols[1])
        value, lam, mu = _matrix_game((r0 * c) @ r1.T)
        up, plan0 = _team_oracle(forms, teams[0], leaves, c * (mu @ r1), nact)
        down, plan1 = _team_oracle(forms, teams[1], leaves, -c * (lam @ r0), nact)
        if -down > lower:
            lower, kept[0] = -down, lam
        if up < upper:
            upper, kept[1] = up, mu
        if progress is not None:
            progress(it, lower, upper)
        converged = upper - lower <= tolerance
        if converged or it >= max_iterations or (
                time_limit is not None and time.perf_counter() - start_time >= time_limit):
            break
        for side, plan in ((0, plan0), (1, plan1)):
            plans[side].append(plan)
            cols[side].append(_column(forms, leaves, plan))
    weights = [np.pad(kept[t], (0, len(plans[t]) - len(kept[t]))) for t in (0, 1)]
    r0, r1 = np.asarray(cols[0]), np.asarray(cols[1])
    value = float(weights[0] @ ((r0 * c) @ r1.T) @ weights[1])
    sides = [{"seats": teams[t], "plans": plans[t], "weights": weights[t]} for t in (0, 1)]
    return TeamResult(value=value, lower=lower, upper=upper, iterations=it,
                      seconds=time.perf_counter() - start_time, converged=converged,
                      sides=sides)
