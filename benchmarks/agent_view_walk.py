"""The cost of a search agent's walk along a seat's view: `spycfr review` of one game (both
seats) and `spycfr query` at one of its decisions on an agent run, the view replayed a token
at a time (``view_steps``, today's walk) or from its start at every token (``--prefix``:
``view_state`` of each prefix, the walk before it). The game: a full record of the run's
variant, moves and chance drawn at random (``random_playout`` seeded ``--seed``), or
``--record``. Prints one JSON line: wall and CPU seconds (``time.process_time``), the agent's
solves, the view replays and their CPU, and a digest of the answers (the same for both walks
where they agree to the last bit); ``--profile FILE`` writes cProfile's stats by CPU time.
Run it once first on a fresh clone: the first run compiles numba's kernels.

    python benchmarks/agent_view_walk.py results/agent-avenue/standard --seed 8 review
    python benchmarks/agent_view_walk.py results/agent-avenue/standard --seed 8 --prefix query
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import time


def main() -> None:
    from spycfr.analysis import agentplay
    from spycfr.analysis.play import load_opponent
    from spycfr.analysis.review import review_records
    from spycfr.games import get_plugin, make_game, make_variant
    from spycfr.runs.store import read_run

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir")
    p.add_argument("what", choices=("review", "query"))
    p.add_argument("--seed", type=int, default=8)
    p.add_argument("--record", default=None, help="a full record instead of a random game")
    p.add_argument("--prefix", action="store_true",
                   help="replay each view from its start at every token (the walk before)")
    p.add_argument("--query-seat", type=int, default=0, choices=(0, 1))
    p.add_argument("--profile", default=None, metavar="FILE")
    args = p.parse_args()

    meta = read_run(args.run_dir)
    plugin = get_plugin(meta.game)
    variant = make_variant(meta.game, None, meta.variant)
    record = args.record
    if record is None:
        import importlib

        module = importlib.import_module(f"spycfr.games.{meta.game.replace('-', '_')}.record")
        record = module.format_record(variant, module.random_playout(variant, args.seed))
    counts = {"view_replays": 0, "view_replay_cpu": 0.0}
    if args.prefix:
        class PrefixWalk(agentplay.ViewWalk):
            def __init__(self, *a, **kw) -> None:
                super().__init__(*a, **kw)
                self.steps = None
        agentplay.ViewWalk = PrefixWalk  # type: ignore[misc]
    records = plugin.records
    view_state = records.view_state

    def counted_state(*a):
        start = time.process_time()
        try:
            return view_state(*a)
        finally:
            counts["view_replays"] += 1
            counts["view_replay_cpu"] += time.process_time() - start
    object.__setattr__(records, "view_state", counted_state)
    if records.view_steps is not None:
        make_steps = records.view_steps

        def counted_steps(*a):
            steps = make_steps(*a)
            push = steps.push

            def timed_push(token, last=True):
                start = time.process_time()
                try:
                    return push(token, last)
                finally:
                    counts["view_replays"] += 1
                    counts["view_replay_cpu"] += time.process_time() - start
            steps.push = timed_push
            return steps
        object.__setattr__(records, "view_steps", counted_steps)

    wall, cpu = time.perf_counter(), time.process_time()
    prof = cProfile.Profile(time.process_time) if args.profile else None
    if prof is not None:
        prof.enable()
    if args.what == "review":
        opp = load_opponent(args.run_dir)
        loaded = time.process_time() - cpu
        game = make_game(meta.game, None, meta.variant)
        out = review_records(opp, game, [record], (0, 1))
        solves = None
        answer = [(s, r["view"], r["probability"], r["value"])
                  for s, d in out["games"][0]["seats"].items() for r in d["moves"]]
        decisions = len(answer)
    else:
        from spycfr.search.agent import SearchAgent
        n = {"solves": 0}
        solve = SearchAgent.solve

        def counted(self, *a, **kw):
            n["solves"] += 1
            return solve(self, *a, **kw)
        SearchAgent.solve = counted  # type: ignore[method-assign]
        views = _decision_views(make_game(meta.game, None, meta.variant), records, variant,
                                record, args.query_seat)
        view = views[len(views) // 2]
        loaded = 0.0
        q = agentplay.agent_query(args.run_dir, args.query_seat, view)
        solves = n["solves"]
        answer = [(m["move"], m["probability"], m["value"]) for m in q["moves"]]
        decisions = 1
    if prof is not None:
        prof.disable()
        prof.dump_stats(args.profile)
        pstats.Stats(args.profile).sort_stats("cumulative").print_stats(25)
    print(json.dumps({
        "what": args.what, "walk": "prefix" if args.prefix else "steps",
        "record_tokens": len(record.split()), "decisions": decisions,
        "view": view if args.what == "query" else None, "solves": solves,
        "wall": round(time.perf_counter() - wall, 2), "cpu": round(time.process_time() - cpu, 2),
        "load_cpu": round(loaded, 2), "view_replays": counts["view_replays"],
        "view_replay_cpu": round(counts["view_replay_cpu"], 2),
        "answers": hashlib.sha256(repr(answer).encode()).hexdigest()[:16],
    }), flush=True)


def _decision_views(game, records, variant, record: str, seat: int) -> list[str]:
    """``seat``'s view (its information state, a view record) at each of its decisions
    along the full ``record``."""
    state, views = game.new_initial_state(), []
    for code in records.actions(variant, record):
        if state.current_player() == seat:
            views.append(state.information_state(seat))
        state = state.child(int(code))
    return views


if __name__ == "__main__":
    main()
