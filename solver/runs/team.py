"""A team equilibrium into a run directory: TMECor of a game with teams, by regret
minimisation on the teams' belief DAGs (solver/exact/team_dag.py, team_cfr.py) or by column
generation (solver/exact/team.py), and the value of the same variant with each team's
information pooled (the bound of a team that could talk, by the sequence-form LP).

Files: ``team.json`` (game, variant, method, value, certified interval, exploitability,
sizes, times, version), ``team_plans.npz`` (each team's joint pure plans in the support and
their weights; -1 on infosets of other seats; absent when the mixture takes too many plans)
and, for the DAG solver, ``team_checkpoint.npz`` (what ``--resume`` continues from); the
report is analysis (solver/analysis/team.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from spycfr import __version__
from spycfr.engine.playout import game_bounds
from spycfr.engine.seat_views import seat_views
from spycfr.errors import SpycfrError
from spycfr.exact.lp import solve_lp
from spycfr.exact.team import TeamResult, solve_team
from spycfr.exact.team_cfr import solve_dags
from spycfr.exact.team_dag import DagBuilder, flow_plans, team_seats
from spycfr.games import game_names, get_plugin
from spycfr.io import check_output_dir, save_npz, save_npz_fast, write_json
from spycfr.memory import MemoryBudget, current_budget, peak_rss_bytes
from spycfr.runs.source import game_tree
from spycfr.tree import Tree

METHODS = {
    "dag": "TMECor (ex-ante coordinated team strategies) by predictive CFR+ on each team's "
           "belief DAG (Zhang, Farina & Sandholm 2023), exact best responses by backward "
           "induction on the DAGs for the certified interval",
    "colgen": "TMECor (ex-ante coordinated team strategies) by double oracle column "
              "generation: master LP over joint pure plans (HiGHS), best-response oracle per "
              "team (one seat: backward induction; two seats: exact MILP, "
              "scipy.optimize.milp); Celli & Gatti 2018, Farina, Celli, Gatti & Sandholm 2018",
}
ALGORITHMS = ("auto", "dag", "colgen")
CHECKPOINT = "team_checkpoint.npz"
MAX_PLANS = 4096  # joint plans kept per team (team_plans.npz, read by query and the report)
PLAN_WORK = 200_000_000  # beliefs visited in all by the decomposition into plans
BYTES_PER_EDGE = 270  # peak resident bytes per DAG edge, solver included (2.62 GiB at 9.9M edges)


def _check_teams(game: str, plugin, variant) -> None:
    """A one-line refusal for a game or variant without teams."""
    if not plugin.team_presets:
        with_teams = [n for n in game_names() if get_plugin(n).team_presets]
        raise SpycfrError(f"{game} has no teams (two players, one hand each); games with "
                          f"teams: {', '.join(with_teams) or 'none'}")
    if game_bounds(plugin.numba_params(variant))[3] <= 2:
        raise SpycfrError(f"this {game} variant has no teams: give --teams 2v1 or 2v2, or a "
                          f"team preset ({', '.join(plugin.team_presets)})")


def team_run(game: str, preset: str | None, params: dict, out_dir: str | Path | None,
             tolerance: float = 1e-9, time_limit: float | None = None,
             progress: Callable[[int, float, float], None] | None = None,
             algorithm: str = "auto", resume: bool = False,
             note: Callable[[str], None] | None = None) -> dict:
    """Solve a team variant (and its pooled twin when the game has one); write the run's
    files into ``out_dir`` (if given) and return ``team.json``'s content."""
    start = time.perf_counter()
    if algorithm not in ALGORITHMS:
        raise SpycfrError(f"unknown team algorithm {algorithm!r}; algorithms: "
                          f"{', '.join(ALGORITHMS)}")
    say = note or (lambda text: None)
    out = check_output_dir(out_dir) if out_dir is not None else None
    if resume and (out is None or not (out / CHECKPOINT).is_file()):
        raise SpycfrError(f"--resume needs a run directory with {CHECKPOINT} (from an earlier "
                          "`spycfr team --out DIR` that stopped)")
    plugin = get_plugin(game)
    variant = plugin.make_variant(preset, dict(params))
    _check_teams(game, plugin, variant)
    memory = current_budget()  # the command's --memory-limit (spycfr.memory.use_budget)
    say("building the tree (the first run compiles the game's rules: about a minute)")
    tree = game_tree(game, preset, params, memory=memory)
    # auto: the DAG solver, measured faster on every team preset (benchmarks/README.md);
    # column generation when the DAG does not fit.
    chosen = "colgen" if algorithm == "colgen" else "dag"
    dag_meta: dict = {}
    remaining = None if time_limit is None else max(time_limit - (time.perf_counter() - start),
                                                    1.0)
    if chosen == "dag":
        try:
            result, dag_meta = _solve_dag(tree, plugin.numba_params(variant), tolerance,
                                          remaining, progress, memory, out, resume, say)
        except _DagTooBig as exc:
            if algorithm == "dag":
                raise SpycfrError(str(exc)) from None
            say(f"{exc}: column generation instead")
            chosen = "colgen"
    if chosen == "colgen":
        result = solve_team(tree, tolerance=tolerance, time_limit=remaining,
                            progress=progress)
        plans = _plans(tree, result)
    else:
        plans = dag_meta.pop("plans")
    meta = {
        "game": game, "variant": variant.as_dict(), "preset": preset,
        "algorithm": f"tmecor-{chosen}", "method": METHODS[chosen],
        "iterations": result.iterations, "seed": None,
        "value_team0": result.value, "lower": result.lower, "upper": result.upper,
        "gap": result.gap, "exploitability": result.exploitability,
        "converged": result.converged, "tolerance": tolerance,
        "teams": team_seats(tree),
        "support": [int(len(plans[f"team{t}_weights"])) if plans else None for t in (0, 1)],
        "nodes": tree.num_nodes, "infosets": tree.num_infosets, "seats": tree.num_seats,
        "build_seconds": tree.build_seconds, "solve_seconds": result.seconds,
        **dag_meta,
        "version": __version__,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    late = time_limit is not None and time.perf_counter() - start >= time_limit
    if plugin.pooled is not None and late:
        meta["pooled_skipped"] = "the time limit had passed (the pooled LP cannot be stopped)"
    elif plugin.pooled is not None:
        pooled = plugin.pooled(variant)
        ptree = game_tree(game, None, pooled.as_dict(), memory=memory)
        lp = solve_lp(ptree)
        meta["pooled"] = {"variant": pooled.as_dict(), "value_team0": lp.value_p1,
                          "nodes": ptree.num_nodes, "infosets": ptree.num_infosets,
                          "solve_seconds": lp.seconds}
    meta["seconds"] = time.perf_counter() - start
    meta["peak_rss_bytes"] = peak_rss_bytes()
    if out is not None:
        say(f"writing {out}")
        if plans:
            save_npz(out / "team_plans.npz", **plans)
        elif (out / "team_plans.npz").exists():
            (out / "team_plans.npz").unlink()
        write_json(out / "team.json", meta)
    return meta


class _DagTooBig(SpycfrError):
    pass


class _OutOfTime(SpycfrError):
    pass


FINISH_SHARE = 0.05  # of --time-limit, left for what follows the DAG solver's iterations
BUILD_NOTE_SECONDS = 10.0  # a progress line at most this often while a DAG is built


def _build(tree: Tree, views: np.ndarray, team: int, seats: list, max_edges: int,
           start: float, time_limit: float | None, say: Callable[[str], None]):
    """Team ``team``'s belief DAG, built in bounded steps: the time limit (counted from
    ``start``) is checked and progress shown between them."""
    builder = DagBuilder(tree, views, team, seats, max_edges)
    noted = time.perf_counter()
    while not builder.done:
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            raise _OutOfTime(
                f"the time limit passed while building team {team}'s belief DAG "
                f"({builder.expanded:,} of the {builder.beliefs:,} beliefs found so far "
                f"expanded, {builder.edges:,} edges): no team strategy yet; give a longer "
                "--time-limit")
        builder.step()
        if time.perf_counter() - noted >= BUILD_NOTE_SECONDS:
            noted = time.perf_counter()
            say(f"  team {team}: {builder.expanded:,} of {builder.beliefs:,} beliefs found "
                f"so far expanded, {builder.edges:,} edges")
    return builder.dag()


def _solve_dag(tree: Tree, params, tolerance: float, time_limit: float | None,
               progress, memory: MemoryBudget | None, out: Path | None, resume: bool,
               say: Callable[[str], None]):
    """Build both teams' DAGs and run the regret minimiser (with checkpoints in ``out``)."""
    start = time.perf_counter()
    views = seat_views(params, tree)
    teams = team_seats(tree)
    max_edges = 50_000_000
    if memory is not None:
        max_edges = int(max((memory.limit_bytes - peak_rss_bytes()) / BYTES_PER_EDGE, 0))
    dags = []
    for t in (0, 1):
        say(f"building team {t}'s belief DAG (seats {teams[t]})")
        try:
            dags.append(_build(tree, views, t, teams[t], max_edges, start, time_limit, say))
        except SpycfrError as exc:
            if isinstance(exc, _OutOfTime):
                raise
            raise _DagTooBig(str(exc)) from None
        max_edges -= dags[-1].num_edges
    if memory is not None:
        memory.require("the regret minimiser's arrays", 0)
    sizes = [{"beliefs": d.num_beliefs, "edges": d.num_edges} for d in dags]
    say("belief DAGs: " + "; ".join(f"team {t} {s['beliefs']:,} beliefs, {s['edges']:,} "
                                     f"edges" for t, s in enumerate(sizes)))
    state = None
    if resume:
        if out is None:  # run() refuses --resume without a run directory
            raise TypeError("resuming needs the run directory")
        with np.load(out / CHECKPOINT) as npz:
            state = {k: npz[k] for k in npz.files}
        if [len(state["regret0"]), len(state["regret1"])] != [d.num_edges for d in dags]:
            raise SpycfrError(f"{out / CHECKPOINT} does not match this variant's DAGs")
        say(f"resuming at iteration {int(state['iterations'])}")
    checkpoint = None
    if out is not None:
        def checkpoint(arrays: dict) -> None:
            save_npz_fast(out / CHECKPOINT, **arrays)
    build = time.perf_counter() - start
    # The iterations stop FINISH_SHARE of the limit early: the last checkpoint, the plans and
    # the report follow (27 s after the iterations of a 300 s run of the 181,830-node 2v1
    # game on the loaded machine, before the checkpoint's compression was made faster).
    left = None if time_limit is None else max(time_limit * (1 - FINISH_SHARE) - build, 0.0)
    result = solve_dags(tree, dags, tolerance=tolerance, time_limit=left, progress=progress,
                        state=state, checkpoint=checkpoint)
    result.seconds += build
    say("the averages as mixtures of joint plans (for query, play and the report)")
    plans: dict[str, np.ndarray] | None = None  # None: a team's mixture takes too many
    kept: dict[str, np.ndarray] = {}
    for t, (dag, flow) in enumerate(zip(dags, result.flows, strict=True)):
        # Each plan of the decomposition walks the whole DAG: a bounded amount of work.
        most = min(MAX_PLANS, PLAN_WORK // max(dag.num_beliefs, 1))
        mix = flow_plans(dag, flow, tree, most) if most >= 16 else None
        if mix is None:
            break
        kept[f"team{t}_plans"], kept[f"team{t}_weights"] = mix
    else:
        plans = kept
    meta = {"dag": sizes, "dag_seconds": build, "plans": plans,
            "dag_size": sum(s["beliefs"] + s["edges"] for s in sizes)}
    return result, meta


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
