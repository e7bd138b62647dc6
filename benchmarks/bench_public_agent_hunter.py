"""Agent Hunter on the public tree against the history tree: sizes (and, with the engine,
solve times), one process, both trees measured side by side.

    python benchmarks/bench_public_agent_hunter.py sizes 3/2/1/2 3/2/1/4 4/2/1/4 5/2/1/4
    python benchmarks/bench_public_agent_hunter.py iter 3/2/1/4 20
    python benchmarks/bench_public_agent_hunter.py scale 10/3/0/2 1e-3 pdcfr+ 20
    python benchmarks/bench_public_agent_hunter.py target 5/2/1/4 pdcfr+ 1200 [--history]
    python benchmarks/bench_public_agent_hunter.py fits 10/3/0/3 24

Variants are cards/houses/decoys/max_turns (decoy rule any, payoff win). ``sizes``: the
engine's count of the public tree (nodes, the dense range entries nodes x (n0 + n1), the
live range entries: those of the private states each seat can hold there, rows, terminal
pairs) and the history tree's nodes (enumerated up to 6e6, else the playout estimate).
``fits``: whether the public tree and a pdcfr+ solver fit a memory size, counted until the
live range entries alone pass it (a bounded count of a tree too large to finish).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from spycfr.engine.playout import estimate_nodes
from spycfr.games.agent_hunter import make_variant
from spycfr.public import protocol as pp
from spycfr.public.enumerate import ENT0, ENT1, NODES, PAIRS, ROWS, public_size


def _variant(spec: str):
    n, k, d, t = map(int, spec.split("/"))
    return make_variant(None, {"cards": n, "houses": k, "decoys": d, "max_turns": t})


def sizes(specs: list[str], history_max: float) -> None:
    print("variant | public nodes | private states | dense range entries | live range entries "
          "| rows | terminal pairs | history nodes | history nodes / live entry")
    for spec in specs:
        v = _variant(spec)
        params = v.to_params()
        t0 = time.perf_counter()
        acc = public_size(params)
        secs = time.perf_counter() - t0
        nodes, entries = int(acc[NODES]), int(acc[ENT0] + acc[ENT1])
        n = int(pp.python_impl(params, "num_private")(params, 0))
        est = estimate_nodes(params, samples=20000)
        if est <= history_max:
            from spycfr.games import build_tree
            from spycfr.games.agent_hunter import AgentHunterGame

            hist, how = build_tree(AgentHunterGame(v)).num_nodes, ""
        else:
            hist, how = est, " (estimate)"
        print(f"{spec} | {nodes:,} | {n} | {nodes * 2 * n:,} | {entries:,} | "
              f"{int(acc[ROWS]):,} | {int(acc[PAIRS]):,} | {hist:,.0f}{how} | "
              f"{hist / entries:.2f} ({secs:.1f}s)", flush=True)


def per_iteration(spec: str, iterations: int) -> None:
    """CFR+ seconds per iteration on both trees (after one warm-up iteration each)."""
    from spycfr.cfr import CFRSolver
    from spycfr.games import build_tree
    from spycfr.games.agent_hunter import AgentHunterGame
    from spycfr.public.enumerate import build_public_tree
    from spycfr.public.solver import PublicCFRSolver

    game = AgentHunterGame(_variant(spec))
    print("(numba compiles the engines on a first run: minutes)", flush=True)
    public, history = build_public_tree(game), build_tree(game)
    per = {}
    for name, solver in (("public", PublicCFRSolver(public, "cfr+")),
                         ("history", CFRSolver(history, "cfr+"))):
        solver.iterate(1)
        t0 = time.perf_counter()
        solver.iterate(iterations)
        per[name] = (time.perf_counter() - t0) / iterations
        print(f"{spec} {name}: {per[name]:.4f} s per CFR+ iteration, exploitability "
              f"{solver.exploitability():.3g} after {iterations + 1}", flush=True)
    print(f"{spec}: history / public time per iteration = {per['history'] / per['public']:.3f} "
          f"(public nodes {public.num_nodes:,}, live range entries {public.range_entries:,}, "
          f"rows {public.num_rows:,}; history nodes "
          f"{history.num_nodes:,})")


def _cpu_per_iteration(solver, iterations: int) -> float:
    t0 = time.process_time()
    solver.iterate(iterations)
    return (time.process_time() - t0) / iterations


def _to_targets(name: str, solver, targets: list[float], cap: float) -> None:
    """Iterate ``solver`` until its exact exploitability is at most each target in turn
    (checked after 1, 2, ... iterations, growing by 10%), or ``cap`` seconds of iterations:
    CPU seconds (``time.process_time``, fair on a loaded machine; one thread, so the wall
    time of an idle one), iterations only."""
    spent, done, check = 0.0, 0, 1
    left = sorted(targets, reverse=True)
    while left and spent < cap:
        t0 = time.process_time()
        solver.iterate(check - done)
        spent += time.process_time() - t0
        done = check
        t0 = time.process_time()
        expl = solver.exploitability()
        print(f"  {name}: {done} iterations, {spent:.1f} CPU s ({spent / done:.2f} s/it), "
              f"exploitability {expl:.3g} (check {time.process_time() - t0:.1f} s)",
              flush=True)
        while left and expl <= left[0]:
            print(f"  {name}: to {left.pop(0):g} in {spent:.1f} CPU s, {done} iterations",
                  flush=True)
        check = max(check + 1, int(check * 1.1))
    for target in left:
        print(f"  {name}: {target:g} not reached in {spent:.1f} CPU s ({done} iterations)",
              flush=True)


def target(spec: str, algorithm: str, cap: float, history: bool) -> None:
    """One process: the public tree (terminal blocks where the engine makes them), CPU per
    iteration against the same tree with the game's hook at every terminal (3 rounds of 2,
    after a warm-up), then time to 1e-3 and 1e-4 (at most ``cap`` seconds of iterations);
    with ``history`` the same on the history tree afterwards."""
    import dataclasses

    from spycfr.cfr import CFRSolver
    from spycfr.games import build_tree
    from spycfr.games.agent_hunter import AgentHunterGame
    from spycfr.memory import peak_rss_bytes
    from spycfr.public.enumerate import build_public_tree
    from spycfr.public.solver import PublicCFRSolver

    game = AgentHunterGame(_variant(spec))
    print("(numba compiles the engines on a first run: minutes)", flush=True)
    public = build_public_tree(game)
    blocks = int(np.count_nonzero(public.term_index >= 0))
    terminals = int(np.count_nonzero(public.node_player == pp.TERMINAL))
    print(f"{spec}: public tree built in {public.build_seconds:.1f} s (wall): "
          f"{public.num_nodes:,} "
          f"nodes, {public.range_entries:,} live range entries, {public.num_rows:,} rows, "
          f"{blocks:,} of {terminals:,} terminals as blocks ({public.term_vals.shape[0]:,} "
          f"pairs), {public.nbytes / 2**30:.2f} GiB", flush=True)
    hooks = dataclasses.replace(public, term_index=np.full(public.num_nodes, -1, np.int64),
                                term_vals=np.zeros(0))
    pair = (PublicCFRSolver(public, algorithm), PublicCFRSolver(hooks, algorithm))
    for s in pair:
        s.iterate(1)
    print(f"  after 1 iteration: exploitability {pair[0].exploitability():.12g} (blocks), "
          f"{pair[1].exploitability():.12g} (hooks)", flush=True)
    for rnd in range(3):
        b, h = (_cpu_per_iteration(s, 2) for s in pair)
        print(f"  round {rnd + 1}: CPU s per {algorithm} iteration: blocks {b:.3f}, hooks "
              f"{h:.3f} ({h / b:.2f}x)", flush=True)
    del pair, hooks
    _to_targets("public", PublicCFRSolver(public, algorithm), [1e-3, 1e-4], cap)
    print(f"  peak RSS {peak_rss_bytes() / 2**30:.2f} GiB", flush=True)
    if history:
        del public
        t0 = time.perf_counter()
        tree = build_tree(game)
        print(f"{spec}: history tree built in {time.perf_counter() - t0:.1f} s (wall): "
              f"{tree.num_nodes:,} nodes", flush=True)
        _to_targets("history", CFRSolver(tree, algorithm), [1e-3, 1e-4], cap)
        print(f"  peak RSS {peak_rss_bytes() / 2**30:.2f} GiB", flush=True)


def fits(spec: str, gib: float) -> None:
    """Count the public tree until its live range entries, at the tree's and a solver's
    bytes per entry (LIVE_BYTES + RANGE_BYTES), pass ``gib``: then neither fits, whatever
    the rest; else the count's totals and tree_bytes + pdcfr+'s solver_bytes."""
    from spycfr.public.enumerate import CELLS, count_public, tree_bytes
    from spycfr.public.tree import LIVE_BYTES, RANGE_BYTES, solver_bytes

    params = _variant(spec).to_params()
    cap = int(gib * 2**30) // (LIVE_BYTES + RANGE_BYTES)
    print(f"{spec}: counting up to {cap:,} live range entries ({gib:g} GiB at "
          f"{LIVE_BYTES + RANGE_BYTES} B each)", flush=True)
    count_public(params, max_nodes=1)  # numba compiles the count: not timed
    t0 = time.perf_counter()
    last = [t0]

    def note(nodes: int, entries: int) -> None:
        if time.perf_counter() - last[0] >= 60:
            last[0] = time.perf_counter()
            print(f"  {time.perf_counter() - t0:.0f} s: {nodes:,} nodes, {entries:,} live "
                  "range entries", flush=True)

    status, acc = count_public(params, max_entries=cap, note=note)
    secs = time.perf_counter() - t0
    nodes, entries = int(acc[NODES]), int(acc[ENT0] + acc[ENT1])
    if entries > cap:
        print(f"{spec}: does not fit {gib:g} GiB: more than {cap:,} live range entries "
              f"(counted {nodes:,} nodes, {int(acc[ROWS]):,} rows, {int(acc[CELLS]):,} cells, "
              f"{int(acc[PAIRS]):,} terminal pairs by then) in {secs:.0f} s", flush=True)
        return
    need = tree_bytes(params, acc) + solver_bytes(entries, int(acc[CELLS]), True)
    print(f"{spec} (status {status}): {nodes:,} nodes, {entries:,} live range entries, "
          f"{int(acc[ROWS]):,} rows, {int(acc[CELLS]):,} cells, {int(acc[PAIRS]):,} terminal "
          f"pairs; tree and pdcfr+ need {need / 2**30:.2f} GiB ({secs:.0f} s)", flush=True)


def scale(spec: str, target: float, algorithm: str, memory_gib: float) -> None:
    """The public tree alone (the history tree does not fit): ``algorithm`` until the exact
    exploitability is at most ``target`` (checked after 1, 2, ... iterations, growing by
    25%), with the build time, seconds per iteration and peak RSS, under ``memory_gib``."""
    from spycfr.games.agent_hunter import AgentHunterGame
    from spycfr.memory import MemoryBudget, peak_rss_bytes
    from spycfr.public.enumerate import build_public_tree
    from spycfr.public.solver import PublicCFRSolver

    budget = MemoryBudget(memory_gib * 2**30)
    game = AgentHunterGame(_variant(spec))
    print(f"{spec}: history tree of about {estimate_nodes(game.variant_obj.to_params()):.3g} "
          "nodes (playout estimate)", flush=True)
    t0 = time.perf_counter()
    public = build_public_tree(game, budget=budget)
    build = time.perf_counter() - t0
    print(f"{spec}: public tree built in {build:.1f} s: {public.num_nodes:,} nodes, "
          f"{public.range_entries:,} live range entries, {public.num_rows:,} rows of up to "
          f"{public.max_private_actions} actions ({public.num_cells:,} cells), "
          f"{public.nbytes / 2**30:.2f} GiB; peak RSS "
          f"{peak_rss_bytes() / 2**30:.2f} GiB", flush=True)
    solver = PublicCFRSolver(public, algorithm, budget=budget)
    spent, done, check = 0.0, 0, 1
    while True:
        t0 = time.perf_counter()
        solver.iterate(check - done)
        spent += time.perf_counter() - t0
        done = check
        t0 = time.perf_counter()
        expl = solver.exploitability()
        print(f"{spec} {algorithm}: {done} iterations in {spent:.1f} s "
              f"({spent / done:.2f} s/it), exploitability {expl:.3g} (check "
              f"{time.perf_counter() - t0:.1f} s), peak RSS "
              f"{peak_rss_bytes() / 2**30:.2f} GiB", flush=True)
        if expl <= target:
            break
        check = max(check + 1, int(check * 1.25))


if __name__ == "__main__":
    what, *rest = sys.argv[1:]
    hmax = 6e6
    if what == "sizes":
        sizes(rest, hmax)
    elif what == "iter":
        per_iteration(rest[0], int(rest[1]) if len(rest) > 1 else 20)
    elif what == "target":
        target(rest[0], rest[1], float(rest[2]), "--history" in rest)
    elif what == "fits":
        fits(rest[0], float(rest[1]))
    elif what == "scale":
        scale(rest[0], float(rest[1]), rest[2], float(rest[3]))
    else:
        raise SystemExit(f"error: unknown benchmark {what!r}: sizes, iter, target, fits or scale")
