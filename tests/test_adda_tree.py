"""Agent Double Double Agent trees beyond the conformance suite: the numba tree equals the
plain-Python reference on 3-agent variants that exercise every rule, the LP agrees with
CFR there, Monte-Carlo CFR runs on the spec's game, and the heuristic player sees only its
own information."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from spycfr.cfr import CFRSolver
from spycfr.cfr.mccfr import MCCFRSolver
from spycfr.cli.main import cli
from spycfr.engine import protocol
from spycfr.exact.best_response import expected_value
from spycfr.exact.lp import solve_lp
from spycfr.games import build_reference_tree, build_tree, make_game
from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.heuristic import heuristic_policy
from spycfr.games.agent_double_double_agent.layout import ADDAParams
from spycfr.tree import CHANCE, TERMINAL
from tree_compare import assert_same_tree

GAME = "agent-double-double-agent"
THREE = {"agents": 3, "loyalty": "1,1,2", "hand": 1, "threshold": 2, "neighbour_threshold": 1,
         "counters": 1}
VARIANTS = {
    "chain-personal-files": dict(THREE, deck="P,?=2"),
    "face-up-any-time": dict(THREE, deck="1,?=2", faceup="always"),
    "stuck-track-2": dict(THREE, deck="?=1,?=2", track=2),
    "plus-one-no-counters": dict(THREE, deck="1,?=2", counters=0, plus_one="1"),
    "hidden-faces-margin": {"agents": 2, "loyalty": "0,2", "deck": "0/7=0,0/7=7,?=1,?=3",
                            "hand": 1, "threshold": 2, "counters": 1, "payoff": "margin",
                            "start": "22"},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(VARIANTS))
def test_numba_tree_equals_the_reference_tree(name):
    game = make_game(GAME, None, VARIANTS[name])
    tree = build_tree(game)
    assert tree.num_nodes < 80_000
    assert_same_tree(tree, build_reference_tree(game), game)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["stuck-track-2", "plus-one-no-counters",
                                  "hidden-faces-margin"])
def test_lp_value_is_the_cfr_limit(name):
    tree = build_tree(make_game(GAME, None, VARIANTS[name]))
    lp = solve_lp(tree)
    solver = CFRSolver(tree, "cfr+")
    result = solver.solve(target_exploitability=1e-5, iterations=20_000, check_every=200)
    value = expected_value(tree, solver.average_strategy())
    assert abs(value - lp.value_p1) <= 2 * result.exploitability + 1e-9


def test_heuristic_is_registered_and_uses_only_what_the_seat_sees():
    assert protocol.has_heuristic(ADDAParams)
    game = make_game(GAME, None, VARIANTS["chain-personal-files"])
    tree = build_tree(game)
    params = game.variant_obj.params
    seen: dict[int, np.ndarray] = {}
    profile = np.zeros((tree.num_infosets, tree.max_actions))
    stack = [(0, R.initial_state(params))]
    while stack:
        node, s = stack.pop()
        k = int(tree.num_children[node])
        first = int(tree.first_child[node])
        if tree.node_player[node] in (0, 1):
            acts = tree.node_action[first:first + k].astype(np.int32)
            probs = np.zeros(k)
            heuristic_policy(s, params, acts, k, probs)
            assert abs(probs.sum() - 1) < 1e-12 and (probs >= 0).all()
            i = int(tree.node_infoset[node])
            if i in seen:
                assert np.array_equal(seen[i], probs)  # the same at every node of an infoset
            seen[i] = probs
            profile[i, :k] = probs
        for c in range(first, first + k):
            if tree.node_player[c] != TERMINAL:
                stack.append((c, R.step(s, params, int(tree.node_action[c]))))
    assert len(seen) == tree.num_infosets
    uniform = tree.uniform_strategy()
    base = expected_value(tree, uniform)
    p1 = uniform.copy()
    p1[tree.infoset_player == 0] = profile[tree.infoset_player == 0]
    p2 = uniform.copy()
    p2[tree.infoset_player == 1] = profile[tree.infoset_player == 1]
    assert expected_value(tree, p1) > base + 0.05  # it beats a random player from either seat
    assert expected_value(tree, p2) < base - 0.05


@pytest.mark.slow
def test_monte_carlo_cfr_runs_on_the_spec_game():
    game = make_game(GAME, "standard")
    solver = MCCFRSolver(game, "outcome", seed=3)
    solver.iterate(300)
    assert solver.num_infosets > 300
    first = int(L.code(L.T_LOYAL, 543221))
    policy = solver.policy_at([], 0)
    assert policy is not None and len(policy) == 360
    assert solver.policy_at([first], 1) is not None


@pytest.mark.slow
def test_standard_solve_command_runs_without_a_tree(tmp_path):
    out = tmp_path / "standard"
    r = CliRunner().invoke(cli, ["solve", GAME, "--preset", "standard", "--algorithm", "os-mccfr",
                                 "--memory-limit", "2", "--time-limit", "3", "-o", str(out),
                                 "--json"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["openings", str(out), "--json"])
    assert r.exit_code == 0, r.output
    assert "loyal:" in r.output and json.loads(r.output)


def test_chance_nodes_of_the_tree_are_deals_deliveries_and_draws():
    tree = build_tree(make_game(GAME, "tiny"))
    kinds = set((tree.node_action[tree.first_child[np.flatnonzero(tree.node_player == CHANCE)]]
                 >> L.SHIFT).tolist())
    assert kinds == {L.T_DEAL, L.T_REVEAL, L.T_DRAW}
