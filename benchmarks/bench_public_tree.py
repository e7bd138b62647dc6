"""The public tree against the history tree, same algorithm, one process.

For each game: the sizes of both trees (public nodes and range entries against history
nodes; the public tree is the solver's model, with ``--rules-model`` also the rules' model
where the solver runs a smaller lossless reduction: Leduc's suits merged), the time per
iteration of each solver, and the time to a target exploitability (iterations only, all
checked exactly at the same iterations), in interleaved rounds
(medians); optionally OpenSpiel's C++ CFR+ per iteration on the games it has. Numba
compilation and tree building are excluded from the timings and printed apart.

Run from the repository root: ``python benchmarks/bench_public_tree.py [--games
kuhn,leduc,liars-dice] [--algorithm cfr+] [--iterations 1000] [--target 1e-4]
[--rounds 3] [--openspiel] [--rules-model]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.cfr.solver import CFRSolver
from spycfr.games import build_tree, get_plugin, make_game
from spycfr.public.enumerate import build_public_tree, solver_params
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
    ap.add_argument("--rules-model", action="store_true",
                    help="where the solver runs a reduced public model (Leduc's suits "
                         "merged), also time the rules' unreduced one")
    args = ap.parse_args(argv)

    for case in args.games.split(","):
        name, preset = _split(case.strip())
        game = make_game(name, preset)
        models = {"public": solver_params(game)}
        rules_params = get_plugin(name).numba_params(game.variant_obj)
        if type(models["public"]) is not type(rules_params) and args.rules_model:
            models["public, rules' model"] = rules_params
        publics = {}
        for label, params in models.items():
            t0 = time.perf_counter()
            publics[label] = build_public_tree(game, params=params)
            print(f"  ({label} tree built in {time.perf_counter() - t0:.2f} s, compilation "
                  "included)")
        t0 = time.perf_counter()
        history = build_tree(game)
        t_history = time.perf_counter() - t0
        print(f"\n{case}  {args.algorithm}  (history tree built in {t_history:.2f} s, "
              "compilation included)")
        for label, public in publics.items():
            HistoryMap(public, history)  # the two trees describe the same game
            print(f"  {label} ({type(public.params).__name__}): {public.num_nodes:,} nodes, "
                  f"{public.n_private[0]}+{public.n_private[1]} private states, "
                  f"{public.range_entries:,} range entries, {public.num_rows:,} rows")
        print(f"  history: {history.num_nodes:,} nodes, {history.num_infosets:,} infosets")
        solvers = {label: (lambda t=t: PublicCFRSolver(t, args.algorithm))
                   for label, t in publics.items()}
        solvers["history"] = lambda h=history: CFRSolver(h, args.algorithm)
        per_it: dict[str, list] = {label: [] for label in solvers}
        to_target: dict[str, list] = {label: [] for label in solvers}
        openspiel = args.openspiel and name in OPENSPIEL_NAMES and preset is None
        os_its: list = []
        for _ in range(args.rounds):
            for label, make in solvers.items():
                per_it[label].append(per_iteration(make(), args.iterations))
            if openspiel:  # in each round too, under the same load
                os_its.append(openspiel_per_iteration(name, args.openspiel_iterations))
            for label, make in solvers.items():
                to_target[label].append(time_to_target(make(), args.target, args.cap))
        hist_it = statistics.median(per_it["history"])
        hist_tt = to_target["history"]
        for label in solvers:
            it = statistics.median(per_it[label])
            line = f"  {label}: {1e3 * it:.4f} ms/iteration"
            if label != "history":
                line += f" ({hist_it / it:.1f}x the history tree's)"
            runs = to_target[label]
            if all(r[0] is not None for r in runs):
                secs = statistics.median(r[1] for r in runs)
                line += f"; to {args.target:g} in {secs:.3f} s ({runs[0][0]} iterations)"
                if label != "history" and all(r[0] is not None for r in hist_tt):
                    line += (f", {statistics.median(r[1] for r in hist_tt) / secs:.1f}x "
                             "sooner")
            else:
                line += f"; not {args.target:g} within {args.cap:g} s"
            print(line)
        print(f"  ({args.iterations} iterations per timing, {args.rounds} interleaved rounds, "
              "medians)")
        if openspiel:
            if None in os_its:
                print("  OpenSpiel: not installed (pip install -e '.[bench]')")
            else:
                os_it = statistics.median(os_its)
                ratios = ", ".join(f"{label} {os_it / statistics.median(per_it[label]):.0f}x"
                                   for label in solvers)
                print(f"  OpenSpiel C++ CFR+: {1e3 * os_it:.3f} ms/iteration ->  {ratios} "
                      f"({args.openspiel_iterations} iterations in each round, median)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
