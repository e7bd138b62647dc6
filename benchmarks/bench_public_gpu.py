"""The public tree on the GPU against the public tree on the CPU (and the history tree's GPU
backend where it fits), in one process: bit-identity, seconds per iteration, and time to
exploitability 1e-3 and 1e-4, per case, within a time budget.

On a machine with an NVIDIA GPU and numba-cuda, from the repository root (no install needed:
the script maps ``spycfr`` onto solver/ when it is not installed):

    PYTHONUNBUFFERED=1 OUT=/some/dir PYTHONPATH=. python3 benchmarks/bench_public_gpu.py

Dry run without a GPU (numba's CUDA simulator, Kuhn and Agent Hunter tiny):

    NUMBA_ENABLE_CUDASIM=1 python benchmarks/bench_public_gpu.py --quick

Cases, in order, each started only while the budget (``--budget``, seconds) leaves time: Leduc,
Agent Hunter small, 5/2/1/4, Agent Avenue small, 6/2/1/4, 10/3/0/2 (Agent Hunter
CARDS/HOUSES/DECOYS/MAX_TURNS; the last three only with 90-150 s of the budget left). Per case:
the public tree's build (terminal blocks built for the GPU if the tree uses the game's hook:
the CPU engine then reads them too), the CPU engine's s/iteration (one thread; mean over a few
iterations after a warm-up), the GPU's (synchronised), whether both hold the same tables after
the CPU's iterations, the GPU's time from iteration 0 to each target (exploitability measured
on the GPU every ``--check-every`` iterations, included), the CPU's time to the same targets
(measured on small cases; else derived: the CPU's iterates are the GPU's bit for bit, so it
needs the same iterations, at its measured cost per iteration and per check), and the history
tree's GPU backend (its build, ms/iteration, time to the targets) where its tree has at most
``--history-max`` nodes. Compilation is timed apart (the first warm-up of each engine and
game). Each case is guarded: an error is printed and the next case runs. With OUT set, the
figures go to $OUT/bench_public_gpu.json (rewritten after every case).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _import_spycfr() -> None:
    """``spycfr`` from solver/ when it is not installed (a bare copy of the repository)."""
    try:
        import spycfr  # noqa: F401
    except ImportError:
        spec = importlib.util.spec_from_file_location(
            "spycfr", ROOT / "solver" / "__init__.py",
            submodule_search_locations=[str(ROOT / "solver")])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["spycfr"] = module
        spec.loader.exec_module(module)


_import_spycfr()

from spycfr.cfr.gpu import GPUCFRSolver, gpu_unavailable  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402
from spycfr.public.enumerate import build_public_tree, solver_params  # noqa: E402
from spycfr.public.gpu import (  # noqa: E402
    GPUPublicSolver,
    device_bytes,
    ensure_terminal_blocks,
    has_terminal_blocks,
)
from spycfr.public.solver import PublicCFRSolver  # noqa: E402

TABLES = ("R", "S", "sigma", "m")
CASES = ["leduc", "small", "5/2/1/4", "agent-avenue:small", "6/2/1/4", "10/3/0/2"]
# Seconds of the budget a case needs left to start (guessed from the CPU machine's builds:
# a case started late would overrun the device's time); others need only some left.
NEEDS_LEFT = {"agent-avenue:small": 90.0, "6/2/1/4": 150.0, "10/3/0/2": 150.0}
QUICK = ["kuhn", "tiny"]
# Cases whose CPU time to the targets is measured, not derived.
CPU_MEASURED = {"kuhn", "leduc", "tiny"}
T0 = time.perf_counter()
MIN_CAP = 5.0  # seconds towards the targets however little budget is left
HISTORY_MIN_LEFT = 30.0  # the history tree's GPU run needs about this much budget left


def say(*parts) -> None:
    print(f"[{time.perf_counter() - T0:7.1f} s]", *parts, flush=True)


def _game(case: str):
    if case in ("kuhn", "leduc"):
        return make_game(case, None, {})
    if case.startswith("agent-avenue:"):
        return make_game("agent-avenue", case.split(":", 1)[1], {})
    if "/" in case:
        c, h, d, t = case.split("/")
        return make_game("agent-hunter", None, {"cards": c, "houses": h, "decoys": d,
                                                "max_turns": t})
    return make_game("agent-hunter", case, {})


def _same(a, b) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return all(np.array_equal(sa[k], sb[k]) for k in TABLES) and sa["iteration"] == sb[
        "iteration"]


def _per_iteration(solver, n: int) -> float:
    t0 = time.perf_counter()
    solver.iterate(n)
    return (time.perf_counter() - t0) / n


def _timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def to_targets(solver, targets: list[float], every: int, cap: float) -> dict:
    """From the solver's state (iteration 0), iterate with an exact check every ``every``
    iterations until every target is met or ``cap`` seconds pass: per target the iterations
    and seconds (checks included) when first met."""
    t0 = time.perf_counter()
    hits: dict[str, dict] = {}
    value = float("nan")
    checks = 0
    while True:
        solver.iterate(every)
        value = solver.exploitability()
        checks += 1
        seconds = time.perf_counter() - t0
        for t in targets:
            if value <= t and str(t) not in hits:
                hits[str(t)] = {"iterations": solver.iteration, "seconds": seconds}
        if len(hits) == len(targets) or seconds > cap:
            break
    return {"hits": hits, "last_iteration": solver.iteration, "last_exploitability": value,
            "checks": checks, "seconds": time.perf_counter() - t0, "every": every,
            "cap_seconds": cap}


def _used_gpu(cuda) -> float | None:
    try:
        free, total = cuda.current_context().get_memory_info()
        return float(total - free)
    except Exception:  # noqa: BLE001 - the simulator has no such figure
        return None


def _left(args) -> float:
    """Seconds of the budget not spent yet."""
    return args.budget - (time.perf_counter() - T0)


def _cap(args) -> float:
    """Seconds one run towards the targets may take: --target-cap, less when the budget is
    nearly spent."""
    return min(args.target_cap, max(MIN_CAP, _left(args)))


def run_case(case: str, args, compiled: set, cuda) -> dict:
    row: dict = {"case": case, "algorithm": args.algorithm}
    quick_case = case in CPU_MEASURED
    game = _game(case)
    say(f"{case}: building the public tree (the first build of a game compiles its model)")
    tree, row["public_build_s"] = _timed(lambda: build_public_tree(game,
                                                                   params=solver_params(game)))
    row["public_tree"] = {k: v for k, v in tree.summary().items() if k != "build_seconds"}
    row["hook_terminals"] = not has_terminal_blocks(tree)
    if row["hook_terminals"]:
        _, row["terminal_blocks_s"] = _timed(lambda: ensure_terminal_blocks(tree))
    row["terminal_block_bytes"] = int(tree.term_vals.nbytes)
    say(f"{case}: {tree.num_nodes:,} public nodes, {tree.range_entries:,} range entries, "
        f"{tree.num_cells:,} cells, built in {row['public_build_s']:.1f} s"
        + (f" (+ terminal blocks {row['terminal_blocks_s']:.1f} s)" if row["hook_terminals"]
           else ""))
    targets = sorted(args.targets, reverse=True)
    every = args.check_every if args.check_every else (10 if quick_case else 20)

    # The CPU engine: per iteration, and the reference for the GPU's bits.
    cpu = PublicCFRSolver(tree, args.algorithm)
    key = ("cpu", tree.game)
    _, seconds = _timed(cpu.warm_up)
    if key not in compiled:
        row["cpu_compile_s"] = seconds
        compiled.add(key)
    n_cpu = args.cpu_iterations if quick_case else max(1, args.cpu_iterations // 10)
    row["cpu_iterations"] = n_cpu
    row["cpu_s_per_it"] = _per_iteration(cpu, n_cpu)
    cpu_value, row["cpu_exploitability_s"] = _timed(cpu.exploitability)
    say(f"{case}: CPU {1e3 * row['cpu_s_per_it']:.2f} ms/it over {n_cpu} iterations, "
        f"exploitability {row['cpu_exploitability_s']:.2f} s")

    if cuda is not None:
        before = _used_gpu(cuda)
        row["gpu_bytes_estimate"] = device_bytes(tree, args.algorithm in ("pcfr+", "pdcfr+",
                                                                          "hs-pcfr+"))
        gpu, row["gpu_layout_s"] = _timed(lambda: GPUPublicSolver(tree, args.algorithm))
        _, seconds = _timed(gpu.warm_up)
        if "gpu" not in compiled:
            row["gpu_compile_s"] = seconds
            compiled.add("gpu")
        after = _used_gpu(cuda)
        if before is not None and after is not None:
            row["gpu_bytes_used"] = after - before
        gpu.iterate(n_cpu)
        row["same_bits"] = _same(cpu, gpu)
        row["same_exploitability"] = cpu_value == gpu.exploitability()
        n_gpu = args.gpu_iterations
        row["gpu_s_per_it"] = _per_iteration(gpu, n_gpu)
        row["gpu_iterations"] = n_gpu
        _, row["gpu_exploitability_s"] = _timed(gpu.exploitability)
        row["ratio_per_it"] = row["cpu_s_per_it"] / row["gpu_s_per_it"]
        say(f"{case}: GPU {1e3 * row['gpu_s_per_it']:.3f} ms/it ({row['ratio_per_it']:.1f}x "
            f"the CPU), exploitability {1e3 * row['gpu_exploitability_s']:.1f} ms, same bits "
            f"{row['same_bits']} / {row['same_exploitability']}")
        del gpu
        fresh = GPUPublicSolver(tree, args.algorithm)
        fresh.warm_up()
        row["gpu_to_target"] = to_targets(fresh, targets, every, _cap(args))
        del fresh
        say(f"{case}: GPU to targets {row['gpu_to_target']['hits']} (last "
            f"{row['gpu_to_target']['last_exploitability']:.3g} at iteration "
            f"{row['gpu_to_target']['last_iteration']})")
        hits = row["gpu_to_target"]["hits"]
        if not quick_case:
            row["cpu_to_target_derived"] = {
                t: {"iterations": h["iterations"],
                    "seconds": h["iterations"] * row["cpu_s_per_it"]
                    + h["iterations"] / every * row["cpu_exploitability_s"]}
                for t, h in hits.items()}
            for t, h in row["cpu_to_target_derived"].items():
                h["ratio"] = h["seconds"] / hits[t]["seconds"]
    del cpu
    if quick_case:
        fresh_cpu = PublicCFRSolver(tree, args.algorithm)
        row["cpu_to_target"] = to_targets(fresh_cpu, targets, every, _cap(args))
        say(f"{case}: CPU to targets {row['cpu_to_target']['hits']}")

    if (cuda is not None and not case.startswith("agent-avenue") and case != "10/3/0/2"
            and _left(args) > HISTORY_MIN_LEFT):
        history(case, game, row, args, targets, every)
    return row


def history(case: str, game, row: dict, args, targets: list[float], every: int) -> None:
    """The history tree's GPU backend on the same case, where its tree fits --history-max."""
    say(f"{case}: building the history tree")
    try:
        tree, row["history_build_s"] = _timed(lambda: build_tree(game,
                                                                  max_nodes=args.history_max))
    except Exception as exc:  # noqa: BLE001 - too large: said, and the case goes on
        row["history"] = f"not run: {str(exc).splitlines()[0][:200]}"
        say(f"{case}: history tree {row['history']}")
        return
    row["history_nodes"] = tree.num_nodes
    solver = GPUCFRSolver(tree, args.algorithm)
    _, row["history_gpu_warm_up_s"] = _timed(solver.warm_up)
    row["history_gpu_s_per_it"] = _per_iteration(solver, args.gpu_iterations)
    del solver
    fresh = GPUCFRSolver(tree, args.algorithm)
    fresh.warm_up()
    row["history_gpu_to_target"] = to_targets(fresh, targets, every, _cap(args))
    say(f"{case}: history GPU {1e3 * row['history_gpu_s_per_it']:.3f} ms/it on "
        f"{tree.num_nodes:,} nodes, to targets {row['history_gpu_to_target']['hits']}")
    if "gpu_s_per_it" in row:
        row["public_vs_history_gpu_per_it"] = row["history_gpu_s_per_it"] / row["gpu_s_per_it"]


def environment(cuda) -> dict:
    import numba

    env = {"python": sys.version.split()[0], "numba": numba.__version__,
           "numpy": np.__version__, "platform": platform.platform(),
           "cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
           "simulator": os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"}
    try:
        import numba_cuda  # type: ignore[import-not-found]

        env["numba_cuda"] = numba_cuda.__version__
    except Exception:  # noqa: BLE001 - the version is a courtesy
        pass
    if cuda is not None and not env["simulator"]:
        try:
            name = cuda.get_current_device().name
            env["gpu"] = name if isinstance(name, str) else name.decode()
        except Exception:  # noqa: BLE001
            pass
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="Kuhn and Agent Hunter tiny only")
    ap.add_argument("--cases", default=None, help=f"comma-separated (default {','.join(CASES)})")
    ap.add_argument("--algorithm", default="pdcfr+")
    ap.add_argument("--targets", default="1e-3,1e-4")
    ap.add_argument("--budget", type=float, default=330.0,
                    help="seconds: a case starts only while this much time is not spent")
    ap.add_argument("--target-cap", type=float, default=60.0,
                    help="seconds of iterating towards the targets per engine and case")
    ap.add_argument("--check-every", type=int, default=0)
    ap.add_argument("--cpu-iterations", type=int, default=20)
    ap.add_argument("--gpu-iterations", type=int, default=20)
    ap.add_argument("--history-max", type=int, default=80_000_000)
    args = ap.parse_args()
    args.targets = [float(x) for x in args.targets.split(",")]
    cases = QUICK if args.quick else (args.cases.split(",") if args.cases else CASES)
    if args.quick:
        args.cpu_iterations = min(args.cpu_iterations, 3)
        args.gpu_iterations = 1
        args.target_cap = min(args.target_cap, 10.0)
        args.targets = [0.1, 0.05]  # the simulator is slow: loose targets, the same code
    why = gpu_unavailable()
    cuda = None
    if why is None:
        from numba import cuda
    else:
        say(f"no GPU ({why}): the CPU engine only")
    out_dir = os.environ.get("OUT")
    result = {"environment": environment(cuda), "args": vars(args), "cases": []}
    say("environment", json.dumps(result["environment"]))
    compiled: set = set()
    for case in cases:
        spent = time.perf_counter() - T0
        if args.budget - spent < NEEDS_LEFT.get(case, 0.0):
            say(f"{case}: skipped ({spent:.0f} s spent of the {args.budget:.0f} s budget, "
                f"{NEEDS_LEFT.get(case, 0.0):.0f} s needed)")
            result["cases"].append({"case": case, "skipped": "time budget"})
            continue
        try:
            row = run_case(case, args, compiled, cuda)
        except Exception as exc:  # noqa: BLE001 - one case's failure must not end the run
            traceback.print_exc()
            row = {"case": case, "error": f"{type(exc).__name__}: {exc}"[:500]}
            say(f"{case}: FAILED {row['error']}")
        row["elapsed_s"] = time.perf_counter() - T0
        result["cases"].append(row)
        if out_dir:
            try:
                path = Path(out_dir) / "bench_public_gpu.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp")
                tmp.write_text(json.dumps(result, indent=1, default=str))
                tmp.replace(path)
            except OSError as exc:
                say(f"could not write the JSON: {exc}")
    say("summary (ms/it: CPU public / GPU public / GPU history; time to targets on the GPU)")
    for row in result["cases"]:
        if "cpu_s_per_it" not in row:
            say(f"  {row['case']}: {row.get('error') or row.get('skipped')}")
            continue
        gpu = row.get("gpu_s_per_it")
        hist = row.get("history_gpu_s_per_it")
        say(f"  {row['case']}: {1e3 * row['cpu_s_per_it']:.2f} / "
            f"{'-' if gpu is None else f'{1e3 * gpu:.3f}'} / "
            f"{'-' if hist is None else f'{1e3 * hist:.3f}'}; ratio "
            f"{row.get('ratio_per_it', float('nan')):.1f}x; same bits {row.get('same_bits')}; "
            f"to targets public {row.get('gpu_to_target', {}).get('hits')} history "
            f"{row.get('history_gpu_to_target', {}).get('hits')}")
    say("done")


if __name__ == "__main__":
    main()
