"""Where a public-tree iteration's time goes, against the history tree, one process.

CPU time (``time.process_time``: what a loaded shared machine still measures fairly) per
iteration of the public-tree solver and its parts: both seats' forward passes, both
backward passes (regrets), the terminal blocks alone (the same loop as the backward pass's,
timed apart), and the rest (the row updates); then the history solver's iteration, with the
sizes that bound each part (range entries, terminal pairs, rows against history nodes,
terminals and infosets). The public tree is the solver's model (``solver_params``).

Run from the repository root: ``python benchmarks/bench_public_profile.py GAME[:PRESET]
[--algorithm cfr+] [--reps 3] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from numba import njit

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.cfr.solver import CFRSolver
from spycfr.games import build_tree, make_game
from spycfr.public import kernels
from spycfr.public.enumerate import build_public_tree, solver_params
from spycfr.public.protocol import CHANCE, TERMINAL
from spycfr.public.solver import PublicCFRSolver, _tree_args


@njit(cache=True)
def terminal_blocks(node_player, live_start, term_index, term_vals, reach, values, p):
    """The backward pass's terminal blocks alone (kernels.terminal_block, as
    kernels.backward_values runs it)."""
    for q in range(node_player.shape[0] - 1, -1, -1):
        t = term_index[q]
        if node_player[q] != TERMINAL or t < 0:
            continue
        lo0 = live_start[0, q]
        lo1 = live_start[1, q]
        kernels.terminal_block(term_vals, t, reach, values, lo0, live_start[0, q + 1] - lo0,
                               lo1, live_start[1, q + 1] - lo1, p)


def cpu_ms(f, reps: int) -> float:
    """CPU milliseconds per repetition of ``f`` (run ``reps`` times)."""
    t0 = time.process_time()
    for _ in range(reps):
        f()
    return 1e3 * (time.process_time() - t0) / reps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="game[:preset]")
    ap.add_argument("--algorithm", default="cfr+", choices=ALGORITHMS)
    ap.add_argument("--reps", type=int, default=3, help="repetitions per timing")
    ap.add_argument("--rounds", type=int, default=2, help="rounds (the first compiles)")
    args = ap.parse_args(argv)
    name, _, preset = args.game.partition(":")
    game = make_game(name, preset or None)
    public = build_public_tree(game, params=solver_params(game))
    history = build_tree(game)
    solver = PublicCFRSolver(public, args.algorithm)
    hist = CFRSolver(history, args.algorithm)
    solver.iterate(2)
    hist.iterate(2)
    tree_args = _tree_args(public)
    reach = np.zeros(public.range_entries)
    values = np.zeros(public.range_entries)
    target = np.zeros_like(solver.R)
    p = public

    def forward():
        for seat in (0, 1):
            kernels.forward_range(p.node_player, p.first_child, p.num_children, p.live_start,
                                  p.live_priv, p.live_up, p.live_mask, p.row_start, p.row_off,
                                  p.row_entry, p.ent_to, p.ent_prob, p.weights, solver.sigma,
                                  reach, seat)

    def backward():
        for seat in (0, 1):
            kernels.backward_values(*tree_args, solver.sigma, reach, values, seat,
                                    kernels.MODE_REGRET, target)

    def terminals():
        for seat in (0, 1):
            terminal_blocks(p.node_player, p.live_start, p.term_index, p.term_vals, reach,
                            values, seat)

    print(f"{args.game} {args.algorithm}: public {p.num_nodes:,} nodes "
          f"({int(np.count_nonzero(p.node_player == TERMINAL)):,} terminals), "
          f"{p.range_entries:,} range entries, {p.term_vals.shape[0]:,} terminal pairs, "
          f"{p.num_rows:,} rows; history {history.num_nodes:,} nodes "
          f"({int(np.count_nonzero(history.num_children == 0)):,} leaves), "
          f"{history.num_infosets:,} infosets")
    # Chance nodes all of whose children are terminals (answers or revealed cards ending
    # the game): folded into one terminal block each, they would keep their pairs but drop
    # the children's nodes and pass-throughs.
    chance = np.flatnonzero((p.node_player == CHANCE) & (p.num_children > 0))
    folds = [q for q in chance if np.all(
        p.node_player[p.first_child[q]:p.first_child[q] + p.num_children[q]] == TERMINAL)]
    kids = int(sum(p.num_children[q] for q in folds))
    print(f"  {kids:,} terminals are the children of {len(folds):,} chance nodes whose every "
          f"outcome ends the game (of {chance.shape[0]:,} chance nodes)")
    for _ in range(args.rounds):
        it = cpu_ms(lambda: solver.iterate(1), args.reps)
        fw = cpu_ms(forward, args.reps)
        bw = cpu_ms(backward, args.reps)
        te = cpu_ms(terminals, args.reps)
        hi = cpu_ms(lambda: hist.iterate(1), args.reps)
        print(f"  CPU ms per iteration: public {it:.2f} (forward passes {fw:.2f}, backward "
              f"passes {bw:.2f} of which terminal blocks {te:.2f}, the rest {it - fw - bw:.2f})"
              f"; history {hi:.2f}: {hi / it:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
