"""The opponent's decision at each leaf (spycfr.search.leafchoice): the numba step over every
leaf's flat arrays gives what the numpy step of each leaf gives."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.search.continuation_rows import DrawValues, ValuedRow
from spycfr.search.leafchoice import (
    LeafDecisions,
    StateDecisions,
    leaf_choice_step,
    robust,
    state_choice_step,
)


def _valued(rng, leaves, rows, own, opposing, n_opp):
    """Rows valued at a few leaves: (seat, leaf, row, values (a, b), opposing weights), the
    number of opposing continuations different at each leaf (guesses), some rows of two
    leaves the same private state."""
    out = []
    for lf, r, b in zip(leaves, rows, opposing, strict=True):
        for i in rng.choice(9, size=r, replace=False):
            w = rng.random(n_opp) * (rng.random(n_opp) > 0.3)
            out.append(ValuedRow(1, lf, int(i), rng.uniform(-1, 1, (own, b)), w))
    return out


def _stepped(rng, dec, z: float, steps: int = 60):
    """``dec`` (a leaf's or state's decisions of seat 1's rows, 5 leaves of 9 rows) stepped
    ``steps`` times against random ranges (seat 0's first 3 rows out), each step's (t, r0,
    r1, want) yielded for the test's reference to write the values it expects into
    ``want`` (7 elsewhere); then, each step: the step's values are want's to 1e-12 and
    seat 0's cells untouched."""
    for t in range(1, steps + 1):
        r0, r1 = rng.random((5, 9)), rng.random((5, 9))
        r0[:, :3] = 0.0
        out = (np.full((5, 9), 7.0), np.full((5, 9), 7.0))
        dec.step(out, (r0, r1), z)
        want = np.full((5, 9), 7.0)
        yield t, r0, r1, want
        assert np.allclose(out[1], want, rtol=0, atol=1e-12)
        assert np.array_equal(out[0], np.full((5, 9), 7.0))


@pytest.mark.parametrize("plain, guess_weight, row_weight",
                         [(0, 1.0, 0.0), (2, 0.3, 0.0), (2, 1.0, 0.4), (2, 0.25, 0.6),
                          (2, 0.0, 0.0)])
def test_the_kernel_steps_every_leaf_as_the_numpy_step_does(plain, guess_weight, row_weight):
    """Three leaves of 4, 1 and 6 rows, 3, 5 and 2 opposing continuations, two own; 60
    steps against changing ranges (one row answering nothing): the values written, every
    regret (the plain decision's too) and average equal to the numpy step's to 1e-12, and
    the other cells of ``out`` untouched; the decision alone, and with the guesses (the
    continuations after the first 2; none at the last leaf) bounded by ``guess_weight`` or
    the values mixed with the rows' own ``max_a min_b`` (``row_weight``). Fails with a
    row's mass or reach taken at another leaf, its best own continuation not its own, or
    the plain decision's regrets at another leaf's."""
    rng = np.random.default_rng(3)
    n_opp, z = 9, 2.0
    valued = _valued(rng, (4, 0, 2), (4, 1, 6), 2, (3, 5, 2), n_opp)
    pubs = np.arange(5)[:, None] * np.ones((5, 3), np.int32)
    dec = LeafDecisions(plain, guess_weight, row_weight)
    named = {pubs[2].tobytes(): np.array([x.row for x in valued if x.leaf == 2][1:])}
    dec.group(1, valued, pubs, named)
    assert len(dec) == 3 and [d.leaf for d in dec.decisions] == [0, 2, 4]
    assert dec.decisions[1].answers.sum() == 5  # the first row at leaf 2 answers nothing
    for d in dec.decisions:  # the values and weights held once: views of the flat arrays
        assert np.shares_memory(d.q, dec._flat.q) and np.shares_memory(d.weights,
                                                                       dec._flat.weights)
        mine = [x for x in valued if x.leaf == d.leaf]
        assert np.array_equal(d.rows, [x.row for x in mine])
        assert np.array_equal(d.q, np.stack([x.values for x in mine]))
        assert np.array_equal(d.weights, np.stack([x.weights for x in mine]))
    regret = [np.zeros(d.q.shape[2]) for d in dec.decisions]
    plains = [np.zeros(min(plain, d.q.shape[2]) if plain else d.q.shape[2])
              for d in dec.decisions]
    avg = [np.zeros(d.q.shape[2]) for d in dec.decisions]
    for t, r0, r1, want in _stepped(rng, dec, z):
        for x, d in enumerate(dec.decisions):
            mass = d.weights @ r0[d.leaf]
            value, sigma = leaf_choice_step(d.q * (mass / z)[:, None, None],
                                            r1[d.leaf, d.rows] * d.answers, regret[x],
                                            guess_weight, plains[x], row_weight)
            want[d.leaf, d.rows] = value
            avg[x] += t * sigma
            if plains[x].size < sigma.size:  # at most guess_weight on the guesses
                assert sigma[plains[x].size:].sum() <= guess_weight + 1e-12
        for x, d in enumerate(dec.decisions):
            assert np.allclose(d.regret, regret[x], rtol=0, atol=1e-12)
            assert np.allclose(d.plain_regret, plains[x], rtol=0, atol=1e-12)
            assert np.allclose(d.avg, avg[x], rtol=0, atol=1e-12)
    assert any((r > 0).sum() >= 2 for r in regret)  # a decision that mixes
    got = dec.average()
    assert [g[1] for g in got] == [0, 2, 4]
    assert all(np.isclose(g[3].sum(), 1.0) for g in got)


def test_no_decisions_step_nothing():
    dec = LeafDecisions()
    dec.group(0, [], np.zeros((2, 3), np.int32), {})
    out = (np.ones((2, 4)), np.ones((2, 4)))
    dec.step(out, (np.ones((2, 4)), np.ones((2, 4))), 1.0)
    assert len(dec) == 0 and dec.average() == [] and out[0].sum() == 8


def test_the_bounds_of_the_options_are_the_plain_decision_and_the_per_row_choice():
    """``guess_weight`` 0 is the decision over the plain continuations alone (the values and
    the plain strategies of a decision made without the guess columns, to 1e-12); 1 with
    ``row_weight`` 1 gives every row its own ``max_a min_b`` over the plain ones (the per-row
    choice, ``choice`` "row"), whatever the decision; a middle weight lies between. Fails
    where the guesses keep mass at weight 0, or the row's value reads a guess column."""
    rng = np.random.default_rng(5)
    n_opp, z = 9, 1.5
    valued = _valued(rng, (0, 1, 3), (3, 5, 2), 2, (6, 4, 7), n_opp)
    plain_only = [x._replace(values=x.values[:, :3]) for x in valued]
    pubs = np.arange(4)[:, None] * np.ones((4, 3), np.int32)
    made = {}
    for key, rows, args in (("w0", valued, (3, 0.0, 0.0)), ("plain", plain_only, ()),
                            ("lam1", valued, (3, 1.0, 1.0)), ("whole", valued, (3, 1.0, 0.0)),
                            ("mid", valued, (3, 1.0, 0.5))):
        dec = LeafDecisions(*args)
        dec.group(0, rows, pubs, {})
        made[key] = (dec, [])
    for _ in range(40):
        r0, r1 = rng.random((4, 9)), rng.random((4, n_opp))
        for dec, outs in made.values():
            out = (np.zeros((4, 9)), np.zeros((4, 9)))
            dec.step(out, (r0, r1), z)
            outs.append(out[0])
        for step_out, plain_out in zip(made["w0"][1], made["plain"][1], strict=True):
            assert np.allclose(step_out, plain_out, rtol=0, atol=1e-12)
        last = made["lam1"][1][-1]
        for d in made["lam1"][0].decisions:
            mass = d.weights @ r1[d.leaf] / z
            want = robust(d.q[:, :, :3]) * mass
            assert np.allclose(last[d.leaf, d.rows], want, rtol=0, atol=1e-12)
        mid, whole = made["mid"][1][-1], made["whole"][1][-1]
        lo, hi = np.minimum(last, whole), np.maximum(last, whole)
        assert (mid >= lo - 1e-12).all() and (mid <= hi + 1e-12).all()
    for a, b in zip(made["w0"][0].average(), made["plain"][0].average(), strict=True):
        assert np.allclose(a[3][3:], 0.0) and np.allclose(a[3][:3], b[3], atol=1e-12)
    assert not np.allclose(made["lam1"][1][-1], made["whole"][1][-1])


def _sampled(rng, leaves, rows, own, opposing, n_opp, draws):
    """As :func:`_valued`, each row also with its values per draw (a, b, m) and the opposing
    state of each draw (m of ``draws`` per row: rows of one leaf unequal), the mean values
    their mean; draws of a leaf's rows mostly the same states (common random numbers)."""
    out = []
    for lf, r, b in zip(leaves, rows, opposing, strict=True):
        pool = rng.choice(n_opp, size=4, replace=False)
        for i in rng.choice(9, size=r, replace=False):
            m = int(rng.choice(draws))
            per = rng.uniform(-1, 1, (own, b, m))
            js = np.where(rng.random(m) < 0.8, rng.choice(pool, m), rng.integers(0, n_opp, m))
            w = rng.random(n_opp) * (rng.random(n_opp) > 0.3)
            out.append(ValuedRow(1, lf, int(i), per.mean(axis=2), w, DrawValues(per, js)))
    return out


def test_the_state_kernel_steps_every_leaf_as_the_numpy_step_does():
    """``choice`` "state" (:class:`StateDecisions`): three leaves of 4, 1 and 6 rows, 3, 5
    and 2 opposing continuations, two own, each row 3 or 5 draws against opposing states
    shared among a leaf's rows; 60 steps against changing ranges (one row answering
    nothing): the values written, every state's regrets and average equal to
    :func:`state_choice_step`'s to 1e-12, the other cells of ``out`` untouched. Fails with
    a draw's state taken at another leaf or another row's, a row's mass or reach another's,
    or the draws' mean taken over another count."""
    rng = np.random.default_rng(4)
    n_opp, z = 9, 2.0
    valued = _sampled(rng, (4, 0, 2), (4, 1, 6), 2, (3, 5, 2), n_opp, (3, 5))
    pubs = np.arange(5)[:, None] * np.ones((5, 3), np.int32)
    dec = StateDecisions()
    named = {pubs[2].tobytes(): np.array([x.row for x in valued if x.leaf == 2][1:])}
    dec.group(1, valued, pubs, named)
    assert len(dec) == 3 and [lf for lf, _, _ in dec.leaves] == [0, 2, 4]
    mine = {lf: [x for x in valued if x.leaf == lf] for lf in (0, 2, 4)}
    states = {lf: np.unique(np.concatenate([x.draws.states for x in got]))
              for lf, got in mine.items()}
    assert all(np.array_equal(s, states[lf]) for lf, _, s in dec.leaves)
    regret = {lf: np.zeros((states[lf].size, mine[lf][0].values.shape[1])) for lf in mine}
    avg = {lf: np.zeros_like(r) for lf, r in regret.items()}
    for t, r0, r1, want in _stepped(rng, dec, z):
        for lf, got in mine.items():
            mass = np.array([x.weights @ r0[lf] for x in got]) / z
            answers = np.array([0.0 if lf == 2 and k == 0 else 1.0 for k in range(len(got))])
            rows = np.array([x.row for x in got])
            value, sigma = state_choice_step(
                [x.draws.values * mass[k] for k, x in enumerate(got)],
                [np.searchsorted(states[lf], x.draws.states) for x in got],
                r1[lf, rows] * answers, regret[lf])
            want[lf, rows] = value
            avg[lf] += t * sigma
        for seat, lf, s, p in dec.by_state():
            assert seat == 1 and np.array_equal(s, states[lf])
            assert np.allclose(p, avg[lf] / avg[lf].sum(axis=1, keepdims=True), atol=1e-12)
        flat = dec._flat
        for d, lf in enumerate((0, 2, 4)):
            x0 = flat.rstart[flat.jstart[d]]
            got_regret = flat.regret[x0:x0 + regret[lf].size].reshape(regret[lf].shape)
            assert np.allclose(got_regret, regret[lf], rtol=0, atol=1e-12)
    assert any(((r > 0).sum(axis=1) >= 2).any() for r in regret.values())  # states that mix
    got = dec.average()
    assert [g[1] for g in got] == [0, 2, 4] and all(np.isclose(g[3].sum(), 1.0) for g in got)


def test_the_state_choice_picks_for_each_opposing_state_where_the_leaf_choice_picks_one():
    """One row at a leaf, one continuation of its own, two opposing continuations, two draws
    against two opposing states: against state 0 the first continuation gives the row +1,
    the second -1; against state 1 the other way round. The per-leaf decision sees the
    draws' mean, 0 whichever it picks, so the row is valued 0; per state each state picks
    the continuation worst for the row against it (state 0 the second, state 1 the first)
    and the row is valued -1: the opponent's choice depends on its cards. Fails where the
    states share a decision (the per-leaf value) or a draw is stepped by the other state."""
    per = np.array([[[1.0, -1.0], [-1.0, 1.0]]])  # (a, b, m): draw 0 against state 0
    js = np.array([5, 8])  # the opposing states drawn
    row = ValuedRow(0, 0, 3, per.mean(axis=2), np.ones(9), DrawValues(per, js))
    pubs = np.zeros((1, 2), np.int32)
    ranges = (np.ones((1, 9)), np.ones((1, 9)))
    by_state, by_leaf = StateDecisions(), LeafDecisions()
    by_state.group(0, [row], pubs, {})
    by_leaf.group(0, [row._replace(draws=None)], pubs, {})
    for _ in range(200):
        out_s, out_l = (np.zeros((1, 9)), np.zeros((1, 9))), (np.zeros((1, 9)), np.zeros((1, 9)))
        by_state.step(out_s, ranges, 9.0)
        by_leaf.step(out_l, ranges, 9.0)
    assert out_s[0][0, 3] == pytest.approx(-1.0, abs=1e-9)
    assert out_l[0][0, 3] == pytest.approx(0.0, abs=1e-12)
    (_, lf, states, p), = by_state.by_state()
    assert lf == 0 and np.array_equal(states, [5, 8])
    assert p[0, 1] > 0.99 and p[1, 0] > 0.99
    # the numpy step agrees: -1, each state its own continuation
    regret = np.zeros((2, 2))
    for _ in range(200):
        value, sigma = state_choice_step([per], [np.array([0, 1])], np.ones(1), regret)
    assert value[0] == pytest.approx(-1.0, abs=1e-9)
    assert sigma[0, 1] == pytest.approx(1.0) and sigma[1, 0] == pytest.approx(1.0)
