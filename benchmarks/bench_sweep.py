"""Wall time of a variant sweep on a Dask LocalCluster against solving the same variants one
after another in this process (the reference), on the same grid and settings.

The serial pass runs first and so also fills numba's on-disk cache; the workers then load the
kernels from it, as they would in any sweep after the first run. ratio = serial seconds /
sweep seconds (above 1: the cluster is faster).

Run from the repo root: ``python benchmarks/bench_sweep.py [--workers 2]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from spycfr.runs.solve import SolveConfig, solve_run  # noqa: E402
from spycfr.sweep.grid import expand  # noqa: E402
from spycfr.sweep.runner import SweepSettings, run_sweep  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--target", type=float, default=1e-3)
    args = parser.parse_args(argv)
    settings = SweepSettings(
        game="agent-hunter", preset=None, fixed={"cards": "3", "houses": "2"},
        swept={"decoys": "0..1", "decoy_rule": "any,switched", "max_turns": "1..4"},
        target_exploitability=args.target, memory_per_worker=4.0)
    _, cells = expand(settings.swept)
    start = time.perf_counter()
    for cell in cells:
        solve_run(SolveConfig(game=settings.game, preset=None,
                              params={**settings.fixed, **cell.params},
                              iterations=settings.max_iterations,
                              target_exploitability=args.target, check_every=100,
                              memory_limit=4.0), write_tables=False)
    serial = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        run_sweep(settings, Path(scratch) / "sweep", workers=args.workers)
        swept = time.perf_counter() - start
    print(f"{len(cells)} Agent Hunter variants (3 cards, 2 houses; decoys 0..1 x both decoy "
          f"rules x max-turns 1..4) to exploitability {args.target:g}")
    print(f"  one process, one after another   {serial:8.1f} s")
    print(f"  LocalCluster of {args.workers} workers        {swept:8.1f} s "
          "(cluster start and shutdown included)")
    print(f"  ratio                            {serial / swept:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
