"""What an information abstraction costs, where it can be measured: Monte-Carlo CFR with and
without ``--abstraction`` on an enumerable variant, the same scheme, iterations and seed; the
average strategy is mapped onto the full tree (every infoset reads its abstract row) and its
exact exploitability computed there. One JSON line per run (seconds: the iterations only,
the two runs in one process).

Run from the repo root: ``python benchmarks/bench_abstraction_loss.py GAME PRESET SCHEME N``,
e.g. ``agent-hunter mini external 20000`` (docs/games/agent-hunter.md has the table).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from spycfr.cfr.mccfr import MCCFRSolver, strategy_on_tree  # noqa: E402
from spycfr.exact.best_response import exploitability  # noqa: E402
from spycfr.games import build_tree, make_game  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("preset")
    parser.add_argument("scheme", choices=("external", "outcome"))
    parser.add_argument("iterations", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = make_game(args.game, args.preset)
    tree = build_tree(game)
    for abstract in (False, True):
        solver = MCCFRSolver(game, args.scheme, seed=args.seed, abstraction=abstract,
                             es_node_limit=None)
        solver.iterate(1)  # compiles (or loads the cache) outside the timing
        start = time.perf_counter()
        solver.iterate(args.iterations - 1)
        seconds = time.perf_counter() - start
        value = exploitability(tree, strategy_on_tree(solver, tree))
        print(json.dumps({
            "game": args.game, "preset": args.preset, "scheme": args.scheme,
            "abstraction": abstract, "iterations": solver.iteration, "seed": args.seed,
            "seconds": round(seconds, 1), "states_stored": solver.num_infosets,
            "tree_infosets": tree.num_infosets, "exploitability": value}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
