"""Solving on the public tree inside a run (``spycfr solve --tree public``): the rule of
``--tree auto`` and the run engine that iterates on the public tree and hands the run its
strategy mapped onto the history tree, so that every analysis command reads the run like
any other."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from spycfr.cfr.gpu import resolve_device
from spycfr.cfr.kernels import ALGORITHMS
from spycfr.errors import SpycfrError
from spycfr.public import protocol
from spycfr.public.enumerate import (
    CELLS,
    ENT0,
    ENT1,
    build_public_tree,
    public_size,
    solver_params,
    tree_bytes,
)
from spycfr.public.gpu import GPUPublicSolver, ensure_terminal_blocks
from spycfr.public.mapping import HistoryMap
from spycfr.public.solver import PublicCFRSolver, profile_values
from spycfr.public.tree import solver_bytes
from spycfr.runs.config import SolveConfig
from spycfr.runs.engines import (
    FULL_TREE_ADVICE,
    TREE_BYTES_PER_NODE,
    IterativeRun,
    ProfileValues,
    tree_within,
)
from spycfr.runs.game import ResolvedGame

# --tree auto takes the public tree where the history tree has at least AUTO_MIN_NODES nodes
# (below, the kernels' dispatch costs more than the iterations: Kuhn, 58 nodes, 0.9x) and at
# least AUTO_PUBLIC_RATIO nodes per live range entry of the public tree. Measured in one
# process, CFR+ per iteration (benchmarks/README.md), ratio -> speed-up: Agent Avenue tiny
# 0.16 -> 0.1x, Agent Hunter mini 0.38 -> 0.40x, small 0.65 -> 1.08x, tiny 0.74 -> 0.7x;
# Agent Avenue mini 0.84 -> 1.5x, small 1.12 -> 2.7x; Leduc 2.0 -> 2.3x, liar's dice 3.0 ->
# 3.2x.
AUTO_PUBLIC_RATIO = 0.8
AUTO_MIN_NODES = 1_000
# The history tree is kept beside the public one for the run's strategy files: its arrays and
# the map of its infosets onto public rows (8 B per infoset and action, and the mapped
# strategy).
MAP_BYTES_PER_CELL = 16
NOTE_SECONDS = 5.0  # between the lines that show counting the public tree


def choose_tree(config: SolveConfig, game: ResolvedGame,
                note: Callable[[str], None] | None = None) -> tuple[str, str]:
    """(tree, why) for ``config`` (its algorithm chosen) on ``game``: ``--tree
    public|history`` as asked, checked; ``auto`` the public tree where the game has a
    public-state model whose live range entries are few against the history tree's nodes
    (AUTO_PUBLIC_RATIO), the tree not tiny (AUTO_MIN_NODES), both trees fit the memory limit,
    and a CFR-family algorithm runs on the CPU on one thread. The public tree is counted
    (not built) only up to the entries that would decide against it, so the count costs at
    most about what building the history tree does; ``note`` hears its progress."""
    if config.tree == "history":
        return "history", "asked for"
    params = solver_params(game.game) if game.params is not None else None
    has_model = params is not None and protocol.has_public(params)
    blockers = []
    if config.algorithm not in ALGORITHMS:
        blockers.append(f"--algorithm {config.algorithm} runs on the history tree (the "
                        f"public tree runs {', '.join(ALGORITHMS)})")
    if not has_model:
        blockers.append(f"{config.game} has no public-state model")
    if config.device not in (None, "cpu") and config.tree != "public":
        blockers.append(f"--device {config.device} runs the history tree under --tree auto "
                        "(the public tree on the GPU: --tree public)")
    if config.threads not in (None, 1):  # several, or auto: the threaded history kernel
        blockers.append("--threads runs the history tree")
    if config.tree == "public":
        if blockers:
            raise SpycfrError(f"--tree public: {blockers[0]}; use --tree history or auto")
        return "public", "asked for"
    if blockers:
        return "history", blockers[0]
    history = float(game.estimated_nodes)
    if history < AUTO_MIN_NODES:
        return "history", (f"the history tree has about {history:,.0f} nodes: range vectors "
                           f"pay from {AUTO_MIN_NODES:,} on (measured)")
    memory = config.memory_budget()
    # The public run keeps the history tree and maps its strategy onto it: refused at once
    # when those alone would not fit, before counting anything.
    history_bytes = history * (TREE_BYTES_PER_NODE + MAP_BYTES_PER_CELL)
    if not memory.fits(history_bytes):
        return "history", (f"the history tree of about {history:.3g} nodes and the map of the "
                           "public tree's strategy onto it would not fit the memory limit")
    cap = max(1, int(history / AUTO_PUBLIC_RATIO))  # more live entries: the history tree
    t0 = last = time.monotonic()

    def counted(nodes: int, entries: int) -> None:
        nonlocal last
        if note is not None and time.monotonic() - last >= NOTE_SECONDS:
            last = time.monotonic()
            note(f"--tree auto: counting the public tree, {nodes:,} nodes and {entries:,} "
                 f"range entries so far (it stops at {cap:,} entries; "
                 f"{time.monotonic() - t0:.0f} s)")

    try:
        size = public_size(params, max_entries=cap, note=counted)
    except SpycfrError as exc:
        return "history", str(exc)
    if size is None:
        return "history", (f"the public tree has more than {cap:,} live range entries for "
                           f"about {history:,.0f} history nodes: range vectors pay from "
                           f"{AUTO_PUBLIC_RATIO:g} history nodes per entry on (measured)")
    entries = int(size[ENT0] + size[ENT1])
    need = tree_bytes(params, size) + history_bytes + solver_bytes(
        entries, int(size[CELLS]), True)
    if not memory.fits(need):
        return "history", (f"the public tree ({entries:,} live range entries), its solver "
                           f"and the history tree would take about {need / 2**30:.3g} GiB, "
                           "more than the memory limit")
    return "public", (f"the public tree has {entries:,} live range entries for about "
                      f"{history:,.0f} history nodes ({history / entries:.1f} per entry): "
                      "one range vector per seat and public node, measured faster")


class PublicTreeRun(IterativeRun):
    """A CFR-family solver on the public tree, on the CPU or the GPU (bit for bit the same);
    the run's strategy is its average strategy mapped onto the history tree (built too,
    within the same memory limit)."""

    value_column = "exploitability"
    default_check_every = 100
    solver: PublicCFRSolver

    def __init__(self, config: SolveConfig, game: ResolvedGame) -> None:
        self.config = config
        self.device = resolve_device(config.device or "cpu")  # a missing GPU fails first
        self.memory = memory = config.memory_budget()
        # The history tree first: a game too big for it is refused at once, where counting
        # its public tree could take minutes (Agent Avenue and Agent Hunter standard).
        self.tree = tree = tree_within(game, memory, 0.0, "map of the public-tree strategy",
                                       FULL_TREE_ADVICE)
        self.public = build_public_tree(game.game, budget=memory,
                                        params=solver_params(game.game))
        engine = PublicCFRSolver
        if self.device == "gpu":  # terminals as blocks: the games' hooks are CPU code
            ensure_terminal_blocks(self.public, memory)
            engine = GPUPublicSolver
        self.solver = engine(self.public, config.algorithm, config.alpha, config.beta,
                             config.gamma, config.alternating, budget=memory)
        memory.require(f"mapping the public tree onto the history tree of "
                       f"{tree.num_infosets:,} infosets",
                       tree.num_infosets * max(tree.max_actions, 1) * MAP_BYTES_PER_CELL)
        self.mapping = HistoryMap(self.public, tree)

    def strategy(self) -> np.ndarray:
        return self.mapping.strategy(self.solver.average_strategy())

    def profile_values(self, strategy: np.ndarray) -> ProfileValues:
        """(P1's best-response value, P2's, P1's expected value) of the run's strategy,
        computed on the public tree (the history tree's to rounding: tests/test_public_*)."""
        if isinstance(self.solver, GPUPublicSolver):
            avg = self.solver.device_average()
            best = self.solver.seat_values(avg, True)
            value = self.solver.seat_values(avg, False)[0]
        else:
            avg = self.solver.average_strategy()
            best = profile_values(self.public, avg, True)
            value = profile_values(self.public, avg, False)[0]
        return float(best[0]), float(best[1]), float(value)

    def details(self) -> dict[str, Any]:
        return {"device": self.device, **({"threads": 1} if self.device == "cpu" else {}),
                "public_tree": self.public.summary()}
