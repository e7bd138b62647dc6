"""What the two CUDA simulator scripts share (tests/gpu_sim.py: the history tree's GPU solver,
tests/public_gpu_sim.py: the public tree's): the table comparison, the skip report, moving a
checkpoint between the devices and ``spycfr solve``'s run directories. Imported by those
scripts only: it chooses the simulator, which must happen before numba.cuda is imported."""

from __future__ import annotations

import importlib
import json
import os
import tempfile
from collections.abc import Callable

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

TABLES = ("R", "S", "sigma", "m")


def identical(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in TABLES) and a["iteration"] == b["iteration"]


def report(gpu_module: str, compare: Callable[[], list[dict]]) -> None:
    """Print {"skip": reason} where ``gpu_module`` cannot run (numba.cuda missing or no
    simulated device), else {"results": compare()}."""
    try:
        module = importlib.import_module(gpu_module)
    except ImportError as exc:
        why: str | None = f"numba.cuda cannot be imported: {exc}"
    else:
        why = module.gpu_unavailable()
    print(json.dumps({"skip": why} if why is not None else {"results": compare()}))


def resumed(tree, cpu_class, gpu_class, iterations: int) -> list[dict]:
    """PCFR+ for ``iterations`` on one device, as many more on the other (both ways round),
    against ``2 * iterations`` on the CPU."""
    straight = cpu_class(tree, "pcfr+")
    straight.iterate(2 * iterations)
    rows = []
    for first, second in ((cpu_class, gpu_class), (gpu_class, cpu_class)):
        a = first(tree, "pcfr+")
        a.iterate(iterations)
        b = second(tree, "pcfr+")
        b.load_state_dict(a.state_dict())
        b.iterate(iterations)
        rows.append({"case": f"resume {first.__name__} -> {second.__name__}",
                     "tables": identical(b.state_dict(), straight.state_dict())})
    return rows


def run_directories(tree: str, iterations: int, label: str) -> list[dict]:
    """``spycfr solve kuhn --tree TREE``'s runs: on the GPU against one on the CPU, and one
    stopped halfway on the GPU, resumed on the CPU (cases ``label`` and ``label`` + " resumed
    on the CPU")."""
    from spycfr.runs.solve import SolveConfig, solve_run

    def config(n: int, device: str) -> SolveConfig:
        return SolveConfig(game="kuhn", preset=None, params={}, algorithm="cfr+",
                           iterations=n, check_every=2, device=device, tree=tree)

    keys = ("iterations", "strategy_sha256", "exploitability", "value_p1", "best_response_p1",
            "best_response_p2")
    with tempfile.TemporaryDirectory() as tmp:
        cpu = solve_run(config(iterations, "cpu"), out_dir=f"{tmp}/cpu")
        gpu = solve_run(config(iterations, "gpu"), out_dir=f"{tmp}/gpu")
        solve_run(config(iterations // 2, "gpu"), out_dir=f"{tmp}/resumed")
        back = solve_run(config(iterations, "cpu"), resume=f"{tmp}/resumed")
        with open(f"{tmp}/gpu/run.json") as f:
            saved = json.load(f)
    same = [{k: getattr(run, k) for k in keys} for run in (cpu, gpu, back)]
    logs = [[(r["iteration"], r["exploitability"]) for r in run.log] for run in (cpu, gpu)]
    return [{"case": label, "tables": same[1] == same[0] and logs[0] == logs[1]
             and (cpu.device, gpu.device) == ("cpu", "gpu")
             and saved.get("device") == "gpu" and saved.get("tree") == tree},
            {"case": f"{label} resumed on the CPU", "tables": same[2] == same[0]
             and back.device == "cpu"}]
