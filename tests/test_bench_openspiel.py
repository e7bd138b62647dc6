"""Cross-check against OpenSpiel itself (needs the bench extra; skipped without open_spiel).

Our Kuhn, Leduc and liar's dice must have OpenSpiel's tree sizes and information-state
strings, and our CFR/CFR+ must reproduce OpenSpiel's C++ solvers on Leduc.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import labelled_tree
from spycfr.cfr.solver import CFRSolver
from spycfr.exact.best_response import exploitability

pyspiel = pytest.importorskip("pyspiel")

pytestmark = pytest.mark.bench

OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker", "liars-dice": "liars_dice"}


def openspiel_tree(name: str) -> tuple[int, int, set[str]]:
    """(nodes, terminals, information-state strings of the players to move) by full traversal."""
    game = pyspiel.load_game(name)
    nodes = terminals = 0
    keys: set[str] = set()
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        nodes += 1
        if state.is_terminal():
            terminals += 1
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            keys.add(state.information_state_string())
            actions = state.legal_actions()
        stack.extend(state.child(a) for a in actions)
    return nodes, terminals, keys


@pytest.fixture(scope="module")
def trees():
    return {name: labelled_tree(name) for name in OPENSPIEL_NAMES}


@pytest.mark.parametrize("name", list(OPENSPIEL_NAMES))
def test_same_tree_and_infoset_strings(trees, name):
    tree = trees[name]
    nodes, terminals, keys = openspiel_tree(OPENSPIEL_NAMES[name])
    assert tree.num_nodes == nodes
    assert int(np.sum(tree.node_player == -1)) == terminals
    assert set(tree.infoset_keys) == keys


def infoset_actions(tree, i: int) -> list[int]:
    first = tree.first_child[tree.infoset_node[i]]
    return tree.node_action[first: first + tree.infoset_num_actions[i]].tolist()


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_leduc_matches_openspiel_after_10_iterations(trees, algorithm):
    tree = trees["leduc"]
    game = pyspiel.load_game("leduc_poker")
    theirs = (pyspiel.CFRSolver if algorithm == "cfr" else pyspiel.CFRPlusSolver)(game)
    for _ in range(10):
        theirs.evaluate_and_update_policy()
    ours = CFRSolver(tree, algorithm)
    ours.iterate(10)
    avg = ours.average_strategy()
    assert exploitability(tree, avg) == pytest.approx(
        pyspiel.exploitability(game, theirs.average_policy()), abs=1e-9)
    policy = theirs.average_policy()
    worst = 0.0
    for i, key in enumerate(tree.infoset_keys):
        their_row = dict(policy.get_state_policy(key))
        for k, a in enumerate(infoset_actions(tree, i)):
            worst = max(worst, abs(avg[i, k] - their_row[a]))
    assert worst < 1e-9
