"""Measuring the search agent exactly, fast: leaf values linear in the ranges folded into
payoff matrices (spycfr.search.folding) solve a subgame as the value function would (the
whole CFR+ loop in numba), and the exploitability walk gives what it gave without them
(Agent Hunter tiny)."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.games import get_plugin, make_variant
from spycfr.public import protocol as pp
from spycfr.search import folding, passes, resolve
from spycfr.search.agent import AgentConfig, SearchAgent, agent_exploitability
from spycfr.search.leafvalues import value_function
from spycfr.search.subgame import subgame
from spycfr.search.tree import LEAF, GameModel, build

TINY = make_variant("agent-hunter", "tiny").as_dict()


@pytest.fixture(scope="module")
def tiny():
    plugin = get_plugin("agent-hunter")
    game = GameModel.of(plugin.numba_params(make_variant("agent-hunter", "tiny")))
    return game, value_function("scored-now", game, plugin)


def _first_turn(game):
    plan = subgame(game, game.root(), 2)
    return plan.pub[plan.leaves[0]]


def test_leaf_matrices_at_terminals_are_the_payoffs(tiny):
    game, vf = tiny
    t = subgame(game, _first_turn(game), 20)  # to the end: every leaf a terminal
    m = folding.leaf_matrices(t, vf)
    full = build(game, t.pub[0])
    assert m is not None and m.shape == (t.leaves.size, *game.n)
    for leaf, node in enumerate(t.leaves[:60]):
        assert np.allclose(m[leaf], full.payoff[full.term[full.find(t.pub[node])]],
                           rtol=0, atol=1e-12)


@pytest.mark.parametrize("depth", [1, 20])
def test_folded_solve_is_the_value_functions_solve(tiny, depth, monkeypatch):
    """The same strategy, values and best-response values as the Python loop calling the
    value function, with and without the gadget; the solution keeps the leaves as LEAF.
    The loop's full passes (the live ones leave the rows no play reaches uniform and their
    values 0: tests/test_search_live.py compares them where play reaches)."""
    monkeypatch.setattr(resolve, "LIVE_PASSES", False)
    game, vf = tiny
    t = subgame(game, _first_turn(game), depth)
    assert t.leaves.size and folding.folded(t, vf) is not None
    rng = np.random.default_rng(3)
    ranges = (rng.random(game.n[0]), rng.random(game.n[1]))
    gadget = dict(opp_values=rng.random(game.n[1]) * 0.1 - 0.05, opponent=1)
    for options in ({}, gadget):
        ref = resolve.solve(t, ranges, 30, vf, **options)
        got = folding.solve(t, ranges, 30, vf, **options)
        assert got.tree is t and (got.tree.kind[t.leaves] == LEAF).all()
        assert np.allclose(got.strategy, ref.strategy, rtol=0, atol=1e-9)
        for s in (0, 1):
            assert np.allclose(got.values[s], ref.values[s], rtol=0, atol=1e-12)
            assert np.allclose(got.best[s], ref.best[s], rtol=0, atol=1e-12)
        if options:
            assert np.allclose(got.enter, ref.enter, rtol=0, atol=1e-9)


class _NotZeroSum:
    """Says it is linear, but its seats' values are not one zero-sum matrix."""

    linear = True

    def values(self, pubs, r0, r1, nodes=None):
        return r1.sum(axis=1, keepdims=True) * np.ones_like(r0), np.zeros_like(r1)


def test_what_is_not_folded(tiny, monkeypatch):
    game, vf = tiny
    t = subgame(game, _first_turn(game), 1)
    assert folding.folded(t, None) is None
    assert folding.folded(t, object()) is None  # no ``linear``: e.g. rollouts, a network
    assert folding.folded(t, _NotZeroSum()) is None
    assert folding.leaf_matrices(t, _NotZeroSum()) is None
    monkeypatch.setattr(folding, "FOLD_BYTES", t.leaves.size * game.n[0] * game.n[1] * 8 - 1)
    assert folding.folded(t, vf) is None  # past the memory budget: the Python loop
    whole = subgame(game, game.root(), 20, terminal_leaves=False)
    assert not whole.leaves.size and folding.folded(whole, vf) is None


def test_the_exploitability_walk_is_unchanged_by_folding(monkeypatch):
    """The agent's exact exploitability on tiny (one move deep, scored-now leaves) with the
    leaves folded and without (the value function called at every iteration)."""
    def measure():
        agent = SearchAgent("agent-hunter", TINY, AgentConfig(iterations=10))
        return agent_exploitability(agent)

    folded_result = measure()
    monkeypatch.setattr(folding, "FOLD_BYTES", 0)
    plain = measure()
    assert folded_result[2] == plain[2] > 100
    assert folded_result[0] == pytest.approx(plain[0], abs=1e-9)
    assert np.allclose(folded_result[1], plain[1], rtol=0, atol=1e-9)
    assert plain[0] > 0.1  # scored-now leaves one move deep: far from an equilibrium


def test_subgames_to_the_end_come_from_the_numba_enumerator(tiny):
    """At a depth past the game's max_depth the agent's subgame is tree.build's: the same
    public states in the same order and kinds as the Python builder's with terminals kept
    (their payoffs too, on the pairs that some play reaches: 0 on the others, which no range
    weighs); below it, the Python builder's cut into decision levels."""
    game, _ = tiny
    agent = SearchAgent("agent-hunter", TINY, AgentConfig(depth=20))
    root = _first_turn(game)
    fast = agent.subgame(root, 20)
    slow = subgame(game, root, 20, terminal_leaves=False)
    assert not fast.leaves.size and np.array_equal(fast.pub, slow.pub)
    assert np.array_equal(fast.kind, slow.kind) and np.array_equal(fast.first, slow.first)
    ends = np.flatnonzero(fast.kind == pp.TERMINAL)
    sigma = np.zeros(fast.row_kid.shape)
    passes.uniform(fast.kind, fast.row, fast.row_count, sigma)
    reach = [np.zeros((fast.size, game.n[s])) for s in (0, 1)]
    for s in (0, 1):
        passes.forward(s, *fast.seat_arrays(s), sigma, np.ones(game.n[s]), reach[s])
    pairs = (reach[0][ends] > 0)[:, :, None] & (reach[1][ends] > 0)[:, None, :]
    assert 0 < pairs.mean() < 1
    got, want = fast.payoff[fast.term[ends]], slow.payoff[slow.term[ends]]
    assert np.array_equal(got[pairs], want[pairs]) and not got[~pairs].any()
    cut = agent.subgame(root, 1)
    assert (cut.kind == LEAF).any() and cut.size == subgame(game, root, 1).size
