"""Conformance of every registered game, on every preset small enough to check.

A game joins this suite by registration alone (solver/games/__init__.py): nothing here
names a game. For each (game, preset): random playouts honour the protocol's contract;
the numba tree is well formed (every node of an infoset has the same player, seat and
actions; chance probabilities are positive and sum to 1); it equals the plain-Python
reference tree node by node, labels included; the LP value equals the CFR limit; and
Monte-Carlo CFR's observation keys are exactly the enumerator's infosets.
"""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.cfr import CFRSolver
from spycfr.cfr.mccfr import MCCFRSolver, strategy_on_tree
from spycfr.engine import protocol
from spycfr.engine.playout import PLAYOUT_OK, PLAYOUT_PROBLEMS, check_playouts, estimate_nodes
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import expected_value, exploitability
from spycfr.exact.lp import solve_lp
from spycfr.games import (
    build_reference_tree,
    build_tree,
    game_names,
    get_plugin,
    make_game,
    make_variant,
)
from spycfr.tree import CHANCE, TERMINAL
from tree_compare import assert_same_tree

ENUMERATE_NODES = 1_000_000  # (estimated) trees checked for well-formedness
REFERENCE_NODES = 400_000  # (estimated) trees also built in plain Python and compared
LP_NODES = 20_000  # trees also solved by the LP and by CFR+

CASES = [(g, p) for g in game_names() for p in get_plugin(g).presets]
# Every (game, preset), by name: collecting them runs no game code (a preset's size is
# known only from the game's numba playouts, which would compile at collection). A game's
# first preset is its smallest: the fast tier checks it, the slow tier the others.
EVERY_CASE = [pytest.param(g, p, id=f"{g}-{p}", marks=() if p == next(iter(
    get_plugin(g).presets)) else pytest.mark.slow) for g, p in CASES]

_estimates: dict = {}


def _estimate(game: str, preset: str) -> float:
    if (game, preset) not in _estimates:
        plugin = get_plugin(game)
        _estimates[(game, preset)] = estimate_nodes(plugin.numba_params(
            make_variant(game, preset)))
    return _estimates[(game, preset)]


def _at_most(game: str, preset: str, limit: float) -> None:
    """Skip a preset whose tree is estimated over ``limit`` nodes: too big for this check."""
    if _estimate(game, preset) > limit:
        pytest.skip(f"preset estimated over {limit:,.0f} nodes, too big for this check")


_trees: dict = {}


def _tree(game: str, preset: str):
    if (game, preset) not in _trees:
        _trees[(game, preset)] = build_tree(make_game(game, preset))
    return _trees[(game, preset)]


def test_every_game_has_a_checked_preset():
    for game in game_names():
        assert any(g == game and _estimate(g, p) <= REFERENCE_NODES for g, p in CASES), game


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_random_playouts_honour_the_protocol(game, preset):
    params = get_plugin(game).numba_params(make_variant(game, preset))
    status, done, deepest, widest, _ = check_playouts(params, 300, 7)
    assert status == PLAYOUT_OK, PLAYOUT_PROBLEMS[status]
    assert done == 300 and deepest >= 1 and widest >= 1


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_tree_is_well_formed(game, preset):
    _at_most(game, preset, ENUMERATE_NODES)
    tree = _tree(game, preset)
    n = tree.num_nodes
    fc, nc, pl = tree.first_child, tree.num_children.astype(np.int64), tree.node_player
    internal = nc > 0
    assert np.array_equal(internal, pl != TERMINAL)
    # Children after their parent, each node (but the root) the child of exactly one node.
    assert np.all(fc[internal] > np.flatnonzero(internal))
    hits = np.bincount(np.concatenate(
        [np.arange(fc[v], fc[v] + nc[v]) for v in np.flatnonzero(internal)]), minlength=n)
    assert hits[0] == 0 and np.all(hits[1:] == 1)
    # Chance nodes: probabilities positive, summing to 1.
    chance = np.flatnonzero(pl == CHANCE)
    for v in chance:
        probs = tree.chance_prob[tree.node_infoset[v]:tree.node_infoset[v] + nc[v]]
        assert np.all(probs > 0) and abs(probs.sum() - 1.0) < 1e-12
    assert tree.chance_prob.size == nc[chance].sum()
    # Decisions: every node of an infoset has its player, seat count and action list.
    dec = np.flatnonzero((pl == 0) | (pl == 1))
    inf = tree.node_infoset[dec]
    assert np.array_equal(tree.infoset_player[inf], pl[dec])
    assert np.array_equal(tree.infoset_num_actions[inf], nc[dec])
    assert np.all((tree.infoset_seat >= 0) & (tree.infoset_seat < tree.num_seats))
    assert np.array_equal(tree.node_infoset[tree.infoset_node], np.arange(tree.num_infosets))
    first = {}
    for v in dec:
        acts = tuple(tree.node_action[fc[v]:fc[v] + nc[v]])
        assert first.setdefault(int(tree.node_infoset[v]), acts) == acts
    assert np.all(tree.utility[internal] == 0.0)


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_numba_tree_equals_the_reference_tree(game, preset):
    _at_most(game, preset, REFERENCE_NODES)
    python_game = make_game(game, preset)
    assert_same_tree(_tree(game, preset), build_reference_tree(python_game), python_game)


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_lp_value_is_the_cfr_limit(game, preset):
    _at_most(game, preset, LP_NODES)
    tree = _tree(game, preset)
    lp = solve_lp(tree)
    solver = CFRSolver(tree, "cfr+")
    result = solver.solve(target_exploitability=1e-5, iterations=20_000, check_every=200)
    value = expected_value(tree, solver.average_strategy())
    # |u(sigma) - v*| <= NashConv = 2 * exploitability.
    assert abs(value - lp.value_p1) <= 2 * result.exploitability + 1e-9
    assert abs(lp.value_p1 - lp.value_p2_side) < 1e-8
    assert result.exploitability < 1e-3


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_mccfr_keys_are_the_enumerators_infosets(game, preset):
    _at_most(game, preset, LP_NODES)
    tree = _tree(game, preset)
    solver = MCCFRSolver(make_game(game, preset), "external", seed=1)
    solver.iterate(300)
    strategy_on_tree(solver, tree)  # raises if an infoset is split or two are merged
    assert solver.num_infosets <= tree.num_infosets
    assert solver.last_tree_coverage > 0.5


@pytest.mark.parametrize("game,preset", EVERY_CASE)
def test_abstraction_uses_only_the_seats_information(game, preset):
    """A game's information abstraction (if any) gives one key per infoset of the tree: every
    node of an infoset, whatever the hidden history, maps to the same abstract key; and MCCFR
    in the abstraction gets closer to equilibrium."""
    _at_most(game, preset, LP_NODES)
    params = get_plugin(game).numba_params(make_variant(game, preset))
    if not protocol.has_abstraction(type(params)):
        with pytest.raises(SpycfrError, match="no information abstraction"):
            MCCFRSolver(make_game(game, preset), "outcome", abstraction=True)
        return
    tree = _tree(game, preset)
    solver = MCCFRSolver(make_game(game, preset), "outcome", seed=2, abstraction=True)
    solver.iterate(200)
    early = exploitability(tree, strategy_on_tree(solver, tree))  # raises on a split infoset
    solver.iterate(20_000)
    assert exploitability(tree, strategy_on_tree(solver, tree)) < early
    assert solver.num_infosets <= tree.num_infosets
