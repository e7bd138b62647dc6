"""Search on the public tree: subtrees, range-vector CFR+, belief tracking, safe re-solving
and the exact measurement of the re-solving agent (Kuhn: small enough to check by hand and
against the plain-Python twin of the public protocol)."""

from __future__ import annotations

import numpy as np
import pytest

from public_reference import values
from spycfr.games import get_plugin, make_variant
from spycfr.search import passes
from spycfr.search.beliefs import Beliefs
from spycfr.search.evaluate import Settings, exploitability, profile_exploitability
from spycfr.search.resolve import best_response_value, committed_blueprint, profile_value, solve
from spycfr.search.tree import LEAF, GameModel, build, extract
from spycfr.search.values import BlueprintValues, CommittedValues


@pytest.fixture(scope="module")
def kuhn_model():
    game = GameModel.of(get_plugin("kuhn").numba_params(make_variant("kuhn", None)))
    full = build(game)
    return game, full, solve(full, game.weights, 2000)


def _policy(full, strategy):
    def policy(pub, seat, i, n):
        node = full.find(pub)
        assert full.kind[node] == seat
        return strategy[full.row[node], i, :n]
    return policy


def test_kuhn_subtree_shape_and_cut(kuhn_model):
    game, full, _ = kuhn_model
    assert full.size == 9 and (full.kind == -1).sum() == 5
    assert game.z == pytest.approx(6 / 9)  # 3 x 3 deals, 6 compatible, weight 1/9 each
    cut = build(game, depth=1)
    assert cut.size == 3 and list(cut.kind[1:]) == [LEAF, LEAF]
    below = build(game, full.pub[1])  # after a pass: seat 1 to move, 2 + 2 nodes below
    assert below.size == 5 and below.kind[0] == 1


def test_kuhn_value_and_best_responses_match_the_python_twin(kuhn_model):
    game, full, sol = kuhn_model
    assert profile_value(full, sol.strategy) == pytest.approx(-1 / 18, abs=1e-4)
    policy = _policy(full, sol.strategy)
    for seat in (0, 1):
        assert best_response_value(full, sol.strategy, seat) == pytest.approx(
            values(game.params, policy, seat, best_response=True), abs=1e-12)
    uniform = np.zeros(full.row_kid.shape)
    passes.uniform(full.kind, full.row, full.row_count, uniform)
    assert 2 * profile_exploitability(full, uniform) == pytest.approx(11 / 12, abs=1e-12)
    assert profile_exploitability(full, sol.strategy) < 1e-4


def test_a_row_the_range_excludes_plays_its_regrets_not_uniform(kuhn_model):
    """A private state with no reach (a query off the seat's range) has no average strategy;
    its row takes the last current strategy: facing a bet, the King calls."""
    game, full, sol = kuhn_model
    king, facing = 2, [n for n in range(1, full.size) if full.kind[n] == 0]
    assert len(facing) == 1  # P1 after pass, bet
    q = full.row[facing[0]]
    assert sol.strategy[q, king, :2].max() > 0.99  # the whole range solved: a pure call
    off = solve(full, (np.array([1.0, 1.0, 0.0]), game.weights[1]), 200)
    assert np.allclose(off.strategy[q, king, :2], sol.strategy[q, king, :2], atol=1e-6)


def test_beliefs_follow_the_strategy_move_by_move(kuhn_model):
    game, full, sol = kuhn_model
    b = Beliefs(game)
    rows0 = sol.strategy[full.row[0]]
    b.advance(0, rows0)  # seat 0 passes
    b.advance(1, sol.strategy[full.row[full.first[0]]])  # seat 1 bets
    node = full.find(b.pub)
    assert full.kind[node] == 0
    r0 = game.weights[0] * rows0[:, 0]
    r1 = game.weights[1] * sol.strategy[full.row[full.first[0]], :, 1]
    assert np.allclose(b.ranges[0], r0) and np.allclose(b.ranges[1], r1)
    # holding the queen (1), the bettor holds the king more often than the jack
    post = b.posterior(0, 1)
    assert post[1] == 0 and post[2] > post[0] and post.sum() == pytest.approx(1)
    with pytest.raises(ValueError, match="child 5"):
        b.advance(5)


def test_resolving_with_the_gadget_is_as_good_as_the_plan_and_without_it_is_not(kuhn_model):
    game, full, _ = kuhn_model
    safe, agents = exploitability(game, Settings(iterations=2000), full)
    assert safe < 1e-3
    assert agents[0].resolves == 1 and agents[1].resolves == 2  # one per decision it reaches
    unsafe, _ = exploitability(game, Settings(iterations=2000, gadget=False), full)
    assert unsafe > 0.05  # re-solving from the opponent's range alone is exploitable


def test_the_gadget_never_makes_a_poor_plan_worse(kuhn_model):
    game, full, _ = kuhn_model
    plan = solve(full, game.weights, 3)
    poor = profile_exploitability(full, plan.strategy)
    resolved, _ = exploitability(game, Settings(iterations=2000, plan_iterations=3), full)
    assert poor > 0.1 and resolved <= poor + 1e-3


def test_gadget_keeps_the_opponents_values(kuhn_model):
    """In a re-solve at seat 0's second decision (pass, bet), seat 1's best counterfactual
    values are at most its best values against the plan."""
    game, full, sol = kuhn_model
    node = full.find(np.array([2, 2], full.pub.dtype))
    assert full.kind[node] == 0
    sub = build(game, full.pub[node])
    alt = sol.best[1][node]
    assert (alt >= sol.values[1][node] - 1e-12).all()
    new = solve(sub, (sol.reach[0][node], np.ones(3)), 2000, opp_values=alt, opponent=1)
    from spycfr.search.resolve import _Run
    run = _Run(sub, None)
    run.reaches(new.strategy, (sol.reach[0][node], np.ones(3)))
    best = run.evaluate(1, new.strategy, best=True)[0]
    assert (best <= alt + 1e-3).all()


def test_depth_limited_resolving_with_blueprint_leaves(kuhn_model):
    game, full, sol = kuhn_model
    vf = BlueprintValues(full, sol.strategy)
    pubs = full.pub[[1, 2]]
    v0, v1 = vf.values(pubs, sol.reach[0][[1, 2]], sol.reach[1][[1, 2]])
    assert np.allclose(v0, sol.values[0][[1, 2]]) and np.allclose(v1, sol.values[1][[1, 2]])
    deep, _ = exploitability(game, Settings(iterations=2000, depth=2, value_function=vf), full)
    assert deep < 1e-3
    with pytest.raises(ValueError, match="value function"):
        solve(build(game, depth=1), game.weights, 10)


@pytest.fixture(scope="module")
def leduc_model():
    game = GameModel.of(get_plugin("leduc").numba_params(make_variant("leduc", None)))
    full = build(game)
    return game, full, solve(full, game.weights, 1000)


def test_extract_is_build_from_the_node(leduc_model):
    game, full, _ = leduc_model
    for node, depth in ((0, 3), (40, None), (100, 1)):
        a, b = build(game, full.pub[node], depth), extract(full, node, depth)
        assert np.array_equal(a.kind, b.kind) and np.array_equal(a.count, b.count)
        assert np.array_equal(a.pub, b.pub) and np.array_equal(a.payoff, b.payoff)
        assert np.array_equal(a.first[a.count > 0], b.first[b.count > 0])
        assert np.array_equal(a.row_count, b.row_count) and np.allclose(a.mask[1], b.mask[1])
        assert (full.pub[b.origin] == b.pub).all()


def test_committed_leaf_values_are_best_responses_to_the_blueprint(leduc_model):
    game, full, sol = leduc_model
    nodes = np.array([3, 6, 40])
    v0, v1 = CommittedValues(full, sol.strategy, seat=0).values(
        full.pub[nodes], sol.reach[0][nodes], sol.reach[1][nodes], nodes)
    assert np.allclose(v1, sol.best[1][nodes])  # the opponent best-responds below the leaf
    # the same continuation for both: zero-sum, and the agent's total suffers for it
    r0, r1 = sol.reach[0][nodes], sol.reach[1][nodes]
    assert np.allclose((r0 * v0).sum(axis=1), -(r1 * v1).sum(axis=1))
    assert ((r0 * v0).sum(axis=1) <= (r0 * sol.values[0][nodes]).sum(axis=1) + 1e-12).all()


def test_the_committed_blueprint_is_committed_values_of_a_whole_game_solve(kuhn_model):
    """committed_blueprint builds the whole tree where not given one (up to ``max_nodes``
    public nodes: a tree over it is refused) and uses the one given otherwise."""
    game, full, _ = kuhn_model
    vf = committed_blueprint(game, 50)
    assert vf.tree.size == full.size and vf.seat == 0
    assert np.array_equal(vf.strategy, solve(full, game.weights, 50).strategy)
    assert committed_blueprint(game, 50, full).tree is full
    with pytest.raises(ValueError, match="more than 2 public nodes"):
        committed_blueprint(game, 50, max_nodes=2)


def test_depth_limited_resolving_needs_values_that_move_with_the_range(kuhn_model):
    game, full, sol = kuhn_model
    fixed, _ = exploitability(game, Settings(iterations=1000, depth=1,
                                             value_function=BlueprintValues(full, sol.strategy)),
                              full)
    moving, _ = exploitability(game, Settings(iterations=1000, depth=1,
                                              value_function=CommittedValues(full, sol.strategy)),
                               full)
    assert fixed > 0.03 and moving < 5e-3


@pytest.mark.slow
def test_leduc_public_model_value_and_resolving(leduc_model):
    game, full, sol = leduc_model
    assert full.size == 465 and game.z == pytest.approx(30 / 36)
    assert profile_value(full, sol.strategy) == pytest.approx(-0.0856064, abs=1e-4)
    plan = profile_exploitability(full, sol.strategy)
    assert plan < 1e-3
    # every re-solve after the public card keeps the opponent to its best-response values:
    # the agent (either seat) is about as exploitable as the plan
    resolved, agents = exploitability(game, Settings(iterations=300), full)
    assert agents[0].resolves > 50
    assert resolved < 5e-3


def test_beliefs_through_public_chance_match_the_tree(leduc_model):
    game, full, sol = leduc_model
    b = Beliefs(game)
    node = 0
    for child in (1, 1, 2, 1):  # raise, call, board card 2 (public chance), raise
        mover = full.kind[node]
        rows = sol.strategy[full.row[node]] if mover in (0, 1) else None
        b.advance(child, rows)
        node = full.first[node] + child
        assert (b.pub == full.pub[node]).all()
        for s in (0, 1):
            assert np.allclose(b.ranges[s], sol.reach[s][node])
    assert b.ranges[0][2] == 0 and b.ranges[1][2] == 0  # nobody holds the board card


def test_the_numba_loop_is_the_python_loop(leduc_model):
    game, full, sol = leduc_model
    node = full.first[full.first[0] + 1] + 1  # raise, call: the board card (public chance)
    sub = extract(full, node)
    args = (sub, (sol.reach[0][node], np.ones(6)), 50)
    for extra in ({}, {"opp_values": sol.best[1][node], "opponent": 1}):
        a = solve(*args, **extra)
        b = solve(*args, **extra, in_numba=False)
        # the same passes and the same gadget step (passes.gadget_step): the same bits
        assert np.array_equal(a.strategy, b.strategy)
        assert np.array_equal(a.best[1], b.best[1])
        if extra:
            assert np.array_equal(a.enter, b.enter)


def test_the_numba_loop_in_chunks_is_the_loop_in_one_call(leduc_model, monkeypatch):
    """With a progress callback the numba loop runs in chunks (here of one iteration each),
    told after each: the same solution bit for bit as one call, the gadget's too."""
    from spycfr.search import resolve

    game, full, sol = leduc_model
    node = full.first[full.first[0] + 1] + 1
    sub = extract(full, node)
    args = (sub, (sol.reach[0][node], np.ones(6)), 20)
    monkeypatch.setattr(resolve, "CHUNK_SECONDS", 0.0)
    told: list[tuple[int, int]] = []
    for extra in ({}, {"opp_values": sol.best[1][node], "opponent": 1}):
        told.clear()
        a = solve(*args, **extra)
        b = solve(*args, **extra, progress=lambda done, total: told.append((done, total)))
        assert told == [(i, 20) for i in range(1, 21)]
        assert np.array_equal(a.strategy, b.strategy) and np.array_equal(a.best[1], b.best[1])
        if extra:
            assert np.array_equal(a.enter, b.enter)


@pytest.mark.slow
def test_agent_hunter_mini_subtree_is_enumerated():
    """Agent Hunter mini's whole public tree, which build once refused (a non-terminal public
    state without labels, before the rules recorded the last move as the opponent saw it):
    every node that is neither terminal nor cut has children, each the child of one node."""
    game = GameModel.of(get_plugin("agent-hunter").numba_params(
        make_variant("agent-hunter", "mini")))
    tree = build(game)
    assert tree.size == 266_175 and tree.leaves.size == 0
    inner = tree.kind != -1
    assert np.all(tree.count[inner] > 0)
    assert np.array_equal(np.bincount(tree.parent[1:], minlength=tree.size), tree.count)
