"""Speed and memory of the generic numba enumerator, against the plain-Python reference
builder on the same game in the same process.

Each tree is built ``--repeat`` times; the first build includes numba compilation (or
loading the cache), the best of the others is the steady-state speed reported as nodes/s.
bytes/node counts the numeric arrays of the Tree (labels and keys excluded). The reference
builder (solver/engine/reference.py, the Python state protocol) is timed once on trees of
at most ``--reference-max`` nodes; ratio = reference seconds / enumerator seconds.

Run from the repo root: ``python benchmarks/bench_enumerator.py [--cases ...]``.
"""

from __future__ import annotations

import argparse
import sys
import time

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.games import build_reference_tree, build_tree, make_game  # noqa: E402

DEFAULT_CASES = ("kuhn,leduc,liars-dice,agent-hunter:tiny,agent-hunter:mini,"
                 "agent-hunter:small")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default=DEFAULT_CASES,
                        help="comma-separated GAME or GAME:PRESET (default: every game, "
                             "Agent Hunter's tiny, mini, small)")
    parser.add_argument("--repeat", type=int, default=4,
                        help="builds per case; the best after the first is reported (default 4)")
    parser.add_argument("--reference-max", type=int, default=300_000,
                        help="largest tree also built by the Python reference (default 300000)")
    args = parser.parse_args(argv)
    if args.repeat < 2:
        print("error: --repeat must be >= 2", file=sys.stderr)
        return 2

    header = (f"{'case':<20} {'nodes':>10} {'infosets':>9} {'1st build s':>11} {'build s':>8} "
              f"{'nodes/s':>11} {'bytes/node':>10} {'reference s':>11} {'ratio':>7}")
    print(header)
    print("-" * len(header))
    for case in [c.strip() for c in args.cases.split(",") if c.strip()]:
        name, _, preset = case.partition(":")
        try:
            game = make_game(name, preset or None, {})
        except SpycfrError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            tree = build_tree(game)
            times.append(time.perf_counter() - t0)
        n, best = tree.num_nodes, min(times[1:])
        ref = ratio = "-"
        if n <= args.reference_max:
            t0 = time.perf_counter()
            build_reference_tree(game)
            seconds = time.perf_counter() - t0
            ref, ratio = f"{seconds:.4f}", f"{seconds / best:.1f}x"
        print(f"{case:<20} {n:>10} {tree.num_infosets:>9} {times[0]:>11.3f} {best:>8.3f} "
              f"{n / best:>11.0f} {tree.nbytes / n:>10.1f} {ref:>11} {ratio:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
