"""The values a search agent gives its own moves at records (what `spycfr query` on an agent
run shows), by today's reading (``AgentGame.own_values``: the first plan's strategies where
the plan reaches the node to the end of the game, else the subgame's against the agent's
model of the opponent), by the subgame's against the model alone (``model``: the reading
before the plan's was used) and by the old one (the solve's own values over its own opposing
reach: the support, through the gadget where the re-solve has one), beside an exact
equilibrium run's values where one is given. docs/search.md, "The agent's own move values".

    python benchmarks/agent_move_values.py agent-hunter:tiny --equilibrium results/tiny \\
        "0:place:0-1 place:?" "0:place:1-2 place:?"
    python benchmarks/agent_move_values.py results/agent-avenue/standard \\
        "1:deal:?|CB.SA.SK.MO play:DA/? draw:?.?"

AGENT is an agent run directory, or GAME:PRESET for the game's default agent
(``AgentConfig.default``; its first plan is solved here). Each record is SEAT:RECORD, the
seat 0 (P1) or 1 (P2), the record as that seat saw it (the query's notation).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", help="an agent run directory, or GAME:PRESET (default agent)")
    ap.add_argument("records", nargs="+", help="SEAT:RECORD (seat 0 or 1)")
    ap.add_argument("--equilibrium", help="a run with a tree of the same variant to compare")
    args = ap.parse_args()
    from spycfr.analysis.agentplay import walk_view
    from spycfr.analysis.query import _view_to_move, query
    from spycfr.games import feature, make_variant
    from spycfr.runs.agent_run import load_agent
    from spycfr.runs.store import load_run, read_run
    from spycfr.search.agent import AgentConfig, SearchAgent

    start = time.perf_counter()
    if Path(args.agent).is_dir():
        meta = read_run(args.agent)
        name, variant = meta.game, make_variant(meta.game, None, meta.variant)
        agent = load_agent(args.agent, None)
    else:
        name, preset = args.agent.split(":", 1)
        variant = make_variant(name, preset)
        agent = SearchAgent(name, variant.as_dict(), AgentConfig.default(name))
    print(f"the agent ready: {time.perf_counter() - start:.0f} s", flush=True)
    records = feature(name, "records", "records")
    eq = load_run(args.equilibrium) if args.equilibrium else None
    for item in args.records:
        seat_text, record = item.split(":", 1)
        seat = int(seat_text)
        began = time.perf_counter()
        game, state = walk_view(agent, records, variant, record, seat)
        new = game.move_info(state, seat)
        sol, plan_node = game.sol, game.plan_node
        from_plan = game.plan is not None and game.own_values()[0] is game.plan.tree
        game.plan_node = -1  # the re-solve's strategies against the model (the plan unread)
        model = game.move_info(state, seat)
        game.plan_node = plan_node
        game.own_values = lambda sol=sol, s=game.s, seat=seat: (sol.tree, s, sol.values[seat],
                                                                 sol.reach[1 - seat])
        old = game.move_info(state, seat)
        labels = _view_to_move(records, variant, record, seat)[1]["legal_moves"]
        e = ({m["move"]: (m["probability"], m["value"]) for m in
              query(eq, seat, record)["moves"]} if eq is not None else {})
        print(f"P{seat + 1} {record!r}: gadget {sol.enter is not None}, to the end "
              f"{new.to_end}, the plan's values {from_plan}, "
              f"{time.perf_counter() - began:.1f} s")
        for x in np.argsort(-new.probs, kind="stable"):
            line = (f"  {labels[x]:24s} {new.probs[x]:.4f}  old {old.values[x]:+.4f}  "
                    f"model {model.values[x]:+.4f}  new {new.values[x]:+.4f}")
            if labels[x] in e:
                line += f"  equilibrium {e[labels[x]][0]:.4f} {e[labels[x]][1]:+.4f}"
            print(line)


if __name__ == "__main__":
    main()
