"""Speed and memory of the Agent Hunter numba enumerator on a few presets.

Each preset is built twice: the first build includes numba compilation (or
loading the cache), the second is the steady-state speed reported as nodes/s.
bytes/node counts the numeric arrays of the Tree (labels and keys excluded).

Run from the repo root: ``python benchmarks/bench_enumerator.py [--presets tiny,mini,small]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.build import build_tree  # noqa: E402
from solver.errors import SpycfrError  # noqa: E402
from solver.games import make_game  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--presets", default="tiny,mini,small",
                        help="comma-separated Agent Hunter presets (default tiny,mini,small)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="builds per preset; the last one is reported (default 2)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        print("error: --repeat must be >= 1", file=sys.stderr)
        return 2

    header = (f"{'preset':<9} {'nodes':>12} {'infosets':>10} {'1st build s':>11} "
              f"{'build s':>9} {'nodes/s':>12} {'bytes/node':>10}")
    print(header)
    print("-" * len(header))
    for preset in [p.strip() for p in args.presets.split(",") if p.strip()]:
        try:
            game = make_game("agent-hunter", preset, {})
        except SpycfrError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            tree = build_tree(game)
            times.append(time.perf_counter() - t0)
        n = tree.num_nodes
        print(f"{preset:<9} {n:>12} {tree.num_infosets:>10} {times[0]:>11.3f} {times[-1]:>9.3f} "
              f"{n / times[-1]:>12.0f} {tree.nbytes / n:>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
