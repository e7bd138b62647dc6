"""spycfr vs OpenSpiel (C++ ``pyspiel.CFRSolver`` / ``pyspiel.CFRPlusSolver``), same process.

For each game and algorithm both solvers run the same iterations; the table gives
the mean time per iteration up to each checkpoint and the exploitability of the
average strategy there. Timings exclude tree building, numba compilation
(spycfr is warmed up first), solver construction and exploitability evaluation;
for OpenSpiel only ``evaluate_and_update_policy`` is timed.

Needs the bench extra: ``pip install -e '.[bench]'``. Run from the repo root:
``python benchmarks/bench_openspiel.py [--iterations 10,100,1000] [--games kuhn,leduc]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from spycfr.cfr.solver import CFRSolver  # noqa: E402
from spycfr.exact.best_response import exploitability  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402

# spycfr game name -> OpenSpiel game name (both with default parameters).
OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker", "liars-dice": "liars_dice"}
ALGORITHMS = ("cfr", "cfr+")
TARGET_RATIO = 20.0  # the issue's target: spycfr CFR+ on Leduc >= 20x faster than OpenSpiel C++


def _int_list(text: str) -> list[int]:
    try:
        values = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}") from None
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError(f"iteration counts must be >= 1, got {text!r}")
    return values


def _name_list(allowed: tuple[str, ...]) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [x.strip() for x in text.split(",") if x.strip()]
        bad = [n for n in names if n not in allowed]
        if bad or not names:
            raise argparse.ArgumentTypeError(
                f"unknown name(s) {', '.join(bad) or '(none)'}; allowed: {', '.join(allowed)}"
            )
        return names

    return parse


def run_spycfr(tree, algorithm: str, checkpoints: list[int]) -> list[tuple[int, float, float]]:
    """(iterations, seconds spent iterating so far, exploitability) at each checkpoint."""
    solver = CFRSolver(tree, algorithm)
    solver.warm_up()
    out, done, seconds = [], 0, 0.0
    for n in checkpoints:
        t0 = time.perf_counter()
        solver.iterate(n - done)
        seconds += time.perf_counter() - t0
        done = n
        out.append((n, seconds, exploitability(tree, solver.average_strategy())))
    return out


def run_openspiel(pyspiel, game, algorithm: str, checkpoints: list[int]):
    """Same as :func:`run_spycfr` for OpenSpiel's C++ solver (only the updates are timed)."""
    cls = pyspiel.CFRSolver if algorithm == "cfr" else pyspiel.CFRPlusSolver
    solver = cls(game)
    out, done, seconds = [], 0, 0.0
    for n in checkpoints:
        step = solver.evaluate_and_update_policy
        t0 = time.perf_counter()
        for _ in range(n - done):
            step()
        seconds += time.perf_counter() - t0
        done = n
        out.append((n, seconds, pyspiel.exploitability(game, solver.average_policy())))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=_int_list, default=[10, 100, 1000],
                        help="checkpoints, comma-separated (default 10,100,1000)")
    parser.add_argument("--games", type=_name_list(tuple(OPENSPIEL_NAMES)),
                        default=list(OPENSPIEL_NAMES),
                        help="comma-separated subset of: " + ", ".join(OPENSPIEL_NAMES))
    parser.add_argument("--algorithms", type=_name_list(ALGORITHMS), default=list(ALGORITHMS),
                        help="comma-separated subset of: cfr, cfr+")
    parser.add_argument("--liars-dice-max", type=int, default=100,
                        help="largest checkpoint for liars-dice (OpenSpiel needs ~0.2 s per "
                             "iteration there; default 100, use 1000 for the full curve)")
    args = parser.parse_args(argv)

    try:
        import pyspiel
    except ImportError:
        print("error: open_spiel is not installed; run: pip install -e '.[bench]'",
              file=sys.stderr)
        return 2

    print("Tree build (spycfr numba enumerator; the first build of a process may compile):")
    print(f"{'game':<11} {'nodes':>9} {'infosets':>8} {'seconds':>8} {'nodes/s':>10}")
    trees = {}
    for name in args.games:
        tree = build_tree(make_game(name))
        trees[name] = tree
        print(f"{name:<11} {tree.num_nodes:>9} {tree.num_infosets:>8} "
              f"{tree.build_seconds:>8.3f} {tree.num_nodes / tree.build_seconds:>10.0f}")
    print()

    header = (f"{'game':<11} {'alg':<5} {'iters':>5} {'ms/iter spycfr':>14} "
              f"{'ms/iter OpenSpiel':>17} {'ratio':>7} {'expl spycfr':>12} {'expl OpenSpiel':>14}"
              f" {'|diff|':>8}")
    print(header)
    print("-" * len(header))
    leduc_cfrp_ratio = None
    for name in args.games:
        checkpoints = args.iterations
        if name == "liars-dice":
            capped = [n for n in checkpoints if n <= args.liars_dice_max]
            if len(capped) < len(checkpoints):
                print(f"(liars-dice: checkpoints above --liars-dice-max={args.liars_dice_max} "
                      "skipped)")
            checkpoints = capped
            if not checkpoints:
                continue
        game = pyspiel.load_game(OPENSPIEL_NAMES[name])
        for alg in args.algorithms:
            ours = run_spycfr(trees[name], alg, checkpoints)
            theirs = run_openspiel(pyspiel, game, alg, checkpoints)
            for (n, t_us, e_us), (_, t_os, e_os) in zip(ours, theirs, strict=True):
                ms_us, ms_os = 1e3 * t_us / n, 1e3 * t_os / n
                ratio = ms_os / ms_us if ms_us > 0 else float("inf")
                if name == "leduc" and alg == "cfr+" and n == checkpoints[-1]:
                    leduc_cfrp_ratio = ratio
                print(f"{name:<11} {alg:<5} {n:>5} {ms_us:>14.4f} {ms_os:>17.4f} "
                      f"{ratio:>6.1f}x {e_us:>12.6g} {e_os:>14.6g} {abs(e_us - e_os):>8.1e}")
    print()
    print("ratio = OpenSpiel ms/iter / spycfr ms/iter (mean over iterations 1..iters).")
    if leduc_cfrp_ratio is not None:
        verdict = "MET" if leduc_cfrp_ratio >= TARGET_RATIO else "NOT MET"
        print(f"Target (Leduc CFR+ at most 1/{TARGET_RATIO:g} of OpenSpiel's time per "
              f"iteration): {verdict} ({leduc_cfrp_ratio:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
