"""What folding all-terminal chance nodes would give the public tree (a prototype, measured).

A chance node every outcome of which ends the game (Agent Hunter's last answers, Agent
Avenue's last revealed cards) could be one terminal block: the pairs of its outcomes,
weighted by their probabilities and masks, added up over its own entries; its children's
nodes, pass-throughs and sum-backs go. This script compacts a built tree that way in numpy
(the engine does not fold), runs the same algorithm on both trees, and prints the sizes, the
exploitability after the same iterations (equal up to rounding: the same game) and the CPU
time per iteration of each.

Run from the repository root: ``python benchmarks/bench_public_fold.py GAME[:PRESET]
[--algorithm pdcfr+] [--iterations 3]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import numpy as np

from spycfr.cfr.kernels import ALGORITHMS
from spycfr.games import make_game
from spycfr.public.enumerate import build_public_tree, solver_params
from spycfr.public.protocol import CHANCE, TERMINAL
from spycfr.public.solver import PublicCFRSolver, public_exploitability
from spycfr.public.tree import PublicTree


def folded(p: PublicTree) -> tuple[PublicTree, int, int]:
    """(the tree with its all-terminal chance nodes folded, how many, terminals removed)."""
    pl, n, ls = p.node_player, p.num_nodes, p.live_start
    chance = np.flatnonzero((pl == CHANCE) & (p.num_children > 0))
    folds = np.array([q for q in chance if np.all(
        pl[p.first_child[q]:p.first_child[q] + p.num_children[q]] == TERMINAL)], np.int64)
    gone = np.zeros(n, bool)
    for q in folds:
        gone[p.first_child[q]:p.first_child[q] + p.num_children[q]] = True
    keep = ~gone
    node_id = np.cumsum(keep) - 1
    ent_node = np.empty(p.live_priv.shape[0], np.int64)
    for s in (0, 1):
        ent_node[ls[s, 0]:ls[s, -1]] = np.repeat(np.arange(n), np.diff(ls[s]))
    ent_keep = keep[ent_node]
    ent_id = np.cumsum(ent_keep) - 1
    m = int(keep.sum())
    live_start = np.zeros((2, m + 1), np.int64)
    live_start[1, 0] = int(ent_keep[:ls[1, 0]].sum())
    for s in (0, 1):
        live_start[s, 1:] = live_start[s, 0] + np.cumsum(np.diff(ls[s])[keep])
    is_fold = np.zeros(n, bool)
    is_fold[folds] = True
    player = pl[keep].copy()
    player[is_fold[keep]] = TERMINAL
    num_children = p.num_children[keep].copy()
    num_children[is_fold[keep]] = 0
    first_child = p.first_child[keep].copy()
    internal = num_children > 0
    first_child[internal] = node_id[first_child[internal]]
    live_up = p.live_up[ent_keep].copy()
    up = live_up >= 0
    live_up[up] = ent_id[live_up[up]]
    ent_to = ent_id[p.ent_to]  # padded cells hold 0, which stays 0
    term_index = np.full(m, -1, np.int64)
    blocks, offset = [], 0
    for q in np.flatnonzero(keep & (pl == TERMINAL)):
        size = (ls[0, q + 1] - ls[0, q]) * (ls[1, q + 1] - ls[1, q])
        term_index[node_id[q]] = offset
        blocks.append(p.term_vals[p.term_index[q]:p.term_index[q] + size])
        offset += size
    for q in folds:
        block = np.zeros((ls[0, q + 1] - ls[0, q], ls[1, q + 1] - ls[1, q]))
        for c in range(p.first_child[q], p.first_child[q] + p.num_children[q]):
            e0 = np.arange(ls[0, c], ls[0, c + 1])
            e1 = np.arange(ls[1, c], ls[1, c + 1])
            if e0.size == 0 or e1.size == 0:
                continue
            t = p.term_index[c]
            vals = p.term_vals[t:t + e0.size * e1.size].reshape(e0.size, e1.size)
            np.add.at(block, (p.live_up[e0][:, None] - ls[0, q],
                              p.live_up[e1][None, :] - ls[1, q]),
                      p.child_prob[c] * np.outer(p.live_mask[e0], p.live_mask[e1]) * vals)
        term_index[node_id[q]] = offset
        blocks.append(block.ravel())
        offset += block.size
    tree = dataclasses.replace(
        p, node_player=player, first_child=first_child, num_children=num_children,
        node_label=p.node_label[keep], pub_states=p.pub_states[keep],
        child_prob=p.child_prob[keep], live_start=live_start, live_priv=p.live_priv[ent_keep],
        live_up=live_up, live_mask=p.live_mask[ent_keep], row_start=p.row_start[keep],
        ent_to=ent_to, row_node=node_id[p.row_node], row_entry=ent_id[p.row_entry],
        term_index=term_index, term_vals=np.concatenate(blocks))
    return tree, int(folds.shape[0]), int(gone.sum())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="game[:preset]")
    ap.add_argument("--algorithm", default="pdcfr+", choices=ALGORITHMS)
    ap.add_argument("--iterations", type=int, default=3, help="per timing")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    name, _, preset = args.game.partition(":")
    game = make_game(name, preset or None)
    tree = build_public_tree(game, params=solver_params(game))
    fold, n_folds, n_gone = folded(tree)
    print(f"{args.game}: {n_folds:,} chance nodes folded, {n_gone:,} terminals gone: "
          f"{fold.num_nodes:,} nodes, {fold.range_entries:,} range entries, "
          f"{fold.term_vals.shape[0]:,} terminal pairs (as built {tree.num_nodes:,}, "
          f"{tree.range_entries:,}, {tree.term_vals.shape[0]:,})")
    built, short = PublicCFRSolver(tree, args.algorithm), PublicCFRSolver(fold, args.algorithm)
    built.iterate(args.iterations)
    short.iterate(args.iterations)
    print(f"  exploitability after {args.iterations} iterations: as built "
          f"{public_exploitability(tree, built.average_strategy()):.12g}, folded "
          f"{public_exploitability(fold, short.average_strategy()):.12g}")
    for _ in range(args.rounds):
        t0 = time.process_time()
        built.iterate(args.iterations)
        t_built = time.process_time() - t0
        t0 = time.process_time()
        short.iterate(args.iterations)
        t_short = time.process_time() - t0
        print(f"  CPU ms per iteration: as built {1e3 * t_built / args.iterations:.2f}, folded "
              f"{1e3 * t_short / args.iterations:.2f}: {t_built / t_short:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
