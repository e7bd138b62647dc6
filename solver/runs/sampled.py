"""Monte-Carlo CFR as a run's engine (:class:`SampledRun`): external or outcome sampling
straight on the game's rules, the tree enumerated only when it is small enough (then the
exploitability is exact); and what reads such a run back without a tree (its solver from
the checkpoint, its openings)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from spycfr.cfr.mccfr import REGRET_BOUND_KIND, MCCFRSolver
from spycfr.engine.labels import state_at
from spycfr.errors import SpycfrError
from spycfr.games import get_plugin, make_game
from spycfr.memory import MemoryLimitError, rss_bytes
from spycfr.runs.config import DEFAULT_EPSILON, MCCFR_ALGORITHMS, SolveConfig
from spycfr.runs.engines import (
    FullTreeRun,
    IterativeRun,
    ProfileValues,
    Progress,
    cpu_profile_values,
)
from spycfr.runs.game import ResolvedGame
from spycfr.runs.result import bound_shortfall
from spycfr.runs.store import CHECKPOINT, load_checkpoint, save_checkpoint

# Variants whose estimated tree is at most this big are enumerated, so that an MCCFR
# run gets its exact exploitability and the strategy tables of a full-tree run.
ENUMERABLE_NODES = 30_000_000


class SampledRun(IterativeRun):
    """External- or outcome-sampling MCCFR straight on the game's rules.

    The tree is built only if the variant is enumerable (then the exploitability is exact);
    otherwise the run reports the solver's labelled regret-bound estimate.
    """

    default_check_every = 1000
    solver: MCCFRSolver

    @staticmethod
    def bytes_needed(nodes: float) -> float:
        """Nothing at the start: the tables grow within the memory limit (the solver stops
        or freezes them there) and the tree is built only if it fits."""
        return 0.0

    def __init__(self, config: SolveConfig, game: ResolvedGame) -> None:
        self.config = config
        self.game = game
        self.estimated_nodes = game.estimated_nodes
        self.enumerable = self.estimated_nodes <= ENUMERABLE_NODES
        self.tree, self.tree_note = None, None
        self.memory = memory = config.memory_budget()
        if self.enumerable:  # within the memory limit, or not at all
            try:
                memory.require(
                    f"the tree of about {self.estimated_nodes:.3g} nodes (estimated), for an "
                    "exact exploitability", FullTreeRun.bytes_needed(self.estimated_nodes))
                self.tree = game.build_tree(memory)
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
            game.game, MCCFR_ALGORITHMS[config.algorithm], seed=config.seed,
            epsilon=config.epsilon_value or DEFAULT_EPSILON,
            memory_limit=config.memory_limit_gib * 2**30, abstraction=config.abstraction,
            when_full=config.when_full or "stop", fallback=config.fallback or "uniform",
            store_depth=config.store_depth, tree=self.tree,
        )
        self.value_column = "exploitability" if self.enumerable else "exploitability_estimate"
        self.stopped_note: str | None = None
        # Exploitability is at most the payoff span: a larger estimate says nothing.
        assert game.plugin is not None
        self.span = 2.0 * game.plugin.payoff_bound(game.variant.as_dict())

    def show(self, progress: Progress, iteration: int, seconds: float,
             value: float | None) -> None:
        """``progress`` with the value's label and the tables' size."""
        def details() -> str:
            gib = rss_bytes() / 2**30
            return f"  {self.solver.num_infosets:,} infosets  {gib:.2f} GiB resident"

        if self.enumerable:
            progress(iteration, seconds, value, label="exploitability", details=details)
        elif value is not None and value <= self.span and self._all_learnt():
            progress(iteration, seconds, value, label="exploitability~ (sampled-regret "
                     "bound estimate)", details=details)
        else:  # a sampled bound above the payoff span, or partial, bounds nothing: say so
            progress(iteration, seconds, None, label="exploitability unknown", details=details)

    def _all_learnt(self) -> bool:
        """Whether every decision sampled had a row: the regret bound then covers the game;
        where the fallback played (store depth, frozen table) it covers only the rows."""
        return self.solver.unstored_decisions == 0

    def strategy(self) -> np.ndarray | None:
        return self.solver.strategy()

    def profile_values(self, strategy: np.ndarray) -> ProfileValues:
        assert self.tree is not None
        return cpu_profile_values(self.tree, strategy)

    def checkpoint(self, run_dir: Path, seconds: float, state: dict[str, Any] | None = None,
                   stopped: str | None = None) -> None:
        if state is None:  # views: written at once, never kept (GiBs of tables)
            state = self.solver.state_dict(copy=False)
        save_checkpoint(run_dir, self.config.as_dict(), state, seconds, self.solver.log,
                        self.value_column, stopped)

    def details(self) -> dict[str, Any]:
        stats = self.solver.stats()
        meta: dict[str, Any] = {
            "epsilon": self.config.epsilon_value,
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
                       "limit_bytes": int(self.solver.memory_limit or 0)},
            "memory_stop": self.stopped_note,
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
                         f"it {bound_shortfall(value, self.span)}, so it bounds nothing: the "
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

    def openings_table(self) -> pd.DataFrame | None:
        """See :func:`treeless_openings_table`."""
        return treeless_openings_table(self.game.game, self.solver)


def _compile_elsewhere(config: SolveConfig) -> None:
    """Fill numba's cache in a child process: a first run's compilation can take more than a
    GiB of resident memory for a while (1.4 GiB measured for Agent Avenue's MCCFR), which a
    memory limit on this process must not pay for; this process then loads the kernels.
    The child solves two iterations into a scratch run directory, so that it goes through
    every compiled step of a run (the openings included). A few seconds when the cache is
    already full; a failed child changes nothing."""
    child = dict(config.as_dict(), iterations=2, target_exploitability=None, time_limit=None,
                 check_every=1, memory_limit=None)
    code = ("import json, sys\nfrom spycfr.runs import sampled, solve\n"
            "sampled.ENUMERABLE_NODES = 0  # compiling needs no tree\n"
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
    config, state, *_ = load_checkpoint(path)
    game = make_game(config["game"], config["preset"], config["params"])
    solver = MCCFRSolver(game, MCCFR_ALGORITHMS[config["algorithm"]], seed=config["seed"],
                         epsilon=float(state["epsilon"]), es_node_limit=None,
                         abstraction=bool(config.get("abstraction", False)),
                         fallback=config.get("fallback") or "uniform",
                         store_depth=config.get("store_depth"))
    solver.load_state_dict(state)
    return solver


def treeless_openings_table(game: Any, solver: MCCFRSolver) -> pd.DataFrame | None:
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
