"""--memory-limit on full-tree solves: hopeless trees are refused at once, enumeration and the
solver are checked before they allocate, tables that would not fit are left for later, and
the process's measured peak resident memory stays under the limit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spycfr import memory as memory_module
from spycfr.engine import enumerate as enumerate_module
from spycfr.errors import SpycfrError
from spycfr.memory import MemoryLimitError
from spycfr.runs import engines
from spycfr.runs import game as game_module
from spycfr.runs import solve as solve_module
from spycfr.runs.config import SolveConfig
from spycfr.runs.solve import solve_run
from spycfr.runs.store import RUN_JSON, load_run

ROOT = Path(__file__).resolve().parent.parent
AH = "agent-hunter"

# Runs the CLI in a process of its own and prints its exit code and peak resident memory.
CHILD = """
import json, sys
from spycfr.memory import peak_rss_bytes
from spycfr.cli.main import main
sys.argv = ["spycfr"] + json.loads(sys.argv[1])
code = 0
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "peak": peak_rss_bytes()}), file=sys.stderr)
"""


def _run_cli(args: list[str], timeout: float = 600) -> tuple[dict, str, str]:
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    *err, last = proc.stderr.strip().splitlines()
    return json.loads(last), proc.stdout, "\n".join(err)


def test_a_hopeless_tree_is_refused_at_once_under_the_limit():
    """About 55 M nodes need some 6 GiB: refused from the estimate, before enumerating (the
    error is the estimate's, "(estimated)"; no wall-clock bound, which a cold numba cache
    under load could pass)."""
    got, out, err = _run_cli(
        ["solve", AH, "--algorithm", "cfr+", "--cards", "5", "--houses", "2", "--decoys", "1",
         "--max-turns", "4", "--memory-limit", "2"])
    assert got["code"] == 2 and out == ""
    assert err.startswith("error: --memory-limit 2 GiB: the tree of about") and \
        "(estimated)" in err and "es-mccfr" in err, err
    assert len(err.splitlines()) == 1
    assert got["peak"] < 2 * 2**30, got


@pytest.mark.slow
def test_a_full_tree_run_under_a_limit_stays_under_it(tmp_path):
    got, out, err = _run_cli(
        ["solve", "agent-avenue", "--preset", "mini", "--iterations", "20", "--memory-limit",
         "1", "-o", str(tmp_path / "run"), "--json", "-q"])
    assert got["code"] in (0, None), err
    res = json.loads(out)
    assert res["peak_rss_bytes"] <= 2**30 and got["peak"] <= 2**30, got
    assert "tables_skipped" not in res and (tmp_path / "run" / "strategy.parquet").is_file()


def test_enumeration_checks_every_growth(monkeypatch):
    """An estimate far too low gets past the first check; the enumerator's own check refuses
    before growing its buffers past the limit. The resident memory the budget reads is a
    model, a fixed base plus every buffer the enumerator has grown into: the process's real
    resident set also moves with what else runs (freed garbage, shared-library pages evicted
    and read back under load), which made the same assertion on it fail once in a while."""
    base, held = 2**30, [0]

    def grown(old: np.ndarray, new: np.ndarray) -> np.ndarray:
        held[0] += new.nbytes - old.nbytes
        return new

    enlarged, table_grown = enumerate_module._enlarged, enumerate_module.hm_grown
    monkeypatch.setattr(enumerate_module, "_enlarged",
                        lambda a, size, fill=None: grown(a, enlarged(a, size, fill)))
    monkeypatch.setattr(enumerate_module, "hm_grown", lambda t: grown(t, table_grown(t)))
    monkeypatch.setattr(memory_module, "rss_bytes", lambda: base + held[0])
    monkeypatch.setattr(game_module, "estimate_nodes", lambda params: 1.0)
    limit = base + 100 * 2**20
    with pytest.raises(MemoryLimitError, match="enumerating the agent-hunter tree") as info:
        solve_run(SolveConfig(game=AH, preset="small", params={}, iterations=1,
                              memory_limit=limit / 2**30))
    assert "GiB are resident already" in str(info.value)
    assert held[0] > 16 * 2**20  # it grew its buffers, each growth checked, ...
    assert base + held[0] <= limit  # ... and refused the one that would pass the limit


def _resident_1_gib(monkeypatch) -> None:
    """These tests solve in pytest's own worker under --memory-limit 4: its resident memory is
    whatever earlier test files left (6.66 GiB in one CI worker), which would refuse before
    the estimate under test is reached; the estimates alone decide here."""
    monkeypatch.setattr(memory_module, "rss_bytes", lambda: 2**30)


def test_the_solver_is_checked_once_the_tree_is_known(monkeypatch):
    _resident_1_gib(monkeypatch)
    monkeypatch.setattr(engines, "solve_bytes", lambda tree, config: 1e15)
    with pytest.raises(MemoryLimitError, match=r"solving the tree of 7,339 nodes"):
        solve_run(SolveConfig(game=AH, preset="tiny", params={}, iterations=1,
                              memory_limit=4.0))


def test_tables_that_would_not_fit_are_left_for_export(tmp_path, monkeypatch):
    _resident_1_gib(monkeypatch)
    monkeypatch.setattr(solve_module, "TABLE_BYTES_FIXED", 1e15)
    meta = solve_run(SolveConfig(game=AH, preset="tiny", params={}, iterations=10,
                                 memory_limit=4.0), out_dir=tmp_path / "run")
    assert "spycfr export" in meta.tables_skipped
    assert not (tmp_path / "run" / "strategy.parquet").exists()
    assert "strategy.parquet" not in meta.files
    assert json.loads((tmp_path / "run" / RUN_JSON).read_text())["tables_skipped"]
    run = load_run(tmp_path / "run")  # the run is whole without its tables
    assert run.strategy.shape[0] == run.tree.num_infosets
    monkeypatch.undo()
    _resident_1_gib(monkeypatch)
    meta2 = solve_run(SolveConfig(game=AH, preset="tiny", params={}, iterations=10,
                                  memory_limit=4.0), out_dir=tmp_path / "run2")
    assert meta2.tables_skipped is None and "strategy.parquet" in meta2.files


def test_mccfr_goes_without_a_tree_that_would_not_fit(monkeypatch):
    _resident_1_gib(monkeypatch)
    monkeypatch.setattr(engines, "TREE_BYTES_PER_NODE", 1e12)
    meta = solve_run(SolveConfig(game=AH, preset="tiny", params={}, algorithm="es-mccfr",
                                 iterations=20, memory_limit=4.0))
    assert meta.tree_enumerated is False and meta.exploitability is None
    assert "--memory-limit 4 GiB" in meta.tree_not_enumerated_because
    with pytest.raises(SpycfrError, match="--target-exploitability needs an exact best "
                                          "response, and --memory-limit"):
        solve_run(SolveConfig(game=AH, preset="tiny", params={}, algorithm="es-mccfr",
                              target_exploitability=0.1, memory_limit=4.0))
