"""Where a search agent's time per decision goes, and whether a change keeps its play: one
seeded game (or its first N decisions) of a committed agent run against an opponent, each
of the agent's decisions timed and its move probabilities recorded to the last bit
(``float.hex``), optionally under cProfile (the top costs by cumulative and own time).

    python benchmarks/agent_decision_profile.py AGENT_DIR [--opponent heuristic] [--seed 3]
        [--seat P1] [--decisions N] [--profile 25] [--record OUT.json] [--compare OLD.json]

--record writes every decision's probabilities and seconds; --compare reads such a file
(e.g. recorded by an earlier commit) and says, decision by decision, whether the moves'
probabilities are the same bits (or their largest difference), and the time per decision
before and after (the medians and totals of the decisions both hold). The game is the
head-to-head game of that seed (agentplay.play_games: the same streams), so the same code
plays the same moves.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time


class _Enough(Exception):
    """Raised by the wrapped policy after the decisions asked for."""


def play(agent_dir: str, opponent: str, seed: int, seat: int, decisions: int,
         profile: int, record: str | None) -> list[dict]:
    """The agent's decisions in game 0 of ``seed`` with the agent as ``seat``: each
    decision's probabilities (hex) and seconds; prints the profile's top ``profile`` lines."""
    import numpy as np

    from spycfr.analysis.agentplay import play_games
    from spycfr.analysis.headtohead import player_args, player_from, player_probs
    from spycfr.games import get_plugin, make_game
    from spycfr.runs.store import read_run
    from spycfr.search.agentgame import AgentGame

    config = read_run(agent_dir).config
    assert config is not None  # read_run requires it
    game = make_game(config.game, config.preset, config.params)
    start = time.perf_counter()
    a = player_from(agent_dir, game)
    b = player_from(opponent, game)
    params = get_plugin(game.name).numba_params(game.variant_obj)
    print(f"loaded in {time.perf_counter() - start:.1f} s", flush=True)
    rows: list[dict] = []
    policy, observe = AgentGame.policy, AgentGame.observe
    spent = [0.0]  # the agent's seconds since its last decision (observing re-solves too)

    def timed(self, state):
        began = time.perf_counter()
        probs = policy(self, state)
        rows.append({"seconds": round(spent[0] + time.perf_counter() - began, 4),
                     "probs": [float(x).hex() for x in np.asarray(probs, float)]})
        spent[0] = 0.0
        if decisions and len(rows) >= decisions:
            raise _Enough
        return probs

    def watched(self, state):
        began = time.perf_counter()
        observe(self, state)
        spent[0] += time.perf_counter() - began

    AgentGame.policy = timed  # type: ignore[method-assign]
    AgentGame.observe = watched  # type: ignore[method-assign]
    prof = cProfile.Profile() if profile else None
    began = time.perf_counter()
    load = os.getloadavg()[0]
    try:
        if prof is not None:
            prof.enable()
        play_games(params, 1, seed, seat == 0, (a, player_args(a)), (b, player_args(b)),
                   player_probs)
    except _Enough:
        pass
    finally:
        if prof is not None:
            prof.disable()
        AgentGame.policy = policy  # type: ignore[method-assign]
        AgentGame.observe = observe  # type: ignore[method-assign]
    wall = time.perf_counter() - began
    secs = [r["seconds"] for r in rows]
    print(f"{len(rows)} decisions in {wall:.1f} s (decisions {sum(secs):.1f} s, median "
          f"{statistics.median(secs) if secs else 0:.3f} s); load {load:.1f} -> "
          f"{os.getloadavg()[0]:.1f}", flush=True)
    if prof is not None:
        for key in ("cumulative", "tottime"):
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats(key).print_stats(profile)
            print(out.getvalue())
    if record:
        with open(record, "w") as f:
            json.dump({"agent": agent_dir, "opponent": opponent, "seed": seed, "seat": seat,
                       "decisions": rows}, f)
    return rows


def compare(old: str, rows: list[dict]) -> int:
    """Decision by decision against ``old``'s file: the same bits, or the largest
    difference; the time per decision before and after. Returns 1 if any differ."""
    with open(old) as f:
        before = json.load(f)["decisions"]
    n = min(len(before), len(rows))
    worst, same = 0.0, 0
    for i in range(n):
        x = [float.fromhex(v) for v in before[i]["probs"]]
        y = [float.fromhex(v) for v in rows[i]["probs"]]
        if len(x) != len(y):
            print(f"decision {i}: {len(x)} moves before, {len(y)} after")
            return 1
        if x == y:
            same += 1
        worst = max(worst, max(abs(p - q) for p, q in zip(x, y, strict=True)))
    print(f"{n} decisions compared ({len(before)} before, {len(rows)} after): {same} the "
          f"same bits, largest difference {worst:.3g}")
    t0 = [r["seconds"] for r in before[:n]]
    t1 = [r["seconds"] for r in rows[:n]]
    if n:
        print(f"seconds a decision: median {statistics.median(t0):.3f} -> "
              f"{statistics.median(t1):.3f}, total {sum(t0):.1f} -> {sum(t1):.1f} "
              f"({sum(t1) / max(sum(t0), 1e-9):.2f}x)")
    return 0 if same == n and len(before) == len(rows) else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("agent_dir")
    p.add_argument("--opponent", default="heuristic")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--seat", choices=("P1", "P2"), default="P1")
    p.add_argument("--decisions", type=int, default=0, help="stop after N (0: the game)")
    p.add_argument("--profile", type=int, default=0, help="cProfile's top N lines (0: none)")
    p.add_argument("--record", help="write each decision's probabilities and seconds")
    p.add_argument("--compare", help="a --record file to compare against")
    args = p.parse_args(argv)
    from spycfr.errors import SpycfrError
    try:
        rows = play(args.agent_dir, args.opponent, args.seed, 0 if args.seat == "P1" else 1,
                    args.decisions, args.profile, args.record)
        return compare(args.compare, rows) if args.compare else 0
    except (OSError, ValueError, KeyError, SpycfrError) as e:  # no run, a bad --compare file
        p.exit(2, f"error: {e if not isinstance(e, KeyError) else f'a record lacks {e}'}\n")


if __name__ == "__main__":
    sys.exit(main())
