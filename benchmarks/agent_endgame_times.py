"""The search agent's re-solve times with the endgame rule: a committed agent run (its
run.json copied to a scratch directory with the rule's budgets added; the committed runs were
made without it) plays pairs of games against OPPONENT; one JSON line per re-solve (whether
it reached the end of the game, its public nodes, wall and CPU seconds of the solve, seconds
of the endgame check and of the build) and per pair. Summary at the end: the median re-solve,
and the median of those that reached the end.

    python benchmarks/agent_endgame_times.py results/standard heuristic:hunter --first 2000 \
        --pairs 3 [--endgame N] > OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def main() -> None:
    from spycfr.analysis.headtohead import head_to_head, player_from
    from spycfr.games import make_game
    from spycfr.runs.store import read_run
    from spycfr.search import agent as agent_module

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run")
    p.add_argument("opponent")
    p.add_argument("--first", type=int, default=2000)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--endgame", type=int, default=agent_module.ENDGAME)
    p.add_argument("--plan-endgame", type=int, default=agent_module.PLAN_ENDGAME)
    args = p.parse_args()
    scratch = Path(tempfile.mkdtemp()) / "agent"
    shutil.copytree(args.run, scratch)
    meta = json.loads((scratch / "run.json").read_text())
    meta["agent"].update(endgame=args.endgame, plan_endgame=args.plan_endgame)
    (scratch / "run.json").write_text(json.dumps(meta))
    config = read_run(str(scratch)).config
    assert config is not None
    game = make_game(config.game, config.preset, config.params)
    a, b = player_from(str(scratch), game), player_from(args.opponent, game)
    agent = a.agent
    solve, endgame, cut = agent.solve, agent.endgame, agent_module.subgame
    last = {"check": 0.0, "build": 0.0}
    rows: list[dict] = []

    def timed_endgame(*x, **kw):
        start = time.perf_counter()
        out = endgame(*x, **kw)
        last["check"] = time.perf_counter() - start  # the count, and the build if whole
        return out

    def timed_cut(*x, **kw):
        start = time.perf_counter()
        out = cut(*x, **kw)
        last["build"] = time.perf_counter() - start
        return out

    def timed_solve(what, tree, *x, **kw):
        if not tree.leaves.size:
            last["build"] = 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        out = solve(what, tree, *x, **kw)
        rows.append({"what": what, "whole": not tree.leaves.size, "nodes": tree.size,
                     "wall": round(time.perf_counter() - wall, 3),
                     "cpu": round(time.process_time() - cpu, 3),
                     "check": round(last["check"], 3), "build": round(last["build"], 3)})
        print(json.dumps(rows[-1]), flush=True)
        return out

    agent.solve, agent.endgame, agent_module.subgame = timed_solve, timed_endgame, timed_cut
    for seed in range(args.first, args.first + args.pairs):
        start = time.time()
        r = head_to_head(game, a, b, games=2, seed=seed)
        print(json.dumps({"seed": seed, "p1": r["a_as_p1"]["mean"], "p2": r["a_as_p2"]["mean"],
                          "wall": round(time.time() - start, 1)}), flush=True)
    resolves = [r for r in rows if r["what"] != "the opening subgame"]
    total = [r["wall"] + r["check"] + r["build"] for r in resolves]
    whole = [r["wall"] + r["check"] + r["build"] for r in resolves if r["whole"]]
    print(json.dumps({"re-solves": len(total), "median": statistics.median(total) if total
                      else None, "reached the end": len(whole),
                      "their median": statistics.median(whole) if whole else None}))


if __name__ == "__main__":
    main()
