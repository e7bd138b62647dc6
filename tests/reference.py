"""Plain-Python twin of the CFR family and of best response (tests only, not a test file).

Written straight from /work/notes/algorithms.md with Python lists and recursion
over the flat Tree, independently of the numba kernels, so the two can be
compared to 1e-12. Slow by design; fine for Kuhn, Leduc and tiny variants.
"""

from __future__ import annotations

import sys

import numpy as np

from spycfr.tree import CHANCE, TERMINAL, Tree

ALGORITHMS = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+", "hs-pcfr+")


def _ensure_recursion(tree: Tree) -> None:
    need = 4 * tree.depth() + 200
    if sys.getrecursionlimit() < need:
        sys.setrecursionlimit(need)


def _as_rows(tree: Tree, strategy: np.ndarray) -> list[list[float]]:
    k = tree.infoset_num_actions.tolist()
    return [[float(x) for x in strategy[i, : k[i]]] for i in range(tree.num_infosets)]


def _to_array(tree: Tree, rows: list[list[float]]) -> np.ndarray:
    out = np.zeros((tree.num_infosets, max(tree.max_actions, 1)))
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out


def _regret_matching(values: list[float]) -> list[float]:
    pos = [x if x > 0.0 else 0.0 for x in values]
    total = sum(pos)
    if total <= 0.0:
        return [1.0 / len(values)] * len(values)
    return [x / total for x in pos]


class ReferenceCFR:
    """CFR / CFR+ / LCFR / DCFR / PCFR+ / PDCFR+ exactly per the shared conventions.

    PDCFR+ (Xu et al. 2024): R_t = [R_{t-1} + r_t]^+ t^a/(t^a + 1), sigma_{t+1} regret-matches
    R_t + r_t, strategy sum S_t = (S_{t-1} + pi_i sigma_t) (t/(t+1))^g; a, g default 2.3, 5.
    HS-PCFR+ (Zhang, McAleer & Sandholm 2024): PCFR+'s regrets, S_t = (S_{t-1} + pi_i sigma_t)
    (t/(t+1))^g_t with g_t = g - 5 min(t, 1000)/1000, g default 30.
    """

    def __init__(
        self,
        tree: Tree,
        algorithm: str,
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        alternating: bool = True,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        default = {"pdcfr+": (2.3, 0.0, 5.0), "hs-pcfr+": (0.0, 0.0, 30.0)}.get(
            algorithm, (1.5, 0.0, 2.0))
        alpha = default[0] if alpha is None else alpha
        beta = default[1] if beta is None else beta
        gamma = default[2] if gamma is None else gamma
        _ensure_recursion(tree)
        self.tree = tree
        self.algorithm = algorithm
        if algorithm == "lcfr":
            alpha, beta, gamma = 1.0, 1.0, 1.0
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        self.alternating = alternating
        self._fc = tree.first_child.tolist()
        self._nc = tree.num_children.tolist()
        self._pl = tree.node_player.tolist()
        self._inf = tree.node_infoset.tolist()
        self._u = tree.utility.tolist()
        self._cp = tree.chance_prob.tolist()
        self._ipl = tree.infoset_player.tolist()
        nact = tree.infoset_num_actions.tolist()
        self._R = [[0.0] * k for k in nact]
        self._S = [[0.0] * k for k in nact]
        self._m = [[0.0] * k for k in nact]
        self._r = [[0.0] * k for k in nact]
        self._sigma = [[1.0 / k] * k for k in nact]
        self.t = 0

    # -- public ------------------------------------------------------------------------
    @property
    def regrets(self) -> np.ndarray:
        return _to_array(self.tree, self._R)

    def current_strategy(self) -> np.ndarray:
        return _to_array(self.tree, self._sigma)

    def average_strategy(self) -> np.ndarray:
        rows = []
        for s in self._S:
            total = sum(s)
            rows.append([x / total for x in s] if total > 0.0 else [1.0 / len(s)] * len(s))
        return _to_array(self.tree, rows)

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            self.t += 1
            t = self.t
            w = {"cfr": 1.0, "cfr+": float(t), "pcfr+": float(t) ** 2}.get(self.algorithm, 1.0)
            if self.alternating:
                for p in (0, 1):
                    self._clear_r()
                    self._walk(0, 1.0, 1.0, 1.0, p == 0, p == 1, w)
                    self._update(p)
            else:
                self._clear_r()
                self._walk(0, 1.0, 1.0, 1.0, True, True, w)
                self._update(0)
                self._update(1)

    # -- internals ---------------------------------------------------------------------
    def _clear_r(self) -> None:
        for row in self._r:
            for k in range(len(row)):
                row[k] = 0.0

    def _walk(self, n: int, r0: float, r1: float, rc: float, upd0: bool, upd1: bool,
              w: float) -> float:
        """P1's expected value below node n; accumulates r and S at updated players' nodes."""
        pl = self._pl[n]
        if pl == TERMINAL:
            return self._u[n]
        c0 = self._fc[n]
        k = self._nc[n]
        if pl == CHANCE:
            off = self._inf[n]
            v = 0.0
            for i in range(k):
                p = self._cp[off + i]
                v += p * self._walk(c0 + i, r0, r1, rc * p, upd0, upd1, w)
            return v
        inf = self._inf[n]
        sig = self._sigma[inf]
        vals = [0.0] * k
        v = 0.0
        if pl == 0:
            for i in range(k):
                vals[i] = self._walk(c0 + i, r0 * sig[i], r1, rc, upd0, upd1, w)
                v += sig[i] * vals[i]
            if upd0:
                cf = r1 * rc
                reg = self._r[inf]
                ssum = self._S[inf]
                for i in range(k):
                    reg[i] += cf * (vals[i] - v)
                    ssum[i] += w * r0 * sig[i]
        else:
            for i in range(k):
                vals[i] = self._walk(c0 + i, r0, r1 * sig[i], rc, upd0, upd1, w)
                v += sig[i] * vals[i]
            if upd1:
                cf = r0 * rc
                reg = self._r[inf]
                ssum = self._S[inf]
                for i in range(k):
                    reg[i] += cf * ((-vals[i]) - (-v))
                    ssum[i] += w * r1 * sig[i]
        return v

    def _update(self, p: int) -> None:
        """Steps 2-3 of the conventions on player p's infosets."""
        algo = self.algorithm
        t = float(self.t)
        if algo in ("lcfr", "dcfr", "pdcfr+"):
            pos = t**self.alpha / (t**self.alpha + 1.0)
            neg = t**self.beta / (t**self.beta + 1.0)
            sdisc = (t / (t + 1.0)) ** self.gamma
        if algo == "hs-pcfr+":
            sdisc = (t / (t + 1.0)) ** (self.gamma - 5.0 * min(t, 1000.0) / 1000.0)
        for inf, owner in enumerate(self._ipl):
            if owner != p:
                continue
            R = self._R[inf]
            r = self._r[inf]
            k = len(R)
            if algo == "cfr":
                for i in range(k):
                    R[i] += r[i]
            elif algo in ("cfr+", "pcfr+", "hs-pcfr+"):
                for i in range(k):
                    x = R[i] + r[i]
                    R[i] = x if x > 0.0 else 0.0
                if algo == "hs-pcfr+":
                    S = self._S[inf]
                    for i in range(k):
                        S[i] *= sdisc
                if algo in ("pcfr+", "hs-pcfr+"):
                    self._m[inf] = list(r)
            elif algo == "pdcfr+":
                S = self._S[inf]
                for i in range(k):
                    x = R[i] + r[i]
                    R[i] = x * pos if x > 0.0 else 0.0
                    S[i] *= sdisc
                self._m[inf] = list(r)
            else:
                S = self._S[inf]
                for i in range(k):
                    x = R[i] + r[i]
                    if x > 0.0:
                        x *= pos
                    elif x < 0.0:
                        x *= neg
                    R[i] = x
                    S[i] *= sdisc
            if algo in ("pcfr+", "pdcfr+", "hs-pcfr+"):
                m = self._m[inf]
                self._sigma[inf] = _regret_matching([R[i] + m[i] for i in range(k)])
            else:
                self._sigma[inf] = _regret_matching(R)


def reference_expected_value(tree: Tree, strategy: np.ndarray) -> float:
    """P1's expected payoff when both players follow ``strategy``."""
    _ensure_recursion(tree)
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    u, cp = tree.utility.tolist(), tree.chance_prob.tolist()
    rows = _as_rows(tree, strategy)

    def value(n: int) -> float:
        if pl[n] == TERMINAL:
            return u[n]
        probs = cp[inf[n]: inf[n] + nc[n]] if pl[n] == CHANCE else rows[inf[n]]
        return sum(probs[i] * value(fc[n] + i) for i in range(nc[n]))

    return value(0)


def reference_best_response(tree: Tree, strategy: np.ndarray, player: int
                            ) -> tuple[float, np.ndarray]:
    """(value of ``player``'s best response to the opponent's rows, its action per infoset).

    Classic recursion: a*(I) = argmax_a sum_{h in I} pi_-p(h) v(h.a), memoised per
    infoset, v below using a* for ``player`` and the strategy for the opponent.
    Ties go to the lowest action; -1 marks the opponent's infosets.
    """
    _ensure_recursion(tree)
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    pl, inf = tree.node_player.tolist(), tree.node_infoset.tolist()
    u, cp = tree.utility.tolist(), tree.chance_prob.tolist()
    rows = _as_rows(tree, strategy)
    sign = 1.0 if player == 0 else -1.0

    # pi_-p(h) for every node of every infoset of the player (opponent x chance reach).
    members: dict[int, list[tuple[int, float]]] = {}

    def collect(n: int, reach: float) -> None:
        p = pl[n]
        if p == TERMINAL:
            return
        if p == CHANCE:
            for i in range(nc[n]):
                collect(fc[n] + i, reach * cp[inf[n] + i])
        elif p == player:
            members.setdefault(inf[n], []).append((n, reach))
            for i in range(nc[n]):
                collect(fc[n] + i, reach)
        else:
            row = rows[inf[n]]
            for i in range(nc[n]):
                collect(fc[n] + i, reach * row[i])

    collect(0, 1.0)
    best: dict[int, int] = {}
    memo: dict[int, float] = {}

    def best_action(i_set: int) -> int:
        if i_set not in best:
            scores = [0.0] * int(tree.infoset_num_actions[i_set])
            for n, reach in members[i_set]:
                for a in range(nc[n]):
                    scores[a] += reach * value(fc[n] + a)
            arg = 0
            for a in range(1, len(scores)):
                if scores[a] > scores[arg]:
                    arg = a
            best[i_set] = arg
        return best[i_set]

    def value(n: int) -> float:
        if n in memo:
            return memo[n]
        p = pl[n]
        if p == TERMINAL:
            v = sign * u[n]
        elif p == CHANCE:
            v = sum(cp[inf[n] + i] * value(fc[n] + i) for i in range(nc[n]))
        elif p == player:
            v = value(fc[n] + best_action(inf[n]))
        else:
            row = rows[inf[n]]
            v = sum(row[i] * value(fc[n] + i) for i in range(nc[n]))
        memo[n] = v
        return v

    root_value = value(0)
    actions = np.full(tree.num_infosets, -1, dtype=np.int64)
    for i_set in range(tree.num_infosets):
        if int(tree.infoset_player[i_set]) == player:
            actions[i_set] = best_action(i_set)
    return root_value, actions


def reference_nash_conv(tree: Tree, strategy: np.ndarray) -> float:
    """BR_0(sigma_1) + BR_1(sigma_0) (zero-sum); exploitability is half of it."""
    return (reference_best_response(tree, strategy, 0)[0]
            + reference_best_response(tree, strategy, 1)[0])
