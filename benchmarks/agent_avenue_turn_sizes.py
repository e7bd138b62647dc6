"""The sizes of a search agent's re-solve subgames on Agent Avenue, each decision a level and
a level a turn (AgentConfig.turn_levels), at every decision of games played by the heuristic
with P1 spending its discards on its first turn (as the standard agent does): public nodes,
private rows, leaves and the build's seconds, a level a turn's build stopped past --cap
public nodes (what AgentConfig.turn_budget, in node-states, bounds: docs/search.md, "A level
a turn within a budget").

    nice -n 10 python benchmarks/agent_avenue_turn_sizes.py results/agent-avenue/standard \\
        --cap 20000 --games 1

By default the cap is the agent's own budget (turn_budget over a seat's private states:
2,081 public nodes on the standard game); the command above, past it, held about 13.5 GB
resident at its largest build, more than a process beside other work should hold.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from spycfr.errors import SpycfrError


def sizes(agent_dir: str, cap: int | None, games: int, seed: int, levels: int) -> None:
    from spycfr.games.agent_avenue import rules as R
    from spycfr.runs.agent_run import load_agent
    from spycfr.runs.store import read_run
    from spycfr.search.subgame import subgame
    from spycfr.search.tree import TooBig

    if read_run(agent_dir).game != "agent-avenue":
        raise ValueError(f"{agent_dir}: give an Agent Avenue search agent's run directory")
    agent = load_agent(agent_dir, None)
    params, states = agent.params, max(agent.model.n)
    cap = cap or agent.config.turn_budget // states  # the agent's budget in public nodes
    rng = np.random.default_rng(seed)
    acts, probs = np.empty(R.max_actions(params), np.int32), np.empty(R.max_actions(params))
    codes, chance = np.empty(4096, np.int64), np.empty(4096)
    print(f"{states} private states a seat; {levels} decision levels; cap {cap:,} public "
          "nodes a level a turn")
    for g in range(games):
        state, decision = R.initial_state(params), 0
        while (who := int(R.current_player(state, params))) != R.TERMINAL:
            if who in (0, 1):
                k = R.legal_actions(state, params, acts)
                row = []
                for turns in (False, True):
                    start = time.perf_counter()
                    try:
                        t = subgame(agent.model, agent.public(state), levels,
                                    max_nodes=cap if turns else 10**9, turn_levels=turns)
                        row.append(f"{t.size:,} nodes ({t.size * states:,} node-states), "
                                   f"{t.row_count.shape[0]:,} rows, {t.leaves.size:,} leaves")
                    except TooBig:
                        row.append(f"over {cap:,} nodes")
                    row[-1] += f", {time.perf_counter() - start:.1f} s"
                R.heuristic_policy(state, params, acts, k, probs)
                j = int(np.argmax(probs[:k]))
                if who == 0 and (acts[0] >> 20) == R.T_SWAP and state[R.TURN] < 2:
                    j = 0  # P1 discards on its first turn while it can
                move = ("swap" if (acts[j] >> 20) == R.T_SWAP else
                        "recruit" if state[R.PHASE] == R.PH_RECRUIT else "play")
                print(f"game {g} decision {decision} P{who + 1} {move}: each decision a level "
                      f"{row[0]}; a level a turn {row[1]}", flush=True)
                decision += 1
                action = int(acts[j])
            else:
                k = R.chance_outcomes(state, params, codes, chance)
                action = int(codes[rng.choice(k, p=chance[:k] / chance[:k].sum())])
            nxt = state.copy()
            R.apply_action(state, params, action, nxt)
            state = nxt


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir")
    ap.add_argument("--cap", type=int,
                    help="public nodes a level a turn's build may reach (default: the "
                    "agent's turn_budget over its states, 2,081 on the standard game; "
                    "20,000 held about 13.5 GB resident there)")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--levels", type=int, default=2, help="decision levels (default 2)")
    args = ap.parse_args()
    if (args.cap is not None and args.cap < 1) or args.games < 1 or args.levels < 1:
        ap.exit(2, "error: --cap, --games and --levels must be at least 1\n")
    try:
        sizes(args.agent_dir, args.cap, args.games, args.seed, args.levels)
    except (SpycfrError, ValueError, FileNotFoundError) as e:
        ap.exit(2, f"error: {e}\n")
