"""The public tree's GPU solver against its CPU engine under numba's CUDA simulator; run as a
script by tests/test_public_gpu.py in a child process (the simulator must be chosen before
numba.cuda is imported). Prints one JSON object: {"skip": reason} or {"results": [...]}."""

from __future__ import annotations

import sys
import time

import numpy as np

from cuda_sim import identical, report, resumed, run_directories  # chooses the simulator

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


def compare() -> list[dict]:
    from spycfr.games import make_game
    from spycfr.public.enumerate import build_public_tree, solver_params
    from spycfr.public.gpu import GPUPublicSolver, ensure_terminal_blocks
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
    # Checkpoints across devices: 2 iterations on one device, 2 more on the other.
    results += resumed(trees[("kuhn", None)], PublicCFRSolver, GPUPublicSolver, 2)
    return results + run_directories("public", 4, "public run on the GPU")


if __name__ == "__main__":
    sys.exit(report("spycfr.public.gpu", compare))
