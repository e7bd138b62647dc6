"""Times re-solves whose leaves are valued by the game's ``scored_now`` hook as of this tree
against the same hook file at an earlier revision, in one process, alternating, and checks
that both give the same bits.

The subgames are those a re-solve builds (``--levels`` decision levels) at the decisions of
a seeded random walk on the game's public tree (bench_subgame_build.py's), each solved by
CFR+ for ``--iterations`` from the deal's prior ranges with the scored-now leaves
(spycfr.search.leafvalues.ScoredNow: what the rollout leaves fall back to off their focus
rows). The old hook is the file that defines the game's hook (Agent Avenue's
``solver/games/agent_avenue/leaf.py``, Agent Hunter's ``.../agent_hunter/leaf.py``) at
``--old``, loaded as its own module (git show); everything else is this tree's. Each round
solves every subgame with the old hook and the new, in alternating order; prints each
round's ratio (new over old), their median and range, and whether every solve's strategy and
values are the same bits.

    nice -n 10 python benchmarks/bench_scored_now.py --old main --game agent-avenue
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_subgame_build import public_walk, search_model  # noqa: E402
from revision import ROOT, RevisionError, module_at  # noqa: E402

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.games import get_plugin  # noqa: E402
from spycfr.search.leafvalues import ScoredNow  # noqa: E402
from spycfr.search.resolve import solve  # noqa: E402
from spycfr.search.subgame import subgame  # noqa: E402
from spycfr.search.tree import GameModel  # noqa: E402


def hook_file(hook) -> str:
    """The repository path of the file that defines ``hook`` (a function or a callable
    object's class)."""
    module = sys.modules[hook.__module__]  # an object's is its class's
    return str(Path(module.__file__).resolve().relative_to(ROOT / "solver"))


def solves(hook, game: GameModel, trees: list, iterations: int
           ) -> tuple[list, float, float]:
    """Each tree solved with ``hook``'s leaves: (strategy and values bytes, seconds, the
    process's CPU seconds: on a shared machine the wall clock counts the others' work)."""
    vf = ScoredNow(game, hook)
    out, began, cpu = [], time.perf_counter(), time.process_time()
    for t in trees:
        s = solve(t, (game.weights[0], game.weights[1]), iterations, vf)
        out.append(s.strategy.tobytes() + s.values[0].tobytes() + s.values[1].tobytes())
    return out, time.perf_counter() - began, time.process_time() - cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", default="main", help="git revision of the old hook's file")
    p.add_argument("--game", default="agent-avenue")
    p.add_argument("--preset", default="standard")
    p.add_argument("--roots", type=int, default=6)
    p.add_argument("--levels", type=int, default=2)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    if min(args.roots, args.levels, args.rounds, args.iterations) < 1:
        p.exit(2, "error: --roots, --levels, --iterations and --rounds must be at least 1\n")
    try:
        plugin = get_plugin(args.game)
        game = search_model(args.game, args.preset)
    except SpycfrError as e:
        p.exit(2, f"error: {e}\n")
    if plugin.scored_now is None:
        p.exit(2, f"error: {args.game} has no scored_now hook\n")
    new = plugin.scored_now
    name = getattr(new, "__name__", None)
    path = "solver/" + hook_file(new)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            old_module = module_at(args.old, path, "scored_now_old", Path(tmp))
        except RevisionError as e:
            p.exit(2, f"error: --old {args.old}: {e}\n")
        # a callable object's class made anew from the old file, a function taken as it is
        old = getattr(old_module, name) if name else getattr(old_module, type(new).__name__)()
        trees = [subgame(game, pub, args.levels)
                 for pub, _, _ in public_walk(game, args.seed, args.roots)]
        first_old = solves(old, game, trees, args.iterations)[0]  # compiles, fills caches
        first_new = solves(new, game, trees, args.iterations)[0]
        identical = first_old == first_new
        print(f"{args.game} {args.preset}: {len(trees)} subgames of {args.levels} levels, "
              f"{sum(t.leaves.size for t in trees):,} leaves, {args.iterations} iterations "
              f"each; old ({args.old}:{path}) and new the same bits: {identical}", flush=True)
        ratios, cpu_ratios, totals = [], [], {"old": [], "new": []}
        for r in range(args.rounds):
            got, cpu = {}, {}
            for kind in (("old", "new") if r % 2 == 0 else ("new", "old")):
                out, secs, cpu[kind] = solves(old if kind == "old" else new, game, trees,
                                              args.iterations)
                identical &= out == first_new
                got[kind] = secs
                totals[kind].append(secs)
            ratios.append(got["new"] / got["old"])
            cpu_ratios.append(cpu["new"] / cpu["old"])
            print(f"round {r}: old {got['old']:.3f} s, new {got['new']:.3f} s, "
                  f"{ratios[-1]:.2f}x (CPU {cpu['old']:.3f} -> {cpu['new']:.3f} s, "
                  f"{cpu_ratios[-1]:.2f}x)", flush=True)
    print(f"median old {statistics.median(totals['old']):.3f} s, new "
          f"{statistics.median(totals['new']):.3f} s; new/old median "
          f"{statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f} over "
          f"{len(ratios)} rounds (CPU seconds: median {statistics.median(cpu_ratios):.2f}x, "
          f"range {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f}); every solve the same bits: "
          f"{identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
