"""The values an Agent Hunter search agent gives its own moves later in a game, in its own
play: the default agent plays itself (both seats sampled from its move probabilities), and at
P1's TURN-th decision (1: the placement) P1's moves played with probability >= 0.05 are
valued by today's reading (``AgentGame.own_values``: the first plan's where it reaches the
node to the end of the game) and by the re-solve's against the model (the plan unread), each
beside an exact equilibrium run's value at P1's view of the game. docs/search.md, "The
agent's own move values".

    python benchmarks/agent_values_selfplay.py mini results/mini --games 14 --seed 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("preset", help="an Agent Hunter preset (the default agent's variant)")
    ap.add_argument("equilibrium", help="a run with a tree of the same variant")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--turn", type=int, default=3, help="P1's decision to stop at (1: place)")
    args = ap.parse_args()
    from spycfr.analysis.agentplay import walk_view
    from spycfr.analysis.query import _view_to_move, query
    from spycfr.engine import protocol as P
    from spycfr.games import feature, make_variant
    from spycfr.games.agent_hunter.record import view_of
    from spycfr.runs.store import load_run
    from spycfr.search.agent import AgentConfig, SearchAgent
    from spycfr.tree import CHANCE, TERMINAL

    start = time.perf_counter()
    variant = make_variant("agent-hunter", args.preset)
    agent = SearchAgent("agent-hunter", variant.as_dict(), AgentConfig.default("agent-hunter"))
    plan = agent.plan()
    print(f"the plan: {plan.tree.size:,} public nodes, {plan.tree.leaves.size:,} leaves, "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    eq = load_run(args.equilibrium)
    records = feature("agent-hunter", "records", "records")
    impl = P.implementations(agent.params)
    rng = np.random.default_rng(args.seed)
    worst = {"new": 0.0, "model": 0.0}
    for _ in range(args.games):
        games = {0: agent.game(0), 1: agent.game(1)}
        state, actions, turns = agent.initial(), [], 0
        while int(impl["current_player"](state, agent.params)) != TERMINAL:
            p = int(impl["current_player"](state, agent.params))
            legal = agent.legal(state)
            if p == CHANCE:
                codes, probs = np.empty(len(legal) + 64, np.int32), np.empty(len(legal) + 64)
                k = impl["chance_outcomes"](state, agent.params, codes, probs)
                a = int(codes[rng.choice(k, p=probs[:k] / probs[:k].sum())])
            else:
                turns += p == 0
                if p == 0 and turns == args.turn:
                    _report(agent, records, variant, view_of(variant, actions, 0), eq, worst,
                            walk_view, query, _view_to_move)
                    break
                probs = games[p].policy(state)
                a = int(legal[rng.choice(len(legal), p=probs / probs.sum())])
            actions.append(a)
            state = agent.after(state, a)
            for g in games.values():
                g.observe(state)
    print(f"largest |value - equilibrium| of a played move: today's {worst['new']:.4f}, the "
          f"re-solve's against the model {worst['model']:.4f}; "
          f"{time.perf_counter() - start:.0f} s")


def _report(agent, records, variant, record, eq, worst, walk_view, query, view_to_move):
    game, state = walk_view(agent, records, variant, record, 0)
    new = game.move_info(state, 0)
    passes = new.from_plan and game.own_values()[2] is not game.plan.values[0]
    game.plan_node = -1  # the plan unread
    model = game.move_info(state, 0)
    e = {m["move"]: m["value"] for m in query(eq, 0, record)["moves"]}
    labels = view_to_move(records, variant, record, 0)[1]["legal_moves"]
    played = [x for x in range(len(labels)) if new.probs[x] >= 0.05]
    dn = max(abs(new.values[x] - e[labels[x]]) for x in played)
    dm = max(abs(model.values[x] - e[labels[x]]) for x in played)
    worst["new"], worst["model"] = max(worst["new"], dn), max(worst["model"], dm)
    print(f"{record!r}: the plan's values {new.from_plan} (passes from other ranges {passes}), "
          f"|today's - eq| {dn:.4f}, |model - eq| {dm:.4f}", flush=True)
    for x in played:
        print(f"  {labels[x]:22s} {new.probs[x]:.4f}  model {model.values[x]:+.4f}  today's "
              f"{new.values[x]:+.4f}  equilibrium {e[labels[x]]:+.4f}")


if __name__ == "__main__":
    main()
