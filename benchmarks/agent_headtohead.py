"""A search agent's run head to head, in pairs of games (one per seat, the same seed), the
opponents interleaved so that a measurement stopped at any time has as many pairs against
each; one JSON line per pair (A's payoff as P1 and as P2, the wall seconds, the seconds of
each of the agent's solves), appended to OUT so that a rerun with --first past the last seed
goes on. The agent is loaded once (its first plan solved once). Summary: --summary OUT.

    python benchmarks/agent_headtohead.py AGENT_DIR OUT.jsonl heuristic RUN_DIR --first 1000
    python benchmarks/agent_headtohead.py --summary OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time


def play(agent_dir: str, out: str, opponents: list[str], first: int, pairs: int) -> None:
    from spycfr.analysis.headtohead import head_to_head, payoff_bound, player_from
    from spycfr.games import make_game
    from spycfr.runs.store import read_run

    config = read_run(agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    a = player_from(agent_dir, game)
    bound = payoff_bound(game)
    opps = {name: player_from(name, game) for name in opponents}
    seconds: list[float] = []
    solve = a.agent.solve

    def timed(*args, **kw):
        start = time.perf_counter()
        result = solve(*args, **kw)
        seconds.append(time.perf_counter() - start)
        return result

    a.agent.solve = timed
    for seed in range(first, first + pairs):
        for name, b in opps.items():
            done, start = len(seconds), time.time()
            r = head_to_head(game, a, b, games=2, seed=seed)
            line = {"opponent": name, "seed": seed, "p1": r["a_as_p1"]["mean"],
                    "p2": r["a_as_p2"]["mean"], "bound": bound,
                    "wall": round(time.time() - start, 1),
                    "solve_seconds": [round(x, 3) for x in seconds[done:]]}
            with open(out, "a") as f:
                f.write(json.dumps(line) + "\n")


def summary(out: str) -> None:
    """Each opponent's mean with mean +- 1.96 SE clipped to the payoff range (the game's
    bound, recorded in each line since; 1, Agent Hunter's and Agent Avenue's, before)."""
    from spycfr.analysis.headtohead import interval

    rows = [json.loads(line) for line in open(out)]
    bound = max((r.get("bound", 1.0) for r in rows), default=1.0)
    for name in dict.fromkeys(r["opponent"] for r in rows):
        x = [v for r in rows if r["opponent"] == name for v in (r["p1"], r["p2"])]
        m = sum(x) / len(x)
        half = 1.96 * statistics.stdev(x) / math.sqrt(len(x)) if len(x) > 1 else math.inf
        lo, hi = interval(m, half, bound)
        print(f"{name}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] in {len(x)} games "
              f"({len(x) // 2} pairs, seeds {min(r['seed'] for r in rows)}.."
              f"{max(r['seed'] for r in rows)})")
    # the first pair's first solve is the opening plan (numba compiles there)
    s = [v for k, r in enumerate(rows) for v in r["solve_seconds"][1 if k == 0 else 0:]]
    if s:
        print(f"{len(s)} re-solves: median {statistics.median(s):.2f} s, 90th percentile "
              f"{sorted(s)[int(0.9 * len(s))]:.2f} s; "
              f"{statistics.mean(r['wall'] for r in rows):.0f} s a pair")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dir", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("opponents", nargs="*", default=["heuristic"])
    ap.add_argument("--first", type=int, default=1000)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--summary")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
    else:
        play(args.agent_dir, args.out, args.opponents, args.first, args.pairs)
