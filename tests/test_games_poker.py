"""Kuhn and Leduc poker: rules, tree sizes and the generic builder's invariants."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import labelled_tree
from spycfr.errors import SpycfrError, VariantError
from spycfr.games import build_tree, make_game
from spycfr.games.kuhn import BET, PASS
from spycfr.games.leduc import CALL, FOLD, RAISE
from spycfr.tree import CHANCE, TERMINAL

# Sizes of OpenSpiel's kuhn_poker / leduc_poker (2 players, default options), counted by a
# full traversal with pyspiel (open_spiel 1.x): nodes, terminals, chance nodes, infosets.
# 12 and 936 infosets are also the figures quoted in OpenSpiel's docs and the CFR literature.
OPENSPIEL_SIZES = {
    "kuhn": (58, 30, 4, 12),
    "leduc": (9457, 5520, 157, 936),
}


@pytest.fixture(scope="module", params=["kuhn", "leduc"])
def tree(request):
    return labelled_tree(request.param)


def play(game_name: str, actions: list[int]):
    state = make_game(game_name).new_initial_state()
    for a in actions:
        state = state.child(a)
    return state


def test_sizes_match_openspiel(tree):
    nodes, terminals, chance, infosets = OPENSPIEL_SIZES[tree.game]
    s = tree.summary()
    assert (s["nodes"], s["terminal_nodes"], s["chance_nodes"], s["infosets"]) == (
        nodes, terminals, chance, infosets)
    assert s["infosets_p1"] == s["infosets_p2"] == infosets // 2


def _preorder(tree) -> list[int]:
    out, stack = [], [0]
    while stack:
        v = stack.pop()
        out.append(v)
        s, k = int(tree.first_child[v]), int(tree.num_children[v])
        stack.extend(range(s + k - 1, s - 1, -1))
    return out


def test_tree_invariants(tree):
    n = tree.num_nodes
    fc, nc, pl = tree.first_child, tree.num_children, tree.node_player
    seen_child = np.zeros(n, dtype=int)
    for v in range(n):
        if pl[v] == TERMINAL:
            assert nc[v] == 0 and tree.node_infoset[v] == -1
            continue
        assert nc[v] > 0 and fc[v] > v
        seen_child[fc[v]: fc[v] + nc[v]] += 1
        if pl[v] == CHANCE:
            probs = tree.chance_prob[tree.node_infoset[v]: tree.node_infoset[v] + nc[v]]
            assert probs.sum() == pytest.approx(1.0, abs=1e-12)
            assert np.all(probs > 0)
        else:
            i = tree.node_infoset[v]
            assert tree.infoset_player[i] == pl[v]
            assert tree.infoset_num_actions[i] == nc[v]
    assert seen_child[0] == 0 and np.all(seen_child[1:] == 1)  # a tree, root 0
    assert np.all(tree.utility[pl != TERMINAL] == 0)
    # Infosets are numbered in order of first discovery (depth first: the enumerator expands
    # the subtree of child 0 first), each at the node where it was discovered.
    assert np.all(tree.node_infoset[tree.infoset_node] == np.arange(tree.num_infosets))
    order = _preorder(tree)
    first_seen = [int(tree.node_infoset[v]) for v in order if pl[v] in (0, 1)]
    assert list(dict.fromkeys(first_seen)) == list(range(tree.num_infosets))
    assert len(tree.infoset_keys) == len(set(tree.infoset_keys)) == tree.num_infosets
    assert [len(lab) for lab in tree.action_labels] == tree.infoset_num_actions.tolist()
    assert tree.node_action[0] == -1


def test_kuhn_rules():
    # Cards J=0, Q=1, K=2; P1 gets the first dealt card.
    assert play("kuhn", [2, 0, BET, BET]).returns() == (2.0, -2.0)
    assert play("kuhn", [0, 2, PASS, PASS]).returns() == (-1.0, 1.0)
    assert play("kuhn", [0, 2, BET, PASS]).returns() == (1.0, -1.0)  # P2 folds
    assert play("kuhn", [2, 1, PASS, BET, PASS]).returns() == (-1.0, 1.0)  # P1 folds
    assert play("kuhn", [1, 2, PASS, BET, BET]).returns() == (-2.0, 2.0)
    root = make_game("kuhn").new_initial_state()
    assert root.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    assert root.child(1).chance_outcomes() == [(0, 0.5), (2, 0.5)]
    s = play("kuhn", [1, 2, PASS, BET])
    assert s.current_player() == 0 and s.legal_actions() == [PASS, BET]
    # OpenSpiel's information-state strings: own card, then the betting.
    assert s.information_state(0) == "1pb" and s.information_state(1) == "2pb"
    assert [s.action_label(a) for a in s.legal_actions()] == ["pass", "bet"]
    assert root.action_label(2) == "K"


def test_leduc_betting_rules():
    s = play("leduc", [0, 4])
    assert s.current_player() == 0
    assert s.legal_actions() == [CALL, RAISE]  # no fold when not facing a bet
    s = s.child(RAISE)
    assert s.current_player() == 1 and s.legal_actions() == [FOLD, CALL, RAISE]
    s = s.child(RAISE)
    assert s.legal_actions() == [FOLD, CALL]  # at most two raises per round
    assert [s.action_label(a) for a in s.legal_actions()] == ["fold", "call"]
    s = s.child(CALL)
    assert s.current_player() == 2  # public card
    assert [c for c, _ in s.chance_outcomes()] == [1, 2, 3, 5]
    assert all(p == pytest.approx(0.25) for _, p in s.chance_outcomes())
    assert s.action_label(5) == "K2"
    s = s.child(2)
    assert s.current_player() == 0  # P1 opens round 2
    assert s.information_state(0) == (
        "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: 10][Money: 95 95]"
        "[Public: 2][Round1: 2 2 1][Round2: ]"
    )


def test_leduc_payoffs():
    # P1 K1(4) vs P2 J1(0), public Q1(2): raise/call, then raise/re-raise/call: 1+2+4+4 = 11.
    assert play("leduc", [4, 0, RAISE, CALL, 2, RAISE, RAISE, CALL]).returns() == (11.0, -11.0)
    # Largest pot: two raises in each round, 1 + 2*2 + 2*4 = 13 per player.
    line = [4, 0, RAISE, RAISE, CALL, 2, RAISE, RAISE, CALL]
    assert play("leduc", line).returns() == (13.0, -13.0)
    # A pair beats a higher card: P1 J1 pairs the public J2 against P2's K1.
    assert play("leduc", [0, 4, CALL, CALL, 1, CALL, CALL]).returns() == (1.0, -1.0)
    # Equal ranks split the pot.
    assert play("leduc", [2, 3, RAISE, CALL, 4, CALL, CALL]).returns() == (0.0, 0.0)
    # Fold in round 2 after P1 raises: P2 loses its ante plus its round-1 call.
    assert play("leduc", [2, 0, CALL, RAISE, CALL, 4, RAISE, FOLD]).returns() == (3.0, -3.0)
    # Fold in round 1: the folder loses the ante only.
    assert play("leduc", [2, 0, RAISE, FOLD]).returns() == (1.0, -1.0)


def test_utility_ranges(tree):
    term = tree.utility[tree.node_player == TERMINAL]
    expected = {"kuhn": {-2, -1, 1, 2}, "leduc": None}[tree.game]
    if expected is not None:
        assert set(term.tolist()) == expected
    else:
        assert term.max() == 13 and term.min() == -13 and np.any(term == 0)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_no_parameters(name):
    assert make_game(name, "default", {}).variant == {}
    assert make_game(name, None, {}).name == name
    with pytest.raises(VariantError, match="no parameters"):
        make_game(name, None, {"cards": 3})
    with pytest.raises(VariantError, match="no parameters"):
        make_game(name, "big", {})


def test_numba_and_reference_builders():
    """The numba enumerator and the plain-Python reference builder give the same tree sizes;
    only a registered game can be enumerated, any State-protocol game can be referenced."""
    from spycfr.games import build_reference_tree

    fast, ref = build_tree(make_game("kuhn")), build_reference_tree(make_game("kuhn"))
    assert (fast.num_nodes, fast.num_infosets) == (ref.num_nodes, ref.num_infosets) == (58, 12)

    class Other:
        name = "other"
        variant: dict = {}

        def new_initial_state(self):
            return make_game("kuhn").new_initial_state()

    with pytest.raises(SpycfrError, match="unknown game"):
        build_tree(Other())
    assert build_reference_tree(Other()).game == "other"


class _ForgetfulState:
    """P1 moves twice but its second infoset key forgets the first move (imperfect recall)."""

    def __init__(self, hist=()):
        self.hist = hist

    def is_terminal(self):
        return len(self.hist) == 2

    def current_player(self):
        return -1 if self.is_terminal() else 0

    def legal_actions(self):
        return [0, 1]

    def chance_outcomes(self):
        return []

    def child(self, a):
        return _ForgetfulState(self.hist + (a,))

    def returns(self):
        return (float(sum(self.hist)), -float(sum(self.hist)))

    def information_state(self, player):
        return str(len(self.hist))

    def action_label(self, a):
        return str(a)


def test_generic_builder_rejects_imperfect_recall():
    class Forgetful:
        name = "forgetful"
        variant: dict = {}

        def new_initial_state(self):
            return _ForgetfulState()

    from spycfr.games import build_reference_tree

    with pytest.raises(SpycfrError, match="perfect recall"):
        build_reference_tree(Forgetful())
