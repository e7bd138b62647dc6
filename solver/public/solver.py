"""The public-tree CFR solver: the history solver's interface (iterate, strategies,
exploitability, checkpoint state, solve through the one driver) on range vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from spycfr.cfr.solver import TableCFR
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.public import kernels
from spycfr.public.tree import PublicTree, solver_bytes


def _tree_args(tree: PublicTree) -> tuple:
    """The kernels' tree arguments from ``params`` to ``term_vals``."""
    n0, n1 = tree.n_private
    return (tree.params, tree.pub_states, tree.node_player, tree.first_child, tree.num_children,
            tree.child_prob, tree.live_start, tree.live_priv, tree.live_up, tree.live_mask,
            tree.row_start, tree.row_off, tree.row_entry, tree.ent_to, tree.ent_prob,
            np.int64(n0), np.int64(n1), tree.weights, tree.compat, float(tree.inv_z),
            tree.term_index, tree.term_vals)


def profile_values(tree: PublicTree, strategy: np.ndarray, best: bool) -> np.ndarray:
    """float64[2]: each seat's value under ``strategy`` (float64[cells]: row r's action e at
    ``tree.row_off[r] + e``), or of its best response to the other seat's part of it when
    ``best``."""
    mode = kernels.MODE_BEST if best else kernels.MODE_VALUE
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    return kernels.seat_values(*_tree_args(tree), strategy, mode)


def public_ranges(tree: PublicTree, strategy: np.ndarray) -> np.ndarray:
    """float64[range entries]: both seats' ranges under ``strategy`` (entry e is seat s's
    reach of private state ``tree.live_priv[e]`` at its node, the deal's weight included)."""
    reach = np.zeros(tree.range_entries)
    strategy = np.ascontiguousarray(strategy, dtype=np.float64)
    for seat in (0, 1):
        kernels.forward_range(tree.node_player, tree.first_child, tree.num_children,
                              tree.live_start, tree.live_priv, tree.live_up, tree.live_mask,
                              tree.row_start, tree.row_off, tree.row_entry, tree.ent_to,
                              tree.ent_prob, tree.weights, strategy, reach, seat)
    return reach


def public_exploitability(tree: PublicTree, strategy: np.ndarray) -> float:
    """NashConv / 2 of a public-tree strategy (the sum of both best responses' values)."""
    return float(profile_values(tree, strategy, True).sum()) / 2.0


def uniform_strategy(tree: PublicTree) -> np.ndarray:
    """Every action of every row equally likely (float64[cells])."""
    return np.repeat(1.0 / tree.row_num, tree.row_num)


def cells_of_rows(tree: PublicTree, table: np.ndarray) -> np.ndarray:
    """float64[cells] from a (rows x width) table, as the public solver stored its tables
    and strategies before rows had their own width (width at least the widest row's)."""
    rows = np.repeat(np.arange(tree.num_rows), tree.row_num)
    return table[rows, np.arange(tree.num_cells) - tree.row_off[rows]]


class PublicCFRSolver(TableCFR):
    """CFR, CFR+, LCFR, DCFR, PCFR+, PDCFR+ or HS-PCFR+ on a public tree: the history
    solver's algorithms, switches, checkpoint state and driver (:class:`TableCFR`), one range
    vector per seat and public node over its live private states; the tables' rows are the
    (public node, live private state) rows of the tree, flat over its cells (each row at its
    own width). ``budget`` refuses the tables before allocating them."""

    threads = 1
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
        self._set_algorithm(algorithm, alpha, beta, gamma, alternating)
        self.tree = tree
        self._rows_actions = tree.row_num
        cells = tree.num_cells
        if budget is not None:
            budget.require("the public-tree solver's tables and ranges",
                           solver_bytes(tree.range_entries, cells, bool(self._predictive)))
        self.R = np.zeros(cells)
        self.S = np.zeros(cells)
        self.sigma = uniform_strategy(tree)
        self.m = np.zeros(cells if self._predictive else 0)
        self._inst = np.zeros_like(self.m)
        self._reach = np.zeros(tree.range_entries)
        self._values = np.zeros(tree.range_entries)
        self._rows = (tree.decision_rows(0), tree.decision_rows(1))
        self._args = _tree_args(tree)

    def _run(self, n: int) -> None:
        self.iteration = int(kernels.run_iterations(
            *self._args, *self._rows, self.R, self.S, self.sigma, self.m, self._inst,
            self._reach, self._values, self.iteration, n, self.alternating, self._floor,
            self._discount, self._predictive, self._weight_power, self._a, self._b, self._g))

    def average_strategy(self) -> np.ndarray:
        """The normalised strategy sums (float64[cells])."""
        return kernels.average_cells(self.S, self.tree.row_off)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Also reads a checkpoint of the padded layout (tables rows x widest row), which
        keeps its values cell for cell."""
        tables = ("R", "S", "sigma", "m")
        state = dict(state)
        for key in tables:
            arr = np.asarray(state[key])
            if arr.ndim == 2 and key == "m" and arr.shape[0] == 0:
                state[key] = np.zeros(0)
            elif (arr.ndim == 2 and arr.shape[0] == self.tree.num_rows
                  and arr.shape[1] >= self.tree.max_private_actions):
                state[key] = cells_of_rows(self.tree, arr)
            elif arr.ndim != 1:
                raise SpycfrError(f"checkpoint table {key} has shape {arr.shape}, this "
                                  f"solver's public tree has {self.tree.num_rows:,} rows "
                                  f"of {self.tree.num_cells:,} cells")
        super().load_state_dict(state)

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy, exact, in vector form."""
        return public_exploitability(self.tree, self.average_strategy())
