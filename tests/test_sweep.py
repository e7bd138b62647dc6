"""Variant sweeps: the grid, a LocalCluster sweep, resume, failures, and a real Dask
scheduler with two workers, one killed mid-sweep."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from cli_helpers import spycfr
from spycfr.errors import SpycfrError
from spycfr.runs.solve import SolveConfig, solve_run
from spycfr.sweep.grid import expand, parse_values, split_grid
from spycfr.sweep.runner import SweepSettings, run_sweep

ROOT = Path(__file__).resolve().parent.parent


def test_values_lists_ranges_and_semicolons():
    assert parse_values("cards", "3,4") == ["3", "4"]
    assert parse_values("max_turns", "2..4,6") == ["2", "3", "4", "6"]
    assert parse_values("names", "DA,EN,CB;DA,EN") == ["DA,EN,CB", "DA,EN"]
    assert parse_values("decoy_rule", "any") == ["any"]
    for text, message in (("3,,4", "empty value"), ("4..2", "ends below its start"),
                          ("3,3", "repeats a value")):
        with pytest.raises(SpycfrError, match=message):
            parse_values("cards", text)


def test_grid_is_the_product_of_the_swept_values():
    fixed, swept = split_grid({"cards": "3", "decoys": "0..1", "decoy_rule": "any,switched"})
    assert fixed == {"cards": "3"}
    names, cells = expand(swept)
    assert names == ["decoys", "decoy_rule"]
    assert [c.params for c in cells] == [
        {"decoys": "0", "decoy_rule": "any"}, {"decoys": "0", "decoy_rule": "switched"},
        {"decoys": "1", "decoy_rule": "any"}, {"decoys": "1", "decoy_rule": "switched"}]
    assert cells[1].key == "decoys-0_decoy-rule-switched"
    with pytest.raises(SpycfrError, match="at most 10,000"):
        expand({"cards": "1..101", "decoys": "1..101"})


def _settings(**swept) -> SweepSettings:
    return SweepSettings(game="agent-hunter", preset="tiny", fixed={}, swept=swept,
                         algorithm="cfr+", target_exploitability=1e-3, memory_per_worker=4.0)


def _direct_value(params: dict) -> float:
    """The value of the variant solved in this process with the sweep's settings, but for
    the memory limit: the sweep's 4 GiB is a worker's, and this process is pytest's, whose
    resident memory is whatever earlier test files left (6.66 GiB in a CI run, which refused)."""
    config = SolveConfig(game="agent-hunter", preset="tiny", params=params,
                         iterations=100_000, target_exploitability=1e-3, check_every=100)
    return solve_run(config, write_tables=False).value_p1


@pytest.mark.slow
def test_local_cluster_sweep_then_resume(tmp_path):
    out = tmp_path / "sweep"
    # 0 is not a valid turn limit: refused before any cluster starts, nothing solved
    with pytest.raises(SpycfrError, match="1 of 3 variants are invalid, nothing was solved: "
                                          "max_turns=0"):
        run_sweep(_settings(max_turns="0..2"), out, workers=2)
    assert not out.exists()
    settings = _settings(max_turns="1..2")
    seen, notes = [], []
    summary = run_sweep(settings, out, workers=2, progress=seen.append, note=notes.append)
    assert notes[0] == "2 variants checked: 2 to solve" and "LocalCluster of 2" in notes[1]
    table = pd.read_parquet(out / "sweep.parquet")
    assert list(table["max_turns"]) == [1, 2]
    assert list(table["status"]) == ["done", "done"]
    for _, row in table[table["status"] == "done"].iterrows():
        assert row["value_p1"] == _direct_value({"max_turns": str(row["max_turns"])})
        assert row["value_lower"] <= row["value_p1"] <= row["value_upper"]
        assert row["p1_win"] + row["draw"] + row["p2_win"] == pytest.approx(1.0)
        assert (out / "variants" / row["variant"] / "run.json").is_file()
    assert summary["finished"] == 2 and summary["failed"] == 0
    assert seen[-1]["todo"] == 0
    report = (out / "report.md").read_text()
    assert "## By max_turns" in report and (out / "value-by-max_turns.png").is_file()

    # Again: the solved variants are skipped (their rows verified against their runs).
    mtimes = {p: p.stat().st_mtime_ns for p in (out / "variants").glob("*.json")}
    summary = run_sweep(settings, out, workers=2)
    assert summary["counts"]["skipped"] == 2 and summary["counts"]["todo"] == 0
    for path, mtime in mtimes.items():
        assert json.loads(path.read_text())["status"] == "done"
        assert path.stat().st_mtime_ns == mtime

    # By default each variant is solved as `spycfr solve` would (auto: the exact LP here).
    summary = run_sweep(SweepSettings(game="agent-hunter", preset="tiny", fixed={},
                                      swept={"max_turns": "1,2"}), tmp_path / "auto",
                        workers=1)
    table = pd.read_parquet(tmp_path / "auto" / "sweep.parquet")
    assert list(table["algorithm"]) == ["lp", "lp"]
    assert (table["exploitability"] < 1e-9).all()


def test_sweep_cli_errors(tmp_path):
    code, _, err = spycfr("sweep", "agent-hunter", "--preset", "tiny", "--decoys", "0..1",
                          "-o", str(tmp_path / "s"), "--algorithm", "os-mccfr")
    assert code != 0 and "solve each variant exactly" in err
    code, _, err = spycfr("sweep", "agent-hunter", "--decoys", "2..1", "-o",
                          str(tmp_path / "s"))
    assert code != 0 and "ends below its start" in err
    code, _, err = spycfr("sweep", "kuhn", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2",
                          "-o", str(tmp_path / "s"))
    assert code != 0 and "--workers and --memory-per-worker size a LocalCluster" in err
    assert "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


@pytest.mark.slow
def test_scheduler_and_two_workers_survive_a_killed_worker(tmp_path):
    from distributed import Client

    address = f"tcp://127.0.0.1:{_free_port()}"
    procs = [_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                     address.rsplit(":", 1)[1], "--no-dashboard"], tmp_path / "scheduler.log")]
    try:
        time.sleep(2)
        for i in range(2):
            procs.append(_start(["distributed.cli.dask_worker", address, "--nthreads", "1",
                                 "--no-nanny", "--name", f"w{i}", "--no-dashboard"],
                                tmp_path / f"worker{i}.log"))
        with Client(address, timeout="60s") as watcher:
            watcher.wait_for_workers(2, timeout=60)
            out = tmp_path / "sweep"
            # Eight variants of up to a few seconds each (a tight target on trees of at most
            # 7,339 nodes).
            settings = SweepSettings(game="agent-hunter", preset="tiny", fixed={},
                                     swept={"decoy_rule": "any,switched", "decoys": "0..1",
                                            "max_turns": "1,2"},
                                     algorithm="cfr+", target_exploitability=1e-5,
                                     memory_per_worker=4.0)
            result: dict = {}
            thread = threading.Thread(target=lambda: result.update(
                summary=run_sweep(settings, out, scheduler=address)))
            thread.start()
            victim = procs[2]
            deadline, busy_at_kill = time.monotonic() + 120, False
            while time.monotonic() < deadline:  # wait until w1 is busy with a variant
                busy = {w for w, keys in watcher.processing().items() if keys}
                names = {w: info["name"] for w, info in
                         watcher.scheduler_info()["workers"].items()}
                if any(names.get(w) == "w1" for w in busy):
                    time.sleep(0.5)  # inside the variant, not at its first instruction
                    busy_at_kill = True
                    break
                time.sleep(0.1)
            os.killpg(victim.pid, signal.SIGKILL)
            assert busy_at_kill
            thread.join(timeout=600)
            assert not thread.is_alive()
        table = pd.read_parquet(out / "sweep.parquet")
        assert (table["status"] == "done").all(), table[["variant", "status", "error"]]
        for _, row in table.iterrows():
            config = SolveConfig(game="agent-hunter", preset="tiny",
                                 params={"decoy_rule": row["decoy_rule"],
                                         "decoys": str(row["decoys"]),
                                         "max_turns": str(row["max_turns"])},
                                 iterations=100_000, target_exploitability=1e-5,
                                 check_every=100)  # no limit here: see _direct_value
            assert row["value_p1"] == solve_run(config, write_tables=False).value_p1
        assert result["summary"]["cluster"] == f"scheduler {address}"
    finally:
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
