"""The GPU backend (numba.cuda) of the full-tree CFR solver, bit-identical to the CPU one.

The tree goes to the GPU renumbered breadth-first (each depth one contiguous range, children
still contiguous), so a pass over the tree is one kernel launch per depth over coalesced
arrays. Regrets are summed per infoset over its nodes listed in the CPU's node order, so
each sum adds in the CPU's order; :mod:`spycfr.cfr.gpu_kernels` does each operation as the
CPU does. The exploitability (the best response of each player) runs on the GPU too.

numba.cuda is imported only when a GPU is asked for (``--device gpu|auto``); under
``NUMBA_ENABLE_CUDASIM=1`` the same kernels run on the CPU (how the tests check them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

from spycfr.cfr.kernels import iteration_factors
from spycfr.cfr.solver import CFRSolver
from spycfr.errors import SpycfrError
from spycfr.tree import Tree

DEVICES = ("cpu", "gpu", "auto")
THREADS = 256  # threads per block
SIMULATOR_THREADS = 16  # the simulator runs each thread as a Python thread: fewer idle ones
INSTALL_HINT = "install numba-cuda (pip install 'spycfr[gpu]') on a machine with an NVIDIA GPU"


def gpu_unavailable() -> str | None:
    """Why the GPU backend cannot run here, or None when it can."""
    try:
        from spycfr.cfr.gpu_kernels import cuda
    except Exception as exc:  # noqa: BLE001 - any import failure means: no GPU backend
        return f"numba.cuda cannot be imported ({str(exc).splitlines()[0][:200]})"
    try:
        if not cuda.is_available():
            return "numba finds no usable CUDA GPU (no GPU, no driver, or no CUDA toolkit)"
    except Exception as exc:  # noqa: BLE001 - a broken driver install reports itself here
        return f"numba's CUDA driver failed: {str(exc).splitlines()[0][:200]}"
    return None


def resolve_device(device: str) -> str:
    """'cpu' or 'gpu' for ``--device`` cpu, gpu or auto (a GPU when numba finds one)."""
    if device not in DEVICES:
        raise SpycfrError(f"unknown device {device!r}; allowed: {', '.join(DEVICES)}")
    if device == "cpu":
        return "cpu"
    why = gpu_unavailable()
    if why is None:
        return "gpu"
    if device == "auto":
        return "cpu"
    raise SpycfrError(f"--device gpu: {why}; {INSTALL_HINT}, or use --device cpu")


# --- the breadth-first layout (host side, numba on the CPU) ----------------------------------


@njit(cache=True)
def breadth_first(first_child, num_children):
    """(old_of_new, new_of_old, depth_start): a breadth-first renumbering in which each node's
    children stay contiguous and in order; depth d holds the new ids depth_start[d] ..
    depth_start[d + 1] - 1."""
    n = first_child.shape[0]
    old_of_new = np.empty(n, dtype=np.int64)
    new_of_old = np.empty(n, dtype=np.int64)
    old_of_new[0] = 0
    new_of_old[0] = 0
    starts = [0, 1]
    nxt = 1
    u = 0
    while u < nxt:
        if u == starts[-1]:  # the previous depth is done: its children make the next one
            starts.append(nxt)
        o = old_of_new[u]
        s = first_child[o]
        for a in range(num_children[o]):
            old_of_new[nxt] = s + a
            new_of_old[s + a] = nxt
            nxt += 1
        u += 1
    if starts[-1] != nxt:
        starts.append(nxt)
    depth_start = np.empty(len(starts), dtype=np.int64)
    for i in range(len(starts)):
        depth_start[i] = starts[i]
    return old_of_new, new_of_old, depth_start


@njit(cache=True)
def _renumbered(first_child, num_children, node_player, node_infoset, utility, old_of_new,
                new_of_old, cell_start, fc, cell):
    """The node arrays in breadth-first order, into ``fc`` and ``cell`` (of the GPU's index
    types) and new arrays; a decision node's infoset becomes its first table cell (a chance
    node keeps its offset in chance_prob)."""
    n = first_child.shape[0]
    nc = np.empty(n, dtype=num_children.dtype)
    pl = np.empty(n, dtype=node_player.dtype)
    ut = np.empty(n, dtype=np.float64)
    for u in range(n):
        o = old_of_new[u]
        nc[u] = num_children[o]
        fc[u] = new_of_old[first_child[o]] if num_children[o] > 0 else 0
        pl[u] = node_player[o]
        j = node_infoset[o]
        cell[u] = cell_start[j] if (pl[u] == 0 or pl[u] == 1) else j
        ut[u] = utility[o]
    return nc, pl, ut


@njit(cache=True)
def _pack(table, num_actions, cell_start):
    """A (infosets, max actions) table as the GPU's flat cells."""
    out = np.empty(cell_start[-1])
    for j in range(num_actions.shape[0]):
        for a in range(num_actions[j]):
            out[cell_start[j] + a] = table[j, a]
    return out


@njit(cache=True)
def _unpack(flat, num_actions, cell_start, table):
    """The GPU's flat cells into a (infosets, max actions) table (padding left as it is)."""
    for j in range(num_actions.shape[0]):
        for a in range(num_actions[j]):
            table[j, a] = flat[cell_start[j] + a]


@njit(cache=True)
def _infoset_nodes(node_player, node_infoset, new_of_old, n_infosets):
    """(start, nodes): the decision nodes of infoset j are nodes[start[j]:start[j + 1]], as new
    ids in increasing old id (the CPU kernels' order)."""
    start = np.zeros(n_infosets + 1, dtype=np.int64)
    for o in range(node_player.shape[0]):
        if node_player[o] == 0 or node_player[o] == 1:
            start[node_infoset[o] + 1] += 1
    for j in range(n_infosets):
        start[j + 1] += start[j]
    fill = start[:-1].copy()
    nodes = np.empty(start[n_infosets], dtype=np.int64)
    for o in range(node_player.shape[0]):
        if node_player[o] == 0 or node_player[o] == 1:
            j = node_infoset[o]
            nodes[fill[j]] = new_of_old[o]
            fill[j] += 1
    return start, nodes


@njit(cache=True)
def _decision_levels(first_child, num_children, node_player, p):
    """int16[n]: how many of p's decisions lie above each node (breadth-first ids; the best
    response's buckets)."""
    n = first_child.shape[0]
    level = np.zeros(n, dtype=np.int16)
    for u in range(n):
        lv = level[u] + (1 if node_player[u] == p else 0)
        s = first_child[u]
        for a in range(num_children[u]):
            level[s + a] = lv
    return level


@njit(cache=True)
def _levels_at_depths(level, depth_start, max_level):
    """bool[max_level + 1, depths]: whether depth d holds a node of decision level lv."""
    present = np.zeros((max_level + 1, depth_start.shape[0] - 1), dtype=np.bool_)
    for d in range(depth_start.shape[0] - 1):
        for u in range(depth_start[d], depth_start[d + 1]):
            present[level[u], d] = True
    return present


class _BestResponsePlan:
    """Player p's best-response schedule (as spycfr.exact.best_response buckets it): per
    decision level, deepest first, the level's infosets, then its nodes depth by depth."""

    def __init__(self, cuda, fc, nc, pl, depth_start, node_start, node_list, infosets, p):
        level = _decision_levels(fc, nc, pl, p)
        max_level = int(level.max())
        inf_level = level[node_list[node_start[infosets]]]
        order = np.argsort(inf_level, kind="stable")
        self.infosets = cuda.to_device(infosets[order])
        self.infoset_start = np.searchsorted(inf_level[order], np.arange(max_level + 2))
        self.present = _levels_at_depths(level, depth_start, max_level)
        self.level = cuda.to_device(level)
        self.max_level = max_level


def _index_type(num_nodes: int):
    """The GPU's node-index type: 4 bytes while every node id fits."""
    return np.int32 if num_nodes < 2**31 else np.int64


def device_bytes(tree: Tree, predictive: bool) -> int:
    """GPU memory the solver allocates for ``tree`` (arrays of :class:`GPUCFRSolver`)."""
    n = tree.num_nodes
    index = np.dtype(_index_type(n)).itemsize
    decisions = int(np.count_nonzero((tree.node_player == 0) | (tree.node_player == 1)))
    cells = int(tree.infoset_num_actions.sum())
    per_node = index + tree.num_children.itemsize + 1 + np.dtype(_index_type(cells)).itemsize \
        + 3 * 8 + 8 + 2 * 2
    # R, S, sigma, the average (m, inst), the best response's choice
    tables = (4 + (2 if predictive else 0)) * 8 * cells + 2 * cells
    per_infoset = 8 + 8 + 8 + 8 + 8 + 2  # node lists, infoset lists (2), own node, cells, k
    return n * per_node + index * decisions + per_infoset * tree.num_infosets + tables


class GPUCFRSolver(CFRSolver):
    """:class:`CFRSolver` with the iterations and the exploitability on a CUDA GPU.

    The tables live on the GPU as flat cells (see :mod:`spycfr.cfr.gpu_kernels`); the host's
    (infosets, max actions) copies ``R``, ``S``, ``sigma``, ``m`` are brought up to date by
    :meth:`state_dict` and :meth:`sync`. Results equal the CPU solver's bit for bit.
    """

    def __init__(self, tree: Tree, algorithm: str = "cfr+", alpha: float | None = None,
                 beta: float | None = None, gamma: float | None = None,
                 alternating: bool = True, threads: int | None = None) -> None:
        why = gpu_unavailable()
        if why is not None:
            raise SpycfrError(f"the GPU solver cannot run: {why}; {INSTALL_HINT}")
        from spycfr.cfr import gpu_kernels as K

        super().__init__(tree, algorithm, alpha, beta, gamma, alternating)
        self._K, cuda = K, K.cuda
        if threads is None:
            threads = SIMULATOR_THREADS if K.SIMULATOR else THREADS
        self._threads = int(threads)
        need = device_bytes(tree, bool(self._predictive))
        free = _free_gpu_bytes(cuda)
        if free is not None and need > free:
            raise SpycfrError(f"the tree of {tree.num_nodes:,} nodes needs about "
                              f"{need / 2**30:.3g} GiB of GPU memory, {free / 2**30:.3g} GiB "
                              "are free: choose a smaller variant or --device cpu")
        num_actions = np.ascontiguousarray(tree.infoset_num_actions)
        cell_start = np.zeros(tree.num_infosets + 1, dtype=np.int64)
        np.cumsum(num_actions, out=cell_start[1:])
        self._cells = (num_actions, cell_start)
        old_of_new, new_of_old, depth_start = breadth_first(tree.first_child, tree.num_children)
        index = _index_type(tree.num_nodes)
        fc = np.empty(tree.num_nodes, dtype=index)
        cell = np.empty(tree.num_nodes, dtype=_index_type(int(cell_start[-1])))
        nc, pl, ut = _renumbered(tree.first_child, tree.num_children, tree.node_player,
                                 tree.node_infoset, tree.utility, old_of_new, new_of_old,
                                 cell_start, fc, cell)
        del old_of_new
        node_start, node_list = _infoset_nodes(tree.node_player, tree.node_infoset, new_of_old,
                                               tree.num_infosets)
        infoset_node = new_of_old[tree.infoset_node]
        del new_of_old
        self._depth_start = [int(x) for x in depth_start]
        players = [tree.infosets_of(p).astype(np.int64) for p in (0, 1)]
        self._br = [_BestResponsePlan(cuda, fc, nc, pl, depth_start, node_start, node_list,
                                      players[p], p) for p in (0, 1)]
        dev = cuda.to_device
        self._fc, self._nc, self._pl, self._cell = dev(fc), dev(nc), dev(pl), dev(cell)
        self._values = dev(ut)  # terminal entries hold the utilities for good
        del fc, nc, pl, cell, ut
        self._chance = dev(np.ascontiguousarray(tree.chance_prob, dtype=np.float64)
                           if tree.chance_prob.size else np.zeros(1))
        self._node_start, self._node_list = dev(node_start), dev(node_list.astype(index))
        self._infoset_node = dev(infoset_node.astype(index))
        self._num_actions, self._cell_start = dev(num_actions), dev(cell_start)
        self._players = [dev(x) for x in players]
        self._reach = [cuda.device_array(tree.num_nodes) for _ in range(3)]
        for r in self._reach:  # the root's; the passes write every other node's
            r[0:1].copy_to_device(np.ones(1))
        cells = int(cell_start[-1])
        self._dR, self._dS, self._dsigma = (dev(self._pack(x)) for x in (self.R, self.S,
                                                                           self.sigma))
        pred = cells if self._predictive else 1  # a kernel needs an array even where it reads none
        self._dm = cuda.to_device(np.zeros(pred))
        self._dinst = cuda.to_device(np.zeros(pred))
        self._target = self._dinst if self._predictive else self._dR  # where regrets add up
        self._avg = cuda.device_array(cells)
        self._best = cuda.device_array(cells, dtype=np.int16)
        self._stale = 7  # reach rows to recompute before the next pass (bits: P1, P2, chance)
        self._host_current = True  # whether R, S, sigma, m on the host equal the GPU's

    def _prepare(self) -> None:
        """The GPU keeps the tree and its working arrays on the device: nothing on the host."""

    def _pack(self, table: np.ndarray) -> np.ndarray:
        return _pack(table, *self._cells)

    def _unpacked(self, flat, table: np.ndarray | None = None) -> np.ndarray:
        """A device table's cells as an (infosets, max actions) host table (zero padding)."""
        if table is None:
            table = np.zeros(self.R.shape)
        _unpack(flat.copy_to_host(), *self._cells, table)
        return table

    def _launch(self, kernel, count: int, *args) -> None:
        t = self._threads
        kernel[max(1, (count + t - 1) // t), t](*args)

    # --- iterations -------------------------------------------------------------------
    def _forward(self) -> None:
        K, ds, r = self._K, self._depth_start, self._reach
        if not self._stale:
            return
        for d in range(len(ds) - 2):
            self._launch(K.forward_level, ds[d + 1] - ds[d], ds[d], ds[d + 1], self._fc,
                         self._nc, self._pl, self._cell, self._chance, self._dsigma, r[0], r[1],
                         r[2], self._stale)
        self._stale = 0

    def _backward(self, prune_for: int, sigma=None) -> None:
        """backward_values under ``sigma`` (default: the current strategy)."""
        K, ds = self._K, self._depth_start
        sigma = self._dsigma if sigma is None else sigma
        opp = self._reach[1 - prune_for] if prune_for >= 0 else self._reach[0]
        for d in range(len(ds) - 3, -1, -1):
            self._launch(K.backward_level, ds[d + 1] - ds[d], ds[d], ds[d + 1], self._fc,
                         self._nc, self._pl, self._cell, self._chance, sigma, opp,
                         self._values, 1 if prune_for >= 0 else 0)

    def _update(self, p: int, factors) -> None:
        infosets = self._players[p]
        self._launch(self._K.regrets_and_update, infosets.shape[0], 0, infosets.shape[0],
                     infosets, self._node_start, self._node_list, self._fc, self._nc,
                     self._infoset_node, self._num_actions, self._cell_start, *self._reach,
                     self._values, p, self._target, self._dR, self._dS, self._dsigma, self._dm,
                     self._dinst, self._floor, self._discount, self._predictive, *factors)
        self._stale |= 1 << p

    def _run(self, n: int) -> None:
        self._host_current = False
        for _ in range(n):
            t = self.iteration + 1
            factors = iteration_factors(t, self._discount, self._weight_power, self._a,
                                        self._b, self._g)
            if self.alternating:
                for p in (0, 1):
                    self._forward()
                    self._backward(p)
                    self._update(p, factors)
            else:
                self._forward()
                self._backward(-1)
                self._update(0, factors)
                self._update(1, factors)
            self.iteration = t
        self._K.cuda.synchronize()

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the iteration's kernels, one empty launch each,
        and the host's factor function, so that iteration time excludes compiling."""
        K, infosets = self._K, self._players[0]
        iteration_factors(1, self._discount, self._weight_power, self._a, self._b, self._g)
        nodes = (0, 0, self._fc, self._nc, self._pl, self._cell, self._chance, self._dsigma)
        self._launch(K.forward_level, 0, *nodes, *self._reach, 0)
        self._launch(K.backward_level, 0, *nodes, self._reach[0], self._values, 0)
        self._launch(K.regrets_and_update, 0, 0, 0, infosets, self._node_start, self._node_list,
                     self._fc, self._nc, self._infoset_node, self._num_actions,
                     self._cell_start, *self._reach, self._values, 0, self._target, self._dR,
                     self._dS, self._dsigma, self._dm, self._dinst, self._floor, self._discount,
                     self._predictive, 1.0, 1.0, 1.0, 1.0)
        self._K.cuda.synchronize()

    # --- read-outs ----------------------------------------------------------------------
    def sync(self) -> None:
        """Copy the GPU's tables into the host's ``R``, ``S``, ``sigma`` and ``m``."""
        if self._host_current:
            return
        for flat, table in ((self._dR, self.R), (self._dS, self.S), (self._dsigma, self.sigma)):
            self._unpacked(flat, table)
        if self.m.shape[0]:
            self._unpacked(self._dm, self.m)
        self._host_current = True

    def _device_average(self):
        self._launch(self._K.average_strategy, self.S.shape[0], self._dS, self._num_actions,
                     self._cell_start, self._avg)
        return self._avg

    def average_strategy(self) -> np.ndarray:
        return self._unpacked(self._device_average())

    def current_strategy(self) -> np.ndarray:
        return self._unpacked(self._dsigma)

    def best_response_value(self, strategy, p: int) -> float:
        """Player p's best-response value against ``strategy`` (a profile's flat cells on the
        GPU), as spycfr.exact.best_response.best_response computes it."""
        K, ds, plan = self._K, self._depth_start, self._br[p]
        # Scratch: the next forward pass rewrites them (the root's reach stays 1 for CFR and
        # is the root's opponent reach here; its value is put back to 1 at the end).
        opp, values = self._reach[0], self._reach[1]
        self._stale |= 3
        for d in range(len(ds) - 2):
            self._launch(K.br_forward_level, ds[d + 1] - ds[d], ds[d], ds[d + 1], self._fc,
                         self._nc, self._pl, self._cell, self._chance, strategy, p, opp)
        sign = 1.0 if p == 0 else -1.0
        try:
            for lv in range(plan.max_level, -1, -1):
                lo, hi = int(plan.infoset_start[lv]), int(plan.infoset_start[lv + 1])
                if hi > lo:
                    self._launch(K.br_choose, hi - lo, plan.infosets, lo, hi, self._node_start,
                                 self._node_list, self._fc, self._num_actions,
                                 self._cell_start, opp, values, self._best)
                for d in range(len(ds) - 2, -1, -1):
                    if plan.present[lv, d]:
                        self._launch(K.br_values_level, ds[d + 1] - ds[d], ds[d], ds[d + 1],
                                     lv, plan.level, self._fc, self._nc, self._pl, self._cell,
                                     self._chance, strategy, self._values, sign, p,
                                     self._best, values)
            return float(values[0:1].copy_to_host()[0])
        finally:
            values[0:1].copy_to_device(np.ones(1))

    def exploitability(self) -> float:
        """Exploitability (NashConv / 2) of the average strategy, computed on the GPU."""
        avg = self._device_average()
        return (self.best_response_value(avg, 0) + self.best_response_value(avg, 1)) / 2.0

    def profile_values(self) -> tuple[float, float, float]:
        """(P1's best-response value, P2's, P1's expected value) of the average strategy,
        as spycfr.exact.best_response computes them."""
        avg = self._device_average()
        br = (self.best_response_value(avg, 0), self.best_response_value(avg, 1))
        self._backward(-1, avg)  # non-terminal values are scratch
        return br[0], br[1], float(self._values[0:1].copy_to_host()[0])

    # --- checkpoint ---------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        self.sync()
        return super().state_dict()

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        super().load_state_dict(state)
        for flat, table in ((self._dR, self.R), (self._dS, self.S), (self._dsigma, self.sigma)):
            flat.copy_to_device(self._pack(table))
        if self.m.shape[0]:
            self._dm.copy_to_device(self._pack(self.m))
            self._dinst.copy_to_device(np.zeros(self._dinst.shape[0]))
        self._stale = 7
        self._host_current = True


def _free_gpu_bytes(cuda) -> int | None:
    try:
        return int(cuda.current_context().get_memory_info()[0])
    except Exception:  # noqa: BLE001 - the simulator has no such figure
        return None
