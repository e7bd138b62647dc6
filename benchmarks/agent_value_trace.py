"""A search agent's own value at each of its decisions, in games against the heuristic played
as benchmarks/agent_headtohead.py plays them (head_to_head's streams: seed S as P1, the
second stream of S as P2, so that the games are the committed pairs' where the code is the
same), one JSON line a game (every decision's record, moves, probabilities and values);
then where the value leaps between two consecutive decisions, and what the first decision's
subgame said of the states between them.

    python benchmarks/agent_value_trace.py AGENT_DIR OUT.jsonl --first 1000 --pairs 3
    python benchmarks/agent_value_trace.py --jumps OUT.jsonl [--over 0.5]
    python benchmarks/agent_value_trace.py AGENT_DIR OUT.jsonl --between SEED SEAT A B

The values are :meth:`AgentGame.move_info`'s, what `spycfr query` and play's review answer
at the agent's seat (docs/search.md, "A value that leaps at a black market take").
``--between`` walks the agent along the seat's view of a traced game (ViewWalk, as `spycfr
query` does) to decision A (the trace's step number ``i``), then, at each token up to
decision B, the seat's value as decision A's subgame gives it (its own values there: a
LEAF's is its leaf value), where that state is a node of the subgame; then B's value.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def trace(agent_dir: str, out: str, first: int, pairs: int) -> None:
    """Play ``pairs`` pairs from seed ``first`` against the heuristic, appending a line a game."""
    from spycfr.analysis.headtohead import (
        player_args,
        player_from,
        player_probs,
        second_stream,
    )
    from spycfr.cfr.mccfr_kernels import advance_keys
    from spycfr.engine import protocol as P
    from spycfr.engine.rng import game_stream, root_key, sample, uniform
    from spycfr.games import get_plugin, make_game
    from spycfr.runs.store import read_run
    from spycfr.tree import CHANCE, TERMINAL

    config = read_run(agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    agent = player_from(agent_dir, game).agent
    heuristic = player_args(player_from("heuristic", game))
    params = get_plugin(game.name).numba_params(game.variant_obj)
    impl = P.implementations(params)
    m = max(int(impl["max_actions"](params)), 2)

    def one(seed: int, seat: int) -> tuple[float, str, list[dict]]:
        acts, probs = np.empty(m, dtype=np.int32), np.empty(m)
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = game_stream(np.int64(seed), np.int64(0))
        cur = impl["initial_state"](params)
        nxt = np.empty_like(cur)
        h = np.array([root_key(s) for s in range(2)], dtype=np.int64)
        walk, state, decisions, step = agent.game(seat), game.new_initial_state(), [], 0
        while (p := int(impl["current_player"](cur, params))) != TERMINAL:
            if p == CHANCE:
                k = impl["chance_outcomes"](cur, params, acts, probs)
            else:
                k = impl["legal_actions"](cur, params, acts)
                if p == seat:  # play_games' policy, with the values
                    info = walk.move_info(cur, seat)
                    probs[:k] = walk.policy(cur)
                    decisions.append({
                        "i": step, "record": _record(state),
                        "view": state.information_state(seat),
                        "labels": [state.action_label(int(x)) for x in acts[:k]],
                        "probs": [round(float(x), 4) for x in probs[:k]],
                        "values": [None if np.isnan(v) else round(float(v), 4)
                                   for v in info.values],
                        "value": None if np.isnan(info.value) else round(float(info.value), 4),
                        "to_end": info.to_end})
                else:
                    player_probs(heuristic, cur, params, p, h, acts, k, probs)
            a = int(acts[sample(probs, k, uniform(rng))])
            if p == seat:
                decisions[-1]["chosen"] = state.action_label(a)
            advance_keys(params, cur, nxt, a, h)
            state = state.child(a)
            step += 1
            walk.observe(cur)
        return float(impl["returns_p1"](cur, params)), _record(state), decisions

    for seed in range(first, first + pairs):
        for seat in (0, 1):
            start = time.time()
            r, record, decisions = one(seed if seat == 0 else second_stream(seed), seat)
            line = {"seed": seed, "seat": seat + 1, "payoff": r if seat == 0 else -r,
                    "record": record, "wall": round(time.time() - start, 1),
                    "decisions": decisions}
            with open(out, "a") as f:
                f.write(json.dumps(line) + "\n")
            print(f"seed {seed} as P{seat + 1}: {line['payoff']:+g} ({line['wall']} s)",
                  flush=True)


def _record(state) -> str:
    """The whole record so far where the game's states give it (Agent Avenue's), else the
    views of both seats."""
    if hasattr(state, "record"):
        return state.record()
    return " | ".join(state.information_state(s) for s in (0, 1))


def jumps(out: str, over: float) -> None:
    """Each pair of consecutive decisions of a traced game whose values differ by more than
    ``over``, with the tokens between them."""
    pairs = 0
    with open(out) as f:
        games = [json.loads(line) for line in f]
    for g in games:
        ds = [d for d in g["decisions"] if d["value"] is not None]
        for a, b in zip(ds, ds[1:], strict=False):
            pairs += 1
            if abs(b["value"] - a["value"]) > over:
                between = b["view"].split()[len(a["view"].split()):]
                print(f"seed {g['seed']} P{g['seat']} ({g['payoff']:+g}): decisions {a['i']} -> "
                      f"{b['i']}: {a['value']:+.4f} ({a['chosen']}) -> {b['value']:+.4f}; "
                      f"between (the seat's view): {' '.join(between)}")
    print(f"{pairs} pairs of consecutive decisions")


def between(agent_dir: str, out: str, seed: int, seat: int, a: int, b: int) -> None:
    """Decision ``a``'s subgame's values along the game to decision ``b`` (module notes)."""
    from spycfr.analysis.agentplay import ViewWalk
    from spycfr.runs.agent_run import load_agent
    from spycfr.search.tree import LEAF

    with open(out) as f:
        g = next(x for x in map(json.loads, f) if x["seed"] == seed and x["seat"] == seat + 1)
    by_step = {d["i"]: d for d in g["decisions"]}
    agent = load_agent(agent_dir)
    walk = ViewWalk(agent, agent.plugin.records, agent.variant, seat)
    first, last = by_step[a]["view"].split(), by_step[b]["view"].split()
    state = walk.to(" ".join(first))
    info = walk.game.move_info(state, seat)
    vt, _, cfv, reach_opp = walk.game.own_values()
    nodes = {vt.pub[c].tobytes(): c for c in range(len(vt.kind))}
    print(f"decision {a}: {info.value:+.4f}; its subgame {len(vt.kind)} nodes, "
          f"{int((vt.kind == LEAF).sum())} leaves")
    for k in range(len(first) + 1, len(last) + 1):
        state = walk.to(" ".join(last[:k]))
        pub, j = agent.public(state), agent.private(state, seat)
        c = nodes.get(pub.tobytes())
        if c is None:
            print(f"  {last[k - 1]:<24} not in the subgame")
            continue
        if cfv[c, j] == 0:  # e.g. after a draw the public model makes later (its refill)
            print(f"  {last[k - 1]:<24} a node without the seat's cards here")
            continue
        mass = float(walk.game._pairs(pub, j, seat) @ reach_opp[c])
        v = cfv[c, j] * agent.model.z / mass if mass > 0 else float("nan")
        print(f"  {last[k - 1]:<24} {'a leaf' if vt.kind[c] == LEAF else 'a node'}: {v:+.4f}")
    print(f"decision {b}: {walk.game.move_info(walk.state, seat).value:+.4f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--first", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--jumps", metavar="OUT.jsonl")
    ap.add_argument("--over", type=float, default=0.5)
    ap.add_argument("--between", nargs=4, type=int, metavar=("SEED", "SEAT", "A", "B"),
                    help="SEAT 1 or 2; A and B two of its decisions' step numbers (i)")
    args = ap.parse_args()
    if not args.jumps and not (args.agent_dir and args.out):
        ap.error("give AGENT_DIR and OUT.jsonl (to trace, or with --between), or --jumps OUT.jsonl")
    from spycfr.errors import SpycfrError
    try:
        if args.jumps:
            jumps(args.jumps, args.over)
        elif args.between:
            seed, seat, a, b = args.between
            between(args.agent_dir, args.out, seed, seat - 1, a, b)
        else:
            trace(args.agent_dir, args.out, args.first, args.pairs)
    except (OSError, ValueError, KeyError, StopIteration, SpycfrError) as e:
        words = {KeyError: f"a traced game lacks {e}",
                 StopIteration: "no traced game of that seed and seat"}.get(type(e), str(e))
        ap.exit(2, f"error: {words}\n")
