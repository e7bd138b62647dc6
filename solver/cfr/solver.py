"""The full-tree CFR solver: owns the regret/strategy tables and runs the numba kernels."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numba
import numpy as np

from spycfr.cfr import kernels, threaded
from spycfr.cfr.driver import SolveResult, drive
from spycfr.cfr.engine import IterativeSolver, LogRow
from spycfr.cfr.kernels import ALGORITHMS, algorithm_params, discount_defaults
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import exploitability
from spycfr.tree import Tree


class TableCFR(IterativeSolver):
    """What the CFR family's solvers share whatever their tree: the algorithm's settings,
    the tables R, S, sigma and m (rows of a table: the tree's infosets), the strategies,
    the checkpoint state and the driver. A subclass sets ``R``, ``S``, ``sigma``, ``m`` and
    ``_rows_actions`` (actions per row), and gives ``_run`` and ``exploitability``."""

    kind = "exact"
    R: np.ndarray
    S: np.ndarray
    sigma: np.ndarray
    m: np.ndarray
    _rows_actions: np.ndarray

    def _set_algorithm(self, algorithm: str, alpha: float | None, beta: float | None,
                       gamma: float | None, alternating: bool) -> None:
        """The algorithm and its switches; alpha, beta, gamma left None take its defaults
        (:func:`discount_defaults`)."""
        if algorithm not in ALGORITHMS:
            raise SpycfrError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
        default = discount_defaults(algorithm)
        alpha, beta, gamma = (default[i] if x is None else x
                              for i, x in enumerate((alpha, beta, gamma)))
        for name, value in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
            if not math.isfinite(value):
                raise SpycfrError(f"{name} must be a finite number, got {value}")
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.alternating = bool(alternating)
        (self._floor, self._discount, self._predictive, self._weight_power,
         self._a, self._b, self._g) = algorithm_params(algorithm, alpha, beta, gamma)
        self.iteration = 0
        self.log: list[LogRow] = []
        self.seconds = 0.0  # iteration time, over every run (a resumed run keeps counting)

    def exploitability(self) -> float:
        raise NotImplementedError

    def average_strategy(self) -> np.ndarray:
        """The normalised strategy sums (the profile that converges to equilibrium)."""
        return kernels.average_strategy(self.S, self._rows_actions)

    def strategy(self) -> np.ndarray:
        return self.average_strategy()

    def current_strategy(self) -> np.ndarray:
        """The strategy the next iteration will play (regret matching on the current regrets)."""
        return self.sigma.copy()

    def measure(self) -> float:
        return self.exploitability()

    # --- checkpoint ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume bit-identically (arrays are copies)."""
        return {
            "algorithm": self.algorithm,
            "alpha": self.alpha,
            "beta": self.beta,
            "gamma": self.gamma,
            "alternating": self.alternating,
            "iteration": self.iteration,
            "R": self.R.copy(),
            "S": self.S.copy(),
            "sigma": self.sigma.copy(),
            "m": self.m.copy(),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`state_dict`; the algorithm settings must match this solver's."""
        for key in ("algorithm", "alpha", "beta", "gamma", "alternating"):
            if key in state and state[key] != getattr(self, key):
                raise SpycfrError(
                    f"checkpoint was made with {key}={state[key]!r}, this solver has "
                    f"{getattr(self, key)!r}"
                )
        for key in ("R", "S", "sigma", "m"):
            arr = np.asarray(state[key], dtype=np.float64)
            mine = getattr(self, key)
            if arr.shape != mine.shape:
                raise SpycfrError(
                    f"checkpoint table {key} has shape {arr.shape}, this solver's tree needs "
                    f"{mine.shape}"
                )
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
        """Iterate until ``iterations`` more are done, the target is met or time runs out
        (:func:`spycfr.cfr.driver.drive`); the exploitability is measured exactly every
        ``check_every`` iterations (default 100) and at the end."""
        if check_every is None:
            check_every = min(100, iterations) if iterations else 100
        return drive(self, iterations, target_exploitability, time_limit, check_every, progress)


class CFRSolver(TableCFR):
    """CFR, CFR+, linear CFR, discounted CFR, predictive CFR+ or discounted predictive CFR+
    on a flat tree.

    ``alternating=True`` updates P1 then P2 within an iteration (P2 already sees
    P1's new strategy); ``False`` updates both from the same traversal. ``alpha``, ``beta``,
    ``gamma`` left None take the algorithm's defaults (:func:`discount_defaults`).
    ``threads`` > 1 runs the iterations on that many threads (:mod:`spycfr.cfr.threaded`), with
    the same results bit for bit; a tree whose numbering does not allow it runs on one
    (``threads_note`` says why). An :class:`spycfr.cfr.engine.Engine`: it measures the exact
    exploitability of its average strategy.
    """

    kind = "exact"

    def __init__(
        self,
        tree: Tree,
        algorithm: str = "cfr+",
        alpha: float | None = None,
        beta: float | None = None,
        gamma: float | None = None,
        alternating: bool = True,
        threads: int = 1,
    ) -> None:
        self._set_algorithm(algorithm, alpha, beta, gamma, alternating)
        self.tree = tree
        self._rows_actions = tree.infoset_num_actions
        most = numba.config.NUMBA_NUM_THREADS
        if not 1 <= int(threads) <= most:
            raise SpycfrError(f"threads must be between 1 and {most} (the CPUs numba may use "
                              f"here), got {threads}")
        self.threads = int(threads)
        self.threads_note: str | None = None

        n_inf, max_a = tree.num_infosets, max(tree.max_actions, 1)
        self.R = np.zeros((n_inf, max_a))
        self.S = np.zeros((n_inf, max_a))
        self.sigma = tree.uniform_strategy()
        # The prediction m exists for pcfr+ and pdcfr+ only (the others accumulate regrets
        # straight into R).
        self.m = np.zeros((n_inf if self._predictive else 0, max_a))
        self._prepare()

    def _prepare(self) -> None:
        """The kernels' tree arrays and working arrays (rewritten before being read in each
        pass; the instantaneous-regret scratch ``inst`` exists for pcfr+ and pdcfr+ only)."""
        tree = self.tree
        self._tree_arrays = (
            np.ascontiguousarray(tree.first_child),
            np.ascontiguousarray(tree.num_children),
            np.ascontiguousarray(tree.node_player),
            np.ascontiguousarray(tree.node_infoset),
            np.ascontiguousarray(tree.utility, dtype=np.float64),
            np.ascontiguousarray(tree.chance_prob, dtype=np.float64),
            np.ascontiguousarray(tree.infoset_node),
            np.ascontiguousarray(tree.infoset_num_actions),
            tree.infosets_of(0).astype(np.int64),
            tree.infosets_of(1).astype(np.int64),
            np.flatnonzero(tree.node_player == 0).astype(np.int64),
            np.flatnonzero(tree.node_player == 1).astype(np.int64),
        )
        self._inst = np.zeros_like(self.m)
        # Working arrays: on the host here, on the GPU in spycfr.cfr.gpu's subclass.
        self._reach: Any = np.zeros((tree.num_nodes, 3))
        self._values: Any = np.zeros(tree.num_nodes)
        self._layout: tuple | None = None
        if self.threads > 1:
            split = threaded.subtree_layout(tree.first_child, tree.num_children, self.threads)
            if split is None:
                self.threads, self.threads_note = 1, (
                    "the tree's numbering does not keep each subtree contiguous: one thread")
            else:
                decision = (tree.node_player == 0) | (tree.node_player == 1)
                counts = np.bincount(tree.node_infoset[decision], minlength=tree.num_infosets)
                self._layout = split + tuple(
                    x for infosets in self._tree_arrays[8:10]
                    for x in threaded.player_nodes(tree.node_infoset, infosets, counts, decision))

    # --- iterations -------------------------------------------------------------------
    def _run(self, n: int) -> None:
        tables = (self.R, self.S, self.sigma, self.m, self._inst, self._reach, self._values,
                  self.iteration, n, self.alternating, self._floor, self._discount,
                  self._predictive, self._weight_power, self._a, self._b, self._g)
        if self._layout is None:
            t = kernels.run_iterations(*self._tree_arrays, *tables)
        else:
            numba.set_num_threads(self.threads)
            t = threaded.run_iterations(*self._layout, *self._tree_arrays[:10], *tables)
        self.iteration = int(t)

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy."""
        return exploitability(self.tree, self.average_strategy())
