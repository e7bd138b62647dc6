"""CPU seconds (``time.process_time``) of results/agent-avenue/standard's re-solves of P1's
first move for six deals, the same decisions in every run (where a pair of games differs as
the agents do), ROUNDS rounds (default 2); the plan (and numba's compile) left out.

    python benchmarks/agent_first_resolves_cpu.py LABEL [ROUNDS]
"""

from __future__ import annotations

import statistics
import sys
import time

from spycfr.analysis.agentplay import walk_view
from spycfr.games import feature, make_variant
from spycfr.runs.agent_run import load_agent
from spycfr.runs.store import read_run

run = "results/agent-avenue/standard"
meta = read_run(run)
records = feature(meta.game, "records", "record notation to name a position in")
variant = make_variant(meta.game, None, meta.variant)
agent = load_agent(run, None)
cpu: list[float] = []
solve = agent.solve


def timed(*args, **kw):
    start = time.process_time()
    result = solve(*args, **kw)
    cpu.append(time.process_time() - start)
    return result


agent.solve = timed
deals = ["CB.SA.SK.MO", "DA.EN.DD.SE", "CB.CB.DD.SE", "DA.SA.SA.SK", "EN.EN.CB.MO", "DA.CB.DD.SE"]
walk_view(agent, records, variant, f"deal:{deals[0]}|?", 0)  # the plan
cpu.clear()
for _round in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2):
    for d in deals:
        walk_view(agent, records, variant, f"deal:{d}|?", 0)
print(f"{sys.argv[1]}: {len(cpu)} re-solves, CPU median {statistics.median(cpu):.2f} s, mean "
      f"{statistics.mean(cpu):.2f} s", [round(c, 2) for c in cpu])
