"""Seconds per re-solve of a search agent playing Agent Avenue advanced (or any game) against
an opponent: pairs of games (one per seat, the same seed, as `spycfr head-to-head`), each
re-solve's wall and CPU seconds, their median and 90th percentile. The first plan (numba's
compile, the plan at the game's market) is not a re-solve and is not timed.

With ``--compare K`` the first K re-solves are each solved twice in the same process, by the
reference path first (the scored-now hook's old grouped products, the passes over every
private state: :func:`reference`) and then by the current one, and the benchmark prints
each pair's seconds, their ratio and the largest difference of their strategies and values
(float rounding only: the two paths compute the same sums in another order). The game goes
on with the current path's solution.

    nice -n 10 python benchmarks/bench_advanced_resolve.py AGENT_DIR --opponent heuristic \\
        --first 1000 --pairs 1 [--compare 6] [--profile OUT.prof]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator

import numpy as np


@contextlib.contextmanager
def reference() -> Iterator[None]:
    """The old paths: the scored-now hook's grouped products (a matrix product per group of
    leaves sharing ``W``) and the passes over all private states a node."""
    from spycfr.games.agent_avenue import leaf
    from spycfr.search import resolve

    was = leaf.scored_now.grouped, resolve.LIVE_PASSES
    leaf.scored_now.grouped, resolve.LIVE_PASSES = True, False
    try:
        yield
    finally:
        leaf.scored_now.grouped, resolve.LIVE_PASSES = was


def _diff(a, b) -> float:
    """The largest absolute difference of two solutions of one subgame: their reaches, the
    strategy rows and values of the private states that some play leads to from the
    root's ranges (the live passes leave every other entry as it was: 0, uniform)."""
    from spycfr.search.tree import reachable

    t = a.tree
    out = 0.0
    for s in (0, 1):
        live = reachable(t, s, (a.reach[s][0] > 0) | (b.reach[s][0] > 0))
        out = max(out, float(np.abs(a.reach[s] - b.reach[s]).max()),
                  float(np.abs(a.values[s] - b.values[s])[live].max(initial=0.0)),
                  float(np.abs(a.best[s] - b.best[s])[live].max(initial=0.0)))
        for n in np.flatnonzero(t.kind == s):
            q = t.row[n]
            out = max(out, float(np.abs(a.strategy[q] - b.strategy[q])[live[n]].max(
                initial=0.0)))
    return out


class _Stop(Exception):
    """--stop-after's re-solves are done."""


def _pct(x: list[float], q: float) -> float:
    return float(np.percentile(x, q)) if x else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--first", type=int, default=1000, help="the first pair's seed")
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--compare", type=int, default=0,
                    help="re-solves solved by the reference path too (the first K)")
    ap.add_argument("--profile", default=None, help="cProfile the games into this file")
    ap.add_argument("--dump", default=None,
                    help="save each re-solve's root public state and public nodes (.npz)")
    ap.add_argument("--stop-after", type=int, default=0,
                    help="stop after this many re-solves (0: play the pairs out)")
    args = ap.parse_args()

    from spycfr.analysis.headtohead import head_to_head, player_from
    from spycfr.games import make_game
    from spycfr.runs.store import read_run

    config = read_run(args.agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    a, b = player_from(args.agent_dir, game), player_from(args.opponent, game)
    wall: list[float] = []
    cpu: list[float] = []
    pairs: list[tuple[float, float, float]] = []
    roots: list[np.ndarray] = []
    sizes: list[int] = []
    solve = a.agent.solve
    plans = {"n": 0}
    plan = a.agent.plan

    def untimed_plan(*args_, **kw):  # the first plan at a market: not a re-solve
        plans["n"] += 1
        return plan(*args_, **kw)

    def timed(*args_, **kw):
        if len(pairs) < args.compare:
            began = time.perf_counter()
            with reference():
                old = solve(*args_, **kw)
            old_s = time.perf_counter() - began
        w, c = time.perf_counter(), time.process_time()
        result = solve(*args_, **kw)
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
        if len(pairs) < args.compare:
            pairs.append((old_s, wall[-1], _diff(old, result)))
            print(f"  compare {len(pairs)}: reference {old_s:.2f} s, now {wall[-1]:.2f} s "
                  f"({old_s / max(wall[-1], 1e-9):.1f}x), largest difference "
                  f"{pairs[-1][2]:.1e}", flush=True)
        print(f"  re-solve {len(wall)}: {wall[-1]:.2f} s wall, {cpu[-1]:.2f} s CPU, "
              f"{result.tree.size} nodes, {result.tree.leaves.size} leaves", flush=True)
        tree = result.tree
        roots.append(tree.pub[0].copy())
        sizes.append(tree.size)
        if args.dump:
            np.savez(args.dump, pubs=np.array(roots), nodes=np.array(sizes),
                     wall=np.array(wall), cpu=np.array(cpu))
        if len(wall) == args.stop_after:
            raise _Stop
        return result

    a.agent.solve = timed
    a.agent.plan = untimed_plan
    prof = None
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    began = time.time()
    try:
        for seed in range(args.first, args.first + args.pairs):
            r = head_to_head(game, a, b, games=2, seed=seed)
            print(f"seed {seed}: as P1 {r['a_as_p1']['mean']:+.0f}, as P2 "
                  f"{r['a_as_p2']['mean']:+.0f}", flush=True)
    except _Stop:
        print(f"stopped after {len(wall)} re-solves", flush=True)
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
    print(f"{len(wall)} re-solves in {args.pairs} pair(s) ({time.time() - began:.0f} s): wall "
          f"median {statistics.median(wall):.2f} s, 90th percentile {_pct(wall, 90):.2f} s, "
          f"max {max(wall):.2f} s; CPU median {statistics.median(cpu):.2f} s, 90th "
          f"percentile {_pct(cpu, 90):.2f} s")
    if pairs:
        old, new = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
        print(f"reference path on the first {len(pairs)}: {old:.1f} s against {new:.1f} s now "
              f"({old / max(new, 1e-9):.1f}x), largest difference "
              f"{max(p[2] for p in pairs):.1e}")


if __name__ == "__main__":
    main()
