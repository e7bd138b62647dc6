"""The CFR driver: owns the regret/strategy tables and runs the numba kernels in batches."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from solver.cfr import kernels
from solver.cfr.kernels import ALGORITHMS, algorithm_params
from solver.errors import SpycfrError
from solver.tree import Tree


@dataclass
class SolveResult:
    """Outcome of :meth:`CFRSolver.solve`; ``log`` rows are (iteration, seconds, exploitability)."""

    iterations: int
    seconds: float
    exploitability: float
    stopped_by: str
    log: list[tuple[int, float, float]] = field(default_factory=list)


class CFRSolver:
    """CFR, CFR+, linear CFR, discounted CFR or predictive CFR+ on a flat tree.

    ``alternating=True`` updates P1 then P2 within an iteration (P2 already sees
    P1's new strategy); ``False`` updates both from the same traversal.
    """

    def __init__(
        self,
        tree: Tree,
        algorithm: str = "cfr+",
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float = 2.0,
        alternating: bool = True,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise SpycfrError(f"unknown algorithm {algorithm!r}; allowed: {', '.join(ALGORITHMS)}")
        for name, value in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
            if not math.isfinite(value):
                raise SpycfrError(f"{name} must be a finite number, got {value}")
        self.tree = tree
        self.algorithm = algorithm
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.alternating = bool(alternating)
        (self._floor, self._discount, self._predictive, self._weight_power,
         self._a, self._b, self._g) = algorithm_params(algorithm, alpha, beta, gamma)

        n_inf, max_a = tree.num_infosets, max(tree.max_actions, 1)
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
        self.R = np.zeros((n_inf, max_a))
        self.S = np.zeros((n_inf, max_a))
        self.sigma = tree.uniform_strategy()
        # The prediction m and the instantaneous-regret scratch exist for pcfr+ only
        # (the other algorithms accumulate regrets straight into R).
        n_pred = n_inf if self._predictive else 0
        self.m = np.zeros((n_pred, max_a))
        self.iteration = 0
        # Working arrays, reused by every call (rewritten before being read in each pass).
        self._inst = np.zeros((n_pred, max_a))
        self._reach = np.zeros((tree.num_nodes, 3))
        self._values = np.zeros(tree.num_nodes)
        self.log: list[tuple[int, float, float]] = []
        self.solve_seconds = 0.0

    # --- iterations -------------------------------------------------------------------
    def _run(self, n: int) -> None:
        self.iteration = int(
            kernels.run_iterations(
                *self._tree_arrays,
                self.R, self.S, self.sigma, self.m, self._inst, self._reach, self._values,
                self.iteration, n, self.alternating, self._floor, self._discount,
                self._predictive, self._weight_power, self._a, self._b, self._g,
            )
        )

    def warm_up(self) -> None:
        """Compile (or load from cache) the kernels without running an iteration."""
        self._run(0)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` more iterations."""
        if n < 0:
            raise ValueError(f"iterations must be >= 0, got {n}")
        if n:
            self._run(int(n))

    def average_strategy(self) -> np.ndarray:
        """The normalised strategy sums (the profile that converges to equilibrium)."""
        return kernels.average_strategy(self.S, self._tree_arrays[7])

    def current_strategy(self) -> np.ndarray:
        """The strategy the next iteration will play (regret matching on the current regrets)."""
        return self.sigma.copy()

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy."""
        from solver.best_response import exploitability  # best_response imports the kernels

        return exploitability(self.tree, self.average_strategy())

    # --- checkpoint ---------------------------------------------------------------------
    def state_dict(self) -> dict:
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

    def load_state_dict(self, state: dict) -> None:
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
                    f"checkpoint table {key} has shape {arr.shape}, the tree needs {mine.shape}"
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
        """Iterate until ``iterations`` more are done, the target is met or time runs out.

        Exploitability is measured every ``check_every`` iterations (and at the end);
        only iteration time counts toward ``seconds`` and the time limit.
        ``progress(iteration, seconds, exploitability or None)`` is called after each batch.
        """
        if iterations is None and target_exploitability is None and time_limit is None:
            iterations = 1000
        if iterations is not None and iterations < 1:
            raise SpycfrError(f"iterations must be >= 1, got {iterations}")
        if target_exploitability is not None and not target_exploitability > 0:
            raise SpycfrError(f"target exploitability must be > 0, got {target_exploitability}")
        if time_limit is not None and not time_limit > 0:
            raise SpycfrError(f"time limit must be > 0 seconds, got {time_limit}")
        if check_every is None:
            check_every = min(100, iterations) if iterations else 100
        if check_every < 1:
            raise SpycfrError(f"check-every must be >= 1, got {check_every}")

        self.warm_up()
        end = None if iterations is None else self.iteration + iterations
        seconds = 0.0
        done = 0
        expl = math.inf
        stopped = "iterations"
        since_check = 0
        while True:
            step = check_every - since_check
            if end is not None:
                step = min(step, end - self.iteration)
            if time_limit is not None:
                # Aim each batch at about 0.1 s and never (by the current rate) past the limit.
                rate = done / seconds if done and seconds > 0 else 0.0
                if rate:
                    left = max(time_limit - seconds, 0.0)
                    step = min(step, max(1, int(min(left, 0.1) * rate)))
                else:
                    step = 1
            t0 = time.perf_counter()
            self._run(step)
            seconds += time.perf_counter() - t0
            done += step
            since_check += step
            done_iters = end is not None and self.iteration >= end
            out_of_time = time_limit is not None and seconds >= time_limit
            measured = None
            if since_check >= check_every or done_iters or out_of_time:
                since_check = 0
                expl = self.exploitability()
                measured = expl
                self.log.append((self.iteration, self.solve_seconds + seconds, expl))
            if progress is not None:
                progress(self.iteration, seconds, measured)
            if target_exploitability is not None and measured is not None and (
                expl <= target_exploitability
            ):
                stopped = "target"
                break
            if done_iters:
                stopped = "iterations"
                break
            if out_of_time:
                stopped = "time"
                break
        self.solve_seconds += seconds
        return SolveResult(self.iteration, seconds, expl, stopped, list(self.log))
