"""``--algorithm auto`` against the faster of the exact LP and pdcfr+ to a target, end to end,
per tree shape (issue 26 item 17: the default never much slower than the faster method).

Each method runs through ``solve_run`` as ``spycfr solve`` does (tree build, auto's race and
LP, the solve, the final best responses; no run directory), in one process, interleaved over
``--repeat`` rounds (median), after an untimed auto solve of the same game (numba compiles
there, and a game's first tree pays its first-use costs). pdcfr+ runs with a time
limit of ``--cap`` seconds of iterations; a run that ends above the target counts as not
reaching it. The last column is auto's time over the faster method's.

    python benchmarks/bench_auto.py [--games agent-hunter:mini,leduc]
        [--target 1e-6] [--cap 20] [--repeat 1]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_time_to_target import _split  # noqa: E402

from spycfr.runs.config import SolveConfig  # noqa: E402
from spycfr.runs.solve import solve_run  # noqa: E402

SHAPES = ("agent-hunter:cards=4/houses=1/decoys=1/max_turns=6",  # deep and narrow
          "agent-hunter:cards=8/houses=2/decoys=1/max_turns=1",  # wide and shallow
          "agent-hunter:cards=6/houses=2/decoys=1/max_turns=2",  # wide, two turns
          "agent-hunter:mini", "leduc", "kuhn")
METHODS = ("auto", "lp", "pdcfr+")


def solve_once(case: str, method: str, target: float, cap: float) -> tuple[float, object]:
    game, preset, params = _split(case)
    config = SolveConfig(game=game, preset=preset, params=params, algorithm=method,
                         target_exploitability=target,
                         time_limit=cap if method not in ("auto", "lp") else None)
    start = time.perf_counter()
    result = solve_run(config)
    seconds = time.perf_counter() - start
    return (seconds if result.exploitability <= target else math.inf), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(SHAPES))
    parser.add_argument("--target", type=float, default=1e-6)
    parser.add_argument("--cap", type=float, default=20.0)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    cases = [c.strip() for c in args.games.split(",") if c.strip()]
    print(f"target {args.target:g}; pdcfr+ capped at {args.cap:g} s of iterations; median of "
          f"{args.repeat}; seconds end to end (solve_run)")
    print(f"{'game':<52} {'nodes':>9} {'auto':>8} {'lp':>8} {'pdcfr+':>8}  auto picked"
          f"{'':<18} auto/faster")
    for case in cases:
        times: dict[str, list[float]] = {m: [] for m in METHODS}
        picked = nodes = None
        solve_once(case, "auto", args.target, args.cap)  # warm-up, untimed
        for _ in range(args.repeat):
            for method in METHODS:
                seconds, result = solve_once(case, method, args.target, args.cap)
                times[method].append(seconds)
                if method == "auto":
                    picked = f"{result.algorithm} ({result.iterations} it.)"
                nodes = result.nodes
        med = {m: statistics.median(v) for m, v in times.items()}
        faster = min(med["lp"], med["pdcfr+"])
        cells = " ".join(f"{med[m]:8.2f}" if med[m] < math.inf else f"{'>cap':>8}"
                         for m in METHODS)
        print(f"{case:<52} {nodes:>9,} {cells}  {picked:<29} {med['auto'] / faster:.2f}x",
              flush=True)


if __name__ == "__main__":
    main()
