"""Team runs (`spycfr team`) for players: what the TMECor plans prescribe from a seat's view
of a game (`spycfr query` on a team run), and the run's report (value, certified interval,
the pooled bound, and the game's section on how teammates coordinate).

A TMECor is a probability distribution over joint pure plans agreed before the game, one
per team (team_plans.npz). A seat that has seen a record knows which plans could have led
there: the plans whose team actions are consistent with it. Their weights given the view
are the run's weights conditioned by Bayes on the view (chance and the other team's TMECor
mixture included). Every figure here is exact on the run's tree: one forward pass per plan
(its team's reach), one backward pass per plan of the seat's team against the other
team's mixture (values).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.games import feature, get_plugin, make_variant, tree_labels
from spycfr.io import write_text
from spycfr.runs.source import game_tree
from spycfr.tree import TERMINAL, Tree
from spycfr.tree.passes import backward_values, forward_reach

SOURCE = ("the run's TMECor plans (team_plans.npz): a mixture of joint pure plans the team "
          "agreed on before the game, restricted to those consistent with this view")


@dataclass
class TeamRun:
    """A team run directory: team.json, each team's plans (action per infoset, -1 on the
    other team's) and their weights, and the rebuilt tree."""

    path: Path
    meta: dict
    tree: Tree
    plans: list[np.ndarray] | None  # per team: int16[K, num_infosets] (None: not kept)
    weights: list[np.ndarray] | None  # per team: float64[K]
    reach: tuple[np.ndarray, list[np.ndarray]] | None = None  # plan_reach's, once computed


def is_team_run(path: str | Path) -> bool:
    return (Path(path) / "team.json").is_file()


def load_team_run(path: str | Path) -> TeamRun:
    """Read a team run and rebuild its tree (checked against the sizes team.json records)."""
    path = Path(path)
    try:
        meta = json.loads((path / "team.json").read_text())
        plans = weights = None  # a mixture of too many plans is not kept (meta's support)
        if meta.get("support", [0])[0] is not None:
            with np.load(path / "team_plans.npz") as npz:
                plans = [npz[f"team{t}_plans"] for t in (0, 1)]
                weights = [npz[f"team{t}_weights"] for t in (0, 1)]
    except (OSError, ValueError, KeyError) as exc:
        raise SpycfrError(f"{path} is not a readable team run (team.json and team_plans.npz "
                          f"from `spycfr team --out`): {exc}") from None
    tree = game_tree(meta["game"], None, meta["variant"])
    if (tree.num_nodes, tree.num_infosets) != (meta["nodes"], meta["infosets"]):
        raise SpycfrError(f"the tree of {meta['game']} {meta['variant']} has "
                          f"{tree.num_nodes:,} nodes and {tree.num_infosets:,} infosets; the run "
                          f"solved {meta['nodes']:,} and {meta['infosets']:,} (another version "
                          "of the rules)")
    if plans is not None and any(p.shape[1] != tree.num_infosets for p in plans):
        raise SpycfrError(f"{path}/team_plans.npz does not match the tree's infosets")
    return TeamRun(path, meta, tree, plans, weights)


def _play(tree: Tree, sigma: np.ndarray, team: int, plan: np.ndarray) -> np.ndarray:
    """``sigma`` with ``team``'s infosets set to the pure ``plan`` (one-hot rows)."""
    own = np.flatnonzero(tree.infoset_player == team)
    if (plan[own] < 0).any():
        raise SpycfrError(f"a plan of team {team} leaves some of its infosets open")
    sigma[own] = 0.0
    sigma[own, plan[own]] = 1.0
    return sigma


def _mixture(run: TeamRun) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The run's plans and weights per team (a TypeError where it keeps none, as indexing
    None would give)."""
    if run.plans is None or run.weights is None:
        raise TypeError(f"{run.path} keeps no joint plans")
    return run.plans, run.weights


def plan_reach(run: TeamRun) -> tuple[np.ndarray, list[np.ndarray]]:
    """(chance reach[N], per team the 0/1 reach of each of its plans' own actions [K, N]);
    computed once per loaded run (query, play and the report read it again)."""
    if run.reach is None:
        run.reach = _plan_reach(run)
    return run.reach


def _plan_reach(run: TeamRun) -> tuple[np.ndarray, list[np.ndarray]]:
    tree = run.tree
    reach = np.zeros((tree.num_nodes, 3))
    uniform = tree.uniform_strategy()
    out: list[np.ndarray] = []
    for t in (0, 1):
        rows = []
        for plan in _mixture(run)[0][t]:
            sigma = _play(tree, uniform.copy(), t, plan)
            forward_reach(tree.first_child, tree.num_children, tree.node_player,
                          tree.node_infoset, tree.chance_prob, sigma, reach)
            rows.append(reach[:, t].copy())
        out.append(np.asarray(rows))
    return reach[:, 2].copy(), out


def values_against(run: TeamRun, team: int, plan: np.ndarray,
                   opponents: np.ndarray) -> np.ndarray:
    """Below every node: team 0's payoff when ``team`` plays its pure ``plan`` and the other
    team its mixture of plans, whose reach of every node (the plans' reach weighted) is
    ``opponents``, times that reach. One backward pass: the other team's moves are all
    followed (weight 1) and each terminal carries the mixture's reach of it, so the value
    at a node of ``team`` is the sum over the mixture's plans of weight x the plan's reach x
    the pair's value there."""
    tree = run.tree
    sigma = np.where(tree.infoset_player[:, None] == team, 0.0,
                     tree.uniform_strategy() > 0).astype(np.float64)
    _play(tree, sigma, team, plan)
    values = np.where(tree.node_player == TERMINAL, tree.utility * opponents, 0.0)
    backward_values(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
                    tree.chance_prob, sigma, np.zeros((tree.num_nodes, 3)), values, -1)
    return values


def seat_name(seat: int) -> str:
    return f"S{seat + 1}"


def team_query(run: TeamRun, seat: int, record: str) -> dict:
    """What the TMECor plans prescribe to ``seat`` at the position its view ``record``
    describes (module docstring): each consistent plan with its weight given the view, its
    move and value; per move, its probability (the plans that prescribe it), ``plan_value``
    (the team's payoff given the view when the drawn plan prescribes it) and ``value`` (the
    payoff if the seat plays it whatever the plan, both teams otherwise following their
    plans: a teammate answers as its plan does, so this can fall below the position's
    value)."""
    tree = run.tree
    if run.plans is None:
        raise SpycfrError(f"{run.path} keeps no joint plans (its mixture takes too many); "
                          "query reads them: solve a smaller variant")
    if not 0 <= seat < tree.num_seats:
        raise SpycfrError(f"{seat_name(seat)} is not a seat of this run (S1..S{tree.num_seats})")
    records = feature(tree.game, "records", "record notation to name a position in")
    variant = make_variant(tree.game, None, tree.variant)
    key, position = records.view_key(variant, record, seat)
    name = seat_name(seat)
    if position["terminal"]:
        raise SpycfrError(f"the game is over after this record (payoff {position['payoff']})")
    keys, labels = tree_labels(tree)
    matches = [i for i in np.flatnonzero(tree.infoset_seat == seat).tolist() if keys[i] == key]
    if not matches:
        mover = position["to_move"] or "chance"
        raise SpycfrError(f"after this record {mover} is to move, not {name}" if mover != name
                          else f"{name}'s position {key!r} is not in the solved tree")
    i = matches[0]
    t = int(tree.infoset_player[i])
    chance, reach = plan_reach(run)
    nodes = np.flatnonzero((tree.node_infoset == i) & (tree.node_player == t))
    team_plans, weights = _mixture(run)
    k_own = len(weights[t])
    n_act = int(tree.infoset_num_actions[i])
    mass = np.zeros(k_own)  # sum over the infoset's nodes of chance * own plan * opponents
    gain = np.zeros((k_own, n_act))
    own_only = (chance[nodes] * reach[t][:, nodes]).sum(axis=1)  # ignoring the opponents
    opponents = weights[1 - t] @ reach[1 - t]  # the other team's mixture's reach of each node
    kids = tree.first_child[nodes][:, None] + np.arange(n_act)
    sign = 1.0 if t == 0 else -1.0
    for k in np.flatnonzero(own_only > 0).tolist():
        w = chance[nodes] * reach[t][k, nodes]
        mass[k] = (w * opponents[nodes]).sum()
        if mass[k] == 0:
            continue
        values = values_against(run, t, team_plans[t][k], opponents)
        gain[k] = sign * (w[:, None] * values[kids]).sum(axis=0)
    lam = weights[t]
    total = float(lam @ mass)
    consistent = np.flatnonzero(own_only > 0)
    reached = total > 0
    post = lam * mass / total if reached else np.where(own_only > 0, lam, 0.0) / max(
        float(lam[consistent].sum()), 1e-300)
    choice = team_plans[t][:, i].astype(int)
    probs = np.bincount(choice[consistent], weights=post[consistent], minlength=n_act)
    move_values = gain.T @ lam / total if reached else np.full(n_act, np.nan)
    own_values = np.zeros(k_own)  # each plan's value given the view, when it reaches it
    np.divide(gain[np.arange(k_own), choice], mass, out=own_values, where=mass > 0)
    plan_values = np.bincount(choice[consistent], weights=(post * own_values)[consistent],
                              minlength=n_act)
    plan_values = np.divide(plan_values, probs, out=np.full(n_act, np.nan),
                            where=(probs > 0) & reached)
    plans = [{"plan": int(k), "weight": float(lam[k]),
              "weight_given_view": float(post[k]), "move": labels[i][choice[k]],
              "value": float(own_values[k]) if mass[k] > 0 else None}
             for k in sorted(consistent.tolist(), key=lambda k: -post[k])]
    return {
        "seat": name, "team": t, "information_state": key, "infoset": int(i),
        "source": SOURCE,
        "run_value_team0": run.meta["value_team0"],
        "exploitability": run.meta["exploitability"],
        "plans_in_support": int(k_own), "plans_consistent": int(len(consistent)),
        "reach_probability": total,
        "opponents_reach": bool(reached),
        "moves": [{"move": labels[i][a], "record": f"{name}:{labels[i][a]}",
                   "probability": float(probs[a]), "plan_value": _num(plan_values[a]),
                   "value": _num(move_values[a])} for a in range(n_act)],
        "position_value": float(post @ own_values) if reached else None,
        "plans": plans,
        "warning": None if reached else (
            "no plan of the run leads here: the team's own moves in this view are not what "
            "any of its plans plays" if not len(consistent) else
            "the other team's TMECor plans never lead here: the weights are the run's, "
            "restricted to the consistent plans, and no value is given"),
        "position": position,
    }


def _num(x: float) -> float | None:
    return None if x is None or np.isnan(x) else float(x)


# --- the report ----------------------------------------------------------------------------


def write_team_report(run: TeamRun, out: str | Path | None = None) -> Path:
    """report.md of a team run (or ``out``): the generic part and the game's sections."""
    target = Path(out) if out is not None else run.path / "report.md"
    plugin = get_plugin(run.meta["game"])
    lines = report_lines(run.meta, plugin.describe_variant(run.meta["variant"]))
    if plugin.team_sections is not None and run.plans is not None:
        module, function = plugin.team_sections.split(":")
        lines += getattr(importlib.import_module(module), function)(run)
    write_text(target, "\n".join(lines) + "\n")
    return target


def report_lines(meta: dict, words: str) -> list[str]:
    """The run in words: value, interval, the pooled bound and the price of not talking."""
    source = "the kept averages" if meta["algorithm"] == "tmecor-dag" else "last master LP"
    lines = [
        f"# Team equilibrium: {meta['game']}" + (f" ({meta['preset']})" if meta["preset"]
                                                  else ""),
        "", f"Variant: {words}", "",
        f"Teams (seats): team 0 {meta['teams'][0]}, team 1 {meta['teams'][1]}; "
        f"{meta['nodes']:,} nodes, {meta['infosets']:,} infosets.", "",
        f"Method: {meta['method']}.", "",
        "| quantity | team 0's payoff |", "|---|---|",
        f"| TMECor value ({source}) | {meta['value_team0']:+.6f} |",
        f"| certified interval [team 1's best response, team 0's best response] | "
        f"[{meta['lower']:+.6f}, {meta['upper']:+.6f}] |",
        f"| exploitability (gap / 2) | {meta['exploitability']:.2e} |",
    ]
    pooled = meta.get("pooled")
    if pooled:
        lines += [
            f"| pooled information (teammates see each other's cards; LP) | "
            f"{pooled['value_team0']:+.6f} |",
        ]
    support = ("joint plans in the support: team 0 {}, team 1 {}".format(*meta["support"])
               if meta["support"][0] is not None else "the mixtures take too many joint "
               "plans to keep")
    dag = meta.get("dag")
    lines += [
        "",
        f"{meta['iterations']} iterations, {meta['solve_seconds']:.1f} s "
        f"({'converged' if meta['converged'] else 'stopped by a limit'}); {support}."
        + (" Belief DAGs: " + "; ".join(f"team {t} {d['beliefs']:,} beliefs, "
                                        f"{d['edges']:,} edges" for t, d in enumerate(dag))
           + "." if dag else ""),
    ]
    if pooled:
        price = [pooled["value_team0"] - meta["upper"], pooled["value_team0"] - meta["lower"]]
        lines += ["", "Price of not communicating (pooled value minus the TMECor value, "
                  f"for team 0): between {price[0]:+.6f} and {price[1]:+.6f} (pooled: "
                  f"{pooled['nodes']:,} nodes, LP {pooled['solve_seconds']:.1f} s). Team 0 "
                  "is the team of two in 2v1; in 2v2 both teams are pooled, so the "
                  "difference mixes both teams' prices."]
    return lines
