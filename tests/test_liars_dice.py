"""Liar's dice (OpenSpiel's ``liars_dice``, 2 players x 1 die): rules, tree size, CFR+ on it."""

from __future__ import annotations

import pytest

from spycfr.cfr.solver import CFRSolver
from spycfr.errors import VariantError
from spycfr.exact.best_response import exploitability
from spycfr.games import build_tree, make_game
from spycfr.games.liars_dice import LIAR, unrank_bid

# OpenSpiel liars_dice (default options), counted by a full traversal with pyspiel
# (open_spiel 2.0.2): nodes, terminals, chance nodes, infosets. Independently: per roll pair
# there are 2^12 increasing bid sequences (decision nodes) and 2^12 - 1 of them can be closed
# by "Liar" (terminals), so 36 * 8191 + 1 + 6 nodes and 6 * 4096 infosets.
OPENSPIEL_SIZES = (294883, 147420, 7, 24576)
# Exploitability of OpenSpiel's CFRPlusSolver average policy after 10 iterations, measured with
# pyspiel.exploitability (open_spiel 2.0.2); the same run is compared live in
# tests/test_bench_openspiel.py when open_spiel is installed.
OPENSPIEL_CFRPLUS_10 = 0.14160142622977823


@pytest.fixture(scope="module")
def tree():
    return build_tree(make_game("liars-dice"))


def play(actions: list[int]):
    state = make_game("liars-dice").new_initial_state()
    for a in actions:
        state = state.child(a)
    return state


def bid(quantity: int, face: int) -> int:
    return (quantity - 1) * 6 + face - 1


def test_bid_encoding():
    assert unrank_bid(0) == (1, 1)
    assert unrank_bid(5) == (1, 6)
    assert unrank_bid(6) == (2, 1)
    assert unrank_bid(11) == (2, 6)
    assert LIAR == 12
    assert play([0, 0]).action_label(LIAR) == "Liar"
    assert play([0, 0]).action_label(bid(2, 3)) == "2-3"
    assert play([]).action_label(3) == "Roll 4"


def test_legal_actions_and_turns():
    root = play([])
    assert root.current_player() == 2
    assert root.chance_outcomes() == [(k, 1 / 6) for k in range(6)]
    s = play([2, 4])
    assert s.current_player() == 0
    assert s.legal_actions() == list(range(12))  # no "Liar" before the first bid
    s = s.child(bid(1, 5))
    assert s.current_player() == 1
    assert s.legal_actions() == list(range(bid(1, 6), 12)) + [LIAR]
    assert s.child(bid(2, 6)).legal_actions() == [LIAR]  # highest bid: only "Liar" is left
    with pytest.raises(ValueError):
        s.child(bid(1, 2))  # bids must increase


def test_who_wins():
    # Dice are outcome + 1. P1 rolls 3, P2 rolls 6 (wild): "2-3" is true, caller P2 loses.
    s = play([2, 5, bid(2, 3), LIAR])
    assert s.is_terminal() and s.current_player() == -1
    assert s.returns() == (1.0, -1.0)
    # P1 rolls 1, P2 rolls 2; P2 bids "1-4" (false), P1 calls and wins.
    assert play([0, 1, bid(1, 3), bid(1, 4), LIAR]).returns() == (1.0, -1.0)
    # Same dice, P2 bids "1-2" (true: P2's own die), P1 calls and loses.
    assert play([0, 1, bid(1, 1), bid(1, 2), LIAR]).returns() == (-1.0, 1.0)
    # P1 bids "2-1" with dice 1 and 1: true, P2 calls and loses.
    assert play([0, 0, bid(2, 1), LIAR]).returns() == (1.0, -1.0)
    # "2-6" needs two sixes.
    assert play([5, 4, bid(2, 6), LIAR]).returns() == (-1.0, 1.0)


def test_information_state_strings():
    s = play([0, 5, bid(1, 3), bid(1, 4)])
    assert s.information_state(0) == "1 1-3 1-4"
    assert s.information_state(1) == "6 1-3 1-4"
    assert play([0, 5, bid(2, 2), LIAR]).information_state(1) == "6 2-2 Liar"
    assert play([3]).information_state(1) == "-1"  # OpenSpiel's unrolled die


def test_no_parameters():
    with pytest.raises(VariantError):
        make_game("liars-dice", None, {"dice": 2})
    with pytest.raises(VariantError):
        make_game("liars-dice", "big", {})


def test_tree_size_matches_openspiel(tree):
    nodes, terminals, chance, infosets = OPENSPIEL_SIZES
    s = tree.summary()
    assert (s["nodes"], s["terminal_nodes"], s["chance_nodes"], s["infosets"]) == (
        nodes, terminals, chance, infosets)
    assert s["infosets_p1"] == s["infosets_p2"] == infosets // 2
    assert s["max_actions"] == 12


def test_cfr_plus_converges(tree):
    solver = CFRSolver(tree, "cfr+")
    curve = []
    for n in (1, 9, 40):
        solver.iterate(n)
        curve.append(exploitability(tree, solver.average_strategy()))
    assert curve[0] > curve[1] > curve[2]
    assert curve[2] < 0.025
    fresh = CFRSolver(tree, "cfr+")
    fresh.iterate(10)
    assert exploitability(tree, fresh.average_strategy()) == pytest.approx(
        OPENSPIEL_CFRPLUS_10, abs=1e-9)
