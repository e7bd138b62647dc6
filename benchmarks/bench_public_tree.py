"""The public tree against the history tree, same algorithm, one process.

For each game: the sizes of both trees (public nodes and range entries against history
nodes), the time per iteration of each solver, and the time to a target exploitability
(iterations only, both checked exactly at the same iterations), in interleaved rounds
(medians); optionally OpenSpiel's C++ CFR+ per iteration on the games it has. Numba
compilation and tree building are excluded from the timings and printed apart.

Run from the repository root: ``python benchmarks/bench_public_tree.py [--games
kuhn,leduc,liars-dice] [--algorithm cfr+] [--iterations 1000] [--target 1e-4]
[--rounds 3] [--openspiel]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.cfr.solver import CFRSolver
from spycfr.games import build_tree, make_game
from spycfr.public.enumerate import build_public_tree
from spycfr.public.mapping import HistoryMap
from spycfr.public.solver import PublicCFRSolver

OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker", "liars-dice": "liars_dice"}


def _split(case: str) -> tuple[str, str | None]:
    name, _, preset = case.partition(":")
    return name, preset or None


def per_iteration(solver, iterations: int) -> float:
    """Seconds per iteration over ``iterations`` more (after a warm-up)."""
    solver.warm_up()
    t0 = time.perf_counter()
    solver.iterate(iterations)
    return (time.perf_counter() - t0) / iterations


def time_to_target(solver, target: float, cap: float) -> tuple[int | None, float]:
    """(iterations, iteration seconds) until the exact exploitability is at most
    ``target``, checked at the iterations 1, 2, ... growing by 10% (None: not within
    ``cap`` seconds)."""
    solver.warm_up()
    seconds, done, check = 0.0, 0, 1
    while seconds < cap:
        t0 = time.perf_counter()
        solver.iterate(check - done)
        seconds += time.perf_counter() - t0
        done = check
        if solver.exploitability() <= target:
            return done, seconds
        check = max(check + 1, int(check * 1.1))
    return None, seconds


def openspiel_per_iteration(name: str, iterations: int) -> float | None:
    """OpenSpiel's C++ CFR+ seconds per iteration, or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    solver = pyspiel.CFRPlusSolver(pyspiel.load_game(OPENSPIEL_NAMES[name]))
    solver.evaluate_and_update_policy()
    t0 = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return (time.perf_counter() - t0) / iterations


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="kuhn,leduc,liars-dice",
                    help="comma-separated game[:preset] (default kuhn,leduc,liars-dice)")
    ap.add_argument("--algorithm", default="cfr+", choices=ALGORITHMS)
    ap.add_argument("--iterations", type=int, default=1000, help="per-iteration timing")
    ap.add_argument("--target", type=float, default=1e-4, help="exploitability target")
    ap.add_argument("--cap", type=float, default=120.0,
                    help="seconds of iterations per time-to-target run (default 120)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians)")
    ap.add_argument("--openspiel", action="store_true",
                    help="also OpenSpiel's C++ CFR+ per iteration (needs the bench extra)")
    ap.add_argument("--openspiel-iterations", type=int, default=100)
    args = ap.parse_args(argv)

    for case in args.games.split(","):
        name, preset = _split(case.strip())
        game = make_game(name, preset)
        t0 = time.perf_counter()
        public = build_public_tree(game)
        t_public = time.perf_counter() - t0
        t0 = time.perf_counter()
        history = build_tree(game)
        t_history = time.perf_counter() - t0
        HistoryMap(public, history)  # the two trees describe the same game
        print(f"\n{case}  {args.algorithm}  (public tree built in {t_public:.2f} s, history "
              f"tree in {t_history:.2f} s, compilation included)")
        print(f"  public: {public.num_nodes:,} nodes, {public.range_entries:,} range entries, "
              f"{public.num_rows:,} rows; history: {history.num_nodes:,} nodes, "
              f"{history.num_infosets:,} infosets ({history.num_nodes / public.num_nodes:.1f}x "
              "the public nodes)")
        rounds: dict[str, list] = {"pub_it": [], "hist_it": [], "pub_tt": [], "hist_tt": []}
        for _ in range(args.rounds):
            rounds["hist_it"].append(per_iteration(CFRSolver(history, args.algorithm),
                                                   args.iterations))
            rounds["pub_it"].append(per_iteration(PublicCFRSolver(public, args.algorithm),
                                                  args.iterations))
            rounds["hist_tt"].append(time_to_target(CFRSolver(history, args.algorithm),
                                                    args.target, args.cap))
            rounds["pub_tt"].append(time_to_target(PublicCFRSolver(public, args.algorithm),
                                                   args.target, args.cap))
        pub_it = statistics.median(rounds["pub_it"])
        hist_it = statistics.median(rounds["hist_it"])
        print(f"  ms/iteration: public {1e3 * pub_it:.4f}, history {1e3 * hist_it:.4f}  "
              f"-> {hist_it / pub_it:.1f}x  ({args.iterations} iterations, "
              f"{args.rounds} rounds, medians)")
        for tree_name in ("pub", "hist"):
            its = [r[0] for r in rounds[f"{tree_name}_tt"]]
            secs = [r[1] for r in rounds[f"{tree_name}_tt"]]
            label = "public " if tree_name == "pub" else "history"
            reached = all(i is not None for i in its)
            print(f"  to {args.target:g}: {label} "
                  + (f"{statistics.median(secs):.3f} s ({its[0]} iterations)" if reached
                     else f"not within {args.cap:g} s"))
        pub_ok = all(r[0] is not None for r in rounds["pub_tt"])
        hist_ok = all(r[0] is not None for r in rounds["hist_tt"])
        if pub_ok and hist_ok:
            ratio = (statistics.median(r[1] for r in rounds["hist_tt"])
                     / statistics.median(r[1] for r in rounds["pub_tt"]))
            print(f"  time to target: public {ratio:.1f}x sooner")
        if args.openspiel and name in OPENSPIEL_NAMES and preset is None:
            os_it = openspiel_per_iteration(name, args.openspiel_iterations)
            if os_it is None:
                print("  OpenSpiel: not installed (pip install -e '.[bench]')")
            else:
                print(f"  OpenSpiel C++ CFR+: {1e3 * os_it:.3f} ms/iteration -> public tree "
                      f"{os_it / pub_it:.0f}x, history tree {os_it / hist_it:.0f}x "
                      f"({args.openspiel_iterations} iterations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
