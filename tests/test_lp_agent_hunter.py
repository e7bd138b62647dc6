"""The exact sequence-form LP against CFR+ on small Agent Hunter variants.

Two independent routes to the game value must meet: the LP's value (from both players'
programs), and CFR+'s average strategy, whose best responses sandwich the value exactly
(-BR_P2(avg) <= v <= BR_P1(avg)) and whose own value converges to it.
"""

from __future__ import annotations

import pytest

from reference import reference_nash_conv
from spycfr.cfr import CFRSolver
from spycfr.exact.best_response import best_response, expected_value, exploitability
from spycfr.exact.lp import solve_lp
from spycfr.games import build_tree, make_game

# Both decoy rules, both payoff modes, one and two safe houses.
VARIANTS = {
    "tiny": ("tiny", {}),
    "tiny-switched-margin": ("tiny", {"decoy_rule": "switched", "payoff": "margin"}),
    "h1-any-win": (None, {"cards": 3, "houses": 1, "decoys": 1, "max_turns": 3}),
    "h1-switched-margin": (None, {"cards": 3, "houses": 1, "decoys": 2, "max_turns": 4,
                                  "decoy_rule": "switched", "payoff": "margin"}),
    "h2-nodecoy-margin": (None, {"cards": 3, "houses": 2, "decoys": 0, "max_turns": 3,
                                 "payoff": "margin"}),
}
CFR_ITERATIONS = 1500


@pytest.fixture(scope="module", params=list(VARIANTS))
def solved(request):
    preset, params = VARIANTS[request.param]
    tree = build_tree(make_game("agent-hunter", preset, params))
    lp = solve_lp(tree)
    solver = CFRSolver(tree, "cfr+")
    solver.iterate(CFR_ITERATIONS)
    return request.param, tree, lp, solver.average_strategy()


def test_variant_is_what_was_asked(solved):
    name, tree, _, _ = solved
    preset, params = VARIANTS[name]
    for key, value in params.items():
        assert tree.variant[key] == value
    assert tree.num_nodes < 10_000  # small enough for the exact LP and the Python twin


def test_lp_is_an_equilibrium(solved):
    _, tree, lp, _ = solved
    assert lp.value_p1 == pytest.approx(lp.value_p2_side, abs=1e-8)  # both programs agree
    assert exploitability(tree, lp.strategy) == pytest.approx(0.0, abs=1e-8)
    assert reference_nash_conv(tree, lp.strategy) == pytest.approx(0.0, abs=1e-8)
    assert expected_value(tree, lp.strategy) == pytest.approx(lp.value_p1, abs=1e-8)


def test_cfr_plus_converges_to_the_lp_value(solved):
    _, tree, lp, avg = solved
    br1 = best_response(tree, avg, 0)[0]
    br2 = best_response(tree, avg, 1)[0]
    # any strategy's best responses bound the game value from both sides
    assert -br2 - 1e-9 <= lp.value_p1 <= br1 + 1e-9
    assert (br1 + br2) / 2 < 2e-3  # CFR+ average strategy: small exploitability
    assert expected_value(tree, avg) == pytest.approx(lp.value_p1, abs=1e-3)


def test_switched_rule_restricts_the_game():
    """`switched` puts the decoy beside the switched house: fewer moves, so fewer nodes."""
    any_rule = build_tree(make_game("agent-hunter", "tiny", {}))
    switched = build_tree(make_game("agent-hunter", "tiny", {"decoy_rule": "switched"}))
    assert switched.num_nodes < any_rule.num_nodes
    assert switched.max_actions < any_rule.max_actions
