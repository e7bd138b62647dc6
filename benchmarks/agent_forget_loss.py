"""The loss of the public model that forgets discards (Agent Avenue's full-game search model,
``params.forget``) measured where the exact model fits: the search agent walked on a preset
with the forgetful model forced (``leaf.EXACT_LIMIT`` 0), its strategy at every public node
mapped onto the exact model's whole tree (the public states are the same; each exact
private state plays its forgetful state's row, action by action), and an exact best
response against each seat there. One result line: BR_P1, BR_P2, exploitability, re-solves,
wall seconds (docs/search.md, "the forgotten discard's weight").

    python benchmarks/agent_forget_loss.py mini --iterations 100 --depth 30 --plan-depth 30

Options as benchmarks/agent_exact_walk.py's ``--bare`` (``AgentConfig()`` and the fields
given); ``--exact`` walks the exact model instead (the same mapping, the identity: the check
that the mapping changes nothing).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _entry_keys(params, pub_child_of, tree, node, i):
    """Each private action of state i at decision ``node`` of ``tree`` as (child label,
    the hand after it, the face-down name after a play or -1): what tells the actions of a
    state apart in either model (a swap's discarded name by the hand it leaves)."""
    from spycfr.games.agent_avenue import numbering as NUM
    from spycfr.games.agent_avenue import public as AP

    q = tree.row[node]
    keys = []
    for e in range(int(tree.row_count[q, i])):
        k, nxt = int(tree.row_kid[q, i, e]), int(tree.row_next[q, i, e])
        child = pub_child_of(node, k)
        seat = int(tree.kind[node])
        pending, hs, ds = NUM.scheme(child, params, seat)
        if nxt <= 0 or nxt >= NUM.scheme_size(params, pending, hs, ds):
            keys.append((k, -1, -1))
            continue
        hand, _, name = NUM.decode(params, pending, hs, ds, nxt)
        swap = child[AP.R.PHASE] == AP.R.PH_SWAP_DRAW
        keys.append((k, int(hand), -1 if swap else int(name)))
    return keys


def mapped(exact, forgetful, strategy: np.ndarray) -> np.ndarray:
    """``strategy`` (rows of ``forgetful``, the forgetful model's whole tree) on ``exact``
    (the exact model's whole tree): each exact state's row is its forgetful state's (its
    hand, and a pending face-down name), entry by entry."""
    from spycfr.games.agent_avenue import numbering as NUM
    from spycfr.search import passes
    from spycfr.search.tree import LEAF

    pe, pf = exact.game.params, forgetful.game.params
    # the same public node in both trees: by its path (a public state recurs in the tree)
    where = np.full(exact.size, -1, np.int64)
    where[0] = 0
    for n in range(exact.size):  # children follow their parents
        m = where[n]
        assert m >= 0 and np.array_equal(exact.pub[n], forgetful.pub[m])
        assert exact.count[n] == forgetful.count[m] or exact.kind[n] == LEAF
        for k in range(int(exact.count[n])):
            where[exact.first[n] + k] = forgetful.first[m] + k
    out = np.zeros(exact.row_kid.shape)
    passes.uniform(exact.kind, exact.row, exact.row_count, out)

    def child_of(tree):
        return lambda n, k: tree.pub[tree.first[n] + k]

    for n in range(exact.size):
        seat = int(exact.kind[n])
        if seat not in (0, 1) or exact.row[n] < 0:
            continue
        m = int(where[n])
        qe, qf = exact.row[n], forgetful.row[m]
        pending, hs, ds = NUM.scheme(exact.pub[n], pe, seat)
        fpending, fhs, fds = NUM.scheme(forgetful.pub[m], pf, seat)
        for i in range(1, NUM.scheme_size(pe, pending, hs, ds)):
            if exact.row_count[qe, i] == 0:
                continue
            hand, disc, name = NUM.decode(pe, pending, hs, ds, i)
            j = int(NUM.index(pf, fpending, fhs, fds, hand, disc if fds else 0, name))
            fkeys = _entry_keys(pf, child_of(forgetful), forgetful, m, j)
            for e, key in enumerate(_entry_keys(pe, child_of(exact), exact, n, i)):
                out[qe, i, e] = strategy[qf, j, fkeys.index(key)]
    return out


def main(argv: list[str] | None = None) -> int:
    from spycfr.games import make_variant
    from spycfr.games.agent_avenue import leaf as L
    from spycfr.search.agent import WHOLE_MAX_NODES, AgentConfig, SearchAgent, agent_strategies
    from spycfr.search.resolve import best_response_value
    from spycfr.search.tree import GameModel, build

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("preset", help="an Agent Avenue preset whose exact model fits: mini")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--depth", type=int, default=30)
    parser.add_argument("--plan-depth", type=int, default=30)
    parser.add_argument("--value-function", default="scored-now")
    parser.add_argument("--exact", action="store_true", help="the exact model (the check)")
    args = parser.parse_args(argv)
    start = time.time()
    if not args.exact:
        L.EXACT_LIMIT = 0
    variant = make_variant("agent-avenue", args.preset).as_dict()
    config = AgentConfig(iterations=args.iterations, depth=args.depth,
                         plan_depth=args.plan_depth, value_function=args.value_function)
    agent = SearchAgent("agent-avenue", variant, config)
    print(f"model forget={int(agent.params.forget)}, {agent.model.n[0]} states a seat; "
          f"config {config.as_dict()}", flush=True)
    full, strategies, solves = agent_strategies(agent)
    print(f"walked: {solves} re-solves, {time.time() - start:.0f} s", flush=True)
    exact = build(GameModel.of(agent.params._replace(forget=np.int64(0))),
                  max_nodes=WHOLE_MAX_NODES, live=True)
    rows = [mapped(exact, full, s) for s in strategies]
    own = (best_response_value(full, strategies[1], 0), best_response_value(full, strategies[0], 1))
    br = (best_response_value(exact, rows[1], 0), best_response_value(exact, rows[0], 1))
    print(f"in its own model: BR_P1 {own[0]!r} BR_P2 {own[1]!r}", flush=True)
    print(f"RESULT agent-avenue {args.preset} forget={int(agent.params.forget)} BR_P1 {br[0]!r} "
          f"BR_P2 {br[1]!r} exploitability {(br[0] + br[1]) / 2!r} re-solves {solves} "
          f"wall {time.time() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
