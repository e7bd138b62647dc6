"""The search agent's first plan as a file (``spycfr.search.saved_plan``, what
``spycfr solve --algorithm re-solving`` writes as plan.npz): the time to solve the plan, the
file's size, the seconds to save and to read it back, and the peak resident set, in one
``RESULT`` line. The agent is ``AgentConfig.default(GAME)`` on PRESET (``--plan-endgame N``
to change the plan's budget), or a run directory's agent.

    python benchmarks/agent_plan_file.py agent-hunter mini
    python benchmarks/agent_plan_file.py results/agent-avenue/standard
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from spycfr.errors import SpycfrError
    from spycfr.games import make_variant
    from spycfr.memory import peak_rss_bytes
    from spycfr.search.agent import AgentConfig, SearchAgent
    from spycfr.search.saved_plan import load_plans, save_plans

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", help="agent-hunter or agent-avenue, or an agent's run directory")
    parser.add_argument("preset", nargs="?", help="the preset (with a game)")
    parser.add_argument("--plan-endgame", type=int, help="the first plan's budget, node-states")
    args = parser.parse_args(argv)
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"{time.perf_counter() - start:7.1f} s  {text}", flush=True)

    try:
        if args.preset is None:
            from spycfr.runs.agent_run import load_agent

            agent = load_agent(args.game, say)
            agent.saved_plan = None  # solved here, whatever the directory holds
        else:
            extra = {} if args.plan_endgame is None else {"plan_endgame": args.plan_endgame}
            agent = SearchAgent(args.game, make_variant(args.game, args.preset).as_dict(),
                                AgentConfig.default(args.game, **extra), say)
    except SpycfrError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    clock = time.perf_counter()
    plan = agent.plan()
    solved = time.perf_counter() - clock
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "plan.npz"
        clock = time.perf_counter()
        save_plans(path, [plan], {})
        saved = time.perf_counter() - clock
        size = path.stat().st_size
        clock = time.perf_counter()
        load_plans(path, agent.model)
        read = time.perf_counter() - clock
    print(f"RESULT public nodes {plan.tree.size:,}, leaves {plan.tree.leaves.size:,}; plan "
          f"{solved:.1f} s; file {size / 2 ** 20:.2f} MiB, saved in {saved:.1f} s, read in "
          f"{read:.1f} s; peak RSS {peak_rss_bytes() / 2 ** 30:.2f} GiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
