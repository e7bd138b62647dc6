"""Several CPU threads (``--threads``) against one, in one process, on the same trees.

For each case and thread count, a solver runs ``--warm`` iterations (compilation and first
touches excluded), then ``--iterations`` timed ones; the rounds alternate the thread counts so
that a load change on the machine hits them alike, and the table gives the median ms per
iteration and the speed-up over the one-thread kernel (the sequential ``spycfr.cfr.kernels``,
not the threaded kernel run on one thread). Every multi-threaded solver's tables are checked
equal, bit for bit, to the one-thread solver's after the same iterations.

Run from the repo root: ``python benchmarks/bench_threads.py [--cases leduc,agent-hunter:small]
[--threads 2,4] [--algorithm pdcfr+]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from spycfr.cfr.solver import CFRSolver  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402
from spycfr.runs.config import available_cpus  # noqa: E402

CASES = ("leduc", "liars-dice", "agent-hunter:tiny", "agent-hunter:mini", "agent-avenue:mini",
         "agent-hunter:small")


def _ms_per_iteration(solver: CFRSolver, n: int) -> float:
    t0 = time.perf_counter()
    solver.iterate(n)
    return (time.perf_counter() - t0) / n * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated GAME[:PRESET] (default: " + ",".join(CASES) + ")")
    parser.add_argument("--threads", default=str(available_cpus()),
                        help="comma-separated thread counts besides 1 (default: every CPU)")
    parser.add_argument("--algorithm", default="pdcfr+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=2e7,
                        help="node visits per timed batch: iterations = budget / nodes (>= 3)")
    args = parser.parse_args(argv)
    counts = [int(x) for x in args.threads.split(",") if x.strip()]
    print(f"{available_cpus()} CPUs available; algorithm {args.algorithm}; median of "
          f"{args.rounds} alternating rounds")
    head = "".join(f"{f'{c} threads':>22}" for c in counts)
    print(f"{'case':<22}{'nodes':>12}{'1 thread':>12}{head}  same bits")
    for case in args.cases.split(","):
        game, _, preset = case.partition(":")
        tree = build_tree(make_game(game, preset or None))
        n = max(3, int(args.budget / tree.num_nodes))
        solvers = {c: CFRSolver(tree, args.algorithm, threads=c) for c in [1] + counts}
        for s in solvers.values():
            s.iterate(2)
        times: dict[int, list[float]] = {c: [] for c in solvers}
        for _ in range(args.rounds):
            for c, s in solvers.items():
                times[c].append(_ms_per_iteration(s, n))
        base = statistics.median(times[1])
        same = all(np.array_equal(getattr(solvers[1], k), getattr(s, k))
                   for s in solvers.values() for k in ("R", "S", "sigma", "m"))
        medians = {c: statistics.median(times[c]) for c in counts}
        cells = "".join(f"{f'{medians[c]:.3g} ms x{base / medians[c]:.2f}':>22}" for c in counts)
        print(f"{case:<22}{tree.num_nodes:>12,}{f'{base:.3g} ms':>12}{cells}  {same}",
              flush=True)
    print("\nms: per iteration (median over rounds); xR: R times as fast as one thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
