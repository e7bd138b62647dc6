"""The public-tree solver on a CUDA GPU (numba.cuda), bit-identical to the CPU engine.

The public tree is numbered breadth-first already, so each depth is one contiguous range of
nodes and of each seat's range entries: a pass is one kernel launch per depth, one thread per
entry (:mod:`spycfr.public.gpu_kernels`). Where the CPU scatters into an entry the GPU gathers
through two indexes built here once, listing the sources in the CPU's order: the cells that
lead to an entry after a private transition (``src_*``), and the children's entries that
pass one on (``down_*``). Terminals must be precomputed blocks (the games' terminal hooks are
CPU code): :func:`ensure_terminal_blocks` builds them for a tree that has none.

numba.cuda is imported only when a GPU is asked for (``--device gpu|auto``); under
``NUMBA_ENABLE_CUDASIM=1`` the same kernels run on the CPU (how the tests check them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from spycfr.cfr.gpu import (
    INSTALL_HINT,
    SIMULATOR_THREADS,
    THREADS,
    _free_gpu_bytes,
    gpu_unavailable,
)
from spycfr.cfr.kernels import iteration_factors
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.public import kernels
from spycfr.public.protocol import PRIVATE_CHANCE, TERMINAL
from spycfr.public.solver import PublicCFRSolver
from spycfr.public.tree import PublicTree

# GPU bytes per range entry: entry_node, live_priv, live_up (int32 or int64), live_mask,
# down_start, down_entry, src_start, reach, values; per cell: ent_to, ent_prob, cell_row,
# src_cell and the tables R, S, sigma, the average (m, inst); per row: row_off, row_entry,
# row_chance, the seats' row lists.
ENTRY_BYTES = 3 * 8 + 8 + 3 * 8 + 2 * 8
CELL_BYTES = 3 * 8 + 4 * 8
PREDICTIVE_CELL_BYTES = 2 * 8
ROW_BYTES = 8 + 8 + 1 + 8


def terminal_pairs(tree: PublicTree) -> int:
    """Live pairs over the tree's terminals: the length of its terminal blocks."""
    term = np.flatnonzero(tree.node_player == TERMINAL)
    ls = tree.live_start
    return int(((ls[0, term + 1] - ls[0, term]) * (ls[1, term + 1] - ls[1, term])).sum())


def has_terminal_blocks(tree: PublicTree) -> bool:
    """Whether every terminal's payoffs are a precomputed block (what the GPU evaluates)."""
    return not bool(np.any(tree.term_index[tree.node_player == TERMINAL] < 0))


def ensure_terminal_blocks(tree: PublicTree, budget: MemoryBudget | None = None) -> None:
    """Precompute the terminal blocks of a tree built with the game's terminal hook instead
    (for some or all of its terminals), in place: the CPU engine then reads them too, so
    the two devices agree bit for bit."""
    if has_terminal_blocks(tree):
        return
    from spycfr.public.enumerate import NO_BLOCK_MAX, _terminal_blocks

    pairs = terminal_pairs(tree)
    if budget is not None:
        budget.require(f"the public tree's terminal payoffs for the GPU ({pairs:,} pairs)",
                       pairs * 8)
    term_index = np.full(tree.num_nodes, -1, np.int64)
    term_vals = np.zeros(pairs)
    _terminal_blocks(tree.params, tree.pub_states, tree.node_player, tree.live_start,
                     tree.live_priv, tree.compat, tree.inv_z, NO_BLOCK_MAX, term_index,
                     term_vals)
    tree.term_index, tree.term_vals = term_index, term_vals


def device_bytes(tree: PublicTree, predictive: bool) -> int:
    """GPU memory :class:`GPUPublicSolver` allocates for ``tree``."""
    cell = CELL_BYTES + (PREDICTIVE_CELL_BYTES if predictive else 0)
    return (tree.range_entries * ENTRY_BYTES + tree.num_cells * cell + tree.num_rows * ROW_BYTES
            + tree.num_nodes * (1 + 8 + 8 + 8 + 16) + tree.term_vals.nbytes)


@njit(cache=True)
def _depths(first_child, num_children):
    """int64 depth of each node; -1 if the numbering is not breadth-first (a child numbered
    before a node of a smaller depth)."""
    n = first_child.shape[0]
    depth = np.zeros(n, np.int64)
    for q in range(n):
        for a in range(num_children[q]):
            depth[first_child[q] + a] = depth[q] + 1
    for q in range(1, n):
        if depth[q] < depth[q - 1]:
            depth[0] = -1
    return depth


@njit(cache=True)
def _gathers(live_up, ent_to, row_off, n_entries):
    """(down_start, down_entry, src_start, src_cell, cell_row): for each entry the entries
    that pass its range on (live_up == e) and the cells that lead to it (ent_to == e), each
    in increasing order (the CPU's summation order); the row of each cell."""
    down_start = np.zeros(n_entries + 1, np.int64)
    src_start = np.zeros(n_entries + 1, np.int64)
    for d in range(live_up.shape[0]):
        if live_up[d] >= 0:
            down_start[live_up[d] + 1] += 1
    for c in range(ent_to.shape[0]):
        src_start[ent_to[c] + 1] += 1
    for e in range(n_entries):
        down_start[e + 1] += down_start[e]
        src_start[e + 1] += src_start[e]
    down_entry = np.empty(down_start[n_entries], np.int64)
    src_cell = np.empty(src_start[n_entries], np.int64)
    fill = down_start[:-1].copy()
    for d in range(live_up.shape[0]):
        u = live_up[d]
        if u >= 0:
            down_entry[fill[u]] = d
            fill[u] += 1
    fill = src_start[:-1].copy()
    for c in range(ent_to.shape[0]):
        e = ent_to[c]
        src_cell[fill[e]] = c
        fill[e] += 1
    cell_row = np.empty(ent_to.shape[0], np.int64)
    for r in range(row_off.shape[0] - 1):
        for c in range(row_off[r], row_off[r + 1]):
            cell_row[c] = r
    return down_start, down_entry, src_start, src_cell, cell_row


def _index(n: int):
    """The GPU's index type for ids below n: 4 bytes while they fit."""
    return np.int32 if n < 2**31 else np.int64


class GPUPublicSolver(PublicCFRSolver):
    """:class:`PublicCFRSolver` with the iterations and the exact exploitability on a CUDA
    GPU. The tables live on the GPU; the host's ``R``, ``S``, ``sigma``, ``m`` are brought up
    to date by :meth:`sync` (and :meth:`state_dict`). Results equal the CPU engine's bit for
    bit."""

    def __init__(self, tree: PublicTree, algorithm: str = "cfr+", alpha: float | None = None,
                 beta: float | None = None, gamma: float | None = None,
                 alternating: bool = True, budget: MemoryBudget | None = None,
                 threads: int | None = None) -> None:
        why = gpu_unavailable()
        if why is not None:
            raise SpycfrError(f"the GPU solver cannot run: {why}; {INSTALL_HINT}")
        if not has_terminal_blocks(tree):
            raise SpycfrError("the GPU evaluates terminals as precomputed blocks; this public "
                              "tree uses the game's terminal hook (ensure_terminal_blocks)")
        from spycfr.public import gpu_kernels as K

        super().__init__(tree, algorithm, alpha, beta, gamma, alternating, budget)
        self._K, cuda = K, K.cuda
        self._threads = int(threads or (SIMULATOR_THREADS if K.SIMULATOR else THREADS))
        need = device_bytes(tree, bool(self._predictive))
        free = _free_gpu_bytes(cuda)
        if free is not None and need > free:
            raise SpycfrError(f"the public tree needs about {need / 2**30:.3g} GiB of GPU "
                              f"memory, {free / 2**30:.3g} GiB are free: choose a smaller "
                              "variant or --device cpu")
        depth = _depths(tree.first_child, tree.num_children)
        if depth[0] < 0:
            raise SpycfrError("the public tree is not numbered breadth-first")
        node_lo = np.searchsorted(depth, np.arange(int(depth[-1]) + 2))
        # Each seat's entries of each depth: [seat][d] .. [seat][d + 1]
        self._levels = [[int(x) for x in tree.live_start[s, node_lo]] for s in (0, 1)]
        n_ent = tree.range_entries
        down_start, down_entry, src_start, src_cell, cell_row = _gathers(
            tree.live_up, tree.ent_to, tree.row_off, n_ent)
        ei, ci, ri = _index(n_ent + 1), _index(tree.num_cells + 1), _index(tree.num_rows + 1)
        entry_node = np.concatenate([np.repeat(np.arange(tree.num_nodes, dtype=_index(
            tree.num_nodes)), np.diff(tree.live_start[s])) for s in (0, 1)])
        dev = cuda.to_device
        self._entry_node = dev(entry_node)
        self._live_priv = dev(tree.live_priv)
        self._live_up = dev(tree.live_up.astype(ei))
        self._live_mask = dev(tree.live_mask)
        self._down = (dev(down_start.astype(ei)), dev(down_entry.astype(ei)))
        self._src = (dev(src_start.astype(ci)), dev(src_cell.astype(ci)))
        self._cell_row = dev(cell_row.astype(ri))
        self._row_entry = dev(tree.row_entry.astype(ei))
        self._row_off = dev(tree.row_off.astype(ci))
        self._row_chance = dev((tree.node_player[tree.row_node] >= PRIVATE_CHANCE)
                               .astype(np.int8))
        self._ent_to = dev(tree.ent_to.astype(ei))
        self._ent_prob = dev(tree.ent_prob)
        self._node_player = dev(tree.node_player)
        self._node_prob = dev(tree.child_prob)
        self._live_start = dev(tree.live_start)
        self._row_start = dev(tree.row_start)
        self._term_index = dev(tree.term_index)
        self._term_vals = dev(tree.term_vals if tree.term_vals.size else np.zeros(1))
        self._weights = dev(tree.weights)
        self._rows_dev = [dev(r) for r in self._rows]
        self._reach = cuda.device_array(max(n_ent, 1))
        self._dvalues = cuda.device_array(max(n_ent, 1))
        self._avg = cuda.device_array(max(tree.num_cells, 1))
        self._dR, self._dS, self._dsigma = (dev(x) for x in (self.R, self.S, self.sigma))
        pred = tree.num_cells if self._predictive else 1  # a kernel needs an array anyway
        self._dm, self._dinst = dev(np.zeros(pred)), dev(np.zeros(pred))
        self._target = self._dinst if self._predictive else self._dR
        self._root = [np.arange(tree.live_start[s, 0], tree.live_start[s, 1]) for s in (0, 1)]
        self._host_current = True

    def _launch(self, kernel, count: int, *args) -> None:
        t = self._threads
        kernel[max(1, (count + t - 1) // t), t](*args)

    # --- passes (the kernels' loops over depths) ---------------------------------------
    def _forward(self, seat: int, sigma) -> None:
        lv = self._levels[seat]
        for d in range(len(lv) - 1):
            if lv[d + 1] > lv[d]:
                self._launch(self._K.forward_level, lv[d + 1] - lv[d], lv[d], lv[d + 1],
                             self._entry_node, self._live_priv, self._live_up,
                             self._live_mask, *self._src, self._cell_row, self._row_entry,
                             self._row_chance, self._ent_prob, self._weights, sigma, seat,
                             self._reach)

    def _backward(self, p: int, sigma, mode: int) -> float:
        """backward_values for seat p; returns its value at the root."""
        lv = self._levels[p]
        for d in range(len(lv) - 2, -1, -1):
            if lv[d + 1] > lv[d]:
                self._launch(self._K.backward_level, lv[d + 1] - lv[d], lv[d], lv[d + 1], p,
                             self._entry_node, self._node_player, self._node_prob,
                             self._live_start, self._live_mask, self._row_start,
                             self._row_off, self._ent_to, self._ent_prob, *self._down,
                             self._term_index, self._term_vals, sigma, self._reach,
                             self._dvalues, mode, self._target)
        root = self._root[p]
        if root.size == 0:
            return 0.0
        values = self._dvalues[int(root[0]):int(root[-1]) + 1].copy_to_host()
        total = 0.0
        weights = self.tree.weights[p]
        for e, v in zip(self.tree.live_priv[root], values, strict=True):
            total += float(weights[e]) * float(v)
        return total

    def _update(self, p: int, factors) -> None:
        rows = self._rows_dev[p]
        self._launch(self._K.update_rows, rows.shape[0], 0, rows.shape[0], rows,
                     self._row_entry, self._row_off, self._reach, self._dR, self._dS,
                     self._dsigma, self._dm, self._dinst, self._floor, self._discount,
                     self._predictive, *factors)

    def _run(self, n: int) -> None:
        """kernels.run_iterations, step for step."""
        if n <= 0:
            return
        self._host_current = False
        regret = kernels.MODE_REGRET
        self._forward(0, self._dsigma)
        for _ in range(n):
            t = self.iteration + 1
            factors = iteration_factors(t, self._discount, self._weight_power, self._a,
                                        self._b, self._g)
            for p in (0, 1):
                if self.alternating or p == 0:
                    self._forward(1 - p, self._dsigma)
                self._backward(p, self._dsigma, regret)
                if self.alternating:
                    self._update(p, factors)
            if not self.alternating:
                self._update(0, factors)
                self._update(1, factors)
                self._forward(0, self._dsigma)
            self.iteration = t
        self._K.cuda.synchronize()

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) every kernel with one iteration's worth of
        launches on scratch copies, so that iteration time excludes compiling."""
        state = self.state_dict()
        self._run(1)
        self.exploitability()
        self.load_state_dict(state)

    # --- read-outs -----------------------------------------------------------------------
    def sync(self) -> None:
        """Copy the GPU's tables into the host's ``R``, ``S``, ``sigma`` and ``m``."""
        if self._host_current:
            return
        self._dR.copy_to_host(self.R)
        self._dS.copy_to_host(self.S)
        self._dsigma.copy_to_host(self.sigma)
        if self.m.shape[0]:
            self._dm.copy_to_host(self.m)
        self._host_current = True

    def device_average(self):
        """The average strategy, computed into a device array (reused by the next call)."""
        self._launch(self._K.average_cells, self.tree.num_rows, self._dS, self._row_off,
                     self._avg)
        return self._avg

    def average_strategy(self) -> np.ndarray:
        return self.device_average().copy_to_host()

    def current_strategy(self) -> np.ndarray:
        return self._dsigma.copy_to_host()

    def seat_values(self, strategy, best: bool) -> np.ndarray:
        """kernels.seat_values of a device strategy: each seat's value under it, or of its
        best response to it."""
        mode = kernels.MODE_BEST if best else kernels.MODE_VALUE
        for s in (0, 1):
            self._forward(s, strategy)
        out = np.array([self._backward(p, strategy, mode) for p in (0, 1)])
        # The next iteration starts with a forward pass of seat 0 and of seat 1 before any
        # backward one, so the scratch ranges are rewritten before they are read.
        return out

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy, computed on the GPU."""
        return float(self.seat_values(self.device_average(), True).sum()) / 2.0

    # --- checkpoint -----------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        self.sync()
        return super().state_dict()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        for flat, table in ((self._dR, self.R), (self._dS, self.S), (self._dsigma, self.sigma)):
            flat.copy_to_device(table)
        if self.m.shape[0]:
            self._dm.copy_to_device(self.m)
            self._dinst.copy_to_device(np.zeros(self._dinst.shape[0]))
        self._host_current = True

