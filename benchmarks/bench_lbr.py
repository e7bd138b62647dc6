"""How much of the exact exploitability a local best response (solver/analysis/lbr.py) finds
on enumerable games: against the uniform strategy and a CFR+ strategy of a few iterations,
LBR's payoff (95% interval, the two seats averaged) next to the exact best response's, and
its time per game (one process, one thread).

    python benchmarks/bench_lbr.py [--games 2000] [--rollouts 8] [--seed 1]
"""

from __future__ import annotations

import argparse
import time

from spycfr.analysis.headtohead import tree_player
from spycfr.analysis.lbr import local_best_response
from spycfr.cfr import CFRSolver
from spycfr.exact.best_response import best_response
from spycfr.games import build_tree, get_plugin, make_game

CASES = (("kuhn", None), ("leduc", None), ("agent-hunter", "tiny"), ("agent-hunter", "mini"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--rollouts", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cfr-iterations", type=int, default=50)
    args = ap.parse_args()
    print("| game | strategy | exact BR P1 / P2 | exploitability | LBR (95% interval) | "
          "found | ms/game |")
    print("|---|---|---|---|---|---|---|")
    for name, preset in CASES:
        game = make_game(name, preset)
        tree = build_tree(game)
        params = get_plugin(name).numba_params(game.variant_obj)
        solver = CFRSolver(tree, "cfr+")
        solver.iterate(args.cfr_iterations)
        for label, strategy in (("uniform", tree.uniform_strategy()),
                                (f"cfr+ {args.cfr_iterations} it", solver.average_strategy())):
            br1, br2 = (best_response(tree, strategy, p)[0] for p in (0, 1))
            player = tree_player(tree, strategy, params)
            local_best_response(game, player, 4, args.seed, args.rollouts)  # compile first
            start = time.perf_counter()
            r = local_best_response(game, player, args.games, args.seed, args.rollouts)
            ms = 1000 * (time.perf_counter() - start) / args.games
            expl = (br1 + br2) / 2
            print(f"| {name} {preset or ''} | {label} | {br1:.4f} / {br2:.4f} | {expl:.4f} | "
                  f"{r['value']:.4f} [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}] | "
                  f"{r['value'] / expl:.0%} | {ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
