"""The size table of the public tree: for every preset of every game with a public-state
model, the history tree's nodes, the public tree's nodes and live range entries (and dense
ones: nodes x private states per seat), and what ``--tree auto`` picks for an iterative
solve (``--algorithm pdcfr+``, the default memory limit), with the seconds each took (the
count alone, compilation excluded; auto's choice, its own count included).

    python benchmarks/bench_public_sizes.py [--games agent-hunter,leduc] [--history-max 12e6]
        [--count-seconds 120] [--out table.md]

History trees are enumerated up to ``--history-max`` nodes (estimated), else the playout
estimate is shown (~). A public tree whose count goes past ``--count-seconds`` is shown as
"more than" the nodes and entries counted by then.
"""

from __future__ import annotations

import argparse
import sys
import time

from spycfr.engine.playout import estimate_nodes
from spycfr.games import build_tree, game_names, get_plugin, make_game
from spycfr.public import protocol
from spycfr.public.enumerate import ENT0, ENT1, NODES, OK, count_public
from spycfr.runs.config import SolveConfig
from spycfr.runs.game import resolve_game
from spycfr.runs.public_run import choose_tree


class _OutOfTime(Exception):
    pass


def public_count(params, seconds: float) -> tuple[str, str, str, float]:
    """(public nodes, live range entries, dense range entries, seconds) as table text."""
    n = [int(protocol.python_impl(params, "num_private")(params, s)) for s in (0, 1)]
    count_public(params, max_nodes=1)  # numba compiles the count once per game: not timed
    t0 = time.perf_counter()
    seen = [0, 0]

    def note(nodes: int, entries: int) -> None:
        seen[:] = [nodes, entries]
        if time.perf_counter() - t0 > seconds:
            raise _OutOfTime

    try:
        status, acc = count_public(params, note=note)
    except _OutOfTime:
        return (f"> {seen[0]:,}", f"> {seen[1]:,}", f"> {seen[0] * sum(n):,}",
                time.perf_counter() - t0)
    assert status == OK, status
    nodes, entries = int(acc[NODES]), int(acc[ENT0] + acc[ENT1])
    return f"{nodes:,}", f"{entries:,}", f"{nodes * sum(n):,}", time.perf_counter() - t0


def history_count(name: str, preset: str, params, history_max: float) -> tuple[str, float]:
    """(history nodes as table text, their number or estimate)."""
    estimate = estimate_nodes(params)
    if estimate > history_max:
        return f"~{estimate:.3g}", estimate
    nodes = build_tree(make_game(name, preset)).num_nodes
    return f"{nodes:,}", float(nodes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=None, help="comma-separated games (default: all with "
                    "a public-state model)")
    ap.add_argument("--history-max", type=float, default=12e6,
                    help="enumerate history trees up to this many nodes (estimated)")
    ap.add_argument("--count-seconds", type=float, default=120.0,
                    help="stop counting a public tree after this many seconds")
    ap.add_argument("--out", default=None, help="also write the table to this file")
    args = ap.parse_args(argv)
    names = args.games.split(",") if args.games else game_names()
    lines = ["| game | preset | private states / seat | history nodes | public nodes | "
             "live range entries | dense range entries | history nodes / live entry | "
             "--tree auto (pdcfr+) | count s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    print(lines[0], "\n" + lines[1], flush=True)
    for name in names:
        plugin = get_plugin(name)
        for preset in plugin.presets:
            params = plugin.numba_params(plugin.make_variant(preset, {}))
            if not protocol.has_public(params):
                continue
            n = [int(protocol.python_impl(params, "num_private")(params, s)) for s in (0, 1)]
            hist_text, hist = history_count(name, preset, params, args.history_max)
            nodes, entries, dense, secs = public_count(params, args.count_seconds)
            ratio = (f"{hist / int(entries.replace(',', '')):.2f}"
                     if not entries.startswith(">") else "-")
            config = SolveConfig(game=name, preset=None if preset == "default" else preset,
                                 algorithm="pdcfr+", tree="auto")
            t0 = time.perf_counter()
            chosen, _ = choose_tree(config, resolve_game(config))
            secs_auto = time.perf_counter() - t0
            private = str(n[0]) if n[0] == n[1] else f"{n[0]} / {n[1]}"
            line = (f"| {name} | {preset} | {private} | {hist_text} | {nodes} | {entries} | "
                    f"{dense} | {ratio} | {chosen} ({secs_auto:.1f} s) | {secs:.1f} |")
            lines.append(line)
            print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
