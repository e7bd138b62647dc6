"""The public-tree CFR solver: the history solver's interface (iterate, strategies,
exploitability, checkpoint state, solve through the one driver) on range vectors."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from spycfr.cfr.driver import SolveResult, drive
from spycfr.cfr.engine import IterativeSolver
from spycfr.cfr.kernels import ALGORITHMS, algorithm_params, discount_defaults
from spycfr.cfr.kernels import average_strategy as _average
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.public import kernels
from spycfr.public.tree import PublicTree, solver_bytes


def _tree_args(tree: PublicTree) -> tuple:
    """The kernels' tree arguments from ``params`` to ``inv_z`` (without the row lists)."""
    return (tree.params, tree.pub_states, tree.node_player, tree.first_child, tree.num_children,
            tree.child_prob, tree.child_mask, tree.masks, tree.row_start, tree.row_num,
            tree.ent_kid, tree.ent_next, tree.ent_prob)


def _deal_args(tree: PublicTree) -> tuple:
    n0, n1 = tree.n_private
    return (np.int64(n0), np.int64(n1), tree.weights, tree.compat, float(tree.inv_z),
            tree.term_index, tree.term_mat)


def profile_values(tree: PublicTree, strategy: np.ndarray, best: bool) -> np.ndarray:
    """float64[2]: each seat's value under ``strategy`` (rows x actions), or of its best
    response to the other seat's part of it when ``best``."""
    mode = kernels.MODE_BEST if best else kernels.MODE_VALUE
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    return kernels.seat_values(*_tree_args(tree), *_deal_args(tree), strategy, mode)


def public_exploitability(tree: PublicTree, strategy: np.ndarray) -> float:
    """NashConv / 2 of a public-tree strategy (the sum of both best responses' values)."""
    return float(profile_values(tree, strategy, True).sum()) / 2.0


def uniform_strategy(tree: PublicTree) -> np.ndarray:
    """Every action of every row equally likely."""
    s = np.zeros((tree.num_rows, max(tree.max_private_actions, 1)))
    for k in np.unique(tree.row_num):
        s[tree.row_num == k, :k] = 1.0 / k
    return s


class PublicCFRSolver(IterativeSolver):
    """CFR, CFR+, LCFR, DCFR, PCFR+, PDCFR+ or HS-PCFR+ on a public tree: the history
    solver's algorithms and switches (:class:`spycfr.cfr.CFRSolver`), one range vector per
    seat and public node. ``budget`` refuses the tables before allocating them."""

    threads = 1
    kind = "exact"  # an Engine (spycfr.cfr.engine) measuring the exact exploitability
    threads_note: str | None = None

    def __init__(
        self,
        tree: PublicTree,
        algorithm: str = "cfr+",
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        alternating: bool = True,
        budget: MemoryBudget | None = None,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise SpycfrError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
        default = discount_defaults(algorithm)
        alpha, beta, gamma = (default[i] if x is None else x
                              for i, x in enumerate((alpha, beta, gamma)))
        for name, value in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
            if not math.isfinite(value):
                raise SpycfrError(f"{name} must be a finite number, got {value}")
        self.tree = tree
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.alternating = bool(alternating)
        (self._floor, self._discount, self._predictive, self._weight_power,
         self._a, self._b, self._g) = algorithm_params(algorithm, alpha, beta, gamma)
        rows, width = tree.num_rows, max(tree.max_private_actions, 1)
        nmax = max(tree.n_private)
        if budget is not None:
            budget.require("the public-tree solver's tables and ranges",
                           solver_bytes(tree.num_nodes, rows, width, nmax,
                                        bool(self._predictive)))
        self.R = np.zeros((rows, width))
        self.S = np.zeros((rows, width))
        self.sigma = uniform_strategy(tree)
        self.m = np.zeros((rows if self._predictive else 0, width))
        self._inst = np.zeros_like(self.m)
        self._row_reach = np.zeros((rows, 2))
        self._reach = np.zeros((tree.num_nodes, 2, nmax))
        self._values = np.zeros((tree.num_nodes, nmax))
        self._rows = (tree.decision_rows(0), tree.decision_rows(1))
        self._ident = np.arange(rows, dtype=np.int64)
        self.iteration = 0
        self.log: list[tuple[int, float, float]] = []
        self.seconds = 0.0

    # --- iterations -------------------------------------------------------------------
    def _run(self, n: int) -> None:
        tree = self.tree
        self.iteration = int(kernels.run_iterations(
            *_tree_args(tree), tree.row_node, tree.row_priv, self._ident, *_deal_args(tree),
            *self._rows, self.R, self.S, self.sigma, self.m, self._inst, self._row_reach,
            self._reach, self._values, self.iteration, n, self.alternating, self._floor,
            self._discount, self._predictive, self._weight_power, self._a, self._b, self._g))

    def average_strategy(self) -> np.ndarray:
        """The normalised strategy sums per row (the profile that converges)."""
        return _average(self.S, self.tree.row_num)

    def current_strategy(self) -> np.ndarray:
        return self.sigma.copy()

    def strategy(self) -> np.ndarray:
        return self.average_strategy()

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy, exact, in vector form."""
        return public_exploitability(self.tree, self.average_strategy())

    def measure(self) -> float:
        return self.exploitability()

    # --- checkpoint ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume bit-identically (arrays are copies)."""
        return {"algorithm": self.algorithm, "alpha": self.alpha, "beta": self.beta,
                "gamma": self.gamma, "alternating": self.alternating,
                "iteration": self.iteration, "R": self.R.copy(), "S": self.S.copy(),
                "sigma": self.sigma.copy(), "m": self.m.copy()}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`state_dict`; the algorithm settings must match this solver's."""
        for key in ("algorithm", "alpha", "beta", "gamma", "alternating"):
            if key in state and state[key] != getattr(self, key):
                raise SpycfrError(f"checkpoint was made with {key}={state[key]!r}, this "
                                  f"solver has {getattr(self, key)!r}")
        for key in ("R", "S", "sigma", "m"):
            arr = np.asarray(state[key], dtype=np.float64)
            mine = getattr(self, key)
            if arr.shape != mine.shape:
                raise SpycfrError(f"checkpoint table {key} has shape {arr.shape}, the public "
                                  f"tree needs {mine.shape}")
            mine[...] = arr
        self.iteration = int(state["iteration"])

    # --- driver -------------------------------------------------------------------------
    def solve(
        self,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        time_limit: float | None = None,
        check_every: int | None = None,
        progress: Callable[[int, float, float | None], None] | None = None,
    ) -> SolveResult:
        """Iterate through :func:`spycfr.cfr.driver.drive`, measuring the exact
        exploitability every ``check_every`` iterations (default 100) and at the end."""
        if check_every is None:
            check_every = min(100, iterations) if iterations else 100
        return drive(self, iterations, target_exploitability, time_limit, check_every, progress)
