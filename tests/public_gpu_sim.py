"""The public tree's GPU solver against its CPU engine under numba's CUDA simulator; run as a
script by tests/test_public_gpu.py in a child process (the simulator must be chosen before
numba.cuda is imported). Prints one JSON object: {"skip": reason} or {"results": [...]}."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

TABLES = ("R", "S", "sigma", "m")
# (game, preset, algorithm, alternating, iterations): CFR+ and discounted variants, both
# update modes, on the smallest trees of each kind (public chance: Leduc; private
# transitions and answers as masks: Agent Hunter; card removal and private chance: Agent
# Avenue).
CASES = [
    ("kuhn", None, "cfr+", True, 4),
    ("kuhn", None, "dcfr", False, 4),
    ("kuhn", None, "pcfr+", True, 4),
    ("leduc", None, "pdcfr+", False, 2),
    ("agent-hunter", "tiny", "cfr+", True, 2),
    ("agent-avenue", "tiny", "dcfr", True, 1),
]


def identical(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in TABLES) and a["iteration"] == b["iteration"]


def main() -> None:
    try:
        from spycfr.public.gpu import GPUPublicSolver, ensure_terminal_blocks, gpu_unavailable
    except ImportError as exc:
        print(json.dumps({"skip": f"numba.cuda cannot be imported: {exc}"}))
        return
    why = gpu_unavailable()
    if why is not None:
        print(json.dumps({"skip": why}))
        return
    from spycfr.games import make_game
    from spycfr.public.enumerate import build_public_tree, solver_params
    from spycfr.public.solver import PublicCFRSolver, profile_values

    trees, results = {}, []
    for game, preset, algorithm, alternating, iterations in CASES:
        t0 = time.perf_counter()
        key = (game, preset)
        if key not in trees:
            g = make_game(game, preset, {})
            trees[key] = build_public_tree(g, params=solver_params(g))
            ensure_terminal_blocks(trees[key])  # the hook games' large terminals too
        tree = trees[key]
        cpu = PublicCFRSolver(tree, algorithm, alternating=alternating)
        gpu = GPUPublicSolver(tree, algorithm, alternating=alternating)
        cpu.iterate(iterations)
        gpu.iterate(iterations)
        avg = cpu.average_strategy()
        values = gpu.seat_values(gpu.device_average(), False)
        results.append({
            "case": f"{game}:{preset or ''}:{algorithm}:{'alt' if alternating else 'sim'}",
            "tables": identical(cpu.state_dict(), gpu.state_dict()),
            "average": bool(np.array_equal(avg, gpu.average_strategy())),
            "current": bool(np.array_equal(cpu.current_strategy(), gpu.current_strategy())),
            "exploitability": cpu.exploitability() == gpu.exploitability(),
            "values": bool(np.array_equal(profile_values(tree, avg, False), values)),
            "moved": bool(np.any(cpu.R != 0.0)),  # something was compared
            "seconds": time.perf_counter() - t0})
    # Checkpoints across devices: 2 iterations on one, 2 more on the other, against 4 on one.
    tree = trees[("kuhn", None)]
    straight = PublicCFRSolver(tree, "pcfr+")
    straight.iterate(4)
    for first, second in ((PublicCFRSolver, GPUPublicSolver), (GPUPublicSolver, PublicCFRSolver)):
        a = first(tree, "pcfr+")
        a.iterate(2)
        b = second(tree, "pcfr+")
        b.load_state_dict(a.state_dict())
        b.iterate(2)
        results.append({"case": f"resume {first.__name__} -> {second.__name__}",
                        "tables": identical(b.state_dict(), straight.state_dict())})
    results += run_directories()
    print(json.dumps({"results": results}))


def run_directories() -> list[dict]:
    """spycfr solve --tree public: on the GPU against the CPU, and resumed on the CPU."""
    from spycfr.runs.solve import SolveConfig, solve_run

    def config(iterations: int, device: str) -> SolveConfig:
        return SolveConfig(game="kuhn", preset=None, params={}, algorithm="cfr+",
                           iterations=iterations, check_every=2, device=device, tree="public")

    keys = ("iterations", "strategy_sha256", "exploitability", "value_p1", "best_response_p1",
            "best_response_p2")
    with tempfile.TemporaryDirectory() as tmp:
        cpu = solve_run(config(4, "cpu"), out_dir=f"{tmp}/cpu")
        gpu = solve_run(config(4, "gpu"), out_dir=f"{tmp}/gpu")
        solve_run(config(2, "gpu"), out_dir=f"{tmp}/resumed")
        resumed = solve_run(config(4, "cpu"), resume=f"{tmp}/resumed")
        with open(f"{tmp}/gpu/run.json") as f:
            saved = json.load(f)
    same = [{k: getattr(run, k) for k in keys} for run in (cpu, gpu, resumed)]
    logs = [[(r["iteration"], r["exploitability"]) for r in run.log] for run in (cpu, gpu)]
    return [{"case": "public run on the GPU", "tables": same[1] == same[0] and logs[0] == logs[1]
             and (cpu.device, gpu.device) == ("cpu", "gpu")
             and saved.get("device") == "gpu" and saved.get("tree") == "public"},
            {"case": "public run on the GPU resumed on the CPU", "tables": same[2] == same[0]
             and resumed.device == "cpu"}]


if __name__ == "__main__":
    sys.exit(main())
