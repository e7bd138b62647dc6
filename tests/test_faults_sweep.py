"""Hostile grids and tampered sweep directories (issue 26, items 4 and 9): bounded workers,
ranges counted before they are expanded, every cell validated before Dask starts, a row
edited on disk re-verified against its run, and a report that draws odd values."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import spycfr
from spycfr.errors import SpycfrError
from spycfr.memory import rss_bytes
from spycfr.sweep import runner
from spycfr.sweep.grid import expand, grid_size, parse_values
from spycfr.sweep.report import write_report
from spycfr.sweep.runner import SweepSettings, check_workers, solve_variant
from test_faults import one_line_error

AH = ["sweep", "agent-hunter", "--preset", "tiny", "-q"]


def test_workers_are_bounded_by_cores_and_memory(tmp_path):
    line = one_line_error([*AH, "--max-turns", "1,2", "--workers", "100000", "-o",
                           str(tmp_path / "s")], "--workers 100,000: at most")
    assert "cores" in line and "GiB of RAM" in line
    assert not (tmp_path / "s").exists()
    assert check_workers(None, 4.0) >= 1
    with pytest.raises(SpycfrError, match="at most 1 here"):
        check_workers(2, 10**6)  # no two workers of a million GiB fit


def test_a_huge_range_is_counted_not_expanded(tmp_path):
    before = rss_bytes()
    start = time.perf_counter()
    one_line_error([*AH, "--cards", "0..100000000", "-o", str(tmp_path / "s")],
                   "the grid has 100,000,001 variants; at most 10,000")
    one_line_error([*AH, "--cards", "0..100000000000000000000000000", "-o",
                    str(tmp_path / "s")], "a range of more than 10,000 values")
    with pytest.raises(SpycfrError, match="gives 100,000,001 values"):
        parse_values("cards", "0..100000000")
    assert grid_size({"cards": "0..100000000", "decoys": "0..1"}) == 200_000_002
    assert time.perf_counter() - start < 20 and rss_bytes() - before < 100 * 2**20


@pytest.mark.parametrize("args,fragment", [
    (["--max-turns", "2-4"], "1 of 1 variants are invalid, nothing was solved: max_turns=2-4"),
    (["--cards", "3,11"], "1 of 2 variants are invalid, nothing was solved: cards=11"),
])
def test_every_cell_is_validated_before_dask(tmp_path, monkeypatch, args, fragment):
    def no_cluster(*a, **k):
        raise AssertionError("Dask started for an invalid grid")

    monkeypatch.setattr(runner, "_solve_all", no_cluster)
    one_line_error([*AH, *args, "-o", str(tmp_path / "s")], fragment)
    assert not (tmp_path / "s").exists()


def test_failed_variants_exit_non_zero_saying_why(tmp_path, monkeypatch):
    def failing(settings, out_dir, scheduler, workers, progress, note):
        return {"finished": 1, "failed": 1, "counts": {"variants": 2}, "wall_seconds": 1.0,
                "cluster": "LocalCluster", "files": ["sweep.csv"],
                "failures": [["max-turns-2", "too big to solve exactly within 4 GiB"]]}

    monkeypatch.setattr(runner, "run_sweep", failing)
    code, out, err = spycfr(*AH, "--max-turns", "1,2", "-o", str(tmp_path / "s"))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert lines == ["failed: max-turns-2: too big to solve exactly within 4 GiB",
                     "error: 1 of 2 variants failed (their errors are above and in sweep.csv)"]


def _solved_variant(out, key="max-turns-1"):
    settings = SweepSettings(game="agent-hunter", preset="tiny", fixed={},
                             swept={"max_turns": "1,2"}, algorithm="cfr+", max_iterations=50)
    (out / "variants").mkdir(parents=True)
    task = {"key": key, "cell": {"max_turns": "1"}, "game": "agent-hunter", "preset": "tiny",
            "params": {"max_turns": "1"}, "settings": settings.solve_settings(),
            # in-process, so the limit must leave room for what the test process already holds
            "memory_limit": 8.0, "run_dir": str(out / "variants" / key),
            "row_path": str(out / "variants" / f"{key}.json")}
    row = solve_variant(task)
    assert row["status"] == "done", row.get("error")
    return settings, out / "variants" / f"{key}.json", out / "variants" / key


def test_an_edited_row_or_run_is_not_reused(tmp_path):
    settings, row_path, run_dir = _solved_variant(tmp_path / "s")
    solve = settings.solve_settings()
    assert runner._reusable(row_path, solve, run_dir) is not None
    row = json.loads(row_path.read_text())
    for field, value in (("value_p1", 0.9), ("exploitability", 1e-12), ("value_lower", "x")):
        edited = dict(row, **{field: value})
        row_path.write_text(json.dumps(edited))
        assert runner._reusable(row_path, solve, run_dir) is None, field
    row_path.write_text(json.dumps(row))
    meta = json.loads((run_dir / "run.json").read_text())
    (run_dir / "run.json").write_text(json.dumps(dict(meta, value_p1=0.9)))  # both edited
    assert runner._reusable(row_path, solve, run_dir) is None
    (run_dir / "run.json").write_text(json.dumps(meta))
    (run_dir / "strategy.npz").write_bytes(b"not the strategy")
    assert runner._reusable(row_path, solve, run_dir) is None
    row_path.write_text("[" * 100_000)
    assert runner._reusable(row_path, solve, run_dir) is None


def test_the_report_draws_odd_values(tmp_path):
    """An interval that does not hold its value, a missing or non-numeric measure: the
    report and its figure are still written (no negative error bars)."""
    table = pd.DataFrame({
        "variant": ["a", "b", "c", "d"], "max_turns": [1, 2, 3, 4],
        "status": ["done"] * 4, "nodes": [10, 20, 30, 40],
        "value_p1": [0.9, 0.0, np.nan, 0.1], "value_lower": [0.1, -1e-17, 0.0, 0.1],
        "value_upper": [0.2, 1e-17, 0.0, 0.1], "exploitability": [1e-12, 0.0, 0.0, 0.0],
        "p1_win": [0.5] * 4, "draw": [0.0] * 4, "p2_win": [0.5] * 4,
        "mean_decisions": [2.0] * 4, "seconds": [1.0] * 4, "error": [None] * 4})
    summary = {"game": "agent-hunter", "preset": "tiny", "swept": {"max_turns": "1..4"},
               "fixed": {}, "cluster": "LocalCluster", "version": "test",
               "solve": {"algorithm": "cfr+", "target_exploitability": 1e-3,
                         "max_iterations": 10, "time_limit": None}}
    path = write_report(summary, table, tmp_path)
    assert "## By max_turns" in path.read_text()
    assert (tmp_path / "value-by-max_turns.png").stat().st_size > 0


def test_names_of_grid_cells_stay_distinct():
    names, cells = expand({"cards": "3..4", "decoys": "0,1"})
    assert len({c.key for c in cells}) == 4 and names == ["cards", "decoys"]


def test_a_fair_game_is_not_drawn_at_a_1e16_scale():
    from matplotlib.figure import Figure

    from spycfr.sweep.report import MIN_VALUE_SPAN, _value_axes

    ax = Figure().subplots()
    done = pd.DataFrame({"value_p1": [1e-17, -2e-17], "value_lower": [-1e-16, -1e-16],
                         "value_upper": [1e-16, 1e-16]})
    _value_axes([ax], done)
    lo, hi = ax.get_ylim()
    assert hi - lo >= MIN_VALUE_SPAN and lo < 0 < hi
    assert ax.yaxis.get_major_formatter().get_offset() == ""


def test_the_committed_sweep_is_drawn_as_small_multiples(tmp_path, monkeypatch):
    """Issue 26 item 10: results/sweeps/agent-hunter-decoys redrawn from its table: each value
    panel holds at most two series (was 12-18 lines in one axes), each spans at least 0.1."""
    from matplotlib.figure import Figure

    from spycfr.sweep.report import MIN_VALUE_SPAN

    seen: list[tuple[int, float]] = []
    save = Figure.savefig

    def spy(fig, *args, **kwargs):
        for ax in fig.axes:
            if ax.get_ylabel().startswith("value"):
                low, high = ax.get_ylim()
                seen.append((len(ax.containers), high - low))
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    source = Path(__file__).resolve().parent.parent / "results" / "sweeps" / "agent-hunter-decoys"
    write_report(json.loads((source / "sweep.json").read_text()),
                 pd.read_parquet(source / "sweep.parquet"), tmp_path)
    assert len(seen) >= 4
    assert max(n for n, _ in seen) <= 2 and min(s for _, s in seen) >= MIN_VALUE_SPAN - 1e-12
