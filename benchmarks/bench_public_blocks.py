"""Terminal blocks against the game's hook, one process: the public tree as the engine
builds it, the same tree with blocks only at the terminals of at most n0 + n1 live pairs
(the engine's rule where all blocks would not fit), and with the hook at every terminal;
the exploitability after the same iterations (equal up to rounding) and CPU time per
iteration of each (``time.process_time``, fair on a loaded machine), interleaved rounds.

Run from the repository root: ``python benchmarks/bench_public_blocks.py GAME[:PRESET]
[--algorithm pdcfr+] [--iterations 3] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import numpy as np

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.games import make_game
from spycfr.public.enumerate import (
    _terminal_blocks,
    build_public_tree,
    solver_params,
    terminal_block_max,
)
from spycfr.public.protocol import TERMINAL
from spycfr.public.solver import PublicCFRSolver
from spycfr.public.tree import PublicTree


def with_blocks(tree: PublicTree, block_max: int) -> PublicTree:
    """The tree with blocks at the terminals of at most ``block_max`` live pairs only."""
    ls = tree.live_start
    term = np.flatnonzero(tree.node_player == TERMINAL)
    sizes = (ls[0, term + 1] - ls[0, term]) * (ls[1, term + 1] - ls[1, term])
    term_index = np.full(tree.num_nodes, -1, np.int64)
    term_vals = np.zeros(int(sizes[sizes <= block_max].sum()))
    _terminal_blocks(tree.params, tree.pub_states, tree.node_player, ls, tree.live_priv,
                     tree.compat, tree.inv_z, block_max, term_index, term_vals)
    return dataclasses.replace(tree, term_index=term_index, term_vals=term_vals)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="game[:preset]")
    ap.add_argument("--algorithm", default="pdcfr+", choices=ALGORITHMS)
    ap.add_argument("--iterations", type=int, default=3, help="iterations per timing")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    name, _, preset = args.game.partition(":")
    game = make_game(name, preset or None)
    built = build_public_tree(game, params=solver_params(game))
    trees = {"as built": built,
             "blocks up to n0 + n1 pairs": with_blocks(built, terminal_block_max(built.params)),
             "hook everywhere": with_blocks(built, -1)}
    terminals = int(np.count_nonzero(built.node_player == TERMINAL))
    for label, tree in trees.items():
        print(f"{args.game} {label}: {int(np.count_nonzero(tree.term_index >= 0)):,} of "
              f"{terminals:,} terminals as blocks ({tree.term_vals.shape[0]:,} pairs)")
    solvers = {label: PublicCFRSolver(tree, args.algorithm) for label, tree in trees.items()}
    for solver in solvers.values():
        solver.iterate(2)
    print("exploitability after 2 iterations: " + ", ".join(
        f"{label} {s.exploitability():.15g}" for label, s in solvers.items()), flush=True)
    for r in range(args.rounds):
        out = []
        for label, solver in solvers.items():
            t0 = time.process_time()
            solver.iterate(args.iterations)
            out.append(f"{label} {1e3 * (time.process_time() - t0) / args.iterations:.1f}")
        print(f"round {r + 1}: CPU ms per {args.algorithm} iteration: " + ", ".join(out),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
