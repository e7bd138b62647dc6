"""Run directories: one solve of one variant, with everything needed to use or resume it.

Layout of ``RUN_DIR``:

- ``run.json``: game, variant, algorithm and parameters, iterations, seed, seconds,
  value_p1, exploitability, nash_conv, tree sizes, spycfr version, status.
- ``strategy.npz``: the average strategy as an exact float64 array (what the
  analysis commands load), with the tree fingerprint it belongs to.
- ``strategy.parquet`` and ``strategy.csv``: the same strategy as a tidy table
  (see :mod:`solver.strategy_table`).
- ``convergence.csv``: iteration, seconds, exploitability.
- ``checkpoint.npz``: the solver's full state (regrets, strategy sums, ...), written
  atomically every ``checkpoint_every`` iterations; ``resume`` continues from it
  bit-identically.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from solver import __version__
from solver.best_response import best_response, expected_value, infoset_values
from solver.build import build_tree
from solver.cfr import CFRSolver
from solver.errors import Interrupted, SpycfrError
from solver.games import make_game
from solver.io import save_npz, write_json, write_text
from solver.strategy_table import strategy_table, write_table
from solver.tree import Tree

RUN_JSON = "run.json"
CHECKPOINT = "checkpoint.npz"
STRATEGY_NPZ = "strategy.npz"
CONVERGENCE = "convergence.csv"


@dataclass
class SolveConfig:
    """What a solve was asked to do (stored in run.json, reused by --resume)."""

    game: str
    preset: str | None
    params: dict
    algorithm: str = "cfr+"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    alternating: bool = True
    iterations: int | None = None
    target_exploitability: float | None = None
    time_limit: float | None = None
    check_every: int | None = None
    seed: int = 0


@dataclass
class Run:
    """A loaded run directory: its metadata, the rebuilt tree and the average strategy."""

    path: Path
    meta: dict
    tree: Tree
    strategy: np.ndarray


def fingerprint(tree: Tree) -> dict:
    """Sizes that identify a tree well enough to catch a strategy loaded on the wrong one."""
    return {
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "infosets_p1": int(np.count_nonzero(tree.infoset_player == 0)),
        "actions": int(tree.infoset_num_actions.astype(np.int64).sum()),
    }


def _convergence_csv(log) -> str:
    frame = pd.DataFrame(log, columns=["iteration", "seconds", "exploitability"])
    return frame.to_csv(index=False, float_format="%.17g")


def _save_checkpoint(run_dir: Path, solver: CFRSolver, config: SolveConfig, seconds: float):
    state = solver.state_dict()
    arrays = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in state.items() if not isinstance(v, np.ndarray)}
    meta = {"config": config.__dict__, "solver": scalars, "seconds": seconds,
            "log": solver.log, "version": __version__}
    save_npz(run_dir / CHECKPOINT, meta=np.array(json.dumps(meta)), **arrays)
    write_text(run_dir / CONVERGENCE, _convergence_csv(solver.log))


def _load_checkpoint(run_dir: Path) -> tuple[dict, dict, float, list]:
    path = run_dir / CHECKPOINT
    if not path.is_file():
        raise SpycfrError(f"cannot resume: {str(path)!r} does not exist")
    try:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            state = {k: data[k] for k in data.files if k != "meta"}
    except Exception as exc:
        raise SpycfrError(f"cannot resume: {str(path)!r} is unreadable ({exc})") from None
    state.update(meta["solver"])
    return meta["config"], state, float(meta["seconds"]), [tuple(r) for r in meta["log"]]


def solve_run(
    config: SolveConfig,
    out_dir: str | Path | None = None,
    resume: str | Path | None = None,
    checkpoint_every: int | None = None,
    progress: Callable[[int, float, float | None], None] | None = None,
    write_tables: bool = True,
) -> dict:
    """Build, solve and (with ``out_dir``) write a run directory; returns run.json's content.

    With ``resume`` the configuration comes from the run's checkpoint (only the stopping
    limits of ``config`` apply) and the run continues in place. ``iterations`` counts the
    run's total, so a resumed run ends exactly where an uninterrupted one would.
    """
    seconds_before = 0.0
    state = None
    if resume is not None:
        out_dir = Path(resume)
        saved, state, seconds_before, log = _load_checkpoint(out_dir)
        limits = {k: getattr(config, k) for k in
                  ("iterations", "target_exploitability", "time_limit", "check_every")}
        config = SolveConfig(**{**saved, **{k: v for k, v in limits.items() if v is not None}})
    run_dir = Path(out_dir) if out_dir is not None else None
    if run_dir is not None and resume is None and (run_dir / RUN_JSON).exists():
        raise SpycfrError(
            f"{str(run_dir)!r} already holds a run; choose another -o or use --resume"
        )
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SpycfrError(f"--checkpoint-every must be >= 1, got {checkpoint_every}")
    if checkpoint_every is not None and run_dir is None:
        raise SpycfrError("--checkpoint-every needs an output run directory (-o RUN_DIR)")

    game = make_game(config.game, config.preset, config.params)
    tree = build_tree(game)
    solver = CFRSolver(tree, config.algorithm, config.alpha, config.beta, config.gamma,
                       config.alternating)
    if state is not None:
        solver.load_state_dict(state)
        solver.log = list(log)
        solver.solve_seconds = seconds_before
    if run_dir is not None:
        run_dir.mkdir(parents=True, exist_ok=True)

    total = config.iterations
    if total is None and config.target_exploitability is None and config.time_limit is None:
        total = 1000
    try:
        seconds, stopped = _iterate(solver, config, total, checkpoint_every, run_dir,
                                    seconds_before, progress)
    except KeyboardInterrupt:
        where = ""
        if run_dir is not None and (run_dir / CHECKPOINT).is_file():
            where = (f"; the last checkpoint in {str(run_dir)!r} is intact: continue with "
                     f"spycfr solve --resume {run_dir}")
        raise Interrupted(f"interrupted at iteration {solver.iteration}{where}") from None

    strategy = solver.average_strategy()
    br = [best_response(tree, strategy, p)[0] for p in (0, 1)]
    nc = br[0] + br[1]
    meta = {
        "game": config.game,
        "variant": tree.variant,
        "preset": config.preset,
        "algorithm": config.algorithm,
        "algorithm_params": {"alpha": config.alpha, "beta": config.beta, "gamma": config.gamma,
                             "alternating": config.alternating},
        "iterations": solver.iteration,
        "seed": config.seed,
        "best_response_p1": br[0],
        "best_response_p2": br[1],
        "stopped_by": stopped,
        "value_p1": expected_value(tree, strategy),
        "exploitability": nc / 2.0,
        "nash_conv": nc,
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "build_seconds": tree.build_seconds,
        "solve_seconds": seconds,
        "ms_per_iteration": 1e3 * seconds / max(solver.iteration, 1),
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "fingerprint": fingerprint(tree),
        "log": [{"iteration": it, "seconds": sec, "exploitability": e}
                for it, sec, e in solver.log],
        "run_dir": None if run_dir is None else str(run_dir),
    }
    if run_dir is not None:
        save_npz(run_dir / STRATEGY_NPZ, average=strategy,
                 fingerprint=np.array(json.dumps(meta["fingerprint"])))
        write_text(run_dir / CONVERGENCE, _convergence_csv(solver.log))
        if checkpoint_every is None:
            # a run without periodic checkpoints still gets one at the end, to extend it later
            _save_checkpoint(run_dir, solver, config, seconds)
        if write_tables:
            table = strategy_run_table(tree, strategy)
            write_table(table, run_dir / "strategy.parquet")
            write_table(table, run_dir / "strategy.csv")
        meta["config"] = config.__dict__
        write_json(run_dir / RUN_JSON, meta)
    return meta


def _iterate(solver, config, total, checkpoint_every, run_dir, seconds, progress):
    """Run until the limits of ``config``, checkpointing every ``checkpoint_every`` iterations."""
    stopped = "iterations"
    while True:
        remaining = None if total is None else total - solver.iteration
        if remaining is not None and remaining <= 0:
            break
        chunk = remaining
        if checkpoint_every is not None:
            chunk = checkpoint_every if chunk is None else min(chunk, checkpoint_every)
        time_left = None if config.time_limit is None else config.time_limit - seconds
        if time_left is not None and time_left <= 0:
            stopped = "time"
            break
        result = solver.solve(chunk, config.target_exploitability, time_left,
                              config.check_every, progress)
        seconds += result.seconds
        stopped = result.stopped_by
        if run_dir is not None and checkpoint_every is not None:
            _save_checkpoint(run_dir, solver, config, seconds)
        if stopped in ("target", "time"):
            break
    return seconds, stopped


def strategy_run_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """The tidy strategy table with reach probabilities and conditional action values."""
    cfv, reach, opp = infoset_values(tree, strategy)
    return strategy_table(tree, strategy, cfv=cfv, reach=reach, opponent_reach=opp)


def load_run(path: str | Path) -> Run:
    """Load a run directory (rebuilding its tree); errors say what is missing or wrong."""
    path = Path(path)
    if not path.is_dir():
        raise SpycfrError(f"run directory {str(path)!r} does not exist")
    meta_path = path / RUN_JSON
    if not meta_path.is_file():
        raise SpycfrError(f"{str(path)!r} is not a run directory: {RUN_JSON} is missing")
    try:
        meta = json.loads(meta_path.read_text())
        config = meta["config"]
    except (ValueError, KeyError) as exc:
        raise SpycfrError(f"{str(meta_path)!r} is corrupt ({exc})") from None
    try:
        with np.load(path / STRATEGY_NPZ) as data:
            strategy = np.array(data["average"], dtype=np.float64)
    except Exception as exc:
        raise SpycfrError(f"{str(path / STRATEGY_NPZ)!r} is missing or corrupt ({exc})") from None
    tree = build_tree(make_game(config["game"], config["preset"], config["params"]))
    if fingerprint(tree) != meta.get("fingerprint") or strategy.shape[0] != tree.num_infosets:
        raise SpycfrError(
            f"run {str(path)!r} does not match the tree of its variant (made by another version?)"
        )
    if tree.infoset_keys is None:
        _labels_from_table(tree, path / "strategy.parquet")
    return Run(path, meta, tree, strategy)


def _labels_from_table(tree: Tree, table_path: Path) -> None:
    """Take the infoset keys and action labels from the run's own table (rows are in infoset
    and action order), which is much faster than replaying every infoset."""
    try:
        table = pd.read_parquet(table_path, columns=["infoset", "action"])
    except Exception:
        return  # labels are recomputed on demand
    counts = tree.infoset_num_actions.astype(np.int64)
    if len(table) != int(counts.sum()):
        return
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    keys = table["infoset"].to_numpy()
    actions = table["action"].tolist()
    tree.infoset_keys = [str(keys[i]) for i in starts]
    tree.action_labels = [actions[i:i + k] for i, k in zip(starts, counts, strict=True)]
