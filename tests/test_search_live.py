"""The fast paths of a re-solve with leaves (issue 23): the passes over each node's live
private states (spycfr.search.passes' live passes, resolve.LIVE_PASSES) and Agent Avenue's
scored-now hook in one numba pass over the leaves (leaf.live_products) give what the full
passes and the grouped products give, up to float rounding, on the states some play
reaches; simple and advanced mode."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import leaf as L
from spycfr.games.agent_avenue import rules as R
from spycfr.search import resolve
from spycfr.search.leafvalues import value_function
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel, reachable

PLUGIN = get_plugin("agent-avenue")


def _model(preset: str) -> GameModel:
    return GameModel.of(L.search_params(make_variant("agent-avenue", preset)))


@pytest.fixture(scope="module")
def advanced():
    """The advanced model and a depth-2 subgame at one of the black market's supplies."""
    game = _model("advanced")
    top = subgame(game, game.root(), 0)
    return game, subgame(game, top.pub[top.leaves[7]], 2)


def _solve(tree, ranges, iterations, vf, live: bool, **gadget):
    was = resolve.LIVE_PASSES
    resolve.LIVE_PASSES = live
    try:
        return resolve.solve(tree, ranges, iterations, vf, **gadget)
    finally:
        resolve.LIVE_PASSES = was


def _assert_same_where_live(a, b):
    """Equal reaches; equal values, best-response values and strategy rows on each node's
    live states (those the root's ranges lead to)."""
    t = a.tree
    assert np.isin(t.kind, (0, 1)).any()
    for s in (0, 1):
        live = reachable(t, s, a.reach[s][0] > 0)
        assert np.array_equal(live, reachable(t, s, b.reach[s][0] > 0))
        assert np.allclose(a.reach[s], b.reach[s], rtol=1e-9, atol=1e-12)
        assert np.allclose(a.values[s][live], b.values[s][live], rtol=1e-9, atol=1e-12)
        assert np.allclose(a.best[s][live], b.best[s][live], rtol=1e-9, atol=1e-12)
        assert not b.values[s][~live].any()  # nothing written outside
        for n in np.flatnonzero(t.kind == s):
            q = t.row[n]
            assert np.allclose(a.strategy[q][live[n]], b.strategy[q][live[n]], atol=1e-9)


@pytest.mark.parametrize("preset", ["mini", "small"])
def test_live_passes_equal_the_full_passes_in_simple_mode(preset):
    """A depth-2 subgame after the first move, from a narrowed range (some states off), by
    the full and the live passes, then a re-solve below it with the gadget: the same."""
    game = _model(preset)
    vf = value_function("scored-now", game, PLUGIN)
    first = subgame(game, game.root(), 1)
    pub = first.pub[first.leaves[0]]
    tree = subgame(game, pub, 2)
    assert tree.leaves.size
    rng = np.random.default_rng(4)
    ranges = tuple(game.weights[s] * (rng.random(game.n[s]) < 0.6) for s in (0, 1))
    full = _solve(tree, ranges, 30, vf, live=False)
    live = _solve(tree, ranges, 30, vf, live=True)
    _assert_same_where_live(full, live)
    # a re-solve at a decision below, with the gadget fed the first solve's values
    c = next(int(c) for c in np.flatnonzero(tree.kind == 1) if full.reach[1][c].any())
    below = subgame(game, tree.pub[c], 2)
    at = (full.reach[0][c], (full.reach[1][c] > 0).astype(float))
    gadget = {"opp_values": full.best[1][c], "opponent": 1}
    _assert_same_where_live(_solve(below, at, 20, vf, False, **gadget),
                            _solve(below, at, 20, vf, True, **gadget))


@pytest.mark.slow
def test_live_passes_equal_the_full_passes_in_advanced_mode(advanced):
    """Advanced mode (2,641 private states a seat, a few hundred live at each node)."""
    game, tree = advanced
    vf = value_function("scored-now", game, PLUGIN)
    ranges = tuple(game.weights)
    _assert_same_where_live(_solve(tree, ranges, 10, vf, False),
                            _solve(tree, ranges, 10, vf, True))


def _ranges(rng, tree, game, leaves):
    """Ranges at ``leaves`` as a solve has them: 0 where no play leads, random elsewhere,
    half of the rest 0."""
    out = []
    for s in (0, 1):
        r = reachable(tree, s, game.weights[s] > 0)[leaves] * rng.random((leaves.size,
                                                                          game.n[s]))
        r[rng.random(r.shape) < 0.5] = 0.0
        out.append(np.ascontiguousarray(r))
    return out


def _hook(grouped: bool, pubs, params, r0, r1):
    hook = L.ScoredNow()
    hook.grouped = grouped
    v0, v1 = np.empty(r0.shape), np.empty(r1.shape)
    hook(np.ascontiguousarray(pubs), params, r0, r1, v0, v1)
    return hook, v0, v1


def _check_hook(game, tree, seed: int):
    rng = np.random.default_rng(seed)
    leaves = tree.leaves
    r0, r1 = _ranges(rng, tree, game, leaves)
    pubs = tree.pub[leaves]
    _, g0, g1 = _hook(True, pubs, game.params, r0, r1)
    hook, v0, v1 = _hook(False, pubs, game.params, r0, r1)
    scale = max(np.abs(g0).max(), np.abs(g1).max())
    assert scale > 0
    # the grouped products are single precision: the same up to its rounding
    assert np.allclose(v0, g0, rtol=1e-5, atol=1e-6 * scale)
    assert np.allclose(v1, g1, rtol=1e-5, atol=1e-6 * scale)
    # asked again with seat 0's range changed: seat 0's values are kept, seat 1's new
    r0b = r0.copy()
    r0b[r0b > 0] *= 0.5
    w0, w1 = np.empty(r0.shape), np.empty(r1.shape)
    hook(np.ascontiguousarray(pubs), game.params, r0b, r1, w0, w1)
    assert np.array_equal(w0, v0)
    _, h0, h1 = _hook(True, pubs, game.params, r0b, r1)
    assert np.allclose(w1, h1, rtol=1e-5, atol=1e-6 * scale)


@pytest.mark.parametrize("preset", ["mini", "small"])
def test_scored_now_in_one_pass_equals_the_grouped_products_in_simple_mode(preset):
    """Simple mode's leaves, recruitments among them (valued apart, by the mover's range)."""
    game = _model(preset)
    first = subgame(game, game.root(), 1)
    tree = subgame(game, first.pub[first.leaves[0]], 2)
    assert (tree.pub[tree.leaves][:, R.PHASE] == R.PH_RECRUIT).any()
    _check_hook(game, tree, 1)


@pytest.mark.slow
def test_scored_now_in_one_pass_equals_the_grouped_products_in_advanced_mode(advanced):
    game, tree = advanced
    _check_hook(game, tree, 2)
    below = subgame(game, tree.pub[tree.leaves[40]], 2)  # a second subgame, further on
    _check_hook(game, below, 3)


@pytest.mark.slow
def test_advanced_rollouts_in_threads_are_each_games_own(advanced):
    """rollout_advanced.rollouts plays its games in numba's threads, each seeding its own
    thread's generator: a batch's payoffs are those of each game played alone, with one
    thread or two."""
    import numba

    from spycfr.games.agent_avenue.rollout_advanced import rollouts

    game, tree = advanced
    pubs = np.ascontiguousarray(tree.pub[tree.leaves])
    rng = np.random.default_rng(6)
    live = [reachable(tree, s, game.weights[s] > 0)[tree.leaves] for s in (0, 1)]
    q = 64
    leaf = np.sort(rng.integers(0, pubs.shape[0], q))
    i0 = np.array([rng.choice(np.flatnonzero(live[0][lf])) for lf in leaf])
    i1 = np.array([rng.choice(np.flatnonzero(live[1][lf])) for lf in leaf])
    styles = np.zeros(q, np.int64)
    seeds = rng.integers(0, 2**31 - 1, q)
    batch = np.empty(q)
    rollouts(pubs, game.params, leaf, i0, i1, styles, styles, seeds, batch)
    assert np.count_nonzero(batch) > q // 4
    alone = np.empty(q)
    for x in range(q):
        one = np.empty(1)
        rollouts(pubs, game.params, leaf[x:x + 1], i0[x:x + 1], i1[x:x + 1], styles[:1],
                 styles[:1], seeds[x:x + 1], one)
        alone[x] = one[0]
    assert np.array_equal(batch, alone)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        serial = np.empty(q)
        rollouts(pubs, game.params, leaf, i0, i1, styles, styles, seeds, serial)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(batch, serial)


def test_a_kept_state_out_of_range_gets_the_full_passes_rows():
    """``keep``: a private state the seat's range gives no weight (a querying player's cards
    that the agent's own play would not hold) still gets its strategy rows and values, as
    the full passes give them; without it the live passes leave its rows uniform (the
    README's query on results/standard answered every move 1/102 so)."""
    game = _model("mini")
    vf = value_function("scored-now", game, PLUGIN)
    first = subgame(game, game.root(), 1)
    tree = subgame(game, first.pub[first.leaves[0]], 2)
    seat = int(tree.kind[0])
    assert seat in (0, 1) and tree.leaves.size
    q = tree.row[0]
    for i in np.flatnonzero(game.weights[seat] > 0):  # a state whose row is not uniform
        ranges = [game.weights[0].copy(), game.weights[1].copy()]
        ranges[seat][i] = 0.0  # the agent's own play never holds state i here
        full = _solve(tree, ranges, 30, vf, live=False)
        count = tree.row_count[q, i]
        if count > 1 and not np.allclose(full.strategy[q][i, :count], 1.0 / count):
            break
    bare = _solve(tree, ranges, 30, vf, live=True)
    kept = _solve(tree, ranges, 30, vf, live=True, keep=(seat, i))
    assert count > 1
    uniform = np.full(count, 1.0 / count)
    assert np.allclose(bare.strategy[q][i, :count], uniform)  # what the live passes left
    assert not np.allclose(full.strategy[q][i, :count], uniform)
    assert np.allclose(kept.strategy[q][i, :count], full.strategy[q][i, :count], atol=1e-9)
    assert np.allclose(kept.values[seat][0, i], full.values[seat][0, i], rtol=1e-9,
                       atol=1e-12)
    # the states in range are untouched by the keep
    for s in (0, 1):
        assert np.array_equal(kept.reach[s], bare.reach[s])
