"""The plain-Python twin (tests/reference.py) against known numbers and brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from reference import (
    ALGORITHMS,
    ReferenceCFR,
    reference_best_response,
    reference_expected_value,
    reference_nash_conv,
)

# OpenSpiel's CFRSolver / CFRPlusSolver exploitability of the average policy on leduc_poker
# after 10 and 100 iterations (open_spiel/python/algorithms/cfr_test.py and its docs).
OPENSPIEL_CFR = {10: 0.888578983168769, 100: 0.09571635300459762}
OPENSPIEL_CFR_PLUS = {10: 0.6104389015904066, 100: 0.013415994970897835}


def test_known_nash_conv(kuhn, leduc):
    assert reference_nash_conv(kuhn, kuhn.uniform_strategy()) == pytest.approx(11 / 12, abs=1e-12)
    first = np.zeros_like(kuhn.uniform_strategy())
    first[:, 0] = 1.0
    assert reference_nash_conv(kuhn, first) == pytest.approx(2.0, abs=1e-12)
    assert reference_nash_conv(leduc, leduc.uniform_strategy()) == pytest.approx(
        4.7472222, abs=1e-6)


def test_best_response_matches_brute_force(kuhn):
    """BR value = max over all 2^6 pure strategies of the player, for a random profile."""
    rng = np.random.default_rng(7)
    sigma = rng.random((kuhn.num_infosets, 2))
    sigma /= sigma.sum(axis=1, keepdims=True)
    for player in (0, 1):
        mine = kuhn.infosets_of(player)
        sign = 1.0 if player == 0 else -1.0
        best = -np.inf
        for choice in itertools.product((0, 1), repeat=len(mine)):
            s = sigma.copy()
            s[mine] = 0.0
            s[mine, list(choice)] = 1.0
            best = max(best, sign * reference_expected_value(kuhn, s))
        value, actions = reference_best_response(kuhn, sigma, player)
        assert value == pytest.approx(best, abs=1e-12)
        assert np.all(actions[kuhn.infosets_of(1 - player)] == -1)
        s = sigma.copy()
        s[mine] = 0.0
        s[mine, actions[mine]] = 1.0
        assert sign * reference_expected_value(kuhn, s) == pytest.approx(value, abs=1e-12)


def test_first_iteration_by_hand(kuhn):
    """Holding K against a uniform P2: cf values pass 0.75, bet 1.5, reach 1/6 per deal."""
    k = kuhn.infoset_keys.index("2")
    cfr = ReferenceCFR(kuhn, "cfr")
    cfr.iterate(1)
    assert cfr.regrets[k] == pytest.approx([-0.125, 0.125], abs=1e-15)
    assert cfr.current_strategy()[k] == pytest.approx([0.0, 1.0])
    assert cfr.average_strategy()[k] == pytest.approx([0.5, 0.5])
    dcfr = ReferenceCFR(kuhn, "dcfr")  # t=1: both signs discounted by 1/2 (alpha 1.5, beta 0)
    dcfr.iterate(1)
    assert dcfr.regrets[k] == pytest.approx([-0.0625, 0.0625], abs=1e-15)


def test_vanilla_cfr_matches_openspiel(leduc):
    cfr = ReferenceCFR(leduc, "cfr")
    cfr.iterate(10)
    assert reference_nash_conv(leduc, cfr.average_strategy()) / 2 == pytest.approx(
        OPENSPIEL_CFR[10], abs=1e-9)
    cfr.iterate(90)
    assert reference_nash_conv(leduc, cfr.average_strategy()) / 2 == pytest.approx(
        OPENSPIEL_CFR[100], abs=1e-9)


def test_cfr_plus_matches_openspiel(leduc):
    cfr = ReferenceCFR(leduc, "cfr+")
    cfr.iterate(10)
    assert reference_nash_conv(leduc, cfr.average_strategy()) / 2 == pytest.approx(
        OPENSPIEL_CFR_PLUS[10], abs=1e-9)
    cfr.iterate(90)
    assert reference_nash_conv(leduc, cfr.average_strategy()) / 2 == pytest.approx(
        OPENSPIEL_CFR_PLUS[100], abs=1e-9)
    assert np.all(cfr.regrets >= 0.0)


def test_cfr_plus_kuhn_value(kuhn):
    cfr = ReferenceCFR(kuhn, "cfr+")
    cfr.iterate(1000)
    assert reference_expected_value(kuhn, cfr.average_strategy()) == pytest.approx(
        -1 / 18, abs=1e-3)


def test_lcfr_is_dcfr_111(kuhn):
    a = ReferenceCFR(kuhn, "lcfr")
    b = ReferenceCFR(kuhn, "dcfr", alpha=1.0, beta=1.0, gamma=1.0)
    a.iterate(25)
    b.iterate(25)
    assert np.array_equal(a.regrets, b.regrets)
    assert np.array_equal(a.average_strategy(), b.average_strategy())


def test_alternating_vs_simultaneous(kuhn):
    """P1's first pass is the same in both modes; P2 then sees P1's updated strategy."""
    alt = ReferenceCFR(kuhn, "cfr", alternating=True)
    sim = ReferenceCFR(kuhn, "cfr", alternating=False)
    alt.iterate(1)
    sim.iterate(1)
    p1, p2 = kuhn.infosets_of(0), kuhn.infosets_of(1)
    assert np.array_equal(alt.regrets[p1], sim.regrets[p1])
    assert not np.allclose(alt.regrets[p2], sim.regrets[p2])


@pytest.mark.parametrize("alternating", [True, False])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_converges_on_kuhn(kuhn, algorithm, alternating):
    solver = ReferenceCFR(kuhn, algorithm, alternating=alternating)
    solver.iterate(20)
    early = reference_nash_conv(kuhn, solver.average_strategy())
    solver.iterate(480)
    late = reference_nash_conv(kuhn, solver.average_strategy())
    assert late < 0.03 and late < early / 3  # simultaneous updates are the slower ones
    current = solver.current_strategy()
    assert np.allclose(current.sum(axis=1), 1.0)
    assert reference_expected_value(kuhn, solver.average_strategy()) == pytest.approx(
        -1 / 18, abs=0.03)
