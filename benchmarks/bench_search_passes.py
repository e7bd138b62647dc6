"""Times the search's CFR+ re-solve kernels (spycfr.search.passes) of the working tree
against those of an earlier revision, in one process, and checks that both give the same
bits.

Two seeded re-solves on the public tree of a game (Agent Hunter mini by default), each solved
by the old and the new passes alternately (``--repeat`` times each, after a warm-up that
compiles): the leafless loop in numba (``passes.cfr_plus`` on the whole tree) and the Python
loop over the live passes (``regrets_live`` and company, on the tree cut at ``--depth`` with
blueprint leaf values); then each pass alone, 20 calls a seat on the numba loop's solution:
the reach passes (``forward``, ``forward_live``), the value passes (``backward``,
``backward_live``) and the regret updates (``regrets``, ``regrets_live``). Prints the best
and median wall and CPU seconds of each and whether the strategies, reaches and values (or
the reaches, values and regret tables of the passes alone) are bit-identical. The old passes
are the file
``solver/search/passes.py`` at ``--old`` (read with ``git show``), loaded as its own module;
the rest of the search (trees, resolve) is the working tree's.

    nice -n 10 python benchmarks/bench_search_passes.py --old main
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_subgame_build import search_model  # noqa: E402
from revision import RevisionError, module_at  # noqa: E402

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.search import passes as new_passes  # noqa: E402
from spycfr.search import resolve  # noqa: E402
from spycfr.search.tree import build, reachable  # noqa: E402
from spycfr.search.values import BlueprintValues  # noqa: E402


def timed_solve(module, tree, ranges, iterations, vf):
    """One re-solve with ``module`` as the search's passes: (wall s, CPU s, solution)."""
    resolve.passes = module
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        sol = resolve.solve(tree, ranges, iterations, value_function=vf)
        return time.perf_counter() - wall, time.process_time() - cpu, sol
    finally:
        resolve.passes = new_passes


def timed_regrets(module, tree, sol, live, calls):
    """``calls`` CFR+ regret updates of both seats (``regrets``, or ``regrets_live`` with
    ``live``) from ``sol``'s values and reaches, on copies of its strategy: (wall s, CPU s,
    (regret, sigma, avg) after them)."""
    t = tree
    sigma, regret, avg = sol.strategy.copy(), np.zeros_like(sol.strategy), np.zeros_like(
        sol.strategy)
    wall, cpu = time.perf_counter(), time.process_time()
    for it in range(1, calls + 1):
        for s in (0, 1):
            if live is None:
                module.regrets(s, t.kind, t.first, t.row, t.row_kid, t.row_next, t.row_count,
                               sol.values[s], sol.reach[s], float(it), regret, sigma, avg)
            else:
                module.regrets_live(s, t.kind, t.first, t.row, t.row_kid, t.row_next,
                                    t.row_count, sol.values[s], sol.reach[s], float(it),
                                    regret, sigma, avg, *live[s])
    return time.perf_counter() - wall, time.process_time() - cpu, (regret, sigma, avg)


def timed_pass(module, name, tree, sol, live, calls):
    """``calls`` reach passes (``name`` "forward") or value passes ("backward") of both
    seats under ``sol``'s strategy, over every private state or (``live``) the live ones:
    (wall s, CPU s, the reaches or values after them)."""
    t = tree
    n = t.game.n
    out = tuple(np.zeros((t.size, n[s])) for s in (0, 1))
    no_leaf, no_values = np.full(t.size, -1, np.int64), np.zeros((1, max(n)))
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        for s in (0, 1):
            if name == "forward" and live is None:
                module.forward(s, *t.seat_arrays(s), sol.strategy, sol.reach[s][0], out[s])
            elif name == "forward":
                module.forward_live(s, *t.seat_arrays(s), sol.strategy, sol.reach[s][0],
                                    *live[s], out[s])
            else:
                args = (s, t.kind, t.first, t.count, t.prob, t.mask[s], t.row, t.row_kid,
                        t.row_next, t.row_prob, t.row_count, t.term, t.payoff, t.game.z,
                        sol.strategy, sol.reach[1 - s], no_leaf, no_values, False)
                if live is None:
                    module.backward(*args, out[s])
                else:
                    module.backward_live(*args, *live[s], *live[1 - s], out[s])
    return time.perf_counter() - wall, time.process_time() - cpu, out


def report(label: str, times: dict[str, list[tuple[float, float]]], same: bool) -> None:
    """Best and median wall and CPU seconds of old and new."""
    for name in ("old", "new"):
        wall = [w for w, _ in times[name]]
        cpu = [c for _, c in times[name]]
        print(f"  {label} {name}: wall best/median {min(wall):.3f}/"
              f"{statistics.median(wall):.3f} s, CPU {min(cpu):.3f}/"
              f"{statistics.median(cpu):.3f} s")
    print(f"  {label}: bit-identical {same}")


def same_bits(a, b) -> bool:
    """Whether two solutions' strategies, reaches and values are equal to the bit."""
    pairs = [(a.strategy, b.strategy), *zip(a.reach, b.reach, strict=True),
             *zip(a.values, b.values, strict=True), *zip(a.best, b.best, strict=True)]
    return all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in pairs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", default="main", help="the revision whose passes to compare")
    ap.add_argument("--game", default="agent-hunter")
    ap.add_argument("--variant", default="mini")
    ap.add_argument("--depth", type=int, default=10, help="the leafy tree's cut, in edges")
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--new-first", action="store_true",
                    help="run the new passes first in each pair (the old ones by default)")
    args = ap.parse_args(argv)
    if min(args.depth, args.iterations, args.repeat) < 1:
        ap.exit(2, "error: --depth, --iterations and --repeat must be at least 1\n")
    try:  # the model the game's search agent re-solves on (Agent Hunter's: its numba one)
        game = search_model(args.game, args.variant)
    except SpycfrError as e:
        ap.exit(2, f"error: {e}\n")
    with tempfile.TemporaryDirectory() as folder:
        try:
            old = module_at(args.old, "solver/search/passes.py", "passes_old", Path(folder))
        except RevisionError as e:
            ap.exit(2, f"error: --old {args.old}: {e}\n")
        order = [("old", old), ("new", new_passes)][::-1 if args.new_first else 1]
        full = build(game)
        cut = build(game, depth=args.depth)
        rng = np.random.default_rng(args.seed)
        ranges = tuple(rng.random(n) * (rng.random(n) < 0.7) + 0.0 for n in game.n)
        blueprint = resolve.solve(full, game.weights, 3).strategy
        vf = BlueprintValues(full, blueprint)
        print(f"{args.game} {args.variant}: {full.size:,} nodes (numba loop), "
              f"{cut.size:,} nodes and {cut.leaves.size:,} leaves at depth {args.depth} "
              f"(live loop); {args.iterations} iterations, {args.repeat} alternating runs, "
              f"old = {args.old}")
        for label, tree, leaf_vf in (("numba loop", full, None), ("live loop", cut, vf)):
            times: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
            sols = {}
            for name, module in order:  # compile
                sols[name] = timed_solve(module, tree, ranges, 1, leaf_vf)[2]
            same = same_bits(sols["old"], sols["new"])
            for _ in range(args.repeat):
                for name, module in order:
                    wall, cpu, sols[name] = timed_solve(module, tree, ranges, args.iterations,
                                                        leaf_vf)
                    times[name].append((wall, cpu))
                same = same and same_bits(sols["old"], sols["new"])
            report(label, times, same)
            if tree is full:
                full_sol = sols["new"]
        # each pass alone, on the numba loop's solution: every private state and live ones
        sol = full_sol
        live = tuple(new_passes.live_lists(reachable(full, s, ranges[s] > 0)) for s in (0, 1))
        for label, kernel, rows in (("forward", "forward", None),
                                    ("forward_live", "forward", live),
                                    ("backward", "backward", None),
                                    ("backward_live", "backward", live),
                                    ("regrets", "regrets", None),
                                    ("regrets_live", "regrets", live)):
            times = {"old": [], "new": []}
            out = {}
            for r in range(args.repeat + 1):  # the first round compiles, untimed
                calls = 20 if r else 1
                for name, module in order:
                    if kernel == "regrets":
                        wall, cpu, out[name] = timed_regrets(module, full, sol, rows, calls)
                    else:
                        wall, cpu, out[name] = timed_pass(module, kernel, full, sol, rows,
                                                          calls)
                    times[name].append((wall, cpu))
            times = {name: each[1:] for name, each in times.items()}
            report(f"{label} x20 (both seats)", times,
                   all(a.tobytes() == b.tobytes() for a, b in zip(out["old"], out["new"],
                                                                  strict=True)))


if __name__ == "__main__":
    main()
