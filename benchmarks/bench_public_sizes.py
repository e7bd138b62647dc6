"""The size table of the public tree: for every preset of every game with a public-state
model (and the solver's model where it differs: Leduc with the suits merged), the history
tree's nodes and infosets next to the public tree's nodes, live range entries, rows (its
infosets), terminal pairs and the memory of their precomputed blocks, the tree's bytes, and
what ``--tree auto`` picks for an iterative solve (``--algorithm pdcfr+``, the default
memory limit), with the seconds the count took (compilation excluded) and auto's (its own
count included).

    python benchmarks/bench_public_sizes.py [--games agent-hunter,leduc] [--history-max 12e6]
        [--count-seconds 120] [--out table.md]

History trees are enumerated up to ``--history-max`` nodes (estimated), else the playout
estimate is shown (~) and the infosets are not known (-). A public tree whose count goes
past ``--count-seconds`` is shown as "more than" the nodes, entries and rows counted by then.
"""

from __future__ import annotations

import argparse
import sys
import time

from spycfr.engine.playout import estimate_nodes
from spycfr.games import build_tree, game_names, get_plugin, make_game
from spycfr.public import protocol
from spycfr.public.enumerate import (
    ENT0,
    ENT1,
    NODES,
    OK,
    PAIRS,
    ROWS,
    count_public,
    terminal_bytes,
    tree_bytes,
)
from spycfr.runs.config import SolveConfig
from spycfr.runs.game import resolve_game
from spycfr.runs.public_run import choose_tree


class _OutOfTime(Exception):
    pass


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:,.1f} MiB" if nbytes < 2**30 else f"{nbytes / 2**30:,.2f} GiB"


def public_count(params, seconds: float) -> tuple[list[str], int | None, float]:
    """([public nodes, live range entries, rows, terminal pairs, terminal blocks, tree
    bytes] as table text, the live range entries (None: count not finished), seconds)."""
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
        return ([f"> {seen[0]:,}", f"> {seen[1]:,}", "-", "-", "-", "-"], None,
                time.perf_counter() - t0)
    secs = time.perf_counter() - t0
    assert status == OK, status
    entries = int(acc[ENT0] + acc[ENT1])
    pairs, blocked = int(acc[PAIRS]), terminal_bytes(acc) // 8
    hooked = f"; {pairs - blocked:,} by the hook" if pairs > blocked else ""
    return ([f"{int(acc[NODES]):,}", f"{entries:,}", f"{int(acc[ROWS]):,}", f"{pairs:,}",
             f"{_mib(blocked * 8)}{hooked}", _mib(tree_bytes(params, acc))], entries, secs)


def history_count(name: str, preset: str, params, history_max: float
                  ) -> tuple[str, str, float]:
    """(history nodes and infosets as table text, the nodes or their estimate)."""
    estimate = estimate_nodes(params)
    if estimate > history_max:
        return f"~{estimate:.3g}", "-", estimate
    tree = build_tree(make_game(name, preset))
    return f"{tree.num_nodes:,}", f"{tree.num_infosets:,}", float(tree.num_nodes)


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
    lines = ["| game | preset | private states / seat | history nodes | history infosets | "
             "public nodes | live range entries | rows | terminal pairs | terminal blocks | "
             "public tree | history nodes / live entry | --tree auto (pdcfr+) | count s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    print(lines[0], "\n" + lines[1], flush=True)
    for name in names:
        plugin = get_plugin(name)
        for preset in plugin.presets:
            variant = plugin.make_variant(preset, {})
            models = [("", plugin.numba_params(variant))]
            if plugin.public_params is not None:
                models.append((" (solver model)", plugin.public_params(variant)))
            if not protocol.has_public(models[0][1]):
                continue
            hist_nodes, hist_infosets, hist = history_count(name, preset, models[0][1],
                                                            args.history_max)
            config = SolveConfig(game=name, preset=None if preset == "default" else preset,
                                 algorithm="pdcfr+", tree="auto")
            t0 = time.perf_counter()
            chosen, _ = choose_tree(config, resolve_game(config))
            auto = f"{chosen} ({time.perf_counter() - t0:.1f} s)"
            for label, params in models:
                n = [int(protocol.python_impl(params, "num_private")(params, s))
                     for s in (0, 1)]
                cells, entries, secs = public_count(params, args.count_seconds)
                ratio = f"{hist / entries:.2f}" if entries else "-"
                private = str(n[0]) if n[0] == n[1] else f"{n[0]} / {n[1]}"
                line = (f"| {name} | {preset}{label} | {private} | {hist_nodes} | "
                        f"{hist_infosets} | {' | '.join(cells)} | {ratio} | "
                        f"{auto if label or len(models) == 1 else '-'} | {secs:.1f} |")
                lines.append(line)
                print(line, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
