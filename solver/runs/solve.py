"""Solving into a run directory: configuration, the full-tree and Monte-Carlo engines,
checkpoints every K iterations, bit-identical resume and Ctrl-C that keeps the last
checkpoint (files: :mod:`spycfr.runs.store`)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from spycfr import __version__
from spycfr.cfr import CFRSolver
from spycfr.cfr.driver import drive
from spycfr.cfr.gpu import DEVICES, GPUCFRSolver, resolve_device
from spycfr.cfr.kernels import ALGORITHMS, algorithm_params
from spycfr.cfr.mccfr import REGRET_BOUND_KIND, MCCFRSolver, strategy_on_tree
from spycfr.engine import protocol
from spycfr.engine.labels import state_at
from spycfr.engine.playout import estimate_nodes
from spycfr.errors import Interrupted, SpycfrError, is_interrupt
from spycfr.exact.best_response import best_response, expected_value, exploitability
from spycfr.exact.lp import MAX_LP_NODES, solve_lp
from spycfr.formats.strategy_table import DISK_BYTES_PER_ROW, write_table
from spycfr.games import build_tree, foreign_kind, get_plugin, make_game
from spycfr.io import (
    check_free_space,
    check_output_dir,
    remove_stale_temporaries,
    save_npz,
    write_json,
    write_text,
)
from spycfr.memory import MemoryBudget, MemoryLimitError, peak_rss_bytes, rss_bytes
from spycfr.runs.lock import RunLock
from spycfr.runs.source import TREE_NPZ, game_tree, load_tree, save_tree
from spycfr.runs.store import (
    CHECKPOINT,
    CONVERGENCE,
    OPENINGS_CSV,
    RUN_FILES,
    RUN_JSON,
    STRATEGY_NPZ,
    convergence_csv,
    file_sha256,
    fingerprint,
    holds_run,
    load_checkpoint,
    save_checkpoint,
    strategy_run_table,
)
from spycfr.tree import Tree

# Monte-Carlo CFR: algorithm name -> sampling scheme of spycfr.cfr.mccfr.
MCCFR_ALGORITHMS = {"es-mccfr": "external", "os-mccfr": "outcome"}
DEFAULT_EPSILON = 0.6  # outcome sampling's exploration (OpenSpiel's default)
# Variants whose estimated tree is at most this big are enumerated, so that an MCCFR
# run gets its exact exploitability and the strategy tables of a full-tree run.
ENUMERABLE_NODES = 30_000_000

# What a full-tree solve allocates, for --memory-limit (checked before allocating): the tree
# (27 B of arrays per node, grown 4x at a time, so 34 B with the old copy beside the new);
# per node beyond it CFR's reach and values (32 B) and the best response's order, levels and
# values (28 B), rounded up; per (infoset, action) cell the regrets, strategy sums, current
# strategy, the best response's q-values, the average strategy and a checkpoint's copies of
# the regrets and sums (7 x 8 B; predictive CFR+ keeps two more).
TREE_BYTES_PER_NODE = 34
SOLVE_BYTES_PER_NODE = 80
# Several threads (spycfr.cfr.threaded) add each infoset's list of its nodes (8 B per node).
THREADED_BYTES_PER_NODE = 8
# --threads auto uses every CPU from this many nodes on: below, one thread (Kuhn's 58 nodes
# ran 3x slower on two threads than on one; Agent Hunter tiny's 7,339 2.4x faster).
THREADS_MIN_NODES = 5_000
AUTO_THREADS = 0  # SolveConfig.threads meaning --threads auto
# On the GPU the host holds no per-node working arrays; it lays the tree out breadth-first
# (two int64 maps, 19 B of renumbered arrays, the infosets' node lists and the best
# response's levels) before copying it to the GPU: 35.5 B per node at the peak, measured on
# Agent Hunter small.
GPU_HOST_BYTES_PER_NODE = 40
SOLVE_BYTES_PER_CELL = 56
PREDICTIVE_BYTES_PER_CELL = 16
# The strategy tables (labels as Python strings, then Parquet and CSV): 470 B per row
# measured on Agent Hunter small (2.07 M rows), and pandas/pyarrow's own start-up.
TABLE_BYTES_PER_ROW = 600
TABLE_BYTES_FIXED = 150 * 2**20
FULL_TREE_ADVICE = ("raise --memory-limit, choose a smaller variant, or solve without a tree "
                    "(--algorithm es-mccfr or os-mccfr)")
# The exact LP (one HiGHS program, both halves of the strategy): peak resident memory beyond
# the tree measured at 0.9 kB per node on Agent Hunter mini (205,723 nodes), 0.35 kB on
# liar's dice; rounded up.
LP_BYTES_PER_NODE = 1500
# `--algorithm auto` (measured side by side, benchmarks/README.md): the exact LP (exploitability
# ~1e-16) up to AUTO_LP_NODES nodes (estimated): first or tied to 1e-6 on every tree measured
# but the smallest (Kuhn to an Agent Hunter variant of 716,605 nodes: 15-36 s against
# pdcfr+'s 29-49 s), while a 2.3 M-node tree did not finish in 900 s. Discounted predictive
# CFR+ on the full tree for a loose target (at least AUTO_LOOSE_TARGET) on a tree of more than
# AUTO_CFR_NODES nodes (to 1e-3 it was 2.5-4.6x sooner than the LP on Agent Hunter mini, 4x at
# 716,605 nodes, 1.7x later on liar's dice), above the LP's size, or when something iterative
# is asked for; external-sampling MCCFR when the full tree would not fit.
AUTO_LP_NODES = 1_000_000
AUTO_CFR_NODES = 100_000
AUTO_LOOSE_TARGET = 1e-3
AUTO_CFR = "pdcfr+"
AUTO_SAMPLED = "es-mccfr"


@dataclass
class SolveConfig:
    """What a solve was asked to do (stored in run.json, reused by --resume)."""

    game: str
    preset: str | None
    params: dict
    algorithm: str = "cfr+"  # the library's; `spycfr solve` defaults to "auto"
    alpha: float | None = None  # None: the algorithm's own (spycfr.cfr.kernels.discount_defaults)
    beta: float | None = None
    gamma: float | None = None
    alternating: bool = True
    iterations: int | None = None
    target_exploitability: float | None = None
    time_limit: float | None = None
    check_every: int | None = None
    seed: int = 0
    epsilon: float | None = None  # os-mccfr only (None: DEFAULT_EPSILON)
    memory_limit: float | None = None  # GiB of resident memory (None: half the RAM)
    abstraction: bool = False  # MCCFR only: key infosets by the game's information abstraction
    device: str = "cpu"  # full tree: cpu, gpu or auto (a GPU when numba finds one)
    threads: int | None = 1  # full tree on the CPU: threads of the iterations (0: auto)
    when_full: str | None = None  # MCCFR only, at the memory limit: stop (None) or freeze
    fallback: str | None = None  # MCCFR only: how unstored infosets play (None: uniform)
    store_depth: int | None = None  # MCCFR only: decisions deeper than this are not stored


# Settings a resumed run takes from the command line rather than from its checkpoint.
RESUME_LIMITS = ("iterations", "target_exploitability", "time_limit", "check_every",
                 "memory_limit", "device", "threads", "when_full")


# --- solver engines: what differs between the full-tree and the Monte-Carlo solvers ----------


def _tree_within(config: SolveConfig, memory: MemoryBudget, per_node: float, solver: str,
                 advice: str) -> Tree:
    """The enumerated tree of ``config``'s variant, refused at once when the estimated tree and
    ``per_node`` bytes of ``solver`` per node would not fit ``memory``; then checked as the
    tree grows."""
    game = make_game(config.game, config.preset, config.params)
    nodes = estimate_nodes(get_plugin(game.name).numba_params(game.variant_obj))
    memory.require(f"the tree of about {nodes:.3g} nodes (estimated) and its {solver}",
                   nodes * (TREE_BYTES_PER_NODE + per_node), advice)
    return build_tree(game, memory=memory)


def _foreign_tree(config: SolveConfig, run_dir: Path | None, resume) -> Tree | None:
    """The tree of a game from an .efg file or OpenSpiel (None for a built-in game): the one
    saved with the run when resuming, else read and then saved there (if there is a run)."""
    if foreign_kind(config.game) is None:
        return None
    if resume is not None:
        return load_tree(run_dir / TREE_NPZ)
    tree = game_tree(config.game, config.preset, config.params, _memory_budget(config))
    if run_dir is not None:
        save_tree(run_dir / TREE_NPZ, tree)  # what --resume and the analysis commands load
    return tree


class _Iterative:
    """What the iterative engines share: run = iterate to the limits (:func:`_iterate`)."""

    def run(self, *args) -> tuple[float, str]:
        return _iterate(self, *args)


class _FullTree(_Iterative):
    """A CFR-family solver on the enumerated tree (any game)."""

    value_column = "exploitability"
    kind = "exact"
    default_check_every = 100

    def __init__(self, config: SolveConfig, tree: Tree | None = None) -> None:
        self.config = config
        self.device = resolve_device(config.device)  # before the tree: a missing GPU fails fast
        self.memory = _memory_budget(config)
        # Refused at once from the estimate; then checked as the tree grows and once it is known.
        per_node = GPU_HOST_BYTES_PER_NODE if self.device == "gpu" else SOLVE_BYTES_PER_NODE
        self.tree = tree = tree or _tree_within(config, self.memory, per_node, "solver",
                                                FULL_TREE_ADVICE)
        self.memory.require(f"solving the tree of {tree.num_nodes:,} nodes and "
                            f"{tree.num_infosets:,} infosets", _solve_bytes(tree, config),
                            FULL_TREE_ADVICE)
        if self.device == "gpu":
            self.solver = GPUCFRSolver(tree, config.algorithm, config.alpha, config.beta,
                                       config.gamma, config.alternating)
        else:
            self.solver = CFRSolver(tree, config.algorithm, config.alpha, config.beta,
                                    config.gamma, config.alternating,
                                    threads=resolve_threads(config.threads, tree.num_nodes))

    def restore(self, state: dict, log: list, seconds: float) -> None:
        self.solver.load_state_dict(state)
        self.solver.log = list(log)
        self.solver.seconds = seconds

    def measure(self) -> float:
        return self.solver.exploitability()

    def report(self, progress) -> Callable:
        return progress

    def strategy(self) -> np.ndarray:
        return self.solver.average_strategy()

    def profile_values(self, strategy: np.ndarray) -> tuple[float, float, float]:
        """(P1's best-response value, P2's, P1's expected value) of ``strategy``."""
        if self.device == "gpu":
            return self.solver.profile_values()
        return _profile_values(self.tree, strategy)

    def extra_meta(self) -> dict:
        if self.device == "gpu":
            return {"device": self.device}
        return {"device": self.device, "threads": self.solver.threads,
                **({"threads_note": self.solver.threads_note} if self.solver.threads_note
                   else {})}


def available_cpus() -> int:
    """The CPUs this process may run on that numba may use."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, numba.config.NUMBA_NUM_THREADS))


def resolve_threads(threads: int | None, nodes: int) -> int:
    """The threads of a full-tree CPU solve: as given (None: one), or (AUTO_THREADS) every
    available CPU on a tree of at least THREADS_MIN_NODES nodes, else one."""
    if threads != AUTO_THREADS:
        return threads or 1
    return available_cpus() if nodes >= THREADS_MIN_NODES else 1


def _profile_values(tree: Tree, strategy: np.ndarray) -> tuple[float, float, float]:
    """(P1's best-response value, P2's, P1's expected value) of ``strategy`` on the CPU."""
    return (best_response(tree, strategy, 0)[0], best_response(tree, strategy, 1)[0],
            expected_value(tree, strategy))


class _LPRun:
    """The exact LP as a run's solver: no iterations, one program."""

    def __init__(self) -> None:
        self.iteration = 0
        self.seconds = 0.0
        self.log: list[tuple[int, float, float]] = []


class _ExactLP:
    """The sequence-form LP (HiGHS) on the enumerated tree: an exact equilibrium at once."""

    value_column = "exploitability"
    kind = "exact"

    def __init__(self, config: SolveConfig, tree: Tree | None = None) -> None:
        self.config = config
        self.memory = _memory_budget(config)
        advice = "raise --memory-limit, or solve iteratively (--algorithm pdcfr+)"
        self.tree = tree = tree or _tree_within(config, self.memory, LP_BYTES_PER_NODE, "LP",
                                                advice)
        if tree.num_nodes > MAX_LP_NODES:
            raise SpycfrError(f"the tree has {tree.num_nodes:,} nodes, too many for the exact LP "
                              f"(at most {MAX_LP_NODES:,}): solve iteratively (--algorithm "
                              "pdcfr+)")
        self.memory.require(f"the LP of the tree of {tree.num_nodes:,} nodes",
                            tree.num_nodes * LP_BYTES_PER_NODE, advice)
        self.solver = _LPRun()
        self._strategy: np.ndarray | None = None

    def run(self, config, total, checkpoint_every, run_dir, seconds, progress):
        """Solve the LP (one program; P2's half from its duals); returns (seconds, "exact").
        HiGHS reports no progress: ``progress.solving_lp`` (when the caller has it) is told
        when it starts and ends, so that a terminal can show the time spent."""
        waiting = getattr(progress, "solving_lp", None)
        if waiting is not None:
            waiting(self.tree.num_nodes)
        try:
            result = solve_lp(self.tree, both_sides=False)
        finally:
            if waiting is not None:
                waiting(None)
        self._strategy = result.strategy
        self.solver.seconds = seconds + result.seconds
        self.solver.log.append((0, self.solver.seconds, self.measure()))
        return self.solver.seconds, "exact"

    def measure(self) -> float:
        return exploitability(self.tree, self._strategy)

    def strategy(self) -> np.ndarray:
        return self._strategy

    def profile_values(self, strategy: np.ndarray) -> tuple[float, float, float]:
        return _profile_values(self.tree, strategy)

    def extra_meta(self) -> dict:
        return {"device": "cpu", "ms_per_iteration": None,
                "lp": {"method": "HiGHS (scipy linprog) on P1's sequence-form program; P2's "
                                 "strategy from its duals", "node_limit": MAX_LP_NODES}}


def choose_algorithm(config: SolveConfig, checkpoint_every: int | None = None,
                     tree: Tree | None = None) -> tuple[str, str]:
    """What ``--algorithm auto`` runs for ``config``, and why (one sentence).

    The rule (README, "Choosing the algorithm"): the exact LP when nothing iterative is asked
    for (iterations, a time limit, checks, checkpoints, simultaneous updates), the tree has
    at most AUTO_LP_NODES nodes (estimated) and the target is not loose on a tree of more than
    AUTO_CFR_NODES; otherwise AUTO_CFR on the full tree if it fits the memory limit (or a
    target needs it); otherwise AUTO_SAMPLED.
    """
    if tree is not None:  # a foreign game's, already built
        nodes, size = tree.num_nodes, f"the tree has {tree.num_nodes:,} nodes"
    else:
        game = make_game(config.game, config.preset, config.params)
        nodes = estimate_nodes(get_plugin(game.name).numba_params(game.variant_obj))
        size = f"the tree has about {nodes:.3g} nodes (estimated)"
    memory = _memory_budget(config)
    full_tree = nodes * (TREE_BYTES_PER_NODE + SOLVE_BYTES_PER_NODE)
    iterative = [name for name, value in (
        ("--iterations", config.iterations), ("--time-limit", config.time_limit),
        ("--check-every", config.check_every), ("--checkpoint-every", checkpoint_every),
        ("--simultaneous", None if config.alternating else True)) if value is not None]
    target = config.target_exploitability
    loose = target is not None and target >= AUTO_LOOSE_TARGET and nodes > AUTO_CFR_NODES
    if config.device == "gpu":  # asked for: the LP runs on the CPU only
        return AUTO_CFR, f"--device gpu was asked for; {AUTO_CFR} runs there ({size})"
    if not iterative and not loose and nodes <= AUTO_LP_NODES and memory.fits(
            nodes * (TREE_BYTES_PER_NODE + LP_BYTES_PER_NODE)):
        return "lp", (f"{size}, at most {AUTO_LP_NODES:,}: the exact LP, exact and first or "
                      "about tied to 1e-6 on the trees of this size measured")
    if memory.fits(full_tree) or target is not None or tree is not None:
        if nodes > AUTO_LP_NODES:
            why = f"{size}, more than {AUTO_LP_NODES:,} for the exact LP"
        elif iterative:
            why = f"iterations were asked for ({' and '.join(iterative)})"
        elif loose:
            why = (f"{size} and the target {target:g} is loose: discounted predictive CFR+ "
                   "reached 1e-3 several times sooner than the LP on such trees")
        else:  # small enough, but the LP's tables would not fit the memory limit
            why = f"{size}: the exact LP would not fit the memory limit"
        return AUTO_CFR, (f"{why}; {AUTO_CFR} converged fastest of the CFR variants on most "
                          "trees measured")
    return AUTO_SAMPLED, (f"{size}: the full tree would not fit the memory limit "
                          f"({memory.limit_bytes / 2**30:.3g} GiB), so the game is sampled")


def _solve_bytes(tree: Tree, config: SolveConfig) -> float:
    """What CFR and the exact best response allocate on ``tree`` in the host's memory (see
    SOLVE_BYTES_* and GPU_HOST_BYTES_PER_NODE)."""
    predictive = algorithm_params(config.algorithm)[2]
    per_cell = SOLVE_BYTES_PER_CELL + (PREDICTIVE_BYTES_PER_CELL if predictive else 0)
    per_node = (GPU_HOST_BYTES_PER_NODE if resolve_device(config.device) == "gpu"
                else SOLVE_BYTES_PER_NODE
                + (0 if config.threads in (None, 1) else THREADED_BYTES_PER_NODE))
    return (tree.num_nodes * per_node
            + tree.num_infosets * max(tree.max_actions, 1) * per_cell)


def _disk_bytes(tree: Tree, tables: bool) -> float:
    """An upper estimate of a run directory's files: the checkpoint and the strategy
    (uncompressed float64 tables, the worst case of their compression) and the tables in CSV
    and Parquet."""
    cells = tree.num_infosets * max(tree.max_actions, 1)
    per_row = DISK_BYTES_PER_ROW["csv"] + DISK_BYTES_PER_ROW["parquet"]
    return 4 * 8 * cells + (per_row * int(tree.infoset_num_actions.sum()) if tables else 0)


def _table_bytes(tree: Tree) -> float:
    """What building and writing the strategy tables of ``tree`` takes (see TABLE_BYTES_*)."""
    return TABLE_BYTES_FIXED + TABLE_BYTES_PER_ROW * int(tree.infoset_num_actions.sum())


class _MonteCarlo(_Iterative):
    """External- or outcome-sampling MCCFR straight on the game's rules.

    The tree is built only if the variant is enumerable (then the exploitability is exact);
    otherwise the run reports the solver's labelled regret-bound estimate.
    """

    default_check_every = 1000

    def __init__(self, config: SolveConfig) -> None:
        self.config = config
        self.game = game = make_game(config.game, config.preset, config.params)
        self.variant = game.variant_obj
        self.estimated_nodes = estimate_nodes(get_plugin(game.name).numba_params(self.variant))
        self.enumerable = self.estimated_nodes <= ENUMERABLE_NODES
        self.tree, self.tree_note = None, None
        self.memory = memory = _memory_budget(config)
        if self.enumerable:  # within the memory limit, or not at all
            try:
                memory.require(
                    f"the tree of about {self.estimated_nodes:.3g} nodes (estimated), for an "
                    "exact exploitability", self.estimated_nodes * (
                        TREE_BYTES_PER_NODE + SOLVE_BYTES_PER_NODE))
                self.tree = build_tree(game, memory=memory)
            except MemoryLimitError as exc:
                self.enumerable = False
                self.tree_note = str(exc)
        if not self.enumerable and config.target_exploitability is not None:
            why = self.tree_note or (f"this variant is too big to enumerate (about "
                                     f"{self.estimated_nodes:.2g} nodes > {ENUMERABLE_NODES:,})")
            raise SpycfrError(f"--target-exploitability needs an exact best response, and "
                              f"{why}: use --iterations or --time-limit")
        if config.memory_limit is not None and not self.enumerable:
            _compile_elsewhere(config)
        self.solver = MCCFRSolver(
            game, MCCFR_ALGORITHMS[config.algorithm], seed=config.seed,
            epsilon=_epsilon(config) or DEFAULT_EPSILON,
            memory_limit=_memory_limit_gib(config) * 2**30, abstraction=config.abstraction,
            when_full=config.when_full or "stop", fallback=config.fallback or "uniform",
            store_depth=config.store_depth,
        )
        self.value_column = "exploitability" if self.enumerable else "exploitability_estimate"
        self.kind = "exact" if self.enumerable else REGRET_BOUND_KIND
        self.memory_message: str | None = None
        # Exploitability is at most the payoff span: a larger estimate says nothing.
        self.span = 2.0 * get_plugin(game.name).payoff_bound(self.variant.as_dict())

    def restore(self, state: dict, log: list, seconds: float) -> None:
        self.solver.load_state_dict(state)
        self.solver.log = list(log)
        self.solver.seconds = seconds

    def measure(self) -> float:
        if self.tree is not None:
            return exploitability(self.tree, strategy_on_tree(self.solver, self.tree))
        return self.solver.regret_bound()["exploitability_bound_estimate"]

    def report(self, progress) -> Callable:
        """``progress`` with the value's label and the tables' size."""
        def details() -> str:
            gib = rss_bytes() / 2**30
            return f"  {self.solver.num_infosets:,} infosets  {gib:.2f} GiB resident"

        def report(iteration: int, seconds: float, value: float | None) -> None:
            if self.enumerable:
                progress(iteration, seconds, value, label="exploitability", details=details)
            elif value is not None and value <= self.span and self._all_learnt():
                progress(iteration, seconds, value, label="exploitability~ (sampled-regret "
                         "bound estimate)", details=details)
            else:  # a sampled bound above the payoff span, or partial, bounds nothing: say so
                progress(iteration, seconds, None, label="exploitability unknown",
                         details=details)
        return report

    def _all_learnt(self) -> bool:
        """Whether every decision sampled had a row: the regret bound then covers the game;
        where the fallback played (store depth, frozen table) it covers only the rows."""
        return self.solver.unstored_decisions == 0

    def strategy(self) -> np.ndarray | None:
        return None if self.tree is None else strategy_on_tree(self.solver, self.tree)

    def profile_values(self, strategy: np.ndarray) -> tuple[float, float, float]:
        return _profile_values(self.tree, strategy)

    def extra_meta(self) -> dict:
        stats = self.solver.stats()
        meta = {
            "epsilon": _epsilon(self.config),
            "tree_enumerated": self.enumerable,
            "tree_not_enumerated_because": self.tree_note,
            "estimated_nodes": self.estimated_nodes,
            "enumerable_node_limit": ENUMERABLE_NODES,
            "infosets_seen": stats["infosets"],
            "infosets_seen_p1": stats["infosets_p1"],
            "infosets_seen_p2": stats["infosets_p2"],
            "nodes_visited": stats["nodes_visited"],
            "memory": {"bytes_allocated": stats["bytes_allocated"],
                       "bytes_used": stats["bytes_used"],
                       "limit_bytes": int(self.solver.memory_limit)},
            "memory_stop": self.memory_message,
            "when_full": self.solver.when_full,
            "frozen_at_iteration": stats["frozen_at_iteration"],
            "unstored_decisions": stats["unstored_decisions"],
            "exploitability_estimate": None,
        }
        if self.tree is not None:
            meta["tree_coverage"] = self.solver.last_tree_coverage
        else:
            bound = self.solver.regret_bound()
            value = bound["exploitability_bound_estimate"]
            estimate = {"value": value, "payoff_span": self.span,
                        "informative": value <= self.span and self._all_learnt()}
            meta["exploitability_estimate"] = {
                **estimate,
                "note": ("an estimate, not a measurement" if estimate["informative"] else
                         f"it {bound_shortfall(estimate)}, so it bounds nothing: the "
                         "exploitability is unknown; measure the strategy head to head"),
                "kind": REGRET_BOUND_KIND,
                "method": "sum over both players of sum over stored infosets of the largest "
                          "positive cumulative sampled regret, divided by the iterations "
                          "(CFR's NashConv bound evaluated on sampled regrets), halved",
                "nash_conv_bound_estimate": bound["nash_conv_bound_estimate"],
                "regret_p1": bound["regret_p1"],
                "regret_p2": bound["regret_p2"],
                "iteration": self.solver.iteration,
            }
        return meta


def bound_shortfall(estimate: dict) -> str:
    """Why a run's sampled-regret bound (run.json's ``exploitability_estimate``, not
    informative) bounds nothing, as words to follow "the bound": for the CLI and reports."""
    if estimate["value"] > estimate["payoff_span"]:
        return f"is above the payoff span {estimate['payoff_span']:g}"
    return "covers only the decisions the table learnt, not those its fallback played"


def _compile_elsewhere(config: SolveConfig) -> None:
    """Fill numba's cache in a child process: a first run's compilation can take more than a
    GiB of resident memory for a while (1.4 GiB measured for Agent Avenue's MCCFR), which a
    memory limit on this process must not pay for; this process then loads the kernels.
    The child solves two iterations into a scratch run directory, so that it goes through
    every compiled step of a run (the openings included). A few seconds when the cache is
    already full; a failed child changes nothing."""
    child = dict(config.__dict__, iterations=2, target_exploitability=None, time_limit=None,
                 check_every=1, memory_limit=None)
    code = ("import json, sys\nfrom spycfr.runs import solve\n"
            "solve.ENUMERABLE_NODES = 0  # compiling needs no tree\n"
            "solve.solve_run(solve.SolveConfig(**json.loads(sys.argv[1])), out_dir=sys.argv[2])")
    try:
        with tempfile.TemporaryDirectory(prefix="spycfr-compile-") as scratch:
            subprocess.run([sys.executable, "-c", code, json.dumps(child), scratch],
                           capture_output=True, timeout=1800, check=False,
                           cwd=Path(__file__).resolve().parents[2])
    except (OSError, subprocess.SubprocessError):
        pass


def load_sampled_solver(run_dir: str | Path) -> MCCFRSolver:
    """The MCCFR solver of a run without a tree, from its checkpoint (what its strategy is)."""
    path = Path(run_dir)
    if not (path / CHECKPOINT).is_file():
        raise SpycfrError(f"run {str(path)!r} was sampled without a tree and has no "
                          f"{CHECKPOINT}: its strategy is in the checkpoint (not committed "
                          "with results/); solve it again (results/regenerate.sh)")
    config, state, _, _ = load_checkpoint(path)
    game = make_game(config["game"], config["preset"], config["params"])
    solver = MCCFRSolver(game, MCCFR_ALGORITHMS[config["algorithm"]], seed=config["seed"],
                         epsilon=float(state["epsilon"]), es_node_limit=None,
                         abstraction=bool(config.get("abstraction", False)),
                         fallback=config.get("fallback") or "uniform",
                         store_depth=config.get("store_depth"))
    solver.load_state_dict(state)
    return solver


def _epsilon(config: SolveConfig) -> float | None:
    if config.algorithm != "os-mccfr":
        return None
    return DEFAULT_EPSILON if config.epsilon is None else float(config.epsilon)


def _memory_limit_gib(config: SolveConfig) -> float:
    """--memory-limit, by default half the machine's RAM (the most it may be)."""
    return _physical_gib() / 2 if config.memory_limit is None else float(config.memory_limit)


def _memory_budget(config: SolveConfig) -> MemoryBudget:
    gib = _memory_limit_gib(config)
    return MemoryBudget(gib * 2**30, None if config.memory_limit is not None else
                        f"the default --memory-limit of {gib:.3g} GiB (half the RAM)")


def _check_config(config: SolveConfig) -> None:
    """Settings that only make sense with some algorithms or games: one-line errors."""
    mccfr = config.algorithm in MCCFR_ALGORITHMS
    if config.epsilon is not None:
        if config.algorithm != "os-mccfr":
            raise SpycfrError("--epsilon applies to --algorithm os-mccfr only")
        if not 0.0 < config.epsilon <= 1.0:
            raise SpycfrError(f"--epsilon must be in (0, 1], got {config.epsilon!r}")
    if config.memory_limit is not None:
        ram = _physical_gib()
        if not 0.0 < config.memory_limit <= ram / 2:
            raise SpycfrError(
                f"--memory-limit must be > 0 and at most half the RAM ({ram / 2:.3g} GiB here: a "
                f"checkpoint copies the tables), got {config.memory_limit!r}"
            )
    if mccfr and foreign_kind(config.game) is not None:
        raise SpycfrError(f"es-mccfr/os-mccfr sample a built-in game's rules; {config.game} is "
                          f"solved on its full tree: --algorithm {', '.join(ALGORITHMS)}")
    if config.device not in DEVICES:
        raise SpycfrError(f"--device must be one of {', '.join(DEVICES)}, got {config.device!r}")
    if mccfr and config.device == "gpu":
        raise SpycfrError("--device gpu runs the full-tree algorithms (cfr, cfr+, lcfr, dcfr, "
                          "pcfr+); es-mccfr and os-mccfr run on the CPU: drop --device gpu")
    if foreign_kind(config.game) is None:
        plugin = get_plugin(config.game)
        params = plugin.numba_params(plugin.make_variant(config.preset, dict(config.params)))
        if protocol.seats(params) > 2:
            raise SpycfrError(
                f"this variant has {protocol.seats(params)} seats in two teams whose members "
                "see different cards: CFR and MCCFR have no guarantee there; solve it with "
                f"`spycfr team {config.game}` (team equilibrium)")
    if config.abstraction and not mccfr:
        raise SpycfrError("--abstraction applies to --algorithm es-mccfr or os-mccfr only")
    if config.when_full is not None and not mccfr:
        raise SpycfrError("--when-full applies to --algorithm es-mccfr or os-mccfr only")
    if config.fallback is not None and not mccfr:
        raise SpycfrError("--fallback applies to --algorithm es-mccfr or os-mccfr only")
    if config.store_depth is not None and not mccfr:
        raise SpycfrError("--store-depth applies to --algorithm es-mccfr or os-mccfr only")
    if mccfr and not config.alternating:
        raise SpycfrError("MCCFR always alternates the players' updates: drop --simultaneous")
    if mccfr and not 0 <= config.seed < 2**63:
        raise SpycfrError(f"--seed must be an integer 0..2**63-1, got {config.seed}")
    if config.threads not in (None, AUTO_THREADS):
        most = available_cpus()
        if not 1 <= config.threads <= most:
            raise SpycfrError(f"--threads must be between 1 and {most} (the CPUs available "
                              f"here) or auto, got {config.threads}")
        if config.threads > 1 and (mccfr or config.algorithm == "lp" or config.device == "gpu"):
            raise SpycfrError("--threads applies to the full-tree CFR algorithms on the CPU "
                              f"(not {config.algorithm}"
                              f"{' on the GPU' if config.device == 'gpu' else ''}): drop it")
    if config.algorithm == "lp" and config.device == "gpu":
        raise SpycfrError("the exact LP runs on the CPU: drop --device gpu, or choose a CFR "
                          "algorithm (e.g. --algorithm pdcfr+)")
    if config.algorithm == "lp":
        given = [name for name, value in (
            ("--iterations", config.iterations), ("--time-limit", config.time_limit),
            ("--check-every", config.check_every),
            ("--simultaneous", None if config.alternating else True)) if value is not None]
        if given:
            raise SpycfrError(f"{', '.join(given)} apply to the iterative algorithms; the exact "
                              "LP has no iterations: drop them, or choose --algorithm pdcfr+")


def _physical_gib() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        return 16.0  # unknown: assume a small machine


def solve_run(
    config: SolveConfig,
    out_dir: str | Path | None = None,
    resume: str | Path | None = None,
    checkpoint_every: int | None = None,
    progress: Callable[..., None] | None = None,
    write_tables: bool = True,
    overwrite: bool = False,
) -> dict:
    """Build, solve and (with ``out_dir``) write a run directory; returns run.json's content.

    With ``resume`` the configuration comes from the run's checkpoint (only the limits of
    ``config`` (:data:`RESUME_LIMITS`) apply) and the run continues in place. ``iterations``
    counts the run's total, so a resumed run ends exactly where an uninterrupted one would.
    ``overwrite`` replaces the run files of an existing run in ``out_dir`` (nothing else).
    ``progress(iteration, seconds, value, label=..., details=...)`` is called once with the
    starting point (value None), then after every batch; ``seconds`` counts the whole run.
    """
    if resume is not None:
        out_dir = Path(resume)
        if not (out_dir / CHECKPOINT).is_file():
            raise SpycfrError(f"cannot resume: {str(out_dir / CHECKPOINT)!r} does not exist")
    run_dir = Path(out_dir) if out_dir is not None else None
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SpycfrError(f"--checkpoint-every must be >= 1, got {checkpoint_every}")
    if checkpoint_every is not None and run_dir is None:
        raise SpycfrError("--checkpoint-every needs an output run directory (-o RUN_DIR)")
    if run_dir is None:
        return _solve(config, None, None, checkpoint_every, progress, write_tables)
    check_output_dir(run_dir, "run directory")  # before any work: a bad -o fails at once
    with RunLock(run_dir):
        remove_stale_temporaries(run_dir)  # left by a writer killed mid-write
        if resume is None and holds_run(run_dir):
            if not overwrite:
                raise SpycfrError(f"{str(run_dir)!r} already holds a run; choose another -o, "
                                  "add --overwrite to replace it, or use --resume")
            for name in RUN_FILES:
                (run_dir / name).unlink(missing_ok=True)
        return _solve(config, run_dir, resume, checkpoint_every, progress, write_tables)


def _solve(config: SolveConfig, run_dir: Path | None, resume, checkpoint_every: int | None,
           progress, write_tables: bool) -> dict:
    """solve_run's work, holding the run directory's lock when there is one."""
    seconds_before = 0.0
    state = None
    log: list = []
    if resume is not None:
        saved, state, seconds_before, log = load_checkpoint(run_dir)
        limits = {k: getattr(config, k) for k in RESUME_LIMITS}
        try:
            config = SolveConfig(**{**saved, **{k: v for k, v in limits.items()
                                                if v is not None}})
        except TypeError as exc:
            raise SpycfrError(f"cannot resume: the checkpoint's settings are corrupt "
                              f"({str(exc)[:200]}): solve again") from None
    if config.device == "gpu" and config.algorithm not in MCCFR_ALGORITHMS:
        resolve_device("gpu")  # no GPU: one line before anything is chosen or built
    foreign_tree = _foreign_tree(config, run_dir, resume)
    choice = None
    if config.algorithm == "auto":
        chosen, why = choose_algorithm(config, checkpoint_every, foreign_tree)
        choice = {"requested": "auto", "chosen": chosen, "why": why}
        config = SolveConfig(**{**config.__dict__, "algorithm": chosen})
    _check_config(config)
    if config.algorithm == "lp" and checkpoint_every is not None:
        raise SpycfrError("--checkpoint-every applies to the iterative algorithms; the exact LP "
                          "has no iterations")

    mccfr = config.algorithm in MCCFR_ALGORITHMS
    if progress is not None and hasattr(progress, "choice") and choice is not None:
        progress.choice(choice)
    if progress is not None and hasattr(progress, "preparing"):
        progress.preparing()
    if config.algorithm == "lp":
        engine = _ExactLP(config, foreign_tree)
    elif mccfr:
        engine = _MonteCarlo(config)
    else:
        engine = _FullTree(config, foreign_tree)
    solver, tree = engine.solver, engine.tree
    if run_dir is not None and tree is not None:  # before the iterations, not after
        check_free_space(run_dir, _disk_bytes(tree, write_tables), "the run directory")
    if state is not None:
        engine.restore(state, log, seconds_before)

    total = config.iterations
    if total is None and config.target_exploitability is None and config.time_limit is None:
        total = 1000
    if progress is not None:
        progress(solver.iteration, seconds_before, None)
    try:
        seconds, stopped = engine.run(config, total, checkpoint_every, run_dir, seconds_before,
                                      progress)
        if not solver.log or solver.log[-1][0] != solver.iteration:
            solver.log.append((solver.iteration, solver.seconds, engine.measure()))
    except BaseException as exc:
        if not is_interrupt(exc):
            raise
        where = "no checkpoint was written"
        if run_dir is not None and (run_dir / CHECKPOINT).is_file():
            where = (f"the last checkpoint in {str(run_dir)!r} is intact: continue with "
                     f"spycfr solve --resume {run_dir}")
        raise Interrupted(f"stopped at iteration {solver.iteration}; {where}") from None

    strategy = engine.strategy()
    meta = {
        "game": config.game,
        "variant": tree.variant if tree is not None else engine.variant.as_dict(),
        "preset": config.preset,
        "algorithm": config.algorithm,
        "algorithm_choice": choice,
        "algorithm_params": _algorithm_params(config, solver),
        "iterations": solver.iteration,
        "seed": config.seed,
        "best_response_p1": None,
        "best_response_p2": None,
        "stopped_by": stopped,
        "value_p1": None,
        "value_interval": None,
        "exploitability": None,
        "nash_conv": None,
        "nodes": None if tree is None else tree.num_nodes,
        "infosets": None if tree is None else tree.num_infosets,
        "build_seconds": None if tree is None else tree.build_seconds,
        "solve_seconds": seconds,
        "ms_per_iteration": 1e3 * seconds / max(solver.iteration, 1),
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "fingerprint": None if tree is None else fingerprint(tree),
    }
    if strategy is not None:
        *br, value = engine.profile_values(strategy)
        # The game value (P1's) lies between what P1 gets against P2's half by best responding
        # and what P2's best response leaves P1: certified, whatever the solver.
        meta.update(best_response_p1=br[0], best_response_p2=br[1],
                    value_p1=value, value_interval=[0.0 - br[1], br[0]],
                    nash_conv=br[0] + br[1],
                    exploitability=(br[0] + br[1]) / 2.0,
                    strategy_sha256=hashlib.sha256(strategy.tobytes()).hexdigest())
    meta.update(engine.extra_meta())
    meta["memory_limit_gib"] = _memory_limit_gib(config)
    meta["peak_rss_bytes"] = peak_rss_bytes()
    meta["peak_rss_method"] = ("the solving process's peak resident set size: VmHWM of "
                               "/proc/self/status (Linux), else getrusage's ru_maxrss")
    final_state = None
    if mccfr:
        final_state = solver.state_dict(copy=False)
        meta["state_sha256"] = _state_hash(final_state)
    meta["log"] = [{"iteration": it, "seconds": sec, engine.value_column: e}
                   for it, sec, e in solver.log]
    meta["run_dir"] = None if run_dir is None else str(run_dir)
    if run_dir is not None:
        # Every file first (each atomically), run.json last with the hashes of what it vouches
        # for: a run killed between two of these writes is detected when loaded.
        if checkpoint_every is None and config.algorithm != "lp":
            # a run without periodic checkpoints still gets one at the end, to extend it later
            _checkpoint(run_dir, engine, config, seconds, final_state)
        write_text(run_dir / CONVERGENCE, convergence_csv(solver.log, engine.value_column))
        written = [CONVERGENCE] + ([TREE_NPZ] if foreign_tree is not None else [])
        if strategy is not None:
            save_npz(run_dir / STRATEGY_NPZ, average=strategy,
                     fingerprint=np.array(json.dumps(meta["fingerprint"])))
            written.append(STRATEGY_NPZ)
            if write_tables and not engine.memory.fits(_table_bytes(tree)):
                write_tables = False
                meta["tables_skipped"] = (
                    f"the strategy tables (Parquet, CSV) were not written: they need about "
                    f"{_table_bytes(tree) / 2**30:.3g} GiB more than the memory limit leaves; "
                    f"write them later with spycfr export {run_dir} --format parquet")
            if write_tables:
                table = strategy_run_table(tree, strategy)
                write_table(table, run_dir / "strategy.parquet")
                write_table(table, run_dir / "strategy.csv")
                written += ["strategy.parquet", "strategy.csv"]
        else:
            table = treeless_openings_table(engine.game, solver)
            if table is not None:
                write_text(run_dir / OPENINGS_CSV,
                           table.to_csv(index=False, float_format="%.17g"))
                written.append(OPENINGS_CSV)
        meta["files"] = {name: file_sha256(run_dir / name) for name in written}
        meta["config"] = config.__dict__
        write_json(run_dir / RUN_JSON, meta)
    return meta


def _algorithm_params(config: SolveConfig, solver) -> dict:
    if config.algorithm in MCCFR_ALGORITHMS:
        return {"scheme": MCCFR_ALGORITHMS[config.algorithm], "epsilon": _epsilon(config),
                "memory_limit_gib": _memory_limit_gib(config), "alternating": True,
                "abstraction": config.abstraction, "when_full": config.when_full or "stop",
                "fallback": config.fallback or "uniform", "store_depth": config.store_depth}
    if config.algorithm == "lp":
        return {"alternating": True}  # no updates; the field the readers expect
    return {"alpha": solver.alpha, "beta": solver.beta, "gamma": solver.gamma,
            "alternating": config.alternating}


def _state_hash(state: dict) -> str:
    """sha256 of a solver state's arrays (names and bytes, in name order)."""
    digest = hashlib.sha256()
    for name in sorted(k for k, v in state.items() if isinstance(v, np.ndarray)):
        digest.update(name.encode())
        digest.update(memoryview(np.ascontiguousarray(state[name])).cast("B"))
    return digest.hexdigest()


def _iterate(engine, config, total, checkpoint_every, run_dir, seconds, progress):
    """Run the solver to the limits of ``config`` (``total`` iterations counting those
    already done), checkpointing every ``checkpoint_every`` iterations and at the end;
    returns (the run's seconds, what stopped it)."""
    solver = engine.solver
    remaining = None if total is None else total - solver.iteration
    time_left = None if config.time_limit is None else config.time_limit - seconds
    if remaining is not None and remaining <= 0:
        return seconds, "iterations"
    if time_left is not None and time_left <= 0:
        return seconds, "time"
    report = checkpoint = None
    if progress is not None:
        def report(iteration, secs, value, **kw):
            progress(iteration, seconds + secs, value, **kw)
        report = engine.report(report)
    if run_dir is not None and checkpoint_every is not None:
        def checkpoint(secs):
            _checkpoint(run_dir, engine, config, seconds + secs)
    result = drive(solver, engine.measure, engine.kind, remaining, config.target_exploitability,
                   time_left, config.check_every or engine.default_check_every, report,
                   checkpoint_every, checkpoint)
    engine.memory_message = result.note
    return seconds + result.seconds, result.stopped_by

def _checkpoint(run_dir: Path, engine, config: SolveConfig, seconds: float,
                state: dict | None = None) -> None:
    solver = engine.solver
    if state is None:  # views where the solver allows it: written at once, never kept
        state = solver.state_dict(copy=False) if isinstance(solver, MCCFRSolver) else \
            solver.state_dict()
    save_checkpoint(run_dir, config.__dict__, state, seconds, solver.log, engine.value_column)


def treeless_openings_table(game, solver: MCCFRSolver) -> pd.DataFrame | None:
    """The average strategy of an MCCFR solver at the game's opening decisions, without a
    tree (None if the game defines no openings): player, [context], opening, probability,
    seen (whether MCCFR ever visited the infoset; unseen ones are uniform)."""
    spec = get_plugin(game.name).openings
    if spec is None:
        return None
    frames = []
    for player, path, context in spec.paths(game.variant_obj):
        state = state_at(game, path)
        actions = [int(a) for a in state.legal_actions()]
        policy = solver.policy_at(path, player)
        seen = policy is not None
        if policy is None:
            policy = np.full(len(actions), 1.0 / len(actions))
        if len(policy) != len(actions):
            raise RuntimeError(f"P{player + 1}'s opening infoset has {len(policy)} actions, "
                               f"the rules give {len(actions)}")
        frame = pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": [state.action_label(a) for a in actions],
            "probability": policy,
            "seen": seen,
        })
        if spec.context_name:
            frame.insert(1, spec.context_name, context)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
