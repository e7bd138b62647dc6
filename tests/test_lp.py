"""The exact sequence-form LP: known game values and zero NashConv by an independent BR."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import labelled_tree
from reference import reference_expected_value, reference_nash_conv
from spycfr.errors import SpycfrError
from spycfr.exact.lp import solve_lp
from spycfr.games import build_tree, make_game
from spycfr.tree import Tree

# Leduc's value for P1 as asserted by OpenSpiel's own LP test
# (open_spiel/algorithms/ortools/sequence_form_lp_test.cc: -0.085606424078).
LEDUC_VALUE = -0.085606424078


@pytest.mark.parametrize("name,value", [("kuhn", -1 / 18), ("leduc", LEDUC_VALUE)])
def test_lp_value_and_equilibrium(name, value):
    tree = build_tree(make_game(name))
    res = solve_lp(tree)
    tol = 1e-9 if name == "kuhn" else 1e-10  # Leduc's reference value has 12 digits
    assert res.value_p1 == pytest.approx(value, abs=tol)
    assert res.value_p2_side == pytest.approx(value, abs=1e-9)
    assert res.strategy.shape == (tree.num_infosets, tree.max_actions)
    k = tree.infoset_num_actions
    assert np.allclose(res.strategy.sum(axis=1), 1.0)
    assert all(np.all(res.strategy[i, k[i]:] == 0) for i in range(tree.num_infosets))
    assert reference_nash_conv(tree, res.strategy) == pytest.approx(0.0, abs=1e-8)
    assert reference_expected_value(tree, res.strategy) == pytest.approx(value, abs=1e-8)


@pytest.mark.parametrize("name,value", [("kuhn", -1 / 18), ("leduc", LEDUC_VALUE)])
def test_one_program_and_its_duals_give_an_exact_equilibrium(name, value):
    """P2's half read from the duals of P1's program is an equilibrium too (NashConv 0)."""
    tree = build_tree(make_game(name))
    res = solve_lp(tree, both_sides=False)
    assert res.value_p2_side is None
    assert res.value_p1 == pytest.approx(value, abs=1e-9)
    assert np.allclose(res.strategy.sum(axis=1), 1.0)
    assert reference_nash_conv(tree, res.strategy) == pytest.approx(0.0, abs=1e-8)


def test_kuhn_lp_strategy_is_in_the_known_family():
    """Kuhn equilibria: P1 bets K three times as often as J (alpha family); P2's is unique."""
    tree = labelled_tree("kuhn")
    s = solve_lp(tree).strategy
    row = {key: s[i] for i, key in enumerate(tree.infoset_keys)}
    alpha = row["0"][1]
    assert -1e-9 <= alpha <= 1 / 3 + 1e-9
    assert row["2"][1] == pytest.approx(3 * alpha, abs=1e-7)
    assert row["1b"][1] == pytest.approx(1 / 3, abs=1e-7)  # P2 calls with Q a third of the time
    assert row["0p"][1] == pytest.approx(1 / 3, abs=1e-7)  # P2 bluffs J after a check
    assert row["2b"][1] == pytest.approx(1.0, abs=1e-9)


def test_too_big_tree_is_refused():
    n = 2_000_001
    big = Tree(
        game="big", variant={},
        first_child=np.zeros(n, np.int64), num_children=np.zeros(n, np.int16),
        node_player=np.full(n, -1, np.int8), node_infoset=np.full(n, -1, np.int32),
        node_action=np.zeros(n, np.int32), utility=np.zeros(n), chance_prob=np.zeros(0),
        infoset_player=np.zeros(0, np.int8), infoset_num_actions=np.zeros(0, np.int16),
        infoset_node=np.zeros(0, np.int64),
    )
    with pytest.raises(SpycfrError, match="too big"):
        solve_lp(big)
