"""The team belief DAG solver (solver/exact/team_dag.py, team_cfr.py): the same TMECor
values as column generation on the toy presets, a certified interval that never widens,
flows that decompose into the plans they came from, checkpoints that resume, and the
refusals of `spycfr team` (games without teams, team runs read as two-player runs)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from spycfr.cli.main import cli
from spycfr.engine.seat_views import seat_views
from spycfr.errors import SpycfrError
from spycfr.exact.team_cfr import _reach_of_edges, solve_dags
from spycfr.exact.team_dag import MIDWAY, DagBuilder, build_dag, flow_plans, team_seats
from spycfr.games import build_tree, get_plugin, make_game
from spycfr.tree import TERMINAL

# TMECor values by column generation (results/agent-avenue, solver/exact/team.py).
COLGEN = {"team-tiny": -0.371429, "team-price": -0.771429}


def solved(preset: str, tolerance: float = 1e-7):
    game = make_game("agent-avenue", preset)
    tree = build_tree(game)
    views = seat_views(get_plugin("agent-avenue").numba_params(game.variant_obj), tree)
    dags = [build_dag(tree, views, t, seats) for t, seats in enumerate(team_seats(tree))]
    seen = []
    result = solve_dags(tree, dags, tolerance=tolerance,
                        progress=lambda it, lo, hi: seen.append((lo, hi)))
    return tree, dags, result, seen


@pytest.mark.parametrize("preset", sorted(COLGEN))
def test_dag_value_is_the_column_generation_value(preset):
    tree, dags, result, seen = solved(preset)
    assert result.converged and result.gap <= 1e-7
    assert result.lower <= COLGEN[preset] + 5e-7 and COLGEN[preset] - 5e-7 <= result.upper
    assert result.lower - 1e-12 <= result.value <= result.upper + 1e-12
    # the printed bounds are the best so far: the interval never widens
    assert all(a[0] <= b[0] and a[1] >= b[1] for a, b in zip(seen, seen[1:], strict=False))
    # the lone player's DAG is its sequence form: a belief per infoset (and the start)
    lone = [d for d in dags if len(d.seats) == 1][0]
    assert lone.num_beliefs == 1 + int(np.count_nonzero(tree.infoset_seat == lone.seats[0]))


def test_a_dag_built_in_small_steps_is_the_dag_built_at_once():
    """The builder stops between bounded steps (the time limit is checked there) and picks
    up where it stopped: the same arrays as one long step."""
    game = make_game("agent-avenue", "team-duo")
    tree = build_tree(game)
    views = seat_views(get_plugin("agent-avenue").numba_params(game.variant_obj), tree)
    whole = build_dag(tree, views, 0, [0, 1])
    builder = DagBuilder(tree, views, 0, [0, 1])
    steps = halfway = 0
    while not builder.done:
        builder.step(work=500)
        steps += 1
        halfway += int(builder.counters[MIDWAY])  # stopped inside a belief's prescriptions
        assert builder.expanded <= builder.beliefs
    assert steps > 10 and halfway > 0
    parts = builder.dag()
    for name in ("belief_edges", "edge_children", "child_list", "edge_terms", "term_list",
                 "presc_start", "presc_infoset", "presc_action"):
        assert np.array_equal(getattr(parts, name), getattr(whole, name)), name
    with pytest.raises(SpycfrError, match="passes 100 edges"):
        small = DagBuilder(tree, views, 0, [0, 1], max_edges=100)
        while not small.done:
            small.step()


def test_flows_decompose_into_plans_with_the_same_reach():
    """The kept average of team 0 as a mixture of joint pure plans: the plans' reach of
    every terminal, weighted, is the flow's reach (so query and the report read the DAG
    solution exactly)."""
    tree, dags, result, _ = solved("team-tiny", 1e-5)
    dag, flow = dags[0], result.flows[0]
    plans, weights = flow_plans(dag, flow, tree)
    assert abs(weights.sum() - 1) < 1e-12 and (weights > 0).all()
    reach = np.zeros(tree.num_nodes)
    _reach_of_edges(dag.edge_terms, dag.term_list, flow, reach)
    mixed = np.zeros(tree.num_nodes)
    for plan, w in zip(plans, weights, strict=True):
        on = np.zeros(tree.num_nodes, dtype=bool)
        on[0] = True
        for v in range(tree.num_nodes):  # parents precede children
            k = int(tree.num_children[v])
            if not on[v] or not k:
                continue
            c = int(tree.first_child[v])
            if tree.node_player[v] == 0:
                on[c + int(plan[tree.node_infoset[v]])] = True
            else:
                on[c:c + k] = True
        mixed += w * on
    terminal = tree.node_player == TERMINAL
    assert np.abs(mixed[terminal] - reach[terminal]).max() < 1e-9


def test_checkpoint_resumes(tmp_path):
    out = tmp_path / "run"
    base = ["team", "agent-avenue", "--preset", "team-price", "-o", str(out), "-q"]
    first = CliRunner().invoke(cli, [*base, "--tolerance", "1e-2"])
    assert first.exit_code == 0, first.output
    meta1 = json.loads((out / "team.json").read_text())
    again = CliRunner().invoke(cli, [*base, "--tolerance", "1e-8", "--resume"])
    assert again.exit_code == 0, again.output
    meta2 = json.loads((out / "team.json").read_text())
    assert meta2["iterations"] > meta1["iterations"] and meta2["gap"] <= 1e-8
    assert meta1["lower"] <= meta2["lower"] and meta2["upper"] <= meta1["upper"]
    assert abs(meta2["value_team0"] - COLGEN["team-price"]) < 1e-6


@pytest.mark.parametrize("args, message", [
    (["team", "agent-hunter"], "agent-hunter has no teams"),
    (["team", "agent-avenue", "--preset", "tiny"], "has no teams: give --teams 2v1 or 2v2"),
])
def test_team_refuses_games_without_teams(args, message):
    result = CliRunner().invoke(cli, args)
    error = str(result.exception)  # main() prints it as one line, exit 2
    assert isinstance(result.exception, SpycfrError) and message in error
    assert "agent-avenue" in error or "team-tiny" in error


def test_games_lists_team_presets_and_openings_names_a_team_run(tmp_path):
    listed = CliRunner().invoke(cli, ["games"])
    assert all(f"preset {p}" in listed.output for p in ("team-tiny", "team-duo", "team-price"))
    out = tmp_path / "run"
    made = CliRunner().invoke(cli, ["team", "agent-avenue", "--preset", "team-price", "-q",
                                    "--tolerance", "1e-3", "-o", str(out)])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(cli, ["openings", str(out)])
    assert isinstance(result.exception, SpycfrError)
    assert "is a team run" in str(result.exception)
