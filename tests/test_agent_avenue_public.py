"""Agent Avenue's public-state model (games/agent_avenue/public.py) against its history rules,
a position per clause: the numbering of hands, discards and the pending face-down card; the
face-down card as the mover's private action; the swap; the draws weighted by card removal
(the terminal's ratio against the rules' own chance probabilities along whole games); the
face-down card revealed as a public signal; the refill drawn after the recruitment; take up
and take down told apart. Whole-tree agreement is tests/test_public_conformance.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from spycfr.games.agent_avenue import make_game
from spycfr.games.agent_avenue import moves as MOV
from spycfr.games.agent_avenue import multiset as MS
from spycfr.games.agent_avenue import numbering as NUM
from spycfr.games.agent_avenue import payoff as PAY
from spycfr.games.agent_avenue import public as P
from spycfr.games.agent_avenue import rules as R
from spycfr.public import protocol as pp

EN, CB, DD = 0, 1, 2  # local names of tiny and mini's EN,CB,DD (mini: DA first)


def _code(counts):
    return sum(int(c) << (MS.SHIFT * t) for t, c in enumerate(counts))


def _counts(code, n):
    return [(code >> (MS.SHIFT * t)) & 15 for t in range(n)]


def _play(down, up):
    return (R.T_PLAY << 20) | (up << 3) | down


def _take(d):
    return (R.T_TAKE << 20) | d


def _draw(counts):
    return sum(c * R.BASE ** t for t, c in enumerate(counts))


def _history(preset, actions):
    """The Python history state after full-record actions."""
    st = make_game(preset).new_initial_state()
    for a in actions:
        st = st.child(a)
    return st


def _pub(st):
    out = np.empty(R.STATE_SIZE, np.int16)
    P.public_of_history(st.array, st.game.params, out)
    return out


@pytest.mark.parametrize("n,size", [(3, 2), (4, 3), (5, 3), (8, 4)])
def test_multisets_are_numbered_densely(n, size):
    seen = set()
    count = math.comb(n + size - 1, size)
    for r in range(count):
        code = MS.unrank_multiset(r, n, size)
        assert sum(_counts(code, n)) == size
        assert MS.rank_multiset(code, n, size) == r
        seen.add(code)
    assert len(seen) == count


def test_the_count_of_multisets_is_the_binomial_inside_its_table_and_beyond():
    """_count(m, b), read from a table for m <= 8 names and b <= 32 cards and computed past
    it: C(m + b - 1, b) multisets of size b over m names, 1 of size 0 over none, 0 of a
    negative size, the same on either side of the table's edges."""
    assert MS._COUNTS.shape == (9, 33)
    for m in range(12):
        for b in range(-2, 40):
            want = 0 if b < 0 else (int(b == 0) if m == 0 else math.comb(m + b - 1, b))
            assert MS.multiset_count(m, b) == want, (m, b)


def test_private_states_per_preset():
    # tiny: the 6 hands of 2 cards of 3 names; mini: 20 hands of 3 of 4 names x 10 discard
    # pairs; small: 35 hands of 3 of 5 names (+ DEAD). Pending numberings are smaller.
    for preset, n in (("tiny", 7), ("mini", 201), ("small", 36)):
        params = make_game(preset).params
        assert NUM.num_private(params, 0) == NUM.num_private(params, 1) == n


def test_the_face_down_card_is_the_movers_private_action():
    """tiny, P1 to play holding EN,CB: label 'face-up EN' with CB pending, or 'face-up CB'
    with EN pending; holding CB,CB only the pair CB/CB."""
    g = make_game("tiny")
    params = g.params
    st = _history("tiny", [_draw([1, 1, 0]), _draw([0, 0, 2])])
    pub = _pub(st)
    assert P.current_player(pub, params) == 0
    labels = np.empty(P.max_actions(params), np.int32)
    k = MOV.legal_actions(pub, params, labels)
    assert [(c >> 3) & 7 for c in labels[:k]] == [EN, CB, DD]  # none in play yet
    i = P.private_of_history(st.array, params, 0)
    kids = np.empty(P.max_private_actions(params), np.int32)
    nexts = np.empty_like(kids)
    m = MOV.private_actions(pub, params, i, k, kids, nexts)
    got = sorted((int(kids[e]), NUM.decode(params, True, 0, 0, int(nexts[e]))[2])
                 for e in range(m))
    assert got == [(0, CB), (1, EN)]
    # After the history's play EN up / CB down the mover's state is the one with CB pending.
    after = st.child(_play(CB, EN))
    assert P.private_of_history(after.array, params, 0) in nexts[:m]
    cbcb = NUM.index(params, False, 2, 0, _code([0, 2, 0]), 0, NUM.NO_NAME)
    m = MOV.private_actions(pub, params, cbcb, k, kids, nexts)
    assert m == 1 and kids[0] == 1
    assert NUM.decode(params, True, 0, 0, int(nexts[0])) == (0, 0, CB)


def test_a_swap_discards_a_hidden_name():
    """mini (discards 2), P1 holding DA,EN,EN: one public swap label, a private action per
    name held, each to (hand - x, discards + x); then one card drawn."""
    g = make_game("mini")
    params = g.params
    st = _history("mini", [_draw([1, 2, 0, 0]), _draw([0, 0, 2, 1])])
    pub = _pub(st)
    labels = np.empty(P.max_actions(params), np.int32)
    k = MOV.legal_actions(pub, params, labels)
    assert labels[0] == MOV.SWAP_LABEL
    i = P.private_of_history(st.array, params, 0)
    kids = np.empty(P.max_private_actions(params), np.int32)
    nexts = np.empty_like(kids)
    m = MOV.private_actions(pub, params, i, k, kids, nexts)
    swaps = [int(nexts[e]) for e in range(m) if kids[e] == 0]
    assert [NUM.decode(params, False, 2, 1, s)[:2] for s in swaps] == [
        (_code([0, 2, 0, 0]), _code([1, 0, 0, 0])), (_code([1, 1, 0, 0]), _code([0, 1, 0, 0]))]
    swapped = st.child((R.T_SWAP << 20) | 1)  # the history discards EN
    child = np.empty_like(pub)
    P.apply_action(pub, params, MOV.SWAP_LABEL, child)
    assert np.array_equal(child, _pub(swapped))
    assert P.current_player(child, params) == pp.PRIVATE_CHANCE + 0
    assert P.private_of_history(swapped.array, params, 0) == swaps[1]


def test_a_draw_is_uniform_over_names_and_dead_where_the_drawer_sees_no_card():
    """tiny: after P1's EN/CB is recruited, P1 (empty hand) refills 2 cards; one EN and one
    CB are left outside play, so EN,EN and CB,CB cannot be drawn (DEAD); every other pair
    has its multinomial / 3^2 (the card removal against P2's hand is the terminal's)."""
    g = make_game("tiny")
    params = g.params
    st = _history("tiny", [_draw([1, 1, 0]), _draw([0, 0, 2]), _play(CB, EN)])
    pub = _pub(st)
    assert P.current_player(pub, params) == 1  # the refill waits for the recruitment
    for code in (_take(R.TAKE_UP), CB):
        out = np.empty_like(pub)
        P.apply_action(pub, params, code, out)
        pub = out
    assert P.current_player(pub, params) == pp.PRIVATE_CHANCE + 0
    i = NUM.index(params, True, 0, 0, 0, 0, CB)
    nexts = np.empty(P.max_private_actions(params), np.int32)
    probs = np.empty(len(nexts))
    m = MOV.private_chance(pub, params, i, nexts, probs)
    got = {(tuple(_counts(NUM.decode(params, False, 2, 0, int(nexts[e]))[0], 3))
            if nexts[e] != NUM.DEAD else "dead"): float(probs[e]) for e in range(m)}
    assert got == pytest.approx({(1, 1, 0): 2 / 9, (1, 0, 1): 2 / 9, (0, 1, 1): 2 / 9,
                                 (0, 0, 2): 1 / 9, "dead": 2 / 9})


def test_the_refill_is_drawn_after_the_recruitment():
    """The history's refill (before the recruitment) keeps the public node: the public state
    before and after it is the recruitment's, with the hand and deck as before it."""
    st = _history("tiny", [_draw([1, 1, 0]), _draw([0, 0, 2]), _play(CB, EN)])
    assert st.current_player() == R.CHANCE
    refilled = st.child(_draw([1, 1, 0]))
    assert refilled.array[R.PHASE] == R.PH_RECRUIT
    assert np.array_equal(_pub(st), _pub(refilled))
    assert _pub(st)[R.HANDSIZE] == 0 and _pub(st)[R.DECKSIZE] == 2


def test_the_face_down_card_is_revealed_by_a_public_signal():
    """tiny, P1 plays EN up, P2 takes down: a chance node whose outcomes are the names of
    which a card is left (EN, CB: P2 holds both DD), mask 1 on P1's states pending it."""
    g = make_game("tiny")
    params = g.params
    st = _history("tiny", [_draw([1, 1, 0]), _draw([0, 0, 2]), _play(CB, EN),
                           _draw([1, 1, 0])])
    pub = _pub(st)
    sig = np.empty_like(pub)
    P.apply_action(pub, params, _take(R.TAKE_DOWN), sig)
    assert P.current_player(sig, params) == pp.CHANCE
    codes = np.empty(P.max_actions(params), np.int32)
    probs = np.empty(len(codes))
    k = P.chance_outcomes(sig, params, codes, probs)
    assert list(codes[:k]) == [EN, CB, DD]  # one EN is left besides the face-up one
    n = NUM.num_private(params, 0)
    for d in codes[:k]:
        mask = np.empty(n)
        P.chance_mask(sig, params, d, 0, mask)
        for i in range(1, NUM.scheme_size(params, True, 0, 0)):
            assert mask[i] == (NUM.decode(params, True, 0, 0, i)[2] == d)
        P.chance_mask(sig, params, d, 1, mask)
        assert np.all(mask == 1.0)
    # The history's take (which reveals CB) leads, through the signal CB and P1's refill
    # step, to the public state of the next turn.
    took = st.child(_take(R.TAKE_DOWN))
    child = np.empty_like(sig)
    P.apply_action(sig, params, CB, child)
    assert P.current_player(child, params) == pp.PRIVATE_CHANCE + 0
    nxt = np.empty_like(sig)
    P.apply_action(child, params, 0, nxt)
    assert np.array_equal(nxt, _pub(took))


def test_take_up_and_take_down_of_one_name_are_different_public_states():
    """EN face up and EN face down: either take leaves the same cards in play, but the
    public states differ (the rules record the last take), so the history map can follow
    the recruiter's label."""
    st = _history("tiny", [_draw([2, 0, 0]), _draw([0, 1, 1]), _play(EN, EN),
                           _draw([0, 1, 1])])
    up = st.child(_take(R.TAKE_UP))
    down = st.child(_take(R.TAKE_DOWN))
    same = np.array_equal(up.array[:R.LASTTAKE], down.array[:R.LASTTAKE])
    assert same and not np.array_equal(_pub(up), _pub(down))


def _model_probability(code, n):
    """The model's probability of drawing the multiset of a rules chance code."""
    counts = []
    for _ in range(n):
        counts.append(code % R.BASE)
        code //= R.BASE
    k = sum(counts)
    return math.factorial(k) / math.prod(math.factorial(c) for c in counts) / n ** k


def _random_game(preset, seed):
    """A whole game by uniform random moves: (terminal state, the rules' probability of its
    draws, the model's, the last turn's refill (counts, its two probabilities) or None)."""
    rng = np.random.default_rng(seed)
    st = make_game(preset).new_initial_state()
    n = st.game.params.n
    p_rules = p_model = 1.0
    refill = None
    while not st.is_terminal():
        if st.current_player() == R.CHANCE:
            outcomes = st.chance_outcomes()
            code, p = outcomes[rng.integers(len(outcomes))]
            q = _model_probability(code, n)
            p_rules *= p
            p_model *= q
            if st.array[R.PHASE] == R.PH_REFILL:
                refill = (code, p, q)
        else:
            acts = st.legal_actions()
            code = acts[rng.integers(len(acts))]
            if code >> 20 == R.T_PLAY:
                refill = None
                down = code & 7
        st = st.child(code)
    return st, p_rules, p_model, refill, down


@pytest.mark.parametrize("preset", ["tiny", "mini", "small"])
def test_the_terminal_carries_the_card_removal_of_every_draw(preset):
    """Along whole games, the model's probability of the draws times the terminal payoff is
    the rules' probability times the payoff (the deal, swaps' draws and refills weighted by
    card removal between the players); a hand the cards in play rule out pays 0."""
    params = make_game(preset).params
    n = params.n
    for seed in range(12):
        st, p_rules, p_model, refill, down = _random_game(preset, seed)
        s = st.array
        a = int(s[R.ACTIVE])
        hands = [s[R.HAND + 8 * p: R.HAND + 8 * p + n].astype(int) for p in (0, 1)]
        if refill is not None:  # drawn in the public tree only if the game goes on
            code, p, q = refill
            p_rules /= p
            p_model /= q
            for t in range(n):
                hands[a][t] -= code // R.BASE ** t % R.BASE
        ids = [0, 0]
        for p in (0, 1):
            disc = _code(s[R.DISC + 8 * p: R.DISC + 8 * p + n])
            ds = params.discards - int(s[R.DLEFT + p])
            ids[p] = NUM.index(params, p == a, int(hands[p].sum()), ds, _code(hands[p]), disc,
                             down if p == a else NUM.NO_NAME)
        pub = _pub(st)
        u = 1.0 if s[R.WINNER] == 0 else -1.0
        assert PAY.terminal_payoff(pub, params, ids[0], ids[1]) == pytest.approx(
            u * p_rules / p_model, rel=1e-12)
        # The fast evaluation agrees with the pairs.
        n0 = NUM.num_private(params, 0)
        opp = np.zeros(n0)
        opp[ids[1]] = 0.25
        out = np.empty(n0)
        PAY.terminal_values(pub, params, 0, opp, np.ones((n0, n0)), out)
        assert out[ids[0]] == pytest.approx(0.25 * u * p_rules / p_model, rel=1e-12)
        # Card removal: seat 0 holding a name all of whose copies are in play pays 0.
        played = s[R.PLAY: R.PLAY + n] + s[R.PLAY + 8: R.PLAY + 8 + n]
        out_of_cards = [t for t in range(n) if played[t] == params.copies[t]]
        if out_of_cards and hands[0].sum() > 0 and a == 1:
            t = out_of_cards[0]
            other = [x for x in range(n) if hands[0][x] > 0][0]
            bad = hands[0].copy()
            bad[other] -= 1
            bad[t] += 1
            disc = _code(s[R.DISC: R.DISC + n])
            j = NUM.index(params, False, int(bad.sum()), params.discards - int(s[R.DLEFT]),
                        _code(bad), disc, NUM.NO_NAME)
            assert PAY.terminal_payoff(pub, params, j, ids[1]) == 0.0


@pytest.mark.slow
def test_a_public_tree_run_reads_like_any_other(tmp_path):
    """`spycfr solve agent-avenue --tree public`: the run's strategy, mapped onto the history
    tree, has the exploitability the public tree measured, and the analysis commands read
    the run."""
    import json

    from cli_helpers import spycfr

    run = tmp_path / "tiny"
    code, out, err = spycfr("solve", "agent-avenue", "--preset", "tiny", "--algorithm", "cfr+",
                            "--iterations", "200", "--tree", "public", "-o", str(run),
                            "--json", "-q")
    assert code == 0, err
    res = json.loads(out)
    assert res["tree"] == "public" and res["nodes"] == 1324
    assert res["exploitability"] < 1e-3
    code, out, err = spycfr("exploitability", str(run), "--json")
    assert code == 0, err
    assert json.loads(out)["exploitability"] == pytest.approx(res["exploitability"], abs=1e-12)
    code, out, err = spycfr("openings", str(run))
    assert code == 0 and "EN" in out, err


@pytest.mark.slow
@pytest.mark.parametrize("params", [
    {"names": "EN,CB,SK,MO", "copies": 2, "hand": 2, "discards": 1, "board": 4},  # 1 copy
    {"names": "DA,SE", "copies": 3, "hand": 2, "discards": 2, "board": 6},  # 2 discards
    {"names": "EN,CB", "copies": 5, "hand": 4, "discards": 0, "board": 4},  # hands of 4
])
def test_variants_beyond_the_presets_agree_with_the_history_tree(params):
    """The conformance suite's check on variants no preset has: single-copy names, two
    discards, hands of 4 (values and exploitability of uniform and CFR+ profiles)."""
    from spycfr.exact.best_response import expected_value, exploitability
    from spycfr.games import build_tree
    from spycfr.public.enumerate import build_public_tree
    from spycfr.public.mapping import HistoryMap
    from spycfr.public.solver import (
        PublicCFRSolver,
        profile_values,
        public_exploitability,
        uniform_strategy,
    )

    game = make_game(None, params)
    public = build_public_tree(game)
    history = build_tree(game)
    mapping = HistoryMap(public, history)
    uniform = uniform_strategy(public)
    assert profile_values(public, uniform, False)[0] == pytest.approx(
        expected_value(history, mapping.strategy(uniform)), abs=1e-9)
    solver = PublicCFRSolver(public, "cfr+")
    solver.iterate(20)
    avg = solver.average_strategy()
    assert public_exploitability(public, avg) == pytest.approx(
        exploitability(history, mapping.strategy(avg)), abs=1e-9)
