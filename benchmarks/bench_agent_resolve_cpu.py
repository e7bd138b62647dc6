"""CPU seconds per re-solve of search-agent runs, each playing the same pair of games (one per
seat, the same seed) against one opponent in this process; the runs after the first also as
a ratio to the first (the reference). CPU (``time.process_time`` around each solve), not
wall: on the shared machine wall seconds are 3-5 times CPU seconds under load. The first
solve (the plan, numba's compile) is left out.

    python benchmarks/bench_agent_resolve_cpu.py AGENT_DIR [AGENT_DIR ...] --seed 1000
"""

from __future__ import annotations

import argparse
import statistics
import time

from agent_headtohead import time_solves  # this folder's (a script)


def measure(agent_dir: str, opponent: str, seed: int) -> dict:
    """One pair of games of the run at ``agent_dir`` against ``opponent``: each re-solve's
    CPU seconds, the payoffs and the rollouts played."""
    from spycfr.analysis.headtohead import head_to_head, player_from
    from spycfr.games import make_game
    from spycfr.runs.store import read_run

    config = read_run(agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    a, b = player_from(agent_dir, game), player_from(opponent, game)
    cpu = time_solves(a.agent, time.process_time)
    r = head_to_head(game, a, b, games=2, seed=seed)
    values = a.agent.values
    return {"cpu": cpu[1:], "p1": r["a_as_p1"]["mean"], "p2": r["a_as_p2"]["mean"],
            "rollouts": getattr(getattr(values, "inner", values), "games_played", None)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("agent_dirs", nargs="+")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args()
    reference = None
    for d in args.agent_dirs:
        m = measure(d, args.opponent, args.seed)
        median = statistics.median(m["cpu"])
        reference = reference or median
        print(f"{d}: {len(m['cpu'])} re-solves, CPU median {median:.2f} s, sum "
              f"{sum(m['cpu']):.1f} s ({median / reference:.2f}x the first); payoffs as P1 "
              f"{m['p1']:+.0f}, as P2 {m['p2']:+.0f}; rollouts {m['rollouts']}")
