"""Exact best response, expected value, NashConv and counterfactual values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from reference import (
    reference_best_response,
    reference_expected_value,
    reference_nash_conv,
)
from spycfr.exact.best_response import (
    best_response,
    counterfactual_values,
    expected_value,
    exploitability,
    nash_conv,
)
from spycfr.tree import CHANCE, TERMINAL, Tree

T, C = TERMINAL, CHANCE


def make_tree(first_child, num_children, player, infoset, utility, chance_prob, n_infosets):
    """A Tree from hand-written node lists (infoset players and sizes read off the nodes)."""
    player = np.asarray(player, dtype=np.int8)
    infoset = np.asarray(infoset, dtype=np.int32)
    num_children = np.asarray(num_children, dtype=np.int16)
    ip = np.zeros(n_infosets, dtype=np.int8)
    na = np.zeros(n_infosets, dtype=np.int16)
    inode = np.full(n_infosets, -1, dtype=np.int64)
    for n in range(len(player)):
        if player[n] in (0, 1):
            j = infoset[n]
            ip[j], na[j] = player[n], num_children[n]
            if inode[j] < 0:
                inode[j] = n
    return Tree(
        game="hand", variant={}, first_child=np.asarray(first_child, dtype=np.int64),
        num_children=num_children, node_player=player, node_infoset=infoset,
        node_action=np.full(len(player), -1, dtype=np.int32),
        utility=np.asarray(utility, dtype=np.float64),
        chance_prob=np.asarray(chance_prob, dtype=np.float64), infoset_player=ip,
        infoset_num_actions=na, infoset_node=inode,
    )


def matching_pennies() -> Tree:
    """P1 picks H/T, P2 picks without seeing it; P1 wins 1 on a match, loses 1 otherwise."""
    return make_tree(
        first_child=[1, 3, 5, 0, 0, 0, 0], num_children=[2, 2, 2, 0, 0, 0, 0],
        player=[0, 1, 1, T, T, T, T], infoset=[0, 1, 1, -1, -1, -1, -1],
        utility=[0, 0, 0, 1, -1, -1, 1], chance_prob=[], n_infosets=2,
    )


def chance_game() -> Tree:
    """Chance deals low (1/4) or high (3/4) to P1, who folds (-1) or plays; P2, blind to the
    card, folds (+1 to P1) or calls (P1 gets -2 with low, +2 with high)."""
    return make_tree(
        first_child=[1, 3, 5, 0, 7, 0, 9, 0, 0, 0, 0],
        num_children=[2, 2, 2, 0, 2, 0, 2, 0, 0, 0, 0],
        player=[C, 0, 0, T, 1, T, 1, T, T, T, T],
        infoset=[0, 0, 1, -1, 2, -1, 2, -1, -1, -1, -1],
        utility=[0, 0, 0, -1, 0, -1, 0, 1, -2, 1, 2],
        chance_prob=[0.25, 0.75], n_infosets=3,
    )


def _profile(a: float, b: float, c: float) -> np.ndarray:
    return np.array([[a, 1 - a], [b, 1 - b], [c, 1 - c]])


def test_matching_pennies():
    tree = matching_pennies()
    uniform = tree.uniform_strategy()
    assert expected_value(tree, uniform) == 0.0
    assert nash_conv(tree, uniform) == 0.0
    heads = np.array([[1.0, 0.0], [1.0, 0.0]])
    # Each player gains 1 by deviating: P1 keeps H (matches), P2 switches to T.
    v0, b0 = best_response(tree, heads, 0)
    v1, b1 = best_response(tree, heads, 1)
    assert (v0, v1) == (1.0, 1.0)
    assert b0.tolist() == [0, -1] and b1.tolist() == [-1, 1]
    assert nash_conv(tree, heads) == 2.0
    assert exploitability(tree, heads) == 1.0


@pytest.mark.parametrize("a,b,c", [(0.3, 0.2, 0.6), (0.9, 0.1, 0.2), (0.0, 1.0, 0.5)])
def test_chance_game_by_hand(a, b, c):
    tree = chance_game()
    s = _profile(a, b, c)
    play_low = c * 1 + (1 - c) * -2
    play_high = c * 1 + (1 - c) * 2
    ev = 0.25 * (-a + (1 - a) * play_low) + 0.75 * (-b + (1 - b) * play_high)
    assert expected_value(tree, s) == pytest.approx(ev, abs=1e-15)

    v0, b0 = best_response(tree, s, 0)
    assert v0 == pytest.approx(0.25 * max(-1, play_low) + 0.75 * max(-1, play_high), abs=1e-15)
    assert b0.tolist() == [int(play_low > -1), int(play_high > -1), -1]

    lo, hi = 0.25 * (1 - a), 0.75 * (1 - b)
    q_fold, q_call = -(lo + hi), -(-2 * lo + 2 * hi)  # P2's payoff
    v1, b1 = best_response(tree, s, 1)
    assert v1 == pytest.approx(0.25 * a + 0.75 * b + max(q_fold, q_call), abs=1e-15)
    assert b1.tolist() == [-1, -1, int(q_call > q_fold)]
    assert nash_conv(tree, s) == pytest.approx(v0 + v1, abs=1e-15)

    cfv, reach = counterfactual_values(tree, s)
    assert cfv[0] == pytest.approx([-0.25, 0.25 * play_low], abs=1e-15)
    assert cfv[1] == pytest.approx([-0.75, 0.75 * play_high], abs=1e-15)
    assert cfv[2] == pytest.approx([q_fold, q_call], abs=1e-15)
    assert reach == pytest.approx([0.25, 0.75, lo + hi], abs=1e-15)


def test_kuhn_known_nash_convs(kuhn):
    assert nash_conv(kuhn, kuhn.uniform_strategy()) == pytest.approx(11 / 12, abs=1e-12)
    first = np.zeros((kuhn.num_infosets, kuhn.max_actions))
    first[:, 0] = 1.0
    assert nash_conv(kuhn, first) == pytest.approx(2.0, abs=1e-12)


def test_leduc_uniform_nash_conv(leduc):
    assert nash_conv(leduc, leduc.uniform_strategy()) == pytest.approx(4.7472222222, abs=1e-9)


def _random_profile(tree: Tree, rng: np.random.Generator) -> np.ndarray:
    s = rng.random((tree.num_infosets, tree.max_actions)) + 1e-3
    for j, k in enumerate(tree.infoset_num_actions):
        s[j, k:] = 0.0
    return s / s.sum(axis=1, keepdims=True)


def test_kuhn_best_response_is_the_best_pure_strategy(kuhn):
    """Brute force over all 2^6 pure strategies of each player (an independent check)."""
    rng = np.random.default_rng(7)
    for s in (kuhn.uniform_strategy(), _random_profile(kuhn, rng), _random_profile(kuhn, rng)):
        for p in (0, 1):
            mine = kuhn.infosets_of(p)
            best = -np.inf
            for choice in itertools.product(range(2), repeat=len(mine)):
                pure = s.copy()
                pure[mine] = 0.0
                pure[mine, list(choice)] = 1.0
                best = max(best, (1 if p == 0 else -1) * expected_value(kuhn, pure))
            value, actions = best_response(kuhn, s, p)
            assert value == pytest.approx(best, abs=1e-14)
            pure = s.copy()
            pure[mine] = 0.0
            pure[mine, actions[mine]] = 1.0
            assert (1 if p == 0 else -1) * expected_value(kuhn, pure) == pytest.approx(
                value, abs=1e-14
            )
            assert np.all(actions[kuhn.infosets_of(1 - p)] == -1)


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_matches_reference_best_response(game, kuhn, leduc):
    tree = kuhn if game == "kuhn" else leduc
    rng = np.random.default_rng(3)
    profiles = [tree.uniform_strategy(), _random_profile(tree, rng), _random_profile(tree, rng)]
    for i, s in enumerate(profiles):
        assert expected_value(tree, s) == pytest.approx(
            reference_expected_value(tree, s), abs=1e-12
        )
        for p in (0, 1):
            value, actions = best_response(tree, s, p)
            ref_value, ref_actions = reference_best_response(tree, s, p)
            assert value == pytest.approx(ref_value, abs=1e-12)
            if i > 0:  # random profiles have no exact ties, so the argmax is unambiguous
                assert np.array_equal(actions, ref_actions)
        assert nash_conv(tree, s) == pytest.approx(reference_nash_conv(tree, s), abs=1e-12)


def test_counterfactual_values_consistent(leduc):
    """cfv and infoset reach equal a separate node-by-node computation with explicit reaches."""
    rng = np.random.default_rng(11)
    s = _random_profile(leduc, rng)
    cfv, reach = counterfactual_values(leduc, s)
    # Independent walk: cfv[I, a] and reach[I] summed node by node with explicit reaches.
    fc, nc, pl, inf = leduc.first_child, leduc.num_children, leduc.node_player, leduc.node_infoset
    values = np.zeros(leduc.num_nodes)
    for n in range(leduc.num_nodes - 1, -1, -1):
        if nc[n] == 0:
            values[n] = leduc.utility[n]
        else:
            kids = values[fc[n]: fc[n] + nc[n]]
            probs = (leduc.chance_prob[inf[n]: inf[n] + nc[n]] if pl[n] == CHANCE
                     else s[inf[n], : nc[n]])
            values[n] = float(np.dot(probs, kids))
    r = np.ones((leduc.num_nodes, 3))
    exp_cfv = np.zeros_like(cfv)
    exp_reach = np.zeros_like(reach)
    for n in range(leduc.num_nodes):
        if nc[n] == 0:
            continue
        kids = range(fc[n], fc[n] + nc[n])
        for a, c in enumerate(kids):
            r[c] = r[n]
            q = 2 if pl[n] == CHANCE else pl[n]
            r[c, q] *= leduc.chance_prob[inf[n] + a] if pl[n] == CHANCE else s[inf[n], a]
        if pl[n] in (0, 1):
            p = pl[n]
            sign = 1 if p == 0 else -1
            exp_cfv[inf[n], : nc[n]] += r[n, 1 - p] * r[n, 2] * sign * values[list(kids)]
            exp_reach[inf[n]] += r[n].prod()
    assert np.allclose(cfv, exp_cfv, atol=1e-13)
    assert np.allclose(reach, exp_reach, atol=1e-13)


def test_bad_strategy_shape_is_refused(kuhn):
    with pytest.raises(ValueError, match="does not fit"):
        expected_value(kuhn, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="player"):
        best_response(kuhn, kuhn.uniform_strategy(), 2)
