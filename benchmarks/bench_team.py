"""Team equilibria: the belief-DAG solver per team variant (nodes, DAG size, wall and CPU
time to a certified exploitability of 1e-3 and 1e-6, value) with the price of not
communicating (open hands minus TMECor), and column generation as the reference where it
finishes (ratio = column generation's time / the DAG's, same process).

    python benchmarks/bench_team.py [--colgen] [--variants team-tiny,team-price,...]

A variant is a team preset or NAMES/COPIES/HAND/BOARD/TEAMS (e.g. EN,CB,DD/3/2/6/2v1).
"""

from __future__ import annotations

import argparse
import time

from spycfr.engine.seat_views import seat_views
from spycfr.exact.lp import solve_lp
from spycfr.exact.team import solve_team
from spycfr.exact.team_cfr import solve_dags
from spycfr.exact.team_dag import build_dag, team_seats
from spycfr.games import build_tree, get_plugin, make_game

DEFAULT = "team-tiny,team-price,team-duo,EN,CB,DD/3/2/6/2v1"


def _variant(text: str) -> tuple[str | None, dict]:
    if "/" not in text:
        return text, {}
    names, copies, hand, board, teams = text.split("/")
    return None, {"names": names, "copies": int(copies), "hand": int(hand), "discards": 0,
                  "board": int(board), "teams": teams}


def measure(text: str, colgen: bool, time_limit: float) -> dict:
    preset, params = _variant(text)
    plugin = get_plugin("agent-avenue")
    game = make_game("agent-avenue", preset, params)
    tree = build_tree(game)
    wall, cpu = time.perf_counter(), time.process_time()
    views = seat_views(plugin.numba_params(game.variant_obj), tree)
    dags = [build_dag(tree, views, t, s) for t, s in enumerate(team_seats(tree))]
    reached: dict = {}

    def progress(it: int, lower: float, upper: float) -> None:
        for target in (1e-3, 1e-6):
            if (upper - lower) / 2 <= target and target not in reached:
                reached[target] = (time.perf_counter() - wall, time.process_time() - cpu, it)

    result = solve_dags(tree, dags, tolerance=2e-6, time_limit=time_limit, progress=progress)
    pooled = solve_lp(build_tree(make_game("agent-avenue", None, plugin.pooled(
        game.variant_obj).as_dict()))).value_p1
    row = {"variant": text, "nodes": tree.num_nodes,
           "dag": sum(d.num_beliefs + d.num_edges for d in dags),
           "lower": result.lower, "upper": result.upper, "pooled": pooled,
           "reached": reached, "iterations": result.iterations}
    if colgen:
        start = time.perf_counter()
        ref = solve_team(tree, tolerance=2e-6, time_limit=time_limit)
        row["colgen"] = (time.perf_counter() - start, ref.exploitability)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", default=DEFAULT)
    parser.add_argument("--colgen", action="store_true")
    parser.add_argument("--time-limit", type=float, default=900.0)
    args = parser.parse_args()
    texts, buf = [], ""
    for part in args.variants.split(","):  # NAMES contain commas: rejoin up to the slashes
        buf = f"{buf},{part}" if buf else part
        if "/" in buf or buf.startswith("team-"):
            if buf.count("/") in (0, 4):
                texts.append(buf)
                buf = ""
    print("| variant | nodes | DAG size | to 1e-3: wall / CPU s (it.) | to 1e-6: wall / CPU s "
          "(it.) | TMECor value (certified) | open hands | price of not communicating | "
          "column generation |")
    print("|---|---|---|---|---|---|---|---|---|")
    for text in texts:
        r = measure(text, args.colgen, args.time_limit)

        def at(target: float, r: dict = r) -> str:
            if target not in r["reached"]:
                return f"not in {r['iterations']} it."
            w, c, it = r["reached"][target]
            return f"{w:.1f} / {c:.1f} ({it})"

        ref = ""
        if "colgen" in r:
            secs, expl = r["colgen"]
            w6 = r["reached"].get(1e-6, (None,))[0]
            ref = f"{secs:.1f} s, expl. {expl:.1e}" + (f" ({secs / w6:.0f}x)" if w6 else "")
        mid = (r["lower"] + r["upper"]) / 2
        print(f"| {text} | {r['nodes']:,} | {r['dag']:,} | {at(1e-3)} | {at(1e-6)} | "
              f"{mid:+.6f} [{r['lower']:+.6f}, {r['upper']:+.6f}] | {r['pooled']:+.6f} | "
              f"{r['pooled'] - r['upper']:+.6f} .. {r['pooled'] - r['lower']:+.6f} | {ref} |",
              flush=True)


if __name__ == "__main__":
    main()
