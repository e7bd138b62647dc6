"""The default search agent observing one heuristic-vs-heuristic game (the rules' heuristic
for both seats, moves and chance drawn from numpy's generator seeded SEED), re-solving where
it would as SEAT without playing: one JSON line per re-solve (whether it reached the end of
the game, public nodes, wall and CPU seconds of the solve) and per decision (seconds of the
agent's work there: the endgame check, the build and the solve). For the late re-solves of
games that run the deck down, which the agent's own games rarely reach.

    python benchmarks/agent_observed_game.py agent-avenue standard --seed 29 --seat 0
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main() -> None:
    from spycfr.engine import protocol as P
    from spycfr.games import make_variant
    from spycfr.search.agent import AgentConfig, SearchAgent

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game")
    p.add_argument("preset")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--seat", type=int, default=0, choices=(0, 1))
    args = p.parse_args()
    agent = SearchAgent(args.game, make_variant(args.game, args.preset).as_dict(),
                        AgentConfig.default(args.game))
    impl = P.implementations(agent.params)
    solve = agent.solve

    def timed(what, tree, *x, **kw):
        wall, cpu = time.perf_counter(), time.process_time()
        out = solve(what, tree, *x, **kw)
        print(json.dumps({"what": what, "whole": not tree.leaves.size, "nodes": tree.size,
                          "wall": round(time.perf_counter() - wall, 3),
                          "cpu": round(time.process_time() - cpu, 3)}), flush=True)
        return out

    agent.solve = timed
    game = agent.game(args.seat)
    rng = np.random.default_rng(args.seed)
    state = impl["initial_state"](agent.params)
    buf = np.empty(max(int(impl["max_actions"](agent.params)), 2), np.int32)
    probs = np.empty(buf.shape[0])
    step = 0
    while impl["current_player"](state, agent.params) != P.TERMINAL:
        mover = impl["current_player"](state, agent.params)
        if mover in (0, 1):
            start = time.perf_counter()
            game.observe(state)
            if mover == args.seat:
                game.policy(state)
            print(json.dumps({"step": step, "decision": int(mover),
                              "seconds": round(time.perf_counter() - start, 3)}), flush=True)
            k = impl["legal_actions"](state, agent.params, buf)
            h = np.empty(k)
            impl["heuristic_policy"](state, agent.params, buf[:k], k, h)
            action = buf[rng.choice(k, p=h / h.sum())]
        else:
            k = impl["chance_outcomes"](state, agent.params, buf, probs)
            action = buf[rng.choice(k, p=probs[:k] / probs[:k].sum())]
        out = np.empty_like(state)
        impl["apply_action"](state, agent.params, np.int32(action), out)
        state = out
        step += 1


if __name__ == "__main__":
    main()
