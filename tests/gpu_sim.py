"""The GPU solver against the CPU solver under numba's CUDA simulator; run as a script by
tests/test_gpu.py in a child process (the simulator must be chosen before numba.cuda is
imported). Prints one JSON object: {"skip": reason} or {"results": [...]}."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

from spycfr.cfr import ALGORITHMS  # noqa: E402 (imports numba, not numba.cuda)

TABLES = ("R", "S", "sigma", "m")
# (game, preset, algorithm, alternating, iterations, exploitability too): every algorithm,
# a new one included, in both update modes on Kuhn.
CASES = [("kuhn", None, a, alt, 5, True) for a in ALGORITHMS for alt in (True, False)] + [
    ("leduc", None, "cfr+", True, 1, False),
    ("agent-hunter", "tiny", "dcfr", True, 2, True),
]


def identical(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in TABLES) and a["iteration"] == b["iteration"]


def main() -> None:
    try:
        from spycfr.cfr.gpu import GPUCFRSolver, gpu_unavailable
    except ImportError as exc:
        print(json.dumps({"skip": f"numba.cuda cannot be imported: {exc}"}))
        return
    why = gpu_unavailable()
    if why is not None:
        print(json.dumps({"skip": why}))
        return
    from spycfr.cfr import CFRSolver
    from spycfr.exact.best_response import best_response, expected_value
    from spycfr.games import build_tree, make_game

    trees, results = {}, []
    for game, preset, algorithm, alternating, iterations, measure in CASES:
        t0 = time.perf_counter()
        tree = trees.setdefault((game, preset), build_tree(make_game(game, preset, {})))
        cpu = CFRSolver(tree, algorithm, alternating=alternating)
        gpu = GPUCFRSolver(tree, algorithm, alternating=alternating)
        cpu.iterate(iterations)
        gpu.iterate(iterations)
        row = {"case": f"{game}:{preset or ''}:{algorithm}:{'alt' if alternating else 'sim'}",
               "tables": identical(cpu.state_dict(), gpu.state_dict()),
               "average": bool(np.array_equal(cpu.average_strategy(), gpu.average_strategy())),
               "current": bool(np.array_equal(cpu.current_strategy(), gpu.current_strategy()))}
        if measure:
            avg = cpu.average_strategy()
            want = (best_response(tree, avg, 0)[0], best_response(tree, avg, 1)[0],
                    expected_value(tree, avg))
            row["exploitability"] = cpu.exploitability() == gpu.exploitability()
            if game == "kuhn":
                row["profile_values"] = gpu.profile_values() == want
        row["seconds"] = time.perf_counter() - t0
        results.append(row)
    # Checkpoints across devices: CPU 3 iterations, GPU 2 more; GPU 3, CPU 2 more.
    tree = trees[("kuhn", None)]
    straight = CFRSolver(tree, "pcfr+")
    straight.iterate(5)
    for first, second in ((CFRSolver, GPUCFRSolver), (GPUCFRSolver, CFRSolver)):
        a = first(tree, "pcfr+")
        a.iterate(3)
        b = second(tree, "pcfr+")
        b.load_state_dict(a.state_dict())
        b.iterate(2)
        results.append({"case": f"resume {first.__name__} -> {second.__name__}",
                        "tables": identical(b.state_dict(), straight.state_dict())})
    results += run_directories()
    print(json.dumps({"results": results}))


def run_directories() -> list[dict]:
    """spycfr solve's runs: on the GPU, resumed on the CPU, against one CPU run."""
    from spycfr.runs.solve import SolveConfig, solve_run

    def config(iterations: int, device: str | None) -> SolveConfig:
        return SolveConfig(game="kuhn", preset=None, params={}, algorithm="cfr+",
                           iterations=iterations, check_every=2, device=device)

    keys = ("iterations", "strategy_sha256", "exploitability", "value_p1", "best_response_p1",
            "best_response_p2")
    with tempfile.TemporaryDirectory() as tmp:
        cpu = solve_run(config(6, "cpu"), out_dir=f"{tmp}/cpu")
        gpu = solve_run(config(6, "gpu"), out_dir=f"{tmp}/gpu")
        solve_run(config(3, "gpu"), out_dir=f"{tmp}/resumed")
        resumed = solve_run(config(6, "cpu"), resume=f"{tmp}/resumed")
    same = [{k: getattr(run, k) for k in keys} for run in (cpu, gpu, resumed)]
    logs = [[(r["iteration"], r["exploitability"]) for r in run.log] for run in (cpu, gpu)]
    return [{"case": "run on the GPU", "tables": same[1] == same[0] and logs[0] == logs[1]
             and (cpu.device, gpu.device) == ("cpu", "gpu")},
            {"case": "run on the GPU resumed on the CPU", "tables": same[2] == same[0]
             and resumed.device == "cpu"}]


if __name__ == "__main__":
    sys.exit(main())
