"""Agent Hunter's public-state model (games/agent_hunter/public.py) against its history rules:
private-state numbering, signals and label pruning on hand-built positions, the O(n)
terminal evaluation, and whole-game values and best responses of profiles mapped between
the two trees (the plain-Python twin of the public engine against the exact history BR)."""

from __future__ import annotations

import numpy as np
import pytest

from public_reference import uniform, values
from spycfr.exact.best_response import expected_value, nash_conv
from spycfr.games import build_tree
from spycfr.games.agent_hunter import AgentHunterGame, make_variant
from spycfr.games.agent_hunter import public as P
from spycfr.games.agent_hunter import rules as R
from spycfr.public import protocol as pp
from spycfr.search.tree import GameModel, build

VARIANTS = [
    {"cards": 3, "houses": 1, "decoys": 1, "max_turns": 3, "payoff": "margin"},
    pytest.param({"cards": 3, "houses": 2, "decoys": 1, "max_turns": 2},  # tiny
                 marks=pytest.mark.slow),
    pytest.param({"cards": 3, "houses": 2, "decoys": 1, "max_turns": 2,
                  "decoy_rule": "switched", "payoff": "margin"}, marks=pytest.mark.slow),
]


def _params(**kw):
    return make_variant(None, kw).to_params()


def test_private_states_number_the_placements_in_rules_order():
    for n, k in ((3, 1), (4, 2), (5, 3)):
        params = _params(cards=n, houses=k, decoys=0, max_turns=1)
        state = R.initial_state(params)
        buf = np.empty(R.protocol_max_actions(params), np.int32)
        m = R.legal_actions(state, params, buf)
        assert P.num_private(params, 0) == m + 1  # + NOTHING
        t = np.zeros(3, np.int64)
        for i, act in enumerate(buf[:m]):
            cards = R.decode_action(int(act), n, k)[1]
            P.unrank(params, i, t)
            assert tuple(t[:k]) == cards
            assert P.rank(params, t) == i
        w = np.zeros(m + 1)
        P.initial_weights(params, 1, w)
        assert w[m] == 1.0 and w.sum() == 1.0


def _after(params, record):
    """The rules state and the public state after full-record actions (codes)."""
    s = R.initial_state(params)
    out = np.empty_like(s)
    for act in record:
        R.apply_action(s, params, np.int32(act), out)
        s = out.copy()
    pub = np.empty(P.PUB_SIZE, np.int32)
    P.public_of_history(s, params, pub)
    return s, pub


def test_signals_follow_what_answers_revealed():
    """N=3, K=2. P2 holds 2 in house 0: P1's hand:1>0 is answered lo, after which 1 at
    house 0 can only be answered lo again, and 0 and 1 are no longer P2's house-0 cards."""
    params = _params(cards=3, houses=2, decoys=1, max_turns=4)
    place1 = R.encode_place([0, 1], 3)
    place2 = R.encode_place([2, 0], 3)
    s, pub = _after(params, [place1, place2])
    labels = np.empty(P.max_actions(params), np.int32)
    n = P.legal_actions(pub, params, labels)
    assert (R.T_HAND << 12) | (2 << 2) | 0 in labels[:n]  # P1 may hold 2 in hand
    # The signal after hand:1>0: every answer is still possible.
    sig = np.empty_like(pub)
    P.apply_action(pub, params, R.encode_hand(1, 0), sig)
    assert P.current_player(sig, params) == pp.CHANCE
    codes = np.empty(8, np.int32)
    probs = np.empty(8)
    assert list(codes[:P.chance_outcomes(sig, params, codes, probs)]) == [0, 1, 2]
    mask = np.empty(P.num_private(params, 1))
    P.chance_mask(sig, params, R.ANS_LO, 1, mask)
    t = np.zeros(3, np.int64)
    for i in range(mask.size - 1):
        P.unrank(params, i, t)
        assert mask[i] == (1.0 if t[0] == 2 else 0.0)
    P.chance_mask(sig, params, R.ANS_LO, 0, mask)
    assert (mask == 1.0).all()
    # The public tree's child after "lo" is the history's public state after the attack.
    s2, pub2 = _after(params, [place1, place2, R.encode_hand(1, 0)])
    child = np.empty_like(pub)
    P.apply_action(sig, params, R.ANS_LO, child)
    assert (child == pub2).all()
    # P2 may show only 2 from its house 0 (a switch or a house attack).
    n = P.legal_actions(pub2, params, labels)
    shown = {(int(c) >> 4) & 15 for c in labels[:n]
             if int(c) >> 12 == R.T_HOUSE and (int(c) >> 2) & 3 == 0}
    switched = {(int(c) >> 2) & 15 for c in labels[:n]
                if int(c) >> 12 == R.T_SWITCH and (int(c) >> 6) & 3 == 0}
    assert shown == switched == {2}
    # P2 moves; then P1 again: hand:1>0 can only be answered lo now.
    s3, pub3 = _after(params, [place1, place2, R.encode_hand(1, 0), R.encode_hand(1, 1)])
    P.apply_action(pub3, params, R.encode_hand(1, 0), sig)
    assert list(codes[:P.chance_outcomes(sig, params, codes, probs)]) == [R.ANS_LO]


def test_house_attack_miss_reveals_the_source_and_refill_is_private():
    """P1's house 0 (card 1) hits P2's house 0 (card 2): a miss, answered lo; P2's 1 is in
    its house 1, so the source is house 1 and P2 refills it: a private transition."""
    params = _params(cards=4, houses=2, decoys=1, max_turns=4)
    place1 = R.encode_place([1, 0], 4)
    place2 = R.encode_place([2, 1], 4)
    s, pub = _after(params, [place1, place2])
    label = (R.T_HOUSE << 12) | (1 << 4) | (0 << 2) | 0
    sig = np.empty_like(pub)
    P.apply_action(pub, params, label, sig)
    codes = np.empty(16, np.int32)
    probs = np.empty(16)
    k = P.chance_outcomes(sig, params, codes, probs)
    outcome = R.ANS_LO * 8 + R.SRC_HOUSE0 + 1
    assert outcome in codes[:k]
    i2 = P.private_of_history(s, params, 1)
    mask = np.empty(P.num_private(params, 1))
    for c in codes[:k]:
        P.chance_mask(sig, params, int(c), 1, mask)
        assert mask[i2] == (1.0 if c == outcome else 0.0)
    s2, pub2 = _after(params, [place1, place2, R.encode_house(0, 0)])
    child = np.empty_like(pub)
    P.apply_action(sig, params, outcome, child)
    assert (child == pub2).all() and P.current_player(child, params) == 1
    # P2's refill of house 1: one public label, one action per card in hand (0 and 3).
    n_labels = P.legal_actions(child, params, np.empty(P.max_actions(params), np.int32))
    kids = np.empty(P.max_private_actions(params), np.int64)
    nexts = np.empty_like(kids)
    m = P.private_actions(child, params, i2, n_labels, kids, nexts)
    t = np.zeros(3, np.int64)
    got = []
    for e in range(m):
        P.unrank(params, int(nexts[e]), t)
        got.append((int(kids[e]), tuple(t[:2])))
    assert n_labels == 1 and got == [(0, (2, 0)), (0, (2, 3))]
    # The history agrees: after the refill with 3, P2's private state is (2, 3).
    s3, _ = _after(params, [place1, place2, R.encode_house(0, 0), R.encode_refill(3)])
    P.unrank(params, P.private_of_history(s3, params, 1), t)
    assert tuple(t[:2]) == (2, 3)


def test_moves_never_place_one_card_twice():
    """On tiny's whole public tree, every private state's switch or refill leads to a
    placement of distinct cards that differs from it in one house at most; a placement
    whose other house already holds the card is not reached there and keeps its placeholder
    (before, ``rank`` of the doubled card gave another placement's index, NOTHING's, or one
    past the last: Agent Hunter standard's indices >= 721)."""
    params = _params(cards=3, houses=2, decoys=1, max_turns=2)
    tree = build(GameModel.of(params))
    n_p = P.num_placements(params)
    t, u = np.zeros(3, np.int64), np.zeros(3, np.int64)
    moved = 0
    for q in range(tree.row_next.shape[0]):
        for i in range(n_p):
            P.unrank(params, i, t)
            for j in tree.row_next[q, i, :tree.row_count[q, i]]:
                if j == i:
                    continue
                assert 0 <= j < n_p
                P.unrank(params, int(j), u)
                assert u[0] != u[1] and (t[:2] != u[:2]).sum() == 1
                moved += 1
    assert moved > 0


@pytest.mark.parametrize("payoff", ["win", "margin"])
def test_terminal_values_bucketed_by_house_sum_equal_every_pair(payoff):
    """At terminals of a random playout set, the O(n) hook equals the O(n^2) sum."""
    params = _params(cards=5, houses=2, decoys=1, max_turns=3, payoff=payoff)
    rng = np.random.default_rng(7)
    n = P.num_private(params, 0)
    buf = np.empty(R.protocol_max_actions(params), np.int32)
    seen = 0
    for _ in range(60):
        s = R.initial_state(params)
        out = np.empty_like(s)
        while not R.is_terminal(s, params):
            m = R.legal_actions(s, params, buf)
            R.apply_action(s, params, np.int32(buf[rng.integers(m)]), out)
            s = out.copy()
        pub = np.empty(P.PUB_SIZE, np.int32)
        P.public_of_history(s, params, pub)
        i, j = P.private_of_history(s, params, 0), P.private_of_history(s, params, 1)
        assert P.terminal_payoff(pub, params, i, j) == R.returns_p1(s, params)
        u = np.array([[P.terminal_payoff(pub, params, a, b) for b in range(n)]
                      for a in range(n)])
        opp = rng.random(n) * (rng.random(n) < 0.5)
        got = np.empty(n)
        P.terminal_values(pub, params, 0, opp, np.ones((n, n)), got)
        assert np.allclose(got, u @ opp, atol=1e-12)
        P.terminal_values(pub, params, 1, opp, np.ones((n, n)), got)
        assert np.allclose(got, -(u.T @ opp), atol=1e-12)
        seen += u.any()
    assert seen > 10


def _history_states(tree, params):
    """The rules state of every node of an enumerated Agent Hunter tree."""
    states = np.empty((tree.num_nodes, R.STATE_SIZE), np.int16)
    states[0] = R.initial_state(params)
    for v in range(tree.num_nodes):
        for c in range(tree.first_child[v], tree.first_child[v] + tree.num_children[v]):
            R.apply_action(states[v], params, np.int32(tree.node_action[c]), states[c])
    return states


def _hashed_policy(seed):
    """A fixed, non-uniform profile of the public tree, keyed by (public state, seat, i)."""
    def policy(pub, seat, i, n):
        key = hash((seed, bytes(np.asarray(pub).tobytes()), seat, int(i)))
        w = np.random.default_rng(key & 0xFFFFFFFF).random(n) + 0.05
        return w / w.sum()
    return policy


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS,
                         ids=["3-1-1-3-margin", "tiny", "tiny-switched-margin"])
def test_profiles_have_the_same_value_and_nash_conv_on_both_trees(variant):
    """Uniform and a hashed random profile: the public twin's value and sum of best
    responses equal the history tree's expected value and exact NashConv (1e-9), the
    profile mapped row by row through the bridge (public_of_history, private_of_history)."""
    v = make_variant(None, variant)
    params = v.to_params()
    tree = build_tree(AgentHunterGame(v))
    states = _history_states(tree, params)
    policy = _hashed_policy(3)
    strat = np.zeros((tree.num_infosets, tree.max_actions))
    pub = np.empty(P.PUB_SIZE, np.int32)
    for inf, node in enumerate(tree.infoset_node):
        seat = int(tree.infoset_player[inf])
        P.public_of_history(states[node], params, pub)
        i = P.private_of_history(states[node], params, seat)
        n_labels = P.legal_actions(pub, params, np.empty(P.max_actions(params), np.int32))
        kids = np.empty(P.max_private_actions(params), np.int64)
        m = P.private_actions(pub, params, i, n_labels, kids, np.empty_like(kids))
        assert m == tree.infoset_num_actions[inf]
        strat[inf, :m] = policy(pub, seat, i, m)
    for prof, hist in ((uniform, tree.uniform_strategy()), (policy, strat)):
        ev = expected_value(tree, hist)
        assert values(params, prof, 0) == pytest.approx(ev, abs=1e-9)
        assert values(params, prof, 1) == pytest.approx(-ev, abs=1e-9)
        conv = values(params, prof, 0, True) + values(params, prof, 1, True)
        assert conv == pytest.approx(nash_conv(tree, hist), abs=1e-9)


def test_bridge_follows_every_history_edge():
    """Every history edge of tiny is a public edge: a label (with the mover's next private
    state among its actions), then for attacks the signal whose mask holds the defender."""
    v = make_variant("tiny")
    params = v.to_params()
    tree = build_tree(AgentHunterGame(v))
    states = _history_states(tree, params)
    labels = np.empty(P.max_actions(params), np.int32)
    kids = np.empty(P.max_private_actions(params), np.int64)
    nexts = np.empty_like(kids)
    pub = np.empty(P.PUB_SIZE, np.int32)
    want = np.empty_like(pub)
    step = np.empty_like(pub)
    mask = np.empty(P.num_private(params, 0))
    codes = np.empty(16, np.int32)
    probs = np.empty(16)
    for node in range(tree.num_nodes):
        if tree.num_children[node] == 0:
            P.public_of_history(states[node], params, pub)
            assert P.current_player(pub, params) == pp.TERMINAL
            continue
        P.public_of_history(states[node], params, pub)
        mover = int(tree.node_player[node])
        assert P.current_player(pub, params) == mover
        mine = P.private_of_history(states[node], params, mover)
        other = P.private_of_history(states[node], params, 1 - mover)
        n = P.legal_actions(pub, params, labels)
        m = P.private_actions(pub, params, mine, n, kids, nexts)
        for e, c in enumerate(range(tree.first_child[node],
                                    tree.first_child[node] + tree.num_children[node])):
            P.public_of_history(states[c], params, want)
            assert P.private_of_history(states[c], params, mover) == nexts[e]
            assert P.private_of_history(states[c], params, 1 - mover) == other
            P.apply_action(pub, params, labels[kids[e]], step)
            if P.current_player(step, params) == pp.CHANCE:
                k = P.chance_outcomes(step, params, codes, probs)
                hits = []
                for o in codes[:k]:
                    P.chance_mask(step, params, int(o), 1 - mover, mask)
                    if mask[other]:
                        hits.append(int(o))
                assert len(hits) == 1
                sig = step.copy()
                P.apply_action(sig, params, hits[0], step)
            assert (step == want).all()
        assert m == tree.num_children[node]

