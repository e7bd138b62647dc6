"""CPU seconds (``time.process_time``) of a search agent's re-solves of P1's first move for
six deals, the same decisions in every run (where a pair of games differs as the agents
do), ROUNDS rounds (default 2); the plan (and numba's compile) left out. RUN is
results/agent-avenue/standard by default; for results/agent-avenue/advanced the deals are
at the openings' supply (DEVICE.WATCHTOWER.TWIN), and each is asked again after a swap (P1
to move after its discard's draw), the two kinds' medians printed apart. Each position's
last re-solve is timed (the walk to it may re-solve before: P1's swap).

    python benchmarks/agent_first_resolves_cpu.py LABEL [ROUNDS] [RUN]
"""

from __future__ import annotations

import statistics
import sys
import time

from agent_headtohead import time_solves  # this folder's (a script)

from spycfr.analysis.agentplay import walk_view
from spycfr.games import feature, make_variant
from spycfr.runs.agent_run import load_agent
from spycfr.runs.store import read_run

run = sys.argv[3] if len(sys.argv) > 3 else "results/agent-avenue/standard"
meta = read_run(run)
records = feature(meta.game, "records", "record notation to name a position in")
variant = make_variant(meta.game, None, meta.variant)
agent = load_agent(run, None)
cpu = time_solves(agent, time.process_time)
deals = ["CB.SA.SK.MO", "DA.EN.DD.SE", "CB.CB.DD.SE", "DA.SA.SA.SK", "EN.EN.CB.MO", "DA.CB.DD.SE"]
swaps = ["SK>DA", "DD>CB", "CB>SK", "SK>MO", "MO>SE", "DA>EN"]  # a name of the hand > a draw
if meta.variant.get("mode") == "advanced":
    market = " market:DEVICE.WATCHTOWER.TWIN"
    positions = {"first move": [f"deal:{d}|?{market}" for d in deals],
                 "after a swap": [f"deal:{d}|?{market} swap:{s}"
                                  for d, s in zip(deals, swaps, strict=True)]}
else:
    positions = {"first move": [f"deal:{d}|?" for d in deals]}
walk_view(agent, records, variant, positions["first move"][0], 0)  # the plan
cpu.clear()
kinds: dict[str, list[float]] = {kind: [] for kind in positions}
for _round in range(int(sys.argv[2]) if len(sys.argv) > 2 else 2):
    for kind, asked in positions.items():
        for record in asked:
            cpu.clear()
            walk_view(agent, records, variant, record, 0)
            kinds[kind].append(cpu[-1])  # the asked decision's (the walk re-solves before)
every = [c for got in kinds.values() for c in got]
print(f"{sys.argv[1]}: {len(every)} re-solves, CPU median {statistics.median(every):.2f} s, "
      f"mean {statistics.mean(every):.2f} s", [round(c, 2) for c in every])
if len(kinds) > 1:
    for kind, got in kinds.items():
        print(f"  {kind}: {len(got)} re-solves, CPU median {statistics.median(got):.2f} s")
