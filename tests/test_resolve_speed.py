"""Faster paths of a re-solve that must not change play (issues 22 and 23, games per hour):
each gives the bits of the path it replaced.

- leaf.live_weights tabulates _ratio's falling factors and each state's digits; the pair by
  pair reference (live_weights_pairwise) gives the same W bit for bit.
- ScoredNow's recruitment leaves read W cast to double once a pack, where each product
  cast it again, and are valued all at once (numba around the per-leaf BLAS products),
  where a Python call a leaf did it: the same values bit for bit.
- subgame and tree.build (its _fill) set only the expanded children's masks back to ones,
  where they reset the whole scratch buffer before each expansion: the same subtree, every
  array.
- Agent Avenue's private_action_rows / private_chance_rows (every state's row at once, which
  tree._expand asks for) give the per-state functions' entries bit for bit.
- subgame keeps only the chance children's masks (the others are ones): each node's masks
  are those the protocol gives its edge.
- ScoredNow's recruitment leaves keep the products that read a range unchanged since the
  last call: each call's values those of a hook that makes every product.
- tree.build's count asks the rows hooks, its fill sets back to 0 only the rows' part it
  keeps; Agent Hunter's rows hook: the same trees and entries."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numba import njit

from cli_helpers import bench_script
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_avenue import leaf as L
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_hunter import rules as AHR
from spycfr.public import protocol as pp
from spycfr.search import passes
from spycfr.search import subgame as S
from spycfr.search import tree as T
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel


def _model(game: str, preset: str) -> GameModel:
    plugin = get_plugin(game)
    return GameModel.of((plugin.search_params or plugin.numba_params)(make_variant(game,
                                                                                   preset)))


@pytest.fixture(scope="module", params=["mini", "small"])
def simple(request):
    """An Agent Avenue simple-mode model and a depth-2 subgame after its first move."""
    game = _model("agent-avenue", request.param)
    first = subgame(game, game.root(), 1)
    return game, subgame(game, first.pub[first.leaves[0]], 2)


def test_live_weights_equal_the_pairwise_reference_bit_for_bit(simple):
    game, tree = simple
    for pub in tree.pub[tree.leaves]:
        got = L.live_weights(pub, game.params, game.n[0], game.n[1])
        want = L.live_weights_pairwise(pub, game.params, game.n[0], game.n[1])
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tobytes() == b.tobytes()


def _recruit_reference(hook, pubs, params, n: tuple, r0, r1) -> tuple:
    """Seat 0's and seat 1's values at the recruitment leaves of ``pubs`` leaf by leaf
    (ScoredNow._recruit on the single-precision W, which each product casts), 0 elsewhere."""
    w0, w1 = np.zeros(r0.shape), np.zeros(r1.shape)
    for leaf in np.flatnonzero(pubs[:, R.PHASE] == R.PH_RECRUIT):
        value, wkey = hook._leaf(pubs[leaf], params, n[0], n[1])
        w, ri, ci = hook._weights[wkey]
        assert w.dtype == np.float32
        L.ScoredNow._recruit(leaf, *value, (w, ri, ci), r0, r1, w0, w1)
    return w0, w1


def test_recruitments_at_once_are_the_leaf_by_leaf_values_bit_for_bit(simple):
    """The hook's values at recruitment leaves (every leaf at once: the mover's values and
    the products' operands in numba, the means stacked) equal _recruit's leaf by leaf, on
    the single-precision W cast for each product, both seats; rows of no weight among them
    (the means of both takes then 0: the first take)."""
    game, tree = simple
    pubs = np.ascontiguousarray(tree.pub[tree.leaves])
    recruit = pubs[:, R.PHASE] == R.PH_RECRUIT
    assert recruit.any()
    rng = np.random.default_rng(5)
    r0 = rng.random((pubs.shape[0], game.n[0])) * (rng.random((pubs.shape[0], game.n[0])) < .7)
    r1 = rng.random((pubs.shape[0], game.n[1])) * (rng.random((pubs.shape[0], game.n[1])) < .7)
    r0[np.flatnonzero(recruit)[::3]] = 0.0
    r1[np.flatnonzero(recruit)[1::3]] = 0.0
    hook = L.ScoredNow()
    v0, v1 = np.empty(r0.shape), np.empty(r1.shape)
    hook(pubs, game.params, r0, r1, v0, v1)
    w0, w1 = _recruit_reference(hook, pubs, game.params, game.n, r0, r1)
    assert v0[recruit].tobytes() == w0[recruit].tobytes()
    assert v1[recruit].tobytes() == w1[recruit].tobytes()


def test_stacked_means_are_the_per_leaf_products_bit_for_bit():
    """The means of each take, one stacked matmul over the leaves, are each leaf's
    ``outcomes @ mass`` (what _recruited computes) to the bit: BLAS's order, not a loop's."""
    rng = np.random.default_rng(3)
    for n in (5, 8, 9, 16):
        outcomes = rng.standard_normal((300, 2, n)) * (rng.random((300, 2, n)) < .8)
        mass = rng.random((300, n)) * 10.0 ** rng.uniform(-6, 1, (300, 1))
        stacked = np.matmul(outcomes, mass[:, :, None])[:, :, 0]
        each = np.array([outcomes[k] @ mass[k] for k in range(300)])
        assert stacked.tobytes() == each.tobytes()


def test_recruitments_reuse_the_products_of_an_unchanged_range_with_the_same_bits():
    """A solve's calls change one seat's range at a time: the hook then keeps the
    recruitment leaves' products that read the unchanged range (the same arrays), and every
    call's values are those of a hook without a last call (each product made) and, at the
    recruitments, _recruit's leaf by leaf, bit for bit, both seats. The leaves (mini): those
    of two decision levels from the root (P1 recruited) and from P1's first move (P2)."""
    game = _model("agent-avenue", "mini")
    top = subgame(game, game.root(), 2)
    first = subgame(game, game.root(), 1)
    below = subgame(game, first.pub[first.leaves[0]], 2)
    pubs = np.ascontiguousarray(np.concatenate([top.pub[top.leaves], below.pub[below.leaves]]))
    recruit = pubs[:, R.PHASE] == R.PH_RECRUIT
    movers = pubs[recruit, R.ACTIVE]
    assert (movers == 0).any() and (movers == 1).any()
    rng = np.random.default_rng(11)

    def draw(n):
        return rng.random((pubs.shape[0], n)) * (rng.random((pubs.shape[0], n)) < .7)

    r0, r1 = draw(game.n[0]), draw(game.n[1])
    hook = L.ScoredNow()
    before = None
    for change in ("both", 0, 1, 0, None, 1, 1):  # the range changed before each call
        if change == 0:
            r0 = draw(game.n[0])
        elif change == 1:
            r1 = draw(game.n[1])
        got = np.empty(r0.shape), np.empty(r1.shape)
        hook(pubs, game.params, r0, r1, *got)
        products = next(reversed(hook._last.values()))[4]
        if before is not None:  # through r1 kept where r1 is unchanged, through r0 where r0
            assert (products[0] is before[0]) == (change in (0, None))
            assert (products[1] is before[1]) == (change in (1, None))
        before = products
        want = np.empty(r0.shape), np.empty(r1.shape)
        L.ScoredNow()(pubs, game.params, r0, r1, *want)
        for a, b in zip(got, want, strict=True):
            assert a.tobytes() == b.tobytes()
        for a, b in zip(got, _recruit_reference(hook, pubs, game.params, game.n, r0, r1),
                        strict=True):
            assert a[recruit].tobytes() == b[recruit].tobytes()


def _reset_each_time(monkeypatch):
    """subgame as before: the whole masks buffer set to ones before each expansion."""
    expand = S._expand

    def reset_first(pub, params, nmax, kids_pub, probs, masks, *rest):
        masks[:] = 1.0
        return expand(pub, params, nmax, kids_pub, probs, masks, *rest)

    monkeypatch.setattr(S, "_expand", reset_first)


def _same_arrays(got: list, want: list) -> None:
    """Each pair of trees (dataclasses) has decisions or chances and the same bits in every
    array field (a tuple field's arrays one by one)."""
    for a, b in zip(got, want, strict=True):
        assert np.isin(a.kind, [pp.CHANCE, 0, 1]).any()
        for f in dataclasses.fields(a):
            x, y = getattr(a, f.name), getattr(b, f.name)
            for u, v in zip(x if isinstance(x, tuple) else (x,),
                            y if isinstance(y, tuple) else (y,), strict=True):
                if isinstance(u, np.ndarray):
                    assert u.shape == v.shape and u.tobytes() == v.tobytes(), f.name


@pytest.mark.parametrize("game_name,preset", [("agent-avenue", "mini"),
                                              ("agent-hunter", "tiny"),
                                              ("agent-avenue", "advanced")])
def test_subgame_arrays_are_those_of_a_reset_before_each_expansion(game_name, preset,
                                                                   monkeypatch):
    """Subgames from the root and below it, decisions and chances (advanced mode: one
    decision level from three of the black market's 455 supplies, where the buffer is
    455 children wide)."""
    game = _model(game_name, preset)
    levels = 0 if preset == "advanced" else 1
    first = subgame(game, game.root(), levels)
    roots = [first.pub[c] for c in first.leaves[:3]]
    if preset != "advanced":  # (its root and a decision level below: some 4 GB)
        roots.append(game.root())
    got = [subgame(game, r, levels + 1) for r in roots]
    _reset_each_time(monkeypatch)
    want = [subgame(game, r, levels + 1) for r in roots]
    _same_arrays(got, want)


@njit(cache=False)
def _fill_reset_first(params, depth, nmax, pub, kind, parent, label, first, count, prob,
                      mask0, mask1, row, row_kid, row_next, row_prob, row_count):
    """tree._fill as before: the whole masks buffer set to ones before each expansion."""
    amax = pp.max_actions(params)
    pamax = pp.max_private_actions(params)
    n0, n1 = mask0.shape[1], mask1.shape[1]
    kids_pub, probs, masks, rk, rn, rp, rc = T._expand_buffers(pub[0], nmax, amax, pamax)
    dep = np.zeros(pub.shape[0], np.int64)
    width = row_kid.shape[2]
    widest = 0
    parent[0], label[0], prob[0] = -1, 0, 1.0
    mask0[0] = 1.0
    mask1[0] = 1.0
    free, r = 1, 0
    for i in range(pub.shape[0]):
        first[i] = free
        row[i] = -1
        if depth >= 0 and dep[i] >= depth and pp.current_player(pub[i], params) != pp.TERMINAL:
            kind[i] = T.LEAF
            count[i] = 0
            continue
        masks[:] = 1.0
        rk[:] = 0
        rn[:] = 0
        rp[:] = 0.0
        rc[:] = 0
        kd, k = T._expand(pub[i], params, nmax, kids_pub, probs, masks, rk, rn, rp, rc)
        kind[i], count[i] = kd, k
        if kd == 0 or kd == 1 or kd >= pp.PRIVATE_CHANCE:
            row[i] = r
            widest = max(widest, rc.max())
            row_kid[r] = rk[:, :width]
            row_next[r] = rn[:, :width]
            row_prob[r] = rp[:, :width]
            row_count[r] = rc
            r += 1
        for o in range(k):
            c = free + o
            pub[c] = kids_pub[o]
            parent[c], label[c], prob[c] = i, o, probs[o]
            mask0[c] = masks[o, 0, :n0]
            mask1[c] = masks[o, 1, :n1]
            dep[c] = dep[i] + 1
        free += k
    return widest


@pytest.mark.parametrize("game_name,preset,depth", [("agent-avenue", "mini", 3),
                                                    ("agent-hunter", "tiny", 2),
                                                    ("agent-avenue", "advanced", 2)])
def test_build_arrays_are_those_of_a_reset_before_each_expansion(game_name, preset, depth,
                                                                 monkeypatch):
    """tree.build's _fill sets only the expanded children's masks back to ones (as subgame),
    and the rows' buffers back to 0 only as wide as its tables, where it reset both whole
    before each expansion: the same tree, every array, as the _fill before (advanced mode:
    below three of the black market's 455 supplies, the buffer 455 children wide). The
    count's widest row (every state's row at once) is the fill's: the tables are as wide as
    the widest row, no wider."""
    game = _model(game_name, preset)
    first = subgame(game, game.root(), 1)
    roots = [first.pub[c] for c in first.leaves[:3]]
    if preset != "advanced":
        roots.append(game.root())
    got = [T.build(game, r, depth=depth, live=True) for r in roots]
    for t in got:
        assert t.row_kid.shape[2] == max(int(t.row_count.max(initial=0)), 1) < \
            game.max_private_actions
    monkeypatch.setattr(T, "_fill", _fill_reset_first)
    want = [T.build(game, r, depth=depth, live=True) for r in roots]
    _same_arrays(got, want)


def test_uniform_is_normalise_from_zeros_bit_for_bit(simple):
    """passes.uniform writes what normalise wrote from an all-zero average (its old body),
    and nothing else (the rest of the array as it was)."""
    _, tree = simple
    t = tree
    got = np.full(t.row_kid.shape, -7.0)
    passes.uniform(t.kind, t.row, t.row_count, got)
    want = np.full(t.row_kid.shape, -7.0)
    zero = np.zeros(t.row_kid.shape)
    passes.normalise(t.kind, t.row, t.row_count, zero, zero, want)
    assert (got != -7.0).any()
    assert got.tobytes() == want.tobytes()


def test_scored_now_values_are_the_hooks_over_z_bit_for_bit():
    """leafvalues.ScoredNow divides by z in place: the hook's values over z, the same bits
    as the new arrays it made before (Agent Avenue mini, random ranges at a subgame's
    leaves, z made 0.37: the presets' is 1)."""
    from spycfr.search.leafvalues import ScoredNow

    game = _model("agent-avenue", "mini")
    tree = subgame(game, game.root(), 2)
    pubs = np.ascontiguousarray(tree.pub[tree.leaves])
    rng = np.random.default_rng(3)
    r0 = rng.random((pubs.shape[0], game.n[0]))
    r1 = rng.random((pubs.shape[0], game.n[1]))
    game = dataclasses.replace(game, z=0.37)
    got = ScoredNow(game, L.ScoredNow()).values(pubs, r0, r1)
    v0, v1 = np.empty(r0.shape), np.empty(r1.shape)
    L.ScoredNow()(pubs, game.params, r0, r1, v0, v1)
    assert np.abs(v0).max() > 0
    assert got[0].tobytes() == (v0 / game.z).tobytes()
    assert got[1].tobytes() == (v1 / game.z).tobytes()


@pytest.mark.parametrize("game_name,preset", [("agent-avenue", "mini"),
                                              ("agent-avenue", "standard"),
                                              ("agent-avenue", "advanced"),
                                              ("agent-hunter", "small"),
                                              ("agent-hunter", "standard")])
def test_private_rows_at_once_are_the_per_state_functions_bit_for_bit(game_name, preset):
    """At 300 decisions and private chances of random walks (mini's exact numbering with
    discards, the search agent's forgetting one on standard, advanced mode's; Agent
    Hunter's decisions, placements and turns, without private chances), every state's row:
    its entries' kids, nexts, probabilities and count, the same bits (the buffers filled
    with other values first: what a hook does not write stays as it was either way)."""
    game = _model(game_name, preset)
    phase = R.PHASE if game_name == "agent-avenue" else AHR.PHASE
    nmax, pamax = max(game.n), game.max_private_actions
    seen = set()
    fill = bench_script("bench_private_rows").rows  # a node's rows either way
    for pub, kind, k in bench_script("bench_subgame_build").public_walk(game, 7, 300, True):
        got, want = [], []
        for at_once, rows in ((True, got), (False, want)):
            rows += [np.full((nmax, pamax), -9, np.int64), np.full((nmax, pamax), -9,
                                                                   np.int64),
                     np.full((nmax, pamax), -0.5), np.full(nmax, -9, np.int64)]
            fill(pub, game.params, kind, k, at_once, *rows)
        for a, b in zip(got, want, strict=True):
            assert a.tobytes() == b.tobytes(), (preset, pub[phase], kind)
        seen.add((kind >= pp.PRIVATE_CHANCE, int(pub[phase])))
    # decisions and private chances (Agent Hunter: decisions of several phases)
    if game_name == "agent-avenue":
        assert {d for d, _ in seen} == {False, True}
    else:
        assert {d for d, _ in seen} == {False} and len(seen) > 1


@pytest.mark.parametrize("game_name,preset", [("agent-avenue", "mini"),
                                              ("agent-avenue", "standard"),
                                              ("agent-hunter", "tiny")])
def test_subgame_masks_are_the_protocols_chance_masks(game_name, preset):
    """Each node's masks, both seats: its chance edge's ``chance_mask`` (the outcome its
    label names), ones below a decision or a private chance and at the root; some chance
    child's mask is not all ones (the comparison can fail)."""
    game = _model(game_name, preset)
    params = game.params
    outcomes, chance_mask = (pp.python_impl(params, f) for f in ("chance_outcomes",
                                                                    "chance_mask"))
    first = subgame(game, game.root(), 1)
    codes, probs = np.zeros(game.max_actions, np.int32), np.zeros(game.max_actions)
    masked = False
    for root in [game.root(), *first.pub[first.leaves[:2]]]:
        t = subgame(game, root, 2)
        for c in range(t.size):
            p = t.parent[c]
            for s in range(2):
                want = np.ones(game.n[s])
                if p >= 0 and t.kind[p] == pp.CHANCE:
                    outcomes(t.pub[p], params, codes, probs)
                    chance_mask(t.pub[p], params, codes[t.label[c]], s, want)
                    masked |= bool((want != 1.0).any())
                assert t.mask[s][c].tobytes() == want.tobytes(), (c, s)
    assert masked
