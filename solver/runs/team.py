"""A team equilibrium into a run directory: TMECor of a game with teams (solver/exact/team.py),
the value of the same variant with each team's information pooled (the bound of a team that
could talk, by the sequence-form LP).

Files: ``team.json`` (game, variant, method, value, certified interval, exploitability,
sizes, times, version) and ``team_plans.npz`` (each team's joint pure plans in the support
and their weights; -1 on infosets of other seats); the report is analysis
(solver/analysis/team.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from spycfr import __version__
from spycfr.exact.lp import solve_lp
from spycfr.exact.team import TeamResult, solve_team
from spycfr.games import get_plugin
from spycfr.io import check_output_dir, save_npz, write_json
from spycfr.runs.source import game_tree
from spycfr.tree import Tree

METHOD = ("TMECor (ex-ante coordinated team strategies) by double oracle column generation: "
          "master LP over joint pure plans (HiGHS), best-response oracle per team (one seat: "
          "backward induction; two seats: exact MILP, scipy.optimize.milp); Celli & Gatti "
          "2018, Farina, Celli, Gatti & Sandholm 2018")


def team_run(game: str, preset: str | None, params: dict, out_dir: str | Path | None,
             tolerance: float = 1e-9, time_limit: float | None = None,
             progress: Callable[[int, float, float], None] | None = None) -> dict:
    """Solve a team variant (and its pooled twin when the game has one); write the run's
    files into ``out_dir`` (if given) and return ``team.json``'s content."""
    out = check_output_dir(out_dir) if out_dir is not None else None
    plugin = get_plugin(game)
    variant = plugin.make_variant(preset, dict(params))
    tree = game_tree(game, preset, params)
    result = solve_team(tree, tolerance=tolerance, time_limit=time_limit, progress=progress)
    meta = {
        "game": game, "variant": variant.as_dict(), "preset": preset, "algorithm": "tmecor",
        "method": METHOD, "iterations": result.iterations, "seed": None,
        "value_team0": result.value, "lower": result.lower, "upper": result.upper,
        "gap": result.gap, "exploitability": result.exploitability,
        "converged": result.converged, "tolerance": tolerance,
        "teams": [side["seats"] for side in result.sides],
        "support": [int(np.count_nonzero(side["weights"] > 1e-12)) for side in result.sides],
        "nodes": tree.num_nodes, "infosets": tree.num_infosets, "seats": tree.num_seats,
        "build_seconds": tree.build_seconds, "solve_seconds": result.seconds,
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if plugin.pooled is not None and tree.num_seats > 2:
        pooled = plugin.pooled(variant)
        ptree = game_tree(game, None, pooled.as_dict())
        lp = solve_lp(ptree)
        meta["pooled"] = {"variant": pooled.as_dict(), "value_team0": lp.value_p1,
                          "nodes": ptree.num_nodes, "infosets": ptree.num_infosets,
                          "solve_seconds": lp.seconds}
    if out is not None:
        save_npz(out / "team_plans.npz", **_plans(tree, result))
        write_json(out / "team.json", meta)
    return meta


def _plans(tree: Tree, result: TeamResult) -> dict:
    """Each team's joint pure plans in the support (action per infoset, -1 elsewhere)."""
    arrays = {}
    for t, side in enumerate(result.sides):
        keep = np.flatnonzero(side["weights"] > 1e-12)
        table = np.full((len(keep), tree.num_infosets), -1, dtype=np.int16)
        for row, k in enumerate(keep.tolist()):
            for plan in side["plans"][k].values():
                table[row, list(plan)] = list(plan.values())
        arrays[f"team{t}_plans"] = table
        arrays[f"team{t}_weights"] = side["weights"][keep]
    return arrays
