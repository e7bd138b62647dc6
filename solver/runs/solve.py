"""Solving into a run directory, the orchestration: the configuration checked
(:mod:`spycfr.runs.config`), the game resolved once (:mod:`spycfr.runs.game`), the plan
chosen (:mod:`spycfr.runs.plan`), its engine run (:mod:`spycfr.runs.engines`,
:mod:`spycfr.runs.sampled`) with checkpoints, bit-identical resume and Ctrl-C that keeps the
last checkpoint; then the run's files, run.json last (:mod:`spycfr.runs.store`)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from spycfr import __version__
from spycfr.cfr.engine import LogRow
from spycfr.cfr.gpu import resolve_device
from spycfr.errors import Interrupted, ParameterError, SpycfrError, is_interrupt
from spycfr.formats.strategy_table import DISK_BYTES_PER_ROW, write_table
from spycfr.io import (
    check_free_space,
    check_output_dir,
    remove_stale_temporaries,
    save_npz,
    write_json,
    write_text,
)
from spycfr.memory import budget_for, peak_rss_bytes
from spycfr.runs.config import (
    MCCFR_ALGORITHMS,
    SolveConfig,
    check_checkpointing,
    check_config,
    check_requested,
)
from spycfr.runs.engines import FullTreeRun, Progress, RunEngine, solve_bytes
from spycfr.runs.game import ResolvedGame, check_game, resolve_game
from spycfr.runs.lock import RunLock
from spycfr.runs.plan import Plan, plan_solve
from spycfr.runs.result import RunResult
from spycfr.runs.sampled import SampledRun
from spycfr.runs.source import TREE_NPZ
from spycfr.runs.store import (
    CHECKPOINT,
    CONVERGENCE,
    OPENINGS_CSV,
    RUN_FILES,
    RUN_JSON,
    STRATEGY_NPZ,
    UNRECORDED,
    convergence_csv,
    file_sha256,
    fingerprint,
    holds_run,
    load_checkpoint,
    strategy_run_table,
)
from spycfr.tree import Tree

__all__ = ["SolveConfig", "solve_run"]

# The limits a resumed run's command may give that decide where it stops (the others are
# its checkpoint's).
STOPS = ("iterations", "time_limit", "target_exploitability", "memory_limit", "when_full")
# The strategy tables (labels as Python strings, then Parquet and CSV): 470 B per row
# measured on Agent Hunter small (2.07 M rows), and pandas/pyarrow's own start-up.
TABLE_BYTES_PER_ROW = 600
TABLE_BYTES_FIXED = 150 * 2**20


def solve_run(
    config: SolveConfig,
    out_dir: str | Path | None = None,
    resume: str | Path | None = None,
    checkpoint_every: int | None = None,
    progress: Progress | None = None,
    write_tables: bool = True,
    overwrite: bool = False,
) -> RunResult:
    """Build, solve and (with ``out_dir``) write a run directory; returns its result (what
    run.json holds).

    With ``resume`` the configuration comes from the run's checkpoint (only the limits of
    ``config`` (:data:`spycfr.runs.config.RESUME_LIMITS`) apply) and the run continues in
    place. ``iterations`` counts the run's total, so a resumed run ends exactly where an
    uninterrupted one would. ``overwrite`` replaces the run files of an existing run in
    ``out_dir`` (nothing else). ``progress(iteration, seconds, value, label=...,
    details=...)`` is called once with the starting point (value None), then after every
    batch; ``seconds`` counts the whole run.
    """
    if resume is not None:
        out_dir = Path(resume)
        if not (out_dir / CHECKPOINT).is_file():
            raise SpycfrError(f"cannot resume: {str(out_dir / CHECKPOINT)!r} does not exist")
    run_dir = Path(out_dir) if out_dir is not None else None
    check_checkpointing(checkpoint_every, run_dir is not None)
    if run_dir is None:
        return _solve(config, None, False, checkpoint_every, progress, write_tables)
    check_output_dir(run_dir, "run directory")  # before any work: a bad -o fails at once
    with RunLock(run_dir):
        remove_stale_temporaries(run_dir)  # left by a writer killed mid-write
        if resume is None and holds_run(run_dir):
            if not overwrite:
                raise SpycfrError(f"{str(run_dir)!r} already holds a run; choose another -o, "
                                  "add --overwrite to replace it, or use --resume")
            for name in RUN_FILES:
                (run_dir / name).unlink(missing_ok=True)
        return _solve(config, run_dir, resume is not None, checkpoint_every, progress,
                      write_tables)


def _solve(config: SolveConfig, run_dir: Path | None, resumed: bool,
           checkpoint_every: int | None, progress: Progress | None,
           write_tables: bool) -> RunResult:
    """solve_run's work, holding the run directory's lock when there is one."""
    seconds_before = 0.0
    state: Mapping[str, Any] | None = None
    log: list[LogRow] = []
    saved: dict[str, Any] = {}
    saved_stop = None
    given = any(getattr(config, k) is not None for k in STOPS)  # by the command (resumed)
    if resumed:
        assert run_dir is not None
        saved, state, seconds_before, log, saved_stop = load_checkpoint(run_dir)
        config = config.resumed(saved)
    check_requested(config)
    if config.device == "gpu" and not config.mccfr:
        resolve_device("gpu")  # no GPU: one line before anything is chosen or built
    game = resolve_game(config, run_dir, resumed)
    check_game(config, game)
    plan = plan_solve(config, game, checkpoint_every, getattr(progress, "note", None))
    config = plan.config
    check_config(config, checkpoint_every)

    if progress is not None and hasattr(progress, "choice"):
        # The tree's choice is told when auto leaves the history tree (run.json says why
        # either way).
        tree_choice = plan.tree_choice if config.tree == "public" else None
        for option, choice in (("--algorithm", plan.choice), ("--tree", tree_choice)):
            if choice is not None:
                progress.choice(choice, option)
    if progress is not None and hasattr(progress, "preparing"):
        progress.preparing()
    engine = plan.engine(game)
    solver, tree = engine.solver, engine.tree
    if run_dir is not None and tree is not None:  # before the iterations, not after
        check_free_space(run_dir, _disk_bytes(tree, write_tables), "the run directory")
    if state is not None:
        engine.restore(state, log, seconds_before)

    total = config.iterations
    if total is None and config.target_exploitability is None and config.time_limit is None:
        total = 1000
    stopped = None
    if state is not None:
        stopped, words = resume_stop(config, SolveConfig(**saved), saved_stop,
                                     solver.iteration, solver.log, total, seconds_before,
                                     given)
        if (note := getattr(progress, "note", None)) is not None:
            note(words)
    if (limits := getattr(progress, "limits", None)) is not None:  # for its ETA
        limits(total, config.time_limit, config.target_exploitability)
    if progress is not None:
        progress(solver.iteration, seconds_before, None)
    choice = plan.choice
    try:
        if plan.race is not None and state is None:
            engine, seconds_before, stopped = _race(plan, game, engine, progress)
            solver = engine.solver
            if stopped is not None:  # the race reached the target: its run is the result
                config = plan.race_config()
                choice = dict(choice or {}, chosen=config.algorithm, why=(
                    f"{(choice or {}).get('why')}; {config.algorithm} reached the target "
                    f"in {solver.iteration} iterations"))
        if stopped is None:
            seconds, stopped = engine.run(total, checkpoint_every, run_dir, seconds_before,
                                          progress)
        else:
            seconds = seconds_before
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
    meta: dict[str, Any] = {
        "game": config.game,
        "variant": tree.variant if tree is not None else game.variant_dict(),
        "preset": config.preset,
        "algorithm": config.algorithm,
        "algorithm_choice": choice,
        "tree": config.tree,
        "tree_choice": plan.tree_choice,
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
    meta.update(engine.details())
    meta["memory_limit_gib"] = config.memory_limit_gib
    meta["peak_rss_bytes"] = peak_rss_bytes()
    meta["peak_rss_method"] = ("the solving process's peak resident set size: VmHWM of "
                               "/proc/self/status (Linux), else getrusage's ru_maxrss")
    final_state = None
    if isinstance(engine, SampledRun):
        final_state = engine.solver.state_dict(copy=False)
        meta["state_sha256"] = state_hash(final_state)
    meta["log"] = [{"iteration": it, "seconds": sec, engine.value_column: e}
                   for it, sec, e in solver.log]
    meta["run_dir"] = None if run_dir is None else str(run_dir)
    if run_dir is not None:
        _write_run(run_dir, engine, config, meta, strategy, seconds, final_state,
                   checkpoint_every, write_tables, game.foreign)
    return RunResult.from_json(meta)


def _race(plan: Plan, game: ResolvedGame, lp: RunEngine, progress: Progress | None
          ) -> tuple[RunEngine, float, str | None]:
    """auto's race before its LP (``plan.race``): AUTO_CFR for a few iterations on the LP's
    tree. (its engine, seconds, "target") when it reaches the target; else (the LP's engine,
    the race's seconds, None): the LP then runs, the race's time counted in the solve's."""
    config = plan.race_config()
    if lp.tree is None or not lp.memory.fits(solve_bytes(lp.tree, config)):
        return lp, 0.0, None
    race = FullTreeRun(config, replace(game, tree=lp.tree))
    seconds, stopped = race.run(plan.race, None, None, 0.0, progress)
    note = getattr(progress, "note", None)
    if stopped == "target":
        if note is not None:  # the line before said "auto: lp": say which method won
            note(f"--algorithm auto: {config.algorithm} reached the target in "
                 f"{race.solver.iteration} iterations; its result is kept, the LP not run")
        return race, seconds, stopped
    if note is not None:
        note(f"--algorithm auto: {config.algorithm} did not reach the target in {plan.race} "
             "iterations; the exact LP solves")
    return lp, seconds, None


def resume_stop(config: SolveConfig, saved: SolveConfig, saved_stop: str | None,
                iteration: int, log: list[LogRow], total: int | None, seconds: float,
                given: bool = False) -> tuple[str | None, str]:
    """What a run resumed at ``iteration`` does, by ``config``'s limits (the checkpoint's
    own where none was given) and why it stopped (``saved_stop``; ``saved``: its settings
    then): (the limit it stops at at once, as it stands: "iterations", "time", "memory" or
    "target"; None: it solves on) and that in words. A run stopped by its memory limit stays
    as it stopped unless the limit is larger now or its tables freeze when full (resumed, the
    process's memory differs: it would go on for iterations the recorded run did not do).
    A checkpoint that does not say why (UNRECORDED: written before the record) of a sampled
    run that stops when its tables are full, short of its other limits, may have stopped at
    its memory limit: it solves on only by limits the command gives (``given``), else a
    one-line error asks for them."""
    at = f"at iteration {iteration:,}"
    if total is not None and total <= iteration:
        return "iterations", (f"resumed {at}, its iterations limit ({total:,}): it stays as it "
                              "is (a larger iterations limit solves further)")
    if config.time_limit is not None and seconds >= config.time_limit:
        return "time", (f"resumed {at}, after {seconds:.3g} s of its time limit of "
                        f"{config.time_limit:g} s: it stays as it is (a longer time limit "
                        "solves further)")
    went_on = ""
    if saved_stop == "memory":
        now = config.memory_limit_gib  # None: half the RAM (of this machine, as resumed)
        was = saved.memory_limit or budget_for(None).limit_bytes / 2**30
        if now <= was and (config.when_full or "stop") == "stop":
            return "memory", (f"resumed {at}, where it stopped at its memory limit of "
                              f"{was:.3g} GiB: it stays as it is (a larger memory limit, or "
                              "tables that freeze when full, solves further)")
        went_on = (f", past the memory limit of {was:.3g} GiB it stopped at "
                   f"({f'{now:.3g} GiB now' if now > was else 'its tables freeze when full'})")
    target = config.target_exploitability
    if target is not None and log and log[-1][0] == iteration and log[-1][2] <= target:
        return "target", (f"resumed {at}, where its exploitability {log[-1][2]:.3g} meets its "
                          f"target of {target:g}: it stays as it is (a smaller target solves "
                          "further)")
    if saved_stop == UNRECORDED and saved.mccfr and (saved.when_full or "stop") == "stop":
        if not given:
            raise ParameterError(
                f"cannot resume {at} by its own limits: its checkpoint, written before spycfr "
                "recorded why a run stopped, does not say whether it stopped at its memory "
                "limit (its tables full) or was interrupted, and past a memory stop it would "
                "solve on for iterations the recorded run did not do: give {iterations}, "
                "{time_limit} or {target_exploitability} to solve on (or {memory_limit}, "
                "{when_full})", *STOPS)
        went_on += " (its checkpoint does not say why it stopped)"
    limits = ([f"iteration {total:,}"] if total is not None else []) + (
        [f"{config.time_limit:g} s"] if config.time_limit is not None else []) + (
        [f"exploitability {target:g}"] if target is not None else [])
    return None, (f"resumed {at}{went_on}: it solves on to {' or '.join(limits)}"
                  + (", whichever comes first" if len(limits) > 1 else ""))


def _write_run(run_dir: Path, engine: RunEngine, config: SolveConfig, meta: dict[str, Any],
               strategy: np.ndarray | None, seconds: float,
               final_state: dict[str, Any] | None, checkpoint_every: int | None,
               write_tables: bool, foreign: bool) -> None:
    """The run's files, each atomically, run.json last with the hashes of what it vouches
    for: a run killed between two of these writes is detected when loaded."""
    solver, tree = engine.solver, engine.tree
    if checkpoint_every is None and engine.checkpoints:
        # a run without periodic checkpoints still gets one at the end, to extend it later
        engine.checkpoint(run_dir, seconds, final_state, meta["stopped_by"])
    write_text(run_dir / CONVERGENCE, convergence_csv(solver.log, engine.value_column))
    written = [CONVERGENCE] + ([TREE_NPZ] if foreign else [])
    if strategy is not None:
        assert tree is not None
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
    elif isinstance(engine, SampledRun):
        openings = engine.openings_table()
        if openings is not None:
            write_text(run_dir / OPENINGS_CSV, openings.to_csv(index=False, float_format="%.17g"))
            written.append(OPENINGS_CSV)
    meta["files"] = {name: file_sha256(run_dir / name) for name in written}
    meta["config"] = config.as_dict()
    meta["peak_rss_bytes"] = peak_rss_bytes()  # again: the files above written too
    write_json(run_dir / RUN_JSON, meta)


def _algorithm_params(config: SolveConfig, solver: Any) -> dict[str, Any]:
    if config.mccfr:
        return {"scheme": MCCFR_ALGORITHMS[config.algorithm], "epsilon": config.epsilon_value,
                "memory_limit_gib": config.memory_limit_gib, "alternating": True,
                "abstraction": config.abstraction, "when_full": config.when_full or "stop",
                "fallback": config.fallback or "uniform", "store_depth": config.store_depth}
    if config.algorithm == "lp":
        return {"alternating": True}  # no updates; the field the readers expect
    return {"alpha": solver.alpha, "beta": solver.beta, "gamma": solver.gamma,
            "alternating": config.alternating}


def state_hash(state: Mapping[str, Any]) -> str:
    """sha256 of a solver state's arrays (names and bytes, in name order)."""
    digest = hashlib.sha256()
    for name in sorted(k for k, v in state.items() if isinstance(v, np.ndarray)):
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(state[name]).data.cast("B"))
    return digest.hexdigest()


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
