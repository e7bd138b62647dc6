"""The engines a solve runs, as the orchestration (:mod:`spycfr.runs.solve`) sees them
(:class:`RunEngine`): the exact LP and the CFR family on the enumerated tree, on the CPU or
the GPU; Monte-Carlo CFR is in :mod:`spycfr.runs.sampled`. Each engine says what it needs
in memory (``bytes_needed``, from the estimated tree, before anything is built; the plan
reads it too) and checks it against the one memory budget before allocating."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from spycfr.cfr import CFRSolver
from spycfr.cfr.driver import SolveLoop
from spycfr.cfr.engine import Engine, LogRow
from spycfr.cfr.gpu import GPUCFRSolver, resolve_device
from spycfr.cfr.kernels import algorithm_params
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import best_response, expected_value, exploitability
from spycfr.exact.lp import MAX_LP_NODES, solve_lp
from spycfr.memory import MemoryBudget
from spycfr.runs.config import AUTO_THREADS, SolveConfig, available_cpus
from spycfr.runs.game import ResolvedGame
from spycfr.runs.store import save_checkpoint
from spycfr.tree import Tree

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
# On the GPU the host holds no per-node working arrays; it lays the tree out breadth-first
# (two int64 maps, 19 B of renumbered arrays, the infosets' node lists and the best
# response's levels) before copying it to the GPU: 35.5 B per node at the peak, measured on
# Agent Hunter small.
GPU_HOST_BYTES_PER_NODE = 40
SOLVE_BYTES_PER_CELL = 56
PREDICTIVE_BYTES_PER_CELL = 16
FULL_TREE_ADVICE = ("raise --memory-limit, choose a smaller variant, or solve without a tree "
                    "(--algorithm es-mccfr or os-mccfr)")
# The exact LP (one HiGHS program, both halves of the strategy): peak resident memory beyond
# the tree measured at 0.9 kB per node on Agent Hunter mini (205,723 nodes), 0.35 kB on
# liar's dice; rounded up.
LP_BYTES_PER_NODE = 1500
LP_ADVICE = "raise --memory-limit, or solve iteratively (--algorithm pdcfr+)"

# progress(iteration, seconds, value or None, label=..., details=...): the caller's display.
Progress = Callable[..., None]
ProfileValues = tuple[float, float, float]


class RunEngine(Protocol):
    """An engine of a run: builds what it needs within ``memory``, runs to the limits,
    and gives the strategy and what run.json records of it."""

    @property
    def solver(self) -> Any:
        """Its iteration, seconds and log are the run's."""
        ...

    @property
    def tree(self) -> Tree | None: ...

    @property
    def memory(self) -> MemoryBudget: ...

    @property
    def value_column(self) -> str:
        """The measured value's name in convergence.csv and run.json's log."""
        ...

    @property
    def checkpoints(self) -> bool:
        """Whether the run can be resumed (a checkpoint is written)."""
        ...

    def restore(self, state: Mapping[str, Any], log: list[LogRow], seconds: float) -> None: ...

    def run(self, total: int | None, checkpoint_every: int | None, run_dir: Path | None,
            seconds: float, progress: Progress | None) -> tuple[float, str]:
        """Solve to ``config``'s limits (``total`` iterations counting those done); returns
        (the run's seconds, what stopped it)."""
        ...

    def measure(self) -> float: ...

    def strategy(self) -> np.ndarray | None: ...

    def profile_values(self, strategy: np.ndarray) -> ProfileValues:
        """(P1's best-response value, P2's, P1's expected value) of ``strategy``."""
        ...

    def details(self) -> dict[str, Any]:
        """What run.json records of this engine beyond the common fields."""
        ...

    def checkpoint(self, run_dir: Path, seconds: float, state: dict[str, Any] | None = None,
                   stopped: str | None = None) -> None:
        """Save the solver's state (``state``, else its own now) where the run is, with why
        it stopped (None: it goes on), which resuming it reads."""
        ...


def tree_within(game: ResolvedGame, memory: MemoryBudget, per_node: float, solver: str,
                advice: str) -> Tree:
    """The enumerated tree of ``game``, refused at once when the estimated tree and
    ``per_node`` bytes of ``solver`` per node would not fit ``memory``; then checked as the
    tree grows."""
    if game.tree is not None:
        return game.tree
    nodes = game.estimated_nodes
    memory.require(f"the tree of about {nodes:.3g} nodes (estimated) and its {solver}",
                   nodes * (TREE_BYTES_PER_NODE + per_node), advice)
    return game.build_tree(memory)


def cpu_profile_values(tree: Tree, strategy: np.ndarray) -> ProfileValues:
    """(P1's best-response value, P2's, P1's expected value) of ``strategy`` on the CPU."""
    return (best_response(tree, strategy, 0)[0], best_response(tree, strategy, 1)[0],
            expected_value(tree, strategy))


def resolve_threads(threads: int | None, nodes: int) -> int:
    """The threads of a full-tree CPU solve: as given (None: one), or (AUTO_THREADS) every
    available CPU on a tree of at least THREADS_MIN_NODES nodes, else one."""
    if threads != AUTO_THREADS:
        return threads or 1
    return available_cpus() if nodes >= THREADS_MIN_NODES else 1


class IterativeRun:
    """What the iterative engines share: the driver's loop to the limits, checkpoints."""

    config: SolveConfig
    solver: Engine
    value_column: str
    default_check_every: int
    checkpoints = True

    def restore(self, state: Mapping[str, Any], log: list[LogRow], seconds: float) -> None:
        self.solver.load_state_dict(state)
        self.solver.log = list(log)
        self.solver.seconds = seconds

    def measure(self) -> float:
        return self.solver.measure()

    def show(self, progress: Progress, iteration: int, seconds: float,
             value: float | None) -> None:
        """Tell ``progress`` where the run is (this engine's label for its value)."""
        progress(iteration, seconds, value)

    def run(self, total: int | None, checkpoint_every: int | None, run_dir: Path | None,
            seconds: float, progress: Progress | None) -> tuple[float, str]:
        config, solver = self.config, self.solver
        remaining = None if total is None else total - solver.iteration
        time_left = None if config.time_limit is None else config.time_limit - seconds
        loop = SolveLoop(solver, remaining, config.target_exploitability, time_left,
                         config.check_every or self.default_check_every, checkpoint_every,
                         checkpoints=run_dir is not None and checkpoint_every is not None)
        for batch in loop:
            if progress is not None:
                self.show(progress, batch.iteration, seconds + batch.seconds, batch.measured)
            if batch.checkpoint and run_dir is not None:
                self.checkpoint(run_dir, seconds + batch.seconds, stopped=batch.stopped)
        assert loop.result is not None
        self.stopped_note = loop.result.note
        return seconds + loop.result.seconds, loop.result.stopped_by

    def checkpoint(self, run_dir: Path, seconds: float, state: dict[str, Any] | None = None,
                   stopped: str | None = None) -> None:
        if state is None:
            state = self.solver.state_dict()
        save_checkpoint(run_dir, self.config.as_dict(), state, seconds, self.solver.log,
                        self.value_column, stopped)


class FullTreeRun(IterativeRun):
    """A CFR-family solver on the enumerated tree (any game), on the CPU or the GPU."""

    value_column = "exploitability"
    default_check_every = 100
    solver: CFRSolver

    @staticmethod
    def bytes_needed(nodes: float, device: str = "cpu") -> float:
        """The tree of ``nodes`` nodes and the solver's per-node arrays (the infosets' tables
        are checked once the tree is known, :func:`solve_bytes`)."""
        per_node = GPU_HOST_BYTES_PER_NODE if device == "gpu" else SOLVE_BYTES_PER_NODE
        return nodes * (TREE_BYTES_PER_NODE + per_node)

    def __init__(self, config: SolveConfig, game: ResolvedGame) -> None:
        self.config = config
        self.device = resolve_device(config.device or "cpu")  # a missing GPU fails first
        self.memory = config.memory_budget()
        # Refused at once from the estimate; then checked as the tree grows and once it is known.
        per_node = GPU_HOST_BYTES_PER_NODE if self.device == "gpu" else SOLVE_BYTES_PER_NODE
        self.tree = tree = tree_within(game, self.memory, per_node, "solver", FULL_TREE_ADVICE)
        self.memory.require(f"solving the tree of {tree.num_nodes:,} nodes and "
                            f"{tree.num_infosets:,} infosets", solve_bytes(tree, config),
                            FULL_TREE_ADVICE)
        if self.device == "gpu":
            self.solver = GPUCFRSolver(tree, config.algorithm, config.alpha, config.beta,
                                       config.gamma, config.alternating)
        else:
            self.solver = CFRSolver(tree, config.algorithm, config.alpha, config.beta,
                                    config.gamma, config.alternating,
                                    threads=resolve_threads(config.threads, tree.num_nodes))

    def strategy(self) -> np.ndarray:
        return self.solver.average_strategy()

    def profile_values(self, strategy: np.ndarray) -> ProfileValues:
        if isinstance(self.solver, GPUCFRSolver):
            return self.solver.profile_values()
        return cpu_profile_values(self.tree, strategy)

    def details(self) -> dict[str, Any]:
        if self.device == "gpu":
            return {"device": self.device}
        return {"device": self.device, "threads": self.solver.threads,
                **({"threads_note": self.solver.threads_note} if self.solver.threads_note
                   else {})}


def solve_bytes(tree: Tree, config: SolveConfig) -> float:
    """What CFR and the exact best response allocate on ``tree`` in the host's memory (see
    SOLVE_BYTES_* and GPU_HOST_BYTES_PER_NODE)."""
    predictive = algorithm_params(config.algorithm)[2]
    per_cell = SOLVE_BYTES_PER_CELL + (PREDICTIVE_BYTES_PER_CELL if predictive else 0)
    per_node = (GPU_HOST_BYTES_PER_NODE if resolve_device(config.device or "cpu") == "gpu"
                else SOLVE_BYTES_PER_NODE
                + (0 if config.threads in (None, 1) else THREADED_BYTES_PER_NODE))
    return (tree.num_nodes * per_node
            + tree.num_infosets * max(tree.max_actions, 1) * per_cell)


class _LPSolver:
    """The exact LP as a run's solver: no iterations, one program."""

    def __init__(self) -> None:
        self.iteration = 0
        self.seconds = 0.0
        self.log: list[LogRow] = []


class ExactLPRun:
    """The sequence-form LP (HiGHS) on the enumerated tree: an exact equilibrium at once."""

    value_column = "exploitability"
    checkpoints = False

    @staticmethod
    def bytes_needed(nodes: float) -> float:
        """The tree of ``nodes`` nodes and the LP's peak beyond it (LP_BYTES_PER_NODE)."""
        return nodes * (TREE_BYTES_PER_NODE + LP_BYTES_PER_NODE)

    def __init__(self, config: SolveConfig, game: ResolvedGame) -> None:
        self.config = config
        self.memory = config.memory_budget()
        self.tree = tree = tree_within(game, self.memory, LP_BYTES_PER_NODE, "LP", LP_ADVICE)
        if tree.num_nodes > MAX_LP_NODES:
            raise SpycfrError(f"the tree has {tree.num_nodes:,} nodes, too many for the exact LP "
                              f"(at most {MAX_LP_NODES:,}): solve iteratively (--algorithm "
                              "pdcfr+)")
        self.memory.require(f"the LP of the tree of {tree.num_nodes:,} nodes",
                            tree.num_nodes * LP_BYTES_PER_NODE, LP_ADVICE)
        self.solver = _LPSolver()
        self._strategy: np.ndarray | None = None

    def restore(self, state: Mapping[str, Any], log: list[LogRow], seconds: float) -> None:
        raise SpycfrError("the exact LP has no checkpoint to resume")

    def run(self, total: int | None, checkpoint_every: int | None, run_dir: Path | None,
            seconds: float, progress: Progress | None) -> tuple[float, str]:
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
        return exploitability(self.tree, self.strategy())

    def strategy(self) -> np.ndarray:
        if self._strategy is None:
            raise RuntimeError("the LP has not been solved yet")
        return self._strategy

    def profile_values(self, strategy: np.ndarray) -> ProfileValues:
        return cpu_profile_values(self.tree, strategy)

    def details(self) -> dict[str, Any]:
        return {"device": "cpu", "ms_per_iteration": None,
                "lp": {"method": "HiGHS (scipy linprog) on P1's sequence-form program; P2's "
                                 "strategy from its duals", "node_limit": MAX_LP_NODES}}

    def checkpoint(self, run_dir: Path, seconds: float, state: dict[str, Any] | None = None,
                   stopped: str | None = None) -> None:
        raise SpycfrError("the exact LP has no checkpoint")
