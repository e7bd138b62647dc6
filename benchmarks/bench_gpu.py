"""The GPU backend against the CPU kernel in one process: bit-identity, seconds per iteration,
exploitability time, GPU memory, and time to a target exploitability end to end.

Run from the repository root on a machine with an NVIDIA GPU and numba-cuda:

    python benchmarks/bench_gpu.py --check mini --cases small,5/2/1/4 --target-case 5/2/1/4

A case is an Agent Hunter preset (tiny, mini, small, ...) or CARDS/HOUSES/DECOYS/MAX_TURNS.
Timings: the mean over ``--cpu-iterations`` / ``--gpu-iterations`` iterations after a warm-up
(the GPU's include the synchronisation at the end); the CPU kernel runs on one thread.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from spycfr.cfr import ALGORITHMS, CFRSolver  # noqa: E402
from spycfr.cfr.gpu import GPUCFRSolver, device_bytes, gpu_unavailable  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402

TABLES = ("R", "S", "sigma", "m")


def _tree(case: str):
    if "/" in case:
        c, h, d, t = case.split("/")
        params = {"cards": c, "houses": h, "decoys": d, "max_turns": t}
        game = make_game("agent-hunter", None, params)
    else:
        game = make_game("agent-hunter", case, {})
    t0 = time.perf_counter()
    tree = build_tree(game)
    return tree, time.perf_counter() - t0


def _same(a: CFRSolver, b: CFRSolver) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return all(np.array_equal(sa[k], sb[k]) for k in TABLES)


def _used_gpu_bytes(cuda) -> float:
    free, total = cuda.current_context().get_memory_info()
    return float(total - free)  # NaN under the simulator


def check(case: str, iterations: int) -> list[dict]:
    """Every algorithm, alternating and simultaneous: GPU tables and exploitability equal to
    the CPU's bit for bit after ``iterations``."""
    tree, _ = _tree(case)
    rows = []
    for algorithm in ALGORITHMS:
        for alternating in (True, False):
            cpu = CFRSolver(tree, algorithm, alternating=alternating)
            gpu = GPUCFRSolver(tree, algorithm, alternating=alternating)
            cpu.iterate(iterations)
            gpu.iterate(iterations)
            e_cpu, e_gpu = cpu.exploitability(), gpu.exploitability()
            rows.append({"case": case, "algorithm": algorithm, "alternating": alternating,
                         "iterations": iterations, "tables_identical": _same(cpu, gpu),
                         "exploitability_identical": e_cpu == e_gpu, "exploitability": e_cpu})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def bench(case: str, cpu_iterations: int, gpu_iterations: int, algorithm: str) -> dict:
    """Seconds per iteration and per exploitability, CPU against GPU, on one tree."""
    from numba import cuda

    tree, build = _tree(case)
    row = {"case": case, "algorithm": algorithm, "nodes": tree.num_nodes,
           "infosets": tree.num_infosets, "depth": tree.depth(), "build_s": build,
           "host_bytes_per_node": tree.nbytes / tree.num_nodes}
    used0 = _used_gpu_bytes(cuda)
    t0 = time.perf_counter()
    gpu = GPUCFRSolver(tree, algorithm)
    row["gpu_setup_s"] = time.perf_counter() - t0
    gpu.warm_up()
    gpu.exploitability()  # compiles the best-response kernels
    row["gpu_bytes_used"] = _used_gpu_bytes(cuda) - used0
    row["gpu_bytes_estimate"] = device_bytes(tree, algorithm == "pcfr+")
    if cpu_iterations:
        cpu = CFRSolver(tree, algorithm)
        cpu.warm_up()
        t0 = time.perf_counter()
        cpu.iterate(cpu_iterations)
        row["cpu_s_per_iteration"] = (time.perf_counter() - t0) / cpu_iterations
        gpu.iterate(cpu_iterations)
        row["identical_after_cpu_iterations"] = _same(cpu, gpu)
        t0 = time.perf_counter()
        e_cpu = cpu.exploitability()
        row["cpu_exploitability_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        e_gpu = gpu.exploitability()
        row["gpu_exploitability_s"] = time.perf_counter() - t0
        row["exploitability_identical"] = e_cpu == e_gpu
        del cpu
    t0 = time.perf_counter()
    gpu.iterate(gpu_iterations)
    row["gpu_s_per_iteration"] = (time.perf_counter() - t0) / gpu_iterations
    if "gpu_exploitability_s" not in row:
        t0 = time.perf_counter()
        gpu.exploitability()
        row["gpu_exploitability_s"] = time.perf_counter() - t0
    if cpu_iterations:
        row["speedup"] = row["cpu_s_per_iteration"] / row["gpu_s_per_iteration"]
    print(json.dumps(row), flush=True)
    return row


def to_target(case: str, target: float, check_every: int, algorithm: str) -> dict:
    """Wall time from nothing (tree build included) to exploitability <= target on the GPU."""
    t0 = time.perf_counter()
    tree, build = _tree(case)
    gpu = GPUCFRSolver(tree, algorithm)
    gpu.warm_up()
    value, measuring = float("inf"), 0.0
    while value > target:
        gpu.iterate(check_every)
        t1 = time.perf_counter()
        value = gpu.exploitability()
        measuring += time.perf_counter() - t1
    row = {"case": case, "algorithm": algorithm, "target": target, "check_every": check_every,
           "iterations": gpu.iteration, "exploitability": value, "build_s": build,
           "iteration_s": gpu.seconds, "exploitability_checks_s": measuring,
           "end_to_end_s": time.perf_counter() - t0}
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", default="", help="cases for the bit-identity check (mini)")
    ap.add_argument("--check-iterations", type=int, default=100)
    ap.add_argument("--cases", default="small,5/2/1/4", help="cases to time, comma-separated")
    ap.add_argument("--algorithm", default="cfr+")
    ap.add_argument("--cpu-iterations", default="3",
                    help="CPU iterations per case (one number, or one per case)")
    ap.add_argument("--gpu-iterations", type=int, default=50)
    ap.add_argument("--target-case", default="", help="case for the time to --target")
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--check-every", type=int, default=50)
    ap.add_argument("--json", default="", help="write every row to this file")
    args = ap.parse_args()
    why = gpu_unavailable()
    if why is not None:
        sys.exit(f"error: {why}")
    rows = []
    for case in filter(None, args.check.split(",")):
        rows += check(case, args.check_iterations)
    cases = list(filter(None, args.cases.split(",")))
    cpu_iters = [int(x) for x in args.cpu_iterations.split(",")]
    cpu_iters += [cpu_iters[-1]] * (len(cases) - len(cpu_iters))
    timed = [bench(c, n, args.gpu_iterations, args.algorithm)
             for c, n in zip(cases, cpu_iters, strict=False)]
    rows += timed
    if args.target_case:
        rows.append(to_target(args.target_case, args.target, args.check_every, args.algorithm))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"\n{'case':<9} {'nodes':>12} {'build s':>8} {'CPU s/it':>9} {'GPU ms/it':>9} "
          f"{'ratio':>7} {'CPU BR s':>8} {'GPU BR s':>8} {'GPU GiB':>7} same")
    for r in timed:
        cpu = r.get("cpu_s_per_iteration")
        print(f"{r['case']:<9} {r['nodes']:>12,} {r['build_s']:>8.2f} "
              f"{cpu if cpu is not None else float('nan'):>9.3f} "
              f"{1e3 * r['gpu_s_per_iteration']:>9.3f} {r.get('speedup', float('nan')):>6.0f}x "
              f"{r.get('cpu_exploitability_s', float('nan')):>8.2f} "
              f"{r['gpu_exploitability_s']:>8.3f} {r['gpu_bytes_used'] / 2**30:>7.2f} "
              f"{r.get('identical_after_cpu_iterations', '-')}")
    checks = [r for r in rows if "tables_identical" in r]
    if checks:
        bad = [r for r in checks if not (r["tables_identical"] and r["exploitability_identical"])]
        print(f"bit-identity: {len(checks) - len(bad)}/{len(checks)} identical")


if __name__ == "__main__":
    main()
