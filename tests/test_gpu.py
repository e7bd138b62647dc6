"""The GPU backend (numba.cuda): bit-identical to the CPU kernels under numba's CUDA simulator
(a child process: the simulator is chosen before numba.cuda is imported), and --device's
choices and errors. Skipped when numba.cuda cannot be imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import spycfr
from spycfr.cfr import ALGORITHMS
from spycfr.cfr.gpu import breadth_first, gpu_unavailable
from spycfr.games import build_tree, make_game
from test_runs import one_line_error, solve

ROOT = Path(__file__).resolve().parent.parent


def run_simulator(script: str) -> list[dict]:
    """The results that ``tests/SCRIPT`` (a CUDA simulator harness, tests/cuda_sim.py)
    prints, from a child process; the test is skipped where it reports a skip."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "tests" / script)], env=env,
                          capture_output=True, text=True, timeout=1200, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    return out["results"]


@pytest.fixture(scope="module")
def simulated() -> list[dict]:
    return run_simulator("gpu_sim.py")


@pytest.mark.slow
def test_gpu_kernels_equal_cpu_bit_for_bit(simulated):
    """Regrets, strategy sums, current and average strategies, exploitability and the final
    values of every algorithm (alternating and simultaneous) on Kuhn; Leduc and Agent Hunter
    tiny; checkpoints moved between the devices; spycfr solve's run directories."""
    cases = {row["case"] for row in simulated}
    for algorithm in ALGORITHMS:
        assert {f"kuhn::{algorithm}:alt", f"kuhn::{algorithm}:sim"} <= cases
    assert any(c.startswith("leduc") for c in cases)
    assert any(c.startswith("agent-hunter") for c in cases)
    assert any(c.startswith("resume") for c in cases)
    bad = [row for row in simulated
           if not all(v for k, v in row.items() if k not in ("case", "seconds"))]
    assert not bad, bad


def test_breadth_first_layout():
    """Each depth one contiguous range, children contiguous and in order, a permutation."""
    tree = build_tree(make_game("agent-hunter", "tiny", {}))
    old_of_new, new_of_old, depth_start = breadth_first(tree.first_child, tree.num_children)
    n = tree.num_nodes
    assert sorted(old_of_new) == list(range(n))
    assert (new_of_old[old_of_new] == range(n)).all()
    assert depth_start[0] == 0 and depth_start[-1] == n
    assert len(depth_start) == tree.depth() + 2
    depth = {0: 0}
    for u in range(n):  # new ids: the children of u follow the children of u - 1
        o = old_of_new[u]
        for a in range(tree.num_children[o]):
            child = new_of_old[tree.first_child[o] + a]
            assert child == new_of_old[tree.first_child[o]] + a
            depth[child] = depth[u] + 1
    for d in range(len(depth_start) - 1):
        assert {depth[u] for u in range(depth_start[d], depth_start[d + 1])} == {d}


def test_device_choices():
    run = solve("kuhn", "--iterations", "5", "--device", "auto")
    assert run["device"] in ("cpu", "gpu")
    assert solve("kuhn", "--iterations", "5")["device"] == "cpu"
    one_line_error(["solve", "kuhn", "--device", "tpu"], "--device must be one of cpu, gpu, auto")
    one_line_error(["solve", "kuhn", "--algorithm", "es-mccfr", "--device", "gpu"],
                   "--device gpu runs the full-tree algorithms")
    code, _, err = spycfr("solve", "kuhn", "--algorithm", "es-mccfr", "--iterations", "10",
                          "--device", "auto", "-q")
    assert code == 0, err


@pytest.mark.skipif(gpu_unavailable() is None, reason="a GPU is present")
def test_device_gpu_without_gpu_is_one_line():
    line = one_line_error(["solve", "kuhn", "--device", "gpu"], "--device gpu: ")
    assert "--device cpu" in line


def test_resume_takes_a_new_device(tmp_path):
    straight = solve("kuhn", "--iterations", "8", "--check-every", "4")
    solve("kuhn", "--iterations", "4", "--check-every", "4", "-o", str(tmp_path / "run"))
    resumed = solve("--resume", str(tmp_path / "run"), "--iterations", "8", "--device", "auto")
    assert resumed["strategy_sha256"] == straight["strategy_sha256"]
    assert resumed["exploitability"] == straight["exploitability"]
