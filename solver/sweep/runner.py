"""Solving a sweep on Dask: one task per variant, largest first, each into its own run
directory, its table row written atomically the moment it finishes.

Dask does the scheduling, the workers and the recovery: a ``LocalCluster`` (one
single-threaded worker process per core, a memory limit each) by default, or any running
cluster by its scheduler's address. A worker that dies mid-variant has its task rerun on
another worker by the scheduler; a variant that fails (invalid, too big, out of memory) is
recorded with its error while the rest go on. A re-run of the same sweep skips the variants
already solved with the same settings (resume).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from spycfr import __version__
from spycfr.cluster import dask_client
from spycfr.engine.playout import estimate_nodes
from spycfr.errors import Interrupted, SpycfrError, is_interrupt
from spycfr.exact.outcomes import outcome_stats
from spycfr.formats.strategy_table import write_table
from spycfr.games import get_plugin
from spycfr.io import check_output_dir, write_json
from spycfr.memory import physical_bytes
from spycfr.runs.config import SolveConfig
from spycfr.runs.lock import RunLock
from spycfr.runs.solve import solve_run
from spycfr.runs.store import RUN_JSON, file_sha256, load_run, verify_run_files
from spycfr.sweep.grid import Cell, expand
from spycfr.sweep.report import write_report
from spycfr.words import params_text

SWEEP_JSON = "sweep.json"
TABLE = "sweep"  # sweep.parquet and sweep.csv
VARIANTS = "variants"  # VARIANTS/KEY/ is a run directory, VARIANTS/KEY.json its row
SOLVE_KEYS = ("algorithm", "target_exploitability", "max_iterations", "time_limit")
MEASURES = ("status", "nodes", "infosets", "value_p1", "value_lower", "value_upper",
            "exploitability", "algorithm", "iterations", "stopped_by", "seconds", "p1_win", "draw",
            "p2_win", "mean_decisions", "error")


@dataclass
class SweepSettings:
    """What a sweep solves: a game's base variant, the swept parameters, how each is solved."""

    game: str
    preset: str | None
    fixed: dict  # variant parameters given once (strings, as on the command line)
    swept: dict  # swept parameter -> its value list as typed (see grid.parse_values)
    algorithm: str = "auto"
    target_exploitability: float = 1e-3
    max_iterations: int | None = 100_000
    time_limit: float | None = None  # seconds per variant
    memory_per_worker: float = 4.0  # GiB (a first run compiles numba kernels: ~2 GiB)

    def solve_settings(self) -> dict:
        return {k: getattr(self, k) for k in SOLVE_KEYS}


def solve_variant(task: dict) -> dict:
    """Solve one variant into its run directory and write its row (on a Dask worker)."""
    start = time.perf_counter()
    row: dict = {"variant": task["key"], **task["cell"], "solve_settings": task["settings"]}
    settings = task["settings"]
    # auto and the LP take no iteration count (one given would make auto pick CFR)
    iterative = settings["algorithm"] not in ("auto", "lp")
    try:
        config = SolveConfig(
            game=task["game"], preset=task["preset"], params=task["params"],
            algorithm=settings["algorithm"],
            iterations=settings["max_iterations"] if iterative else None,
            target_exploitability=settings["target_exploitability"],
            time_limit=settings["time_limit"], memory_limit=task["memory_limit"],
            check_every=100 if iterative else None,
        )
        result = solve_run(config, out_dir=task["run_dir"], overwrite=True, write_tables=False)
        if result.exploitability is None:  # auto sampled it: no exact value to compare
            raise SpycfrError(f"too big to solve exactly within {task['memory_limit']:g} GiB "
                              f"(auto chose {result.algorithm})")
        assert result.best_response_p1 is not None and result.best_response_p2 is not None
        run = load_run(task["run_dir"])
        row["run_sha256"] = file_sha256(Path(task["run_dir"]) / RUN_JSON)
        row.update(
            status="done", nodes=result.nodes, infosets=result.infosets,
            value_p1=result.value_p1, value_lower=-result.best_response_p2,
            value_upper=result.best_response_p1, exploitability=result.exploitability,
            algorithm=result.algorithm, iterations=result.iterations,
            stopped_by=result.stopped_by,
            **outcome_stats(run.tree, run.strategy),
        )
    except BaseException as exc:  # recorded, so that the rest of the sweep goes on
        if is_interrupt(exc):
            raise
        row.update(status="failed", error=_error_text(exc))
    row["seconds"] = time.perf_counter() - start
    write_json(task["row_path"], row)  # atomically: the variant counts as finished from here
    return row


def _error_text(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (text if isinstance(exc, SpycfrError) else f"{type(exc).__name__}: {text}")[:500]


def _size(settings: SweepSettings, params: dict) -> float:
    """The variant's estimated tree size (its scheduling priority); 0 if it is invalid."""
    try:
        plugin = get_plugin(settings.game)
        return float(estimate_nodes(plugin.numba_params(plugin.make_variant(settings.preset,
                                                                            dict(params)))))
    except SpycfrError:
        return 0.0


# A reused row's measures must be its run's (run.json): (row field, run.json field, sign).
_ROW_FROM_RUN = (("value_p1", "value_p1", 1), ("value_lower", "best_response_p2", -1),
                 ("value_upper", "best_response_p1", 1), ("exploitability", "exploitability", 1),
                 ("nodes", "nodes", 1), ("iterations", "iterations", 1))


def _reusable(row_path: Path, settings: dict, run_dir: Path) -> dict | None:
    """The row of a variant already solved with these settings, else None. The row is
    re-verified against its run before it is trusted: run.json unchanged since the row was
    written (its hash), the files run.json vouches for unchanged (theirs), and the row's
    measures equal to run.json's; an edited row or run is solved again."""
    try:
        row = json.loads(row_path.read_text())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(row, dict) or row.get("status") != "done" or (
            row.get("solve_settings") != settings):
        return None
    try:
        meta = verify_run_files(run_dir)
        if row.get("run_sha256") != file_sha256(run_dir / RUN_JSON):
            return None
    except (SpycfrError, OSError):
        return None
    for field, source, sign in _ROW_FROM_RUN:
        value, expected = row.get(field), meta.get(source)
        if not isinstance(value, int | float) or not isinstance(expected, int | float) or (
                value != sign * expected):
            return None
    return row


def check_workers(workers: int | None, memory_per_worker: float) -> int:
    """The LocalCluster's worker processes: ``workers`` (default: as many as fit), checked
    against the cores and the memory (each worker may use ``memory_per_worker`` GiB)."""
    cores = os.cpu_count() or 1
    ram = _ram_gib()
    by_memory = max(1, int(ram // memory_per_worker))
    most = min(cores, by_memory)
    if workers is None:
        return most
    if workers > most:
        raise SpycfrError(f"--workers {workers:,}: at most {most} here ({cores} cores; "
                          f"{by_memory} workers of {memory_per_worker:g} GiB fit in the "
                          f"{ram:.3g} GiB of RAM; --memory-per-worker sets the GiB)")
    return workers


def invalid_cells(settings: SweepSettings, cells: list[Cell]) -> list[tuple[Cell, str]]:
    """The cells whose variant the game refuses (an unknown value, out of range), with why:
    every cell is checked before any cluster starts."""
    plugin = get_plugin(settings.game)
    bad = []
    for cell in cells:
        try:
            plugin.make_variant(settings.preset, {**settings.fixed, **cell.params})
        except SpycfrError as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            params = {**settings.fixed, **cell.params}
            if any(re.fullmatch(r"-?\d+-\d+", v) for v in params.values()):
                why += " (a range is written lo..hi, e.g. 2..4)"
            bad.append((cell, why))
    return bad


def describe_cell(cell: Cell, fixed: dict | None = None) -> str:
    """``cards=3, decoys=1``: the swept values of a cell (the fixed ones when none is)."""
    shown = cell.params or fixed or {}
    return params_text(shown, ", ") or "the base variant"


def run_sweep(settings: SweepSettings, out_dir: str | Path, scheduler: str | None = None,
              workers: int | None = None,
              progress: Callable[[dict], None] | None = None,
              note: Callable[[str], None] | None = None) -> dict:
    """Solve every variant of the grid (skipping those already solved), then write the table
    and sweep.json; returns sweep.json's content. ``progress`` gets counts as they change,
    ``note`` a line on what is happening (starting the cluster, compiling)."""
    note = note or (lambda text: None)
    names, cells = expand(settings.swept)
    get_plugin(settings.game)  # an unknown game fails before any cluster starts
    bad = invalid_cells(settings, cells)
    if bad:
        shown = "; ".join(f"{describe_cell(c, settings.fixed)}: {why}" for c, why in bad[:3])
        raise SpycfrError(f"{len(bad)} of {len(cells)} variants are invalid, nothing was "
                          f"solved: {shown}" + ("; ..." if len(bad) > 3 else ""))
    if scheduler is None:
        workers = check_workers(workers, settings.memory_per_worker)
    out = check_output_dir(out_dir, "sweep directory")
    with RunLock(out):
        (out / VARIANTS).mkdir(exist_ok=True)
        solve = settings.solve_settings()
        rows: dict[str, dict] = {}
        todo: list[tuple[float, Cell]] = []
        for cell in cells:
            row = _reusable(out / VARIANTS / f"{cell.key}.json", solve, out / VARIANTS / cell.key)
            if row is not None:
                rows[cell.key] = row
            else:
                todo.append((_size(settings, {**settings.fixed, **cell.params}), cell))
        todo.sort(key=lambda t: -t[0])  # largest first: the long poles start early
        note(f"{len(cells)} variants checked: {len(todo)} to solve"
             + (f", {len(rows)} already solved (kept)" if rows else ""))
        counts = {"variants": len(cells), "skipped": len(rows), "done": 0, "failed": 0,
                  "running": 0, "todo": len(todo)}
        start = time.perf_counter()
        interrupted = None
        cluster_text = scheduler or "LocalCluster"
        if todo:
            try:
                cluster_text = _solve_all(settings, out, todo, rows, counts, scheduler,
                                          workers, progress, start, note)
            except BaseException as exc:
                if not is_interrupt(exc):
                    raise
                interrupted = exc
        table = _table(names, cells, rows)
        summary: dict[str, Any] = {
            "game": settings.game, "preset": settings.preset, "fixed": settings.fixed,
            "swept": settings.swept, "solve": solve,
            "memory_per_worker_gib": settings.memory_per_worker,
            "cluster": cluster_text, "workers": workers, "counts": counts,
            "wall_seconds": time.perf_counter() - start,
            "finished": int((table["status"] == "done").sum()),
            "failed": int((table["status"] == "failed").sum()),
            "failures": [[r["variant"], r["error"]] for _, r in
                         table[table["status"] == "failed"].iterrows()],
            "version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        write_table(table, out / f"{TABLE}.parquet")
        write_table(table, out / f"{TABLE}.csv")
        report = write_report(summary, table, out)
        summary["files"] = [f"{TABLE}.parquet", f"{TABLE}.csv", SWEEP_JSON, report.name]
        write_json(out / SWEEP_JSON, summary)
        if interrupted is not None:
            raise Interrupted(f"sweep stopped: {summary['finished']} of {len(cells)} variants "
                              f"are solved and kept in {str(out)!r}; run the same command "
                              "again to solve the rest") from None
        return summary


def _solve_all(settings, out, todo, rows, counts, scheduler, workers, progress,
               start, note) -> str:
    """Submit the variants to Dask and collect their rows as they finish."""
    from distributed import as_completed
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    if scheduler is not None:
        note(f"connecting to the Dask scheduler at {scheduler}")
    else:
        note(f"starting a Dask LocalCluster of {workers} worker process"
             f"{'es' if workers > 1 else ''} ({settings.memory_per_worker:g} GiB each); a "
             "worker's first variant also compiles the numba kernels (about a minute after "
             "installing)")
    with dask_client(scheduler, workers, memory_limit=f"{settings.memory_per_worker}GiB",
                     silence_logs=logging.CRITICAL) as (client, text):
        memory_limit = min(settings.memory_per_worker, _ram_gib() / 2)
        futures = {}
        for size, cell in todo:
            task = {
                "key": cell.key, "cell": cell.params, "game": settings.game,
                "preset": settings.preset, "params": {**settings.fixed, **cell.params},
                "settings": settings.solve_settings(), "memory_limit": memory_limit,
                "run_dir": str(out / VARIANTS / cell.key),
                "row_path": str(out / VARIANTS / f"{cell.key}.json"),
            }
            future = client.submit(solve_variant, task, key=f"spycfr-sweep-{cell.key}",
                                   priority=int(min(size, 2**62)), pure=False)
            futures[future] = (cell, task)
        _report(counts, client, progress, start)
        for future in as_completed(futures):
            cell, task = futures[future]
            try:
                row = future.result()
            except (KilledWorker, FutureCancelledError) as exc:
                row = {"variant": cell.key, **cell.params, "status": "failed",
                       "solve_settings": task["settings"],
                       "error": f"its worker died repeatedly ({type(exc).__name__}: out of "
                                f"memory past {settings.memory_per_worker:g} GiB?)"}
                write_json(task["row_path"], row)
            rows[cell.key] = row
            counts["done" if row["status"] == "done" else "failed"] += 1
            counts["todo"] -= 1
            _report(counts, client, progress, start)
        return text


def _report(counts: dict, client, progress, start: float) -> None:
    if progress is None:
        return
    try:  # tasks a worker holds, at most one per thread (the rest wait there)
        counts["running"] = min(sum(len(v) for v in client.processing().values()),
                                sum(client.nthreads().values()))
    except Exception:  # the count is informative only
        counts["running"] = 0
    finished = counts["done"] + counts["failed"]
    elapsed = time.perf_counter() - start
    eta = elapsed / finished * counts["todo"] if finished else math.nan
    progress({**counts, "elapsed": elapsed, "eta": eta})


def _ram_gib() -> float:
    return physical_bytes() / 2**30


def _table(names: list[str], cells: list[Cell], rows: dict[str, dict]) -> pd.DataFrame:
    """One row per grid cell in grid order: the swept parameters, then the measures (a cell
    not solved yet has status "todo")."""
    records = []
    for cell in cells:
        row = rows.get(cell.key, {"status": "todo"})
        records.append({"variant": cell.key, **cell.params,
                        **{m: row.get(m) for m in MEASURES}})
    table = pd.DataFrame.from_records(records, columns=["variant", *names, *MEASURES])
    for m in MEASURES:  # a measure that is not a number (an edited row) is missing, not text
        if m not in ("status", "algorithm", "stopped_by", "error"):
            table[m] = pd.to_numeric(table[m], errors="coerce")
    for name in names:  # integer parameters as numbers, so that they sort and plot as such
        converted = pd.to_numeric(table[name], errors="coerce")
        if converted.notna().all():
            table[name] = converted
    return table
