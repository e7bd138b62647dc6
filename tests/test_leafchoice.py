"""The opponent's decision at each leaf (spycfr.search.leafchoice): the numba step over every
leaf's flat arrays gives what the numpy step of each leaf gives."""

from __future__ import annotations

import numpy as np
import pytest

from spycfr.search.continuation import _robust
from spycfr.search.leafchoice import LeafDecisions, leaf_choice_step


def _valued(rng, leaves, rows, own, opposing, n_opp):
    """Rows valued at a few leaves: (seat, leaf, row, values (a, b), opposing weights), the
    number of opposing continuations different at each leaf (guesses), some rows of two
    leaves the same private state."""
    out = []
    for lf, r, b in zip(leaves, rows, opposing, strict=True):
        for i in rng.choice(9, size=r, replace=False):
            w = rng.random(n_opp) * (rng.random(n_opp) > 0.3)
            out.append((1, lf, int(i), rng.uniform(-1, 1, (own, b)), w))
    return out


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
    named = {pubs[2].tobytes(): np.array([i for _, lf, i, _, _ in valued if lf == 2][1:])}
    dec.group(1, valued, pubs, named)
    assert len(dec) == 3 and [d.leaf for d in dec.decisions] == [0, 2, 4]
    assert dec.decisions[1].answers.sum() == 5  # the first row at leaf 2 answers nothing
    for d in dec.decisions:  # the values and weights held once: views of the flat arrays
        assert np.shares_memory(d.q, dec._flat[5]) and np.shares_memory(d.weights, dec._flat[6])
        mine = [(i, m, w) for _, lf, i, m, w in valued if lf == d.leaf]
        assert np.array_equal(d.rows, [i for i, _, _ in mine])
        assert np.array_equal(d.q, np.stack([m for _, m, _ in mine]))
        assert np.array_equal(d.weights, np.stack([w for _, _, w in mine]))
    regret = [np.zeros(d.q.shape[2]) for d in dec.decisions]
    plains = [np.zeros(min(plain, d.q.shape[2]) if plain else d.q.shape[2])
              for d in dec.decisions]
    avg = [np.zeros(d.q.shape[2]) for d in dec.decisions]
    for t in range(1, 61):
        r0, r1 = rng.random((5, 9)), rng.random((5, 9))
        r0[:, :3] = 0.0
        out = (np.full((5, 9), 7.0), np.full((5, 9), 7.0))
        dec.step(out, (r0, r1), z)
        want = np.full((5, 9), 7.0)
        for x, d in enumerate(dec.decisions):
            mass = d.weights @ r0[d.leaf]
            value, sigma = leaf_choice_step(d.q * (mass / z)[:, None, None],
                                            r1[d.leaf, d.rows] * d.answers, regret[x],
                                            guess_weight, plains[x], row_weight)
            want[d.leaf, d.rows] = value
            avg[x] += t * sigma
            if plains[x].size < sigma.size:  # at most guess_weight on the guesses
                assert sigma[plains[x].size:].sum() <= guess_weight + 1e-12
        assert np.allclose(out[1], want, rtol=0, atol=1e-12)
        assert np.array_equal(out[0], np.full((5, 9), 7.0))
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
    plain_only = [(s, lf, i, m[:, :3], w) for s, lf, i, m, w in valued]
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
            want = _robust(d.q[:, :, :3]) * mass
            assert np.allclose(last[d.leaf, d.rows], want, rtol=0, atol=1e-12)
        mid, whole = made["mid"][1][-1], made["whole"][1][-1]
        lo, hi = np.minimum(last, whole), np.maximum(last, whole)
        assert (mid >= lo - 1e-12).all() and (mid <= hi + 1e-12).all()
    for a, b in zip(made["w0"][0].average(), made["plain"][0].average(), strict=True):
        assert np.allclose(a[3][3:], 0.0) and np.allclose(a[3][:3], b[3], atol=1e-12)
    assert not np.allclose(made["lam1"][1][-1], made["whole"][1][-1])
