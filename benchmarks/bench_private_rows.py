"""Times a game's private rows at once (the protocol's ``private_action_rows`` /
``private_chance_rows`` hooks, what a tree's expansion asks) against its per-state
functions (``private_actions`` / ``private_chance``, state by state: the protocol's default
where a game registers no hook), in one process, alternating, and checks that both give the
same entries bit for bit.

The nodes are the decisions and private chances of seeded random walks on the game's
public tree (bench_subgame_build.py's ``public_walk``). Each round fills every node's rows
both ways, in alternating order; prints each round's ratio (at once over state by state),
their median and range, and the milliseconds a node of each.

    nice -n 10 python benchmarks/bench_private_rows.py --game agent-hunter --preset standard
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_subgame_build import public_walk, search_model  # noqa: E402

from spycfr.errors import SpycfrError  # noqa: E402
from spycfr.public import protocol as pp  # noqa: E402
from spycfr.search.tree import GameModel  # noqa: E402


@njit(cache=True)
def rows(pub, params, kind, n_labels, at_once, kids, nexts, probs, counts):
    """A node's private rows by the ``*_rows`` hooks (``at_once``) or state by state."""
    if kind == 0 or kind == 1:
        if at_once:
            pp.private_action_rows(pub, params, kind, n_labels, kids, nexts, counts)
        else:
            for i in range(pp.num_private(params, kind)):
                counts[i] = pp.private_actions(pub, params, i, n_labels, kids[i], nexts[i])
    else:
        s = kind - pp.PRIVATE_CHANCE
        if at_once:
            pp.private_chance_rows(pub, params, s, nexts, probs, counts)
        else:
            for i in range(pp.num_private(params, s)):
                counts[i] = pp.private_chance(pub, params, i, nexts[i], probs[i])


def fill(game: GameModel, nodes: list, at_once: bool) -> tuple[bytes, float]:
    """Every node's rows one way, into one set of buffers (as a tree's expansion reuses
    its scratch): (a digest of each state's entries and count, seconds)."""
    nmax, pamax = max(game.n), game.max_private_actions
    bufs = (np.zeros((nmax, pamax), np.int64), np.zeros((nmax, pamax), np.int64),
            np.zeros((nmax, pamax)), np.zeros(nmax, np.int64))
    digest, secs = hashlib.blake2b(), 0.0
    for pub, kind, k in nodes:
        began = time.perf_counter()
        rows(pub, game.params, kind, k, at_once, *bufs)
        secs += time.perf_counter() - began
        counts = bufs[3]
        w = int(counts.max(initial=0))
        used = np.arange(w)[None, :] < counts[:, None]  # each state's entries, no more
        for b in bufs[:3]:
            digest.update(b[:, :w][used].tobytes())
        digest.update(counts.tobytes())
    return digest.digest(), secs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="agent-hunter")
    p.add_argument("--preset", default="standard")
    p.add_argument("--nodes", type=int, default=200)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    if min(args.nodes, args.rounds) < 1:
        p.exit(2, "error: --nodes and --rounds must be at least 1\n")
    try:
        game = search_model(args.game, args.preset)
    except SpycfrError as e:
        p.exit(2, f"error: {e}\n")
    nodes = public_walk(game, args.seed, args.nodes, True)
    first = {way: fill(game, nodes, way)[0] for way in (True, False)}  # compiles
    identical = first[True] == first[False]
    chances = sum(kind >= pp.PRIVATE_CHANCE for _, kind, _ in nodes)
    print(f"{args.game} {args.preset}: {len(nodes)} nodes ({chances} private chances); at "
          f"once and state by state the same bits: {identical}", flush=True)
    ratios, totals = [], {True: [], False: []}
    for r in range(args.rounds):
        got = {}
        for way in ((True, False) if r % 2 == 0 else (False, True)):
            out, secs = fill(game, nodes, way)
            identical &= out == first[False]
            got[way] = secs
            totals[way].append(secs)
        ratios.append(got[True] / got[False])
        print(f"round {r}: state by state {got[False]:.3f} s, at once {got[True]:.3f} s, "
              f"{ratios[-1]:.2f}x", flush=True)
    med = {way: 1e3 * statistics.median(v) / len(nodes) for way, v in totals.items()}
    print(f"median state by state {med[False]:.3f} ms a node, at once {med[True]:.3f} ms; "
          f"at once / state by state median {statistics.median(ratios):.2f}x, range "
          f"{min(ratios):.2f}-{max(ratios):.2f} over {len(ratios)} rounds; every node the "
          f"same bits: {identical}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
