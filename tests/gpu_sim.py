"""The GPU solver against the CPU solver under numba's CUDA simulator; run as a script by
tests/test_gpu.py in a child process (the simulator must be chosen before numba.cuda is
imported). Prints one JSON object: {"skip": reason} or {"results": [...]}."""

from __future__ import annotations

import sys
import time

import numpy as np

from cuda_sim import identical, report, resumed, run_directories  # chooses the simulator
from spycfr.cfr import ALGORITHMS  # (imports numba, not numba.cuda)

# (game, preset, algorithm, alternating, iterations, exploitability too): every algorithm,
# a new one included, in both update modes on Kuhn.
CASES = [("kuhn", None, a, alt, 5, True) for a in ALGORITHMS for alt in (True, False)] + [
    ("leduc", None, "cfr+", True, 1, False),
    ("agent-hunter", "tiny", "dcfr", True, 2, True),
]


def compare() -> list[dict]:
    from spycfr.cfr import CFRSolver
    from spycfr.cfr.gpu import GPUCFRSolver
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
    # Checkpoints across devices: 3 iterations on one device, 3 more on the other.
    results += resumed(trees[("kuhn", None)], CFRSolver, GPUCFRSolver, 3)
    return results + run_directories("history", 6, "run on the GPU")


if __name__ == "__main__":
    sys.exit(report("spycfr.cfr.gpu", compare))
