"""The opponent's decision at each leaf (spycfr.search.leafchoice): the numba step over every
leaf's flat arrays gives what the numpy step of each leaf gives."""

from __future__ import annotations

import numpy as np

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


def test_the_kernel_steps_every_leaf_as_the_numpy_step_does():
    """Three leaves of 4, 1 and 6 rows, 3, 5 and 2 opposing continuations, two own; 60
    steps against changing ranges (one row answering nothing): the values written, every
    regret and average equal to the numpy step's to 1e-12, and the other cells of ``out``
    untouched. Fails with a row's mass or reach taken at another leaf, or its best own
    continuation not its own."""
    rng = np.random.default_rng(3)
    n_opp, z = 9, 2.0
    valued = _valued(rng, (4, 0, 2), (4, 1, 6), 2, (3, 5, 2), n_opp)
    pubs = np.arange(5)[:, None] * np.ones((5, 3), np.int32)
    dec = LeafDecisions()
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
                                            r1[d.leaf, d.rows] * d.answers, regret[x])
            want[d.leaf, d.rows] = value
            avg[x] += t * sigma
        assert np.allclose(out[1], want, rtol=0, atol=1e-12)
        assert np.array_equal(out[0], np.full((5, 9), 7.0))
        for x, d in enumerate(dec.decisions):
            assert np.allclose(d.regret, regret[x], rtol=0, atol=1e-12)
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
