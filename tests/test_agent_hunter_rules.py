"""Agent Hunter rules: hand-built positions for every clause of the spec, plus properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycfr.errors import RecordError, VariantError
from spycfr.games.agent_hunter import PRESETS, make_game
from spycfr.games.agent_hunter import rules as R
from spycfr.games.agent_hunter.record import random_playout, replay
from spycfr.games.agent_hunter.variant import Variant, make_variant

V10 = Variant(10, 3, 5, None, "any", "win")


def play(variant: Variant, record: str) -> np.ndarray:
    return replay(variant, record).state


def house(s, p, h):
    """Content of player p's house h (1-based)."""
    return int(s[p * R.PSTRIDE + R.O_HOUSE + h - 1])


def decoys(s, p, h):
    return int(s[p * R.PSTRIDE + R.O_DECOYS + h - 1])


def hand(s, p):
    m = int(s[p * R.PSTRIDE + R.O_HAND])
    return {c for c in range(10) if (m >> c) & 1}


def out(s, p):
    m = int(s[p * R.PSTRIDE + R.O_OUT])
    return {c for c in range(10) if (m >> c) & 1}


def legal(variant, s):
    buf = np.empty(R.max_actions(variant), dtype=np.int32)
    n = R.legal_actions(s, variant.to_params(), buf)
    return [int(a) for a in buf[:n]]


def child(variant, s, action):
    out_ = np.empty_like(s)
    R.apply_action(s, variant.to_params(), np.int32(action), out_)
    return out_


def ret(variant, s):
    return float(R.returns_p1(s, variant.to_params()))


def terminal(variant, s):
    return bool(R.is_terminal(s, variant.to_params()))


# --- set-up ----------------------------------------------------------------------------


def test_initial_state_and_placements():
    s = R.initial_state(V10.to_params())
    assert hand(s, 0) == hand(s, 1) == set(range(10))
    assert s[R.O_SUPPLY] == s[R.PSTRIDE + R.O_SUPPLY] == 5
    assert R.current_player(s) == 0
    acts = legal(V10, s)
    assert len(acts) == len(set(acts)) == math.perm(10, 3) <= R.max_actions(V10)
    cards = {R.decode_action(a, 10, 3)[1] for a in acts}
    assert all(len(set(c)) == 3 for c in cards) and len(cards) == 720


def test_p2_places_without_seeing_p1():
    s = R.initial_state(V10.to_params())
    a1, a2 = R.encode_place([3, 7, 1], 10), R.encode_place([0, 1, 2], 10)
    s1, s2 = child(V10, s, a1), child(V10, s, a2)
    assert R.current_player(s1) == 1 and legal(V10, s1) == legal(V10, s2)
    p = V10.to_params()
    assert R.observation(s, p, a1, 1) == R.observation(s, p, a2, 1)
    assert R.observation(s, p, a1, 0) != R.observation(s, p, a2, 0)
    s = play(V10, "place:3-7-1 place:2-5-8")
    assert [house(s, 0, h) for h in (1, 2, 3)] == [3, 7, 1]
    assert hand(s, 0) == {0, 2, 4, 5, 6, 8, 9}
    assert R.current_player(s) == 0 and s[R.TURN] == 0  # placements are not turns


# --- hand attack -----------------------------------------------------------------------

BASE = "place:3-7-1 place:2-5-8"


@pytest.mark.parametrize("move,answer", [("hand:4>1", "hi"), ("hand:4>2", "lo")])
def test_hand_attack_hi_lo_changes_nothing(move, answer):
    before = play(V10, BASE)
    s = play(V10, f"{BASE} {move}:{answer}")
    diff = np.flatnonzero(s != before)
    # The game's fields: only the turn passes (KNOW, the abstraction's bookkeeping of what
    # each player knows of the other's houses, records the answer).
    assert set(diff[diff < R.KNOW]) <= {R.TURN, R.TO_MOVE}
    assert set(diff[diff >= R.KNOW]) and s[R.TURN] == 1 and R.current_player(s) == 1
    other = "lo" if answer == "hi" else "hi"
    with pytest.raises(RecordError, match=f"the answer is {answer}, not {other}"):
        play(V10, f"{BASE} {move}:{other}")


def test_hand_attack_eq_eliminates_and_puts_both_cards_out():
    s = play(V10, f"{BASE} hand:8>3:eq")
    assert house(s, 1, 3) == R.ELIM
    assert out(s, 0) == out(s, 1) == {8}
    assert 8 not in hand(s, 0) and 8 not in hand(s, 1)
    assert R.vp(s, 0) == 1 and R.vp(s, 1) == 0
    # the eliminated house can no longer be attacked
    s = play(V10, f"{BASE} hand:8>3:eq hand:0>1:lo")
    assert all(R.decode_action(a, 10, 3)[1][1] != 2 for a in legal(V10, s)
               if R.decode_action(a, 10, 3)[0] in ("hand", "house"))


def test_no_hand_attack_with_an_empty_hand():
    v = Variant(3, 2, 1, 4)
    s = play(v, "place:0-2 place:2-1 house:2=2>1:eq>1 house:2=1>2:eq>0")
    assert hand(s, 0) == set()
    kinds = {R.decode_action(a, 3, 2)[0] for a in legal(v, s)}
    assert kinds == {"switch", "house"}


# --- switch ----------------------------------------------------------------------------


def test_switch_with_w_equal_v_only_moves_a_decoy():
    before = play(V10, BASE)
    s = play(V10, f"{BASE} switch:1=3>3@2")
    assert house(s, 0, 1) == 3 and hand(s, 0) == hand(before, 0)
    assert decoys(s, 0, 2) == 1 and s[R.O_SUPPLY] == 4


def test_switch_returns_v_to_hand_and_places_w():
    s = play(V10, f"{BASE} switch:1=3>0@1")
    assert house(s, 0, 1) == 0 and 3 in hand(s, 0) and 0 not in hand(s, 0)
    assert decoys(s, 0, 1) == 1
    p = V10.to_params()
    s0 = play(V10, BASE)
    a, b = R.encode_switch(0, 0, 0), R.encode_switch(0, 9, 0)
    assert R.observation(s0, p, a, 1) == R.observation(s0, p, b, 1)  # new card hidden
    assert R.observation(s0, p, a, 0) != R.observation(s0, p, b, 0)


def test_decoy_rule_any_and_switched():
    s = play(V10, f"{BASE} hand:8>3:eq hand:1>3:eq")  # P1's house 3 is now eliminated
    sw = [R.decode_action(a, 10, 3)[1] for a in legal(V10, s)
          if R.decode_action(a, 10, 3)[0] == "switch"]
    assert {d for _, _, d in sw} == {0, 1}  # any non-eliminated house, never house 3 (index 2)
    assert {h for h, _, _ in sw} == {0, 1}
    french = Variant(10, 3, 5, None, "switched")
    s = play(french, BASE)
    sw = [R.decode_action(a, 10, 3)[1] for a in legal(french, s)
          if R.decode_action(a, 10, 3)[0] == "switch"]
    assert sw and all(h == d for h, _, d in sw)
    with pytest.raises(RecordError, match="decoy_rule=switched"):
        play(french, f"{BASE} switch:1=3>0@2")


def test_no_switch_without_decoys_in_supply():
    v = Variant(10, 3, 1, None)
    s = play(v, f"{BASE} switch:1=3>3@1 hand:0>1:lo")
    assert s[R.O_SUPPLY] == 0
    assert all(R.decode_action(a, 10, 3)[0] != "switch" for a in legal(v, s))
    v0 = Variant(10, 3, 0, None)
    assert all(R.decode_action(a, 10, 3)[0] != "switch" for a in legal(v0, play(v0, BASE)))


# --- house attack ----------------------------------------------------------------------


def test_house_attack_eq_then_attacker_refills():
    pre = play(V10, "place:3-7-1 place:2-3-8")
    p = V10.to_params()
    mid = child(V10, pre, R.encode_house(0, 1))  # P1 house 1 (3) hits P2 house 2 (3)
    assert mid[R.PHASE] == R.PH_REFILL_ATT and R.current_player(mid) == 0
    assert house(mid, 0, 1) == R.EMPTY and house(mid, 1, 2) == R.ELIM
    assert mid[R.TURN] == 0  # the refill belongs to the same turn
    assert {R.decode_action(a, 10, 3) for a in legal(V10, mid)} == {
        ("refill", (c,)) for c in hand(mid, 0)}
    assert 3 not in hand(mid, 0) and out(mid, 0) == out(mid, 1) == {3}
    # the refill is hidden from the defender only
    a, b = R.encode_refill(0), R.encode_refill(9)
    assert R.observation(mid, p, a, 1) == R.observation(mid, p, b, 1)
    assert R.observation(mid, p, a, 0) != R.observation(mid, p, b, 0)
    s = play(V10, "place:3-7-1 place:2-3-8 house:1=3>2:eq>0")
    assert house(s, 0, 1) == 0 and 0 not in hand(s, 0)
    assert s[R.TURN] == 1 and R.current_player(s) == 1 and R.vp(s, 0) == 1


def test_house_attack_eq_ending_the_game_has_no_refill():
    v = Variant(3, 1, 0, None)
    s = play(v, "place:1 place:1 house:1=1>1:eq")
    assert terminal(v, s)
    assert house(s, 0, 1) == R.EMPTY  # left empty, not eliminated
    assert R.vp(s, 0) == 1 and R.vp(s, 1) == 0 and ret(v, s) == 1.0
    with pytest.raises(RecordError, match="no refill: the game is over"):
        play(v, "place:1 place:1 house:1=1>1:eq>0")


def test_house_attack_miss_defender_card_from_hand():
    s = play(V10, f"{BASE} house:1=3>1:hi+hand")
    assert house(s, 0, 1) == R.ELIM  # eliminated by the defender
    assert out(s, 0) == out(s, 1) == {3} and 3 not in hand(s, 1)
    assert R.vp(s, 1) == 1 and R.vp(s, 0) == 0
    assert R.current_player(s) == 1 and s[R.TURN] == 1


def test_house_attack_miss_defender_card_from_house_then_defender_refills():
    pre = play(V10, "place:3-6-1 place:6-2-5")
    mid = child(V10, pre, R.encode_house(1, 2))  # P1's 6 at P2's house 3 (5): hi
    assert mid[R.PHASE] == R.PH_REFILL_DEF and R.current_player(mid) == 1
    assert int(mid[R.REFILL]) == 0 and house(mid, 1, 1) == R.EMPTY and mid[R.TURN] == 0
    assert house(mid, 0, 2) == R.ELIM and out(mid, 0) == out(mid, 1) == {6}
    s = play(V10, "place:3-6-1 place:6-2-5 house:2=6>3:hi+h1>7")
    assert house(s, 1, 1) == 7 and 7 not in hand(s, 1)
    assert s[R.TURN] == 1 and R.current_player(s) == 1
    with pytest.raises(RecordError, match="P2's card 6 is in house 1"):
        play(V10, "place:3-6-1 place:6-2-5 house:2=6>3:hi+hand")


def test_miss_that_ends_the_game_has_no_defender_refill():
    v = Variant(3, 2, 0, None)
    rec = "place:0-1 place:1-0 hand:2>1:hi house:1=1>2:eq>2 house:1=0>1:lo+h2"
    s = play(v, rec)
    assert terminal(v, s)
    assert house(s, 1, 2) == R.EMPTY and house(s, 0, 1) == house(s, 0, 2) == R.ELIM
    assert R.vp(s, 1) == 2 and ret(v, s) == -1.0
    with pytest.raises(RecordError, match="no refill"):
        play(v, rec + ">2")


def test_readings_2_out_sets_stay_equal_and_x_never_out():
    for seed in range(30):
        v = Variant(5, 3, 2, 40)
        s = R.initial_state(v.to_params())
        for a in random_playout(v, seed):
            if R.decode_action(a, 5, 3)[0] == "house":
                x = house(s, int(s[R.TO_MOVE]), R.decode_action(a, 5, 3)[1][0] + 1)
                assert x not in out(s, 1 - int(s[R.TO_MOVE]))
            s = child(v, s, a)
            assert out(s, 0) == out(s, 1)


# --- end and score ---------------------------------------------------------------------


def test_vp_counts_decoys_beside_eliminated_houses():
    v = Variant(10, 3, 5, None)
    s = play(v, f"{BASE} switch:1=3>3@1 hand:0>1:lo switch:1=3>3@1 hand:3>1:eq")
    assert decoys(s, 0, 1) == 2 and house(s, 0, 1) == R.ELIM
    assert R.vp(s, 1) == 3 and R.vp(s, 0) == 0


def test_win_on_vp_after_losing_every_house():
    rec = ("place:0-1 place:3-4 hand:2>1:lo switch:1=3>3@1 hand:2>1:lo switch:1=3>3@1 "
           "hand:3>1:eq hand:0>1:eq hand:2>2:lo hand:1>2:eq")
    v = Variant(5, 2, 3, None)
    s = play(v, rec)
    assert terminal(v, s) and house(s, 0, 1) == house(s, 0, 2) == R.ELIM
    assert R.vp(s, 0) == 3 and R.vp(s, 1) == 2
    assert ret(v, s) == 1.0
    assert ret(Variant(5, 2, 3, None, payoff="margin"), s) == 1.0
    with pytest.raises(RecordError, match="the game is over after move 10"):
        play(v, rec + " hand:2>2:lo")


def test_hand_sum_tie_break_draw_and_margin():
    v = Variant(3, 1, 0, 2)
    s = play(v, "place:0 place:2 hand:1>1:lo hand:1>1:hi")  # VP 0-0, hand sums 3 vs 1
    assert terminal(v, s) and s[R.TURN] == 2
    assert R.hand_sum(s, 0) == 3 and R.hand_sum(s, 1) == 1 and ret(v, s) == 1.0
    assert ret(Variant(3, 1, 0, 2, payoff="margin"), s) == 0.0  # no tie-break
    s = play(v, "place:1 place:1 hand:0>1:lo hand:2>1:hi")  # sums 2 vs 2: draw
    assert ret(v, s) == 0.0
    g = make_game(None, {"cards": 3, "houses": 1, "decoys": 0, "max_turns": 2})
    st_ = g.new_initial_state()
    for a in replay(v, "place:1 place:1 hand:0>1:lo hand:2>1:hi").actions:
        st_ = st_.child(a)
    assert st_.is_terminal() and st_.returns() == (0.0, -0.0)


def test_equal_vp_then_hand_sum_and_margin_difference():
    v = Variant(5, 2, 3, 4)
    # VP 1-1 after 4 turns; hands P1 {3,4} (7), P2 {1,3} (4)
    s = play(v, "place:0-1 place:2-4 hand:2>1:eq hand:0>1:eq hand:3>2:lo hand:3>2:hi")
    assert terminal(v, s) and R.vp(s, 0) == R.vp(s, 1) == 1
    assert R.hand_sum(s, 0) == 7 and R.hand_sum(s, 1) == 4
    assert ret(v, s) == 1.0
    assert ret(Variant(5, 2, 3, 4, payoff="margin"), s) == 0.0
    vm = Variant(5, 2, 3, None, payoff="margin")
    s = play(vm, "place:0-1 place:3-4 switch:1=0>0@1 switch:1=3>3@1 switch:1=0>0@1 "
                 "hand:0>1:eq")
    assert R.vp(s, 1) == 3 and ret(vm, s) == -3.0


def test_max_turns_scores_after_the_refill_on_the_last_turn():
    v = Variant(5, 2, 0, 3)
    pre = "place:0-1 place:1-3 hand:2>1:hi hand:0>1:eq"
    s = play(v, pre)
    mid = child(v, s, R.encode_house(1, 0))  # turn 3: P1's 1 hits P2's house 1 (1): eq
    assert not terminal(v, mid) and mid[R.PHASE] == R.PH_REFILL_ATT
    s4 = play(v, pre + " house:2=1>1:eq>4")
    assert terminal(v, s4) and s4[R.TURN] == 3
    assert R.vp(s4, 0) == R.vp(s4, 1) == 1
    assert hand(s4, 0) == {2, 3} and hand(s4, 1) == {2, 4}
    assert ret(v, s4) == -1.0  # 5 < 6: the refill counts
    s2 = play(v, pre + " house:2=1>1:eq>2")
    assert ret(v, s2) == 1.0  # 7 > 6
    with pytest.raises(RecordError, match="the refill is missing"):
        play(v, pre + " house:2=1>1:eq hand:0>2:lo")


def test_max_turns_stops_the_game():
    v = Variant(10, 3, 5, 4)
    s = play(v, f"{BASE} hand:0>1:lo hand:0>1:lo hand:0>1:lo hand:0>1:lo")
    assert terminal(v, s) and R.current_player(s) == -1 and legal(v, s) == []


# --- variants --------------------------------------------------------------------------


@pytest.mark.parametrize("params,pattern", [
    ({"cards": 1}, r"cards=1 .*2\.\.10"),
    ({"cards": 11}, r"cards=11 .*2\.\.10"),
    ({"houses": 0}, r"houses=0 .*1\.\.3"),
    ({"houses": 4}, r"houses=4 .*1\.\.3"),
    ({"decoys": 6}, r"decoys=6 .*0\.\.5"),
    ({"decoys": -1}, r"decoys=-1 .*0\.\.5"),
    ({"max_turns": 0}, "max_turns=0 .*positive integer or inf"),
    ({"max_turns": "abc"}, "max_turns='abc' .*positive integer or inf"),
    ({"max_turns": "-3"}, "max_turns=-3"),
    ({"decoy_rule": "near"}, "decoy_rule='near' .*any, switched"),
    ({"payoff": "score"}, "payoff='score' .*win, margin"),
    ({"cards": 4, "houses": 3}, r"cards=4 .*houses=3.*>= 2\*houses-1 = 5"),
    ({"cards": 2, "houses": 2}, r"cards=2 .*>= 2\*houses-1 = 3"),
    ({"colour": 1}, "unknown parameter 'colour'.*cards, houses"),
    ({"cards": "x"}, "cards='x' .*integer"),
])
def test_variant_validation(params, pattern):
    with pytest.raises(VariantError, match=pattern):
        make_variant(None, params)


def test_variant_defaults_presets_and_strings():
    assert make_variant() == Variant(10, 3, 5, None, "any", "win")
    assert make_variant(None, {"max_turns": "inf"}).max_turns is None
    assert make_variant(None, {"max_turns": "unbounded"}).max_turns is None
    assert make_variant(None, {"max_turns": "7", "cards": "5"}).max_turns == 7
    assert make_variant(None, {"cards": 5, "houses": 3}).cards == 5  # N = 2K-1 allowed
    assert make_variant("standard").max_turns == PRESETS["standard"]["max_turns"]
    assert make_variant("tiny", {"payoff": "margin"}).payoff == "margin"
    with pytest.raises(VariantError, match="unknown preset 'huge'.*tiny, mini, small, standard"):
        make_variant("huge")
    a = make_variant("mini", {"decoy_rule": "switched", "payoff": "margin"}).to_params()
    assert all(type(x) is np.int64 for x in a) and list(a) == [3, 2, 1, 4, 1, 1]
    assert list(make_variant().to_params()) == [10, 3, 5, 0, 0, 0]
    sizes = [math.perm(PRESETS[n]["cards"], PRESETS[n]["houses"])
             for n in ("tiny", "mini", "small")]
    assert sizes == sorted(sizes)


# --- properties over random playouts ---------------------------------------------------


@st.composite
def variants(draw):
    k = draw(st.integers(1, 3))
    n = draw(st.integers(max(2, 2 * k - 1), 10))
    return Variant(n, k, draw(st.integers(0, 5)), draw(st.none() | st.integers(1, 30)),
                   draw(st.sampled_from(["any", "switched"])),
                   draw(st.sampled_from(["win", "margin"])))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variants(), st.integers(0, 2**32 - 1))
def test_random_playouts_keep_the_invariants(v, seed):
    params = v.to_params()
    s = R.initial_state(params)
    full = (1 << v.cards) - 1
    for a in random_playout(v, seed):
        assert R.legal_actions(s, params, np.empty(R.max_actions(v), np.int32)) > 0
        for p in range(2):
            assert 0 <= R.observation(s, params, np.int32(a), p) < 2**24
        s = child(v, s, a)
        for p in range(2):
            hs = [house(s, p, h) for h in range(1, v.houses + 1)]
            cards = [c for c in hs if c >= 0]
            m_hand = int(s[p * R.PSTRIDE + R.O_HAND])
            m_out = int(s[p * R.PSTRIDE + R.O_OUT])
            m_house = sum(1 << c for c in cards)
            assert len(set(cards)) == len(cards)
            assert m_hand & m_out == 0 and m_hand & m_house == 0 and m_out & m_house == 0
            assert m_hand | m_out | m_house == full  # hand, houses and out partition the cards
            assert R.EMPTY not in hs or s[R.PHASE] in (
                R.PH_PLACE1, R.PH_PLACE2, R.PH_REFILL_ATT, R.PH_REFILL_DEF, R.PH_OVER)
            assert bin(m_out).count("1") == sum(
                1 for q in range(2) for h in range(1, v.houses + 1) if house(s, q, h) == R.ELIM)
            assert int(s[p * R.PSTRIDE + R.O_SUPPLY]) + sum(
                decoys(s, p, h) for h in range(1, v.houses + 1)) == v.decoys
        assert out(s, 0) == out(s, 1)
        if v.max_turns is not None:
            assert s[R.TURN] <= v.max_turns
    assert terminal(v, s)
    u = ret(v, s)
    if v.payoff == "win":
        assert u in (-1.0, 0.0, 1.0)
    else:
        assert u == R.vp(s, 0) - R.vp(s, 1)
