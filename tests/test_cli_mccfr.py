"""`spycfr solve --algorithm es-mccfr|os-mccfr`: exact exploitability on enumerable variants,
a labelled estimate (never an exact number) on `standard`, run directories, bit-identical
resume, the memory stop and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.cfr.mccfr import REGRET_BOUND_KIND
from spycfr.exact.best_response import exploitability
from spycfr.games import build_tree
from spycfr.games.agent_hunter import make_game
from spycfr.memory import rss_bytes

AH = "agent-hunter"


def solve_json(*args: str) -> dict:
    code, out, err = spycfr("solve", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def checkpoint_arrays(run_dir) -> dict:
    with np.load(run_dir / "checkpoint.npz") as data:
        return {k: data[k] for k in data.files if k != "meta"}


@pytest.fixture(scope="module")
def tiny_tree():
    return build_tree(make_game("tiny"))


@pytest.mark.slow
def test_es_mccfr_small_variant_is_exact(tmp_path, tiny_tree):
    out_dir = tmp_path / "es"
    res = solve_json(AH, "--preset", "tiny", "--algorithm", "es-mccfr",
                     "--iterations", "2000", "--seed", "3", "-o", str(out_dir))
    assert res["algorithm"] == "es-mccfr" and res["iterations"] == 2000 and res["seed"] == 3
    assert res["tree_enumerated"] is True and res["exploitability_estimate"] is None
    # Exact: the best response of the saved strategy on an independently built tree.
    with np.load(out_dir / "strategy.npz") as data:
        strategy = data["average"]
    assert res["exploitability"] == pytest.approx(exploitability(tiny_tree, strategy), abs=1e-12)
    assert res["nash_conv"] == pytest.approx(2 * res["exploitability"], rel=1e-12)
    uniform = exploitability(tiny_tree, tiny_tree.uniform_strategy())
    assert res["exploitability"] < 0.5 * uniform
    assert res["epsilon"] is None and res["infosets_seen"] <= tiny_tree.num_infosets
    for name in ("run.json", "strategy.npz", "strategy.parquet", "strategy.csv",
                 "convergence.csv", "checkpoint.npz"):
        assert (out_dir / name).is_file(), name
    # The analysis commands read it like a full-tree run.
    code, out, _ = spycfr("openings", str(out_dir), "--json")
    assert code == 0
    p1 = json.loads(out)["P1"]["placements"]
    assert len(p1) == 6 and sum(r["probability"] for r in p1) == pytest.approx(1.0)


@pytest.mark.slow
def test_os_mccfr_standard_reports_an_estimate_only(tmp_path):
    out_dir = tmp_path / "std"
    # Compile first (a fresh cache compiles in this process, which takes far more than 30 MiB)
    assert spycfr("solve", AH, "--preset", "standard", "--algorithm", "os-mccfr",
                  "--iterations", "2", "-q")[0] == 0
    # The limit is on the resident memory of this (test) process: 120 MiB more than now (the
    # solver keeps a margin of 1/32 of the limit and at least 64 MiB).
    limit = (rss_bytes() + 120 * 2**20) / 2**30
    code, out, err = spycfr("solve", AH, "--preset", "standard",
                         "--algorithm", "os-mccfr", "--iterations", "1000000", "--memory-limit",
                         f"{limit:.6f}", "--epsilon", "0.5", "-o", str(out_dir), "--json")
    assert code == 0, err
    res = json.loads(out)
    # Progress on stderr says the exploitability is unknown: the sampled bound (far above the
    # payoff span 2) bounds nothing.
    assert "exploitability unknown" in err and "it/s" in err
    assert res["exploitability"] is None and res["nash_conv"] is None
    assert res["value_p1"] is None and res["tree_enumerated"] is False
    assert res["estimated_nodes"] > 1e20
    est = res["exploitability_estimate"]
    assert est["kind"] == REGRET_BOUND_KIND and "not an exact" in est["kind"]
    assert est["value"] > 0 and np.isfinite(est["value"]) and est["iteration"] == res["iterations"]
    assert est["value"] > est["payoff_span"] == 2.0 and not est["informative"]
    assert "bounds nothing" in est["note"]
    # Stopped cleanly by the memory limit, below it, with the state checkpointed.
    assert res["stopped_by"] == "memory" and 0 < res["iterations"] < 1_000_000
    # The promise is on resident memory. What the tables hold may exceed the 120 MiB of room
    # measured above: the process can give memory back before the solver starts.
    assert 0 < res["memory"]["bytes_allocated"] < limit * 2**30 and rss_bytes() <= limit * 2**30
    assert res["infosets_seen"] == res["infosets_seen_p1"] + res["infosets_seen_p2"] > 0
    saved = json.loads((out_dir / "run.json").read_text())
    assert saved["exploitability"] is None and saved["epsilon"] == 0.5
    assert saved["version"] and saved["seed"] == 0 and saved["solve_seconds"] > 0
    assert not (out_dir / "strategy.npz").exists()
    assert int(checkpoint_arrays(out_dir)["counts"][0]) == res["infosets_seen"]
    header = (out_dir / "convergence.csv").read_text().splitlines()[0]
    assert header == "iteration,seconds,exploitability_estimate"

    # openings.csv: 10*9*8 placements per player, a distribution each, values empty.
    code, out, _ = spycfr("openings", str(out_dir), "--json")
    assert code == 0
    openings = json.loads(out)
    assert "exploitability not measured" in openings["caveat"]
    for player in ("P1", "P2"):
        rows = openings[player]["placements"]
        assert len(rows) == 720 and all(r["opening"].startswith("place:") for r in rows)
        assert sum(r["probability"] for r in rows) == pytest.approx(1.0)
        assert all(r["br_value"] is None and r["eq_value"] is None for r in rows)
        assert rows[0]["probability"] > 1 / 720  # learnt, not uniform
    code, out, _ = spycfr("openings", str(out_dir), "--top", "3")
    assert code == 0 and "approximate: MCCFR, exploitability not measured" in out
    # export writes the table it stored; query needs a run keyed by the abstraction.
    code, out, err = spycfr("export", str(out_dir), "--format", "parquet")
    assert code == 0 and "infosets stored" in err + out
    code, out, err = spycfr("query", str(out_dir), "--as", "P1")
    assert code == 2 and err.startswith("error: ") and "--abstraction" in err

    # Resuming with a larger memory limit continues the same run (room for the loaded table,
    # its checkpoint copy and growth beside what this test process holds: 200 MiB once
    # stopped 10 iterations short).
    more = res["iterations"] + 10
    again = solve_json("--resume", str(out_dir), "--iterations", str(more),
                       "--memory-limit", f"{(rss_bytes() + 600 * 2**20) / 2**30:.6f}", "-q")
    assert again["iterations"] == more and again["stopped_by"] == "iterations"


@pytest.mark.parametrize(
    ("preset", "algorithm", "key"),
    [("standard", "os-mccfr", "state_sha256"), ("tiny", "es-mccfr", "strategy_sha256")],
)
def test_resume_is_bit_identical(tmp_path, preset, algorithm, key):
    common = (AH, "--preset", preset, "--algorithm", algorithm, "--seed", "7", "-q")
    straight = solve_json(*common, "--iterations", "4",
                          "-o", str(tmp_path / "straight"))
    first = solve_json(*common, "--iterations", "2", "--checkpoint-every",
                       "1", "-o", str(tmp_path / "split"))
    assert first["iterations"] == 2 and first[key] != straight[key]
    resumed = solve_json("--resume", str(tmp_path / "split"),
                         "--iterations", "4", "-q")
    assert resumed["iterations"] == 4 and resumed[key] == straight[key]
    a, b = checkpoint_arrays(tmp_path / "straight"), checkpoint_arrays(tmp_path / "split")
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    if preset == "tiny":
        with np.load(tmp_path / "straight" / "strategy.npz") as x, \
                np.load(tmp_path / "split" / "strategy.npz") as y:
            assert np.array_equal(x["average"], y["average"])
        assert resumed["exploitability"] == straight["exploitability"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ([AH, "--preset", "tiny", "--algorithm", "os-mccfr", "--epsilon", "0"], "--epsilon"),
        ([AH, "--preset", "tiny", "--algorithm", "os-mccfr", "--epsilon", "1.5"], "(0, 1]"),
        ([AH, "--preset", "tiny", "--algorithm", "os-mccfr", "--epsilon", "x"], "--epsilon"),
        ([AH, "--preset", "tiny", "--algorithm", "es-mccfr", "--epsilon", "0.5"], "os-mccfr only"),
        ([AH, "--preset", "tiny", "--algorithm", "es-mccfr", "--memory-limit", "0"],
         "--memory-limit"),
        ([AH, "--preset", "tiny", "--algorithm", "es-mccfr", "--memory-limit", "1e6"],
         "half the RAM"),
        ([AH, "--preset", "tiny", "--algorithm", "es-mccfr", "--simultaneous"], "alternates"),
        ([AH, "--preset", "standard", "--algorithm", "es-mccfr"], "outcome sampling"),
        ([AH, "--preset", "standard", "--algorithm", "os-mccfr", "--target-exploitability",
          "0.1"], "too big to enumerate"),
        ([AH, "--preset", "tiny", "--algorithm", "mccfr"], "unknown algorithm"),
        (["kuhn", "--algorithm", "os-mccfr", "--abstraction"], "no information abstraction"),
        (["agent-avenue", "--preset", "tiny", "--abstraction"], "--abstraction applies"),
        (["--resume", "nowhere", "--algorithm", "es-mccfr"], "drop --algorithm"),
    ],
)
def test_bad_input_is_one_line(args, fragment):
    code, out, err = spycfr("solve", *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], err


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["es-mccfr", "os-mccfr"])
def test_mccfr_samples_chance_on_kuhn(algorithm):
    """MCCFR runs on every game of the protocol, chance sampled: on Kuhn poker the exact
    exploitability falls well below the uniform profile's (0.458) and the value nears -1/18."""
    code, out, err = spycfr("solve", "kuhn", "--algorithm", algorithm, "--iterations", "20000",
                            "--seed", "4", "--json", "-q")
    assert code == 0, err
    res = json.loads(out)
    assert res["tree_enumerated"] is True
    assert res["exploitability"] < 0.02
    assert abs(res["value_p1"] + 1 / 18) < 0.02


@pytest.mark.slow
def test_memory_limit_holds_for_the_peak_resident_memory(tmp_path):
    """In a process of its own, the peak resident memory (getrusage) stays under the limit."""
    proc = subprocess.run(
        [sys.executable, "-m", "spycfr.cli.main", "solve", "agent-avenue", "--preset", "standard",
         "--algorithm", "os-mccfr", "--iterations", "100000000", "--memory-limit", "0.6",
         "-o", str(tmp_path / "std"), "--json", "-q"],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parent.parent)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    got = {k: res[k] for k in ("stopped_by", "iterations", "peak_rss_bytes", "memory")}
    assert res["stopped_by"] == "memory" and res["iterations"] > 1000, got
    assert 0.3 * 2**30 < res["peak_rss_bytes"] <= 0.6 * 2**30, got
