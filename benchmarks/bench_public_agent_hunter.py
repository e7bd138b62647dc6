"""Agent Hunter on the public tree against the history tree: sizes (and, with the engine,
solve times), one process, both trees measured side by side.

    python benchmarks/bench_public_agent_hunter.py sizes 3/2/1/2 3/2/1/4 4/2/1/4 5/2/1/4
    python benchmarks/bench_public_agent_hunter.py iter 3/2/1/4 20
    python benchmarks/bench_public_agent_hunter.py scale 10/3/0/2 1e-3 pdcfr+ 20

Variants are cards/houses/decoys/max_turns (decoy rule any, payoff win). For each: the public
tree's nodes, those some pair of private states reaches ("live": the public KNOW sets prune
most dead labels, not all), the dense range entries (nodes x (n0 + n1)), the live range
entries (sum over live nodes of the private states each seat can hold there), and the
history tree's nodes (enumerated when --history-max allows, else the playout estimate).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from spycfr.engine.playout import estimate_nodes
from spycfr.games.agent_hunter import make_variant
from spycfr.public import protocol as pp


@njit(cache=True)
def count_public(params, live_only):
    """[nodes, live nodes, sum of live private states (seat 0, seat 1), live decisions,
    live terminals]: a depth-first walk carrying each seat's support (the private states
    that the public history allows), so dead subtrees are counted but not entered when
    ``live_only``."""
    depth = pp.max_depth(params) + 1
    a_max = pp.max_actions(params)
    pa_max = pp.max_private_actions(params)
    n = (pp.num_private(params, 0), pp.num_private(params, 1))
    nm = max(n[0], n[1])
    root = pp.initial_state(params)
    cap = depth * a_max + 1
    stack = np.empty((cap, root.shape[0]), root.dtype)
    sup = np.zeros((cap, 2, nm), np.bool_)
    w = np.zeros(nm)
    for seat in range(2):
        pp.initial_weights(params, seat, w[:n[seat]])
        sup[0, seat, :n[seat]] = w[:n[seat]] > 0
    stack[0] = root
    sp = 1
    c = np.zeros(6, np.int64)
    labels = np.empty(a_max, np.int32)
    probs = np.empty(a_max)
    kids = np.empty(pa_max, np.int64)
    nexts = np.empty(pa_max, np.int64)
    mask = np.empty(nm)
    pub = root.copy()
    s = np.zeros((2, nm), np.bool_)
    while sp > 0:
        sp -= 1
        pub[:] = stack[sp]
        s[:, :] = sup[sp]
        c[0] += 1
        a = s[0].sum()
        b = s[1].sum()
        if a == 0 or b == 0:
            if live_only:
                continue
        else:
            c[1] += 1
            c[2] += a
            c[3] += b
        kind = pp.current_player(pub, params)
        if kind == pp.TERMINAL:
            c[5] += a > 0 and b > 0
            continue
        if kind == pp.CHANCE:
            k = pp.chance_outcomes(pub, params, labels, probs)
            for o in range(k):
                pp.apply_action(pub, params, labels[o], stack[sp])
                for seat in range(2):
                    pp.chance_mask(pub, params, labels[o], seat, mask[:n[seat]])
                    for i in range(n[seat]):
                        sup[sp, seat, i] = s[seat, i] and mask[i] > 0
                sp += 1
            continue
        c[4] += a > 0 and b > 0
        k = pp.legal_actions(pub, params, labels)
        base = sp
        for o in range(k):
            pp.apply_action(pub, params, labels[o], stack[sp])
            sup[sp, 1 - kind] = s[1 - kind]
            sup[sp, kind] = False
            sp += 1
        for i in range(n[kind]):
            if s[kind, i]:
                m = pp.private_actions(pub, params, i, k, kids, nexts)
                for e in range(m):
                    sup[base + kids[e], kind, nexts[e]] = True
    return c


def _variant(spec: str):
    n, k, d, t = map(int, spec.split("/"))
    return make_variant(None, {"cards": n, "houses": k, "decoys": d, "max_turns": t})


def sizes(specs: list[str], history_max: float) -> None:
    print("variant | public nodes | live | private states | dense range entries | "
          "live range entries | history nodes | history / live public")
    for spec in specs:
        v = _variant(spec)
        params = v.to_params()
        t0 = time.perf_counter()
        c = count_public(params, True)
        secs = time.perf_counter() - t0
        n = int(pp.python_impl(params, "num_private")(params, 0))
        est = estimate_nodes(params, samples=20000)
        if est <= history_max:
            from spycfr.games import build_tree
            from spycfr.games.agent_hunter import AgentHunterGame

            hist, how = build_tree(AgentHunterGame(v)).num_nodes, ""
        else:
            hist, how = est, " (estimate)"
        print(f"{spec} | {c[0]:,} | {c[1]:,} | {n} | {c[0] * 2 * n:,} | {c[2] + c[3]:,} | "
              f"{hist:,.0f}{how} | {hist / c[1]:.1f} ({secs:.1f}s)", flush=True)


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
    elif what == "scale":
        scale(rest[0], float(rest[1]), rest[2], float(rest[3]))
    else:
        raise SystemExit(f"error: unknown benchmark {what!r}: sizes, iter or scale")
