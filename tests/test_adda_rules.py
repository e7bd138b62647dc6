"""Agent Double Double Agent rules: a hand-built position for every clause of the spec,
plus properties of random games."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spycfr.engine.playout import PLAYOUT_OK, PLAYOUT_PROBLEMS, check_playouts
from spycfr.games.agent_double_double_agent import layout as L
from spycfr.games.agent_double_double_agent import rules as R
from spycfr.games.agent_double_double_agent.record import CARD_INDEX, random_playout
from spycfr.games.agent_double_double_agent.variant import PRESETS, Variant, make_variant
from spycfr.tree import CHANCE, TERMINAL

BIG_DECK = "1*3,2*3,3*3,4*3,5*3,P,0/7=0,0/7=7,?=1,?=2,?=3"


def k(label: str) -> int:
    return CARD_INDEX[label]


def loyal(tokens) -> int:
    return int(L.code(L.T_LOYAL, sum(t * 10**a for a, t in enumerate(tokens))))


def deal(v: Variant, labels) -> int:
    row = tuple(sum(1 for x in labels if k(x) == i) for i in range(L.NKINDS))
    return int(L.code(L.T_DEAL, v.deal_index[row]))


def file(agent: int, label: str) -> int:
    """Face down on agent ``agent`` (1-based)."""
    return int(L.code(L.T_FILE, ((agent - 1) << 5) | k(label)))


def up(label: str) -> int:
    return int(L.code(L.T_UP, k(label)))


def counter(agent: int) -> int:
    return int(L.code(L.T_COUNTER, agent - 1))


def legal(v: Variant, s) -> list[int]:
    return R.legal_list(s, v.params)


def step(v: Variant, s, action: int):
    assert action in legal(v, s), (action, legal(v, s))
    return R.step(s, v.params, action)


def setup(v: Variant, t1, t2, hand1, hand2):
    """The position after both assignments and both first hands: P1 to play."""
    s = R.initial_state(v.params)
    for a in (loyal(t1), loyal(t2), deal(v, hand1), deal(v, hand2)):
        s = step(v, s, a)
    assert s[L.PHASE] == L.PH_PLAY and s[L.MOVER] == 0
    return s


def put(s, p: int, agent: int, *labels: str):
    """Hand-build: put cards on p's side of an agent (1-based) without any rule running."""
    i = p * L.A + agent - 1
    for label in labels:
        kind = k(label)
        s[L.CNT + i] += 1
        s[L.SUM + i] += L.KIND_VALUE[kind]
        s[L.PER + i] += kind == L.K_P
        s[L.Z7 + i] += kind == L.K_Z7
        if L.KIND_BACK[kind] == L.BACK_Q:
            s[L.QK + i] = kind
    return s


def reveal_all(v: Variant, s):
    """Apply the pending one-outcome deliveries; returns (state, agents revealed in order)."""
    order = []
    codes, probs = np.empty(8, dtype=np.int32), np.empty(8)
    while s[L.PHASE] == L.PH_REVEAL:
        assert R.current_player(s, v.params) == CHANCE
        n = R.chance_outcomes(s, v.params, codes, probs)
        assert n == 1 and probs[0] == 1.0
        order.append(int(codes[0]) & L.PAYLOAD)
        s = R.step(s, v.params, int(codes[0]))
    return s, [a + 1 for a in order]


def status(s, agent: int) -> int:
    return int(s[L.STAT + agent - 1])


FIVE = Variant(agents=5, loyalty="1,2,3,4,5", deck=BIG_DECK, hand=5, threshold=4,
               neighbour_threshold=3, counters=0, plus_one="1")


# --- set-up --------------------------------------------------------------------------------


def test_standard_defaults_are_the_spec():
    v = make_variant("standard")
    assert v.agents == 6 and v.tokens == [1, 2, 2, 3, 4, 5] and v.hand == 5
    assert (v.threshold, v.neighbour_threshold, v.track, v.counters) == (4, 3, 4, 3)
    assert v.deck_size == 22 and v.start == "121212"
    counts = v.deck_counts
    assert [counts[i] for i in range(1, 8)] == [2, 2, 2, 2, 2, 2, 1]
    assert counts[L.K_Z0] == counts[L.K_Z7] == 2 and counts[L.K_P] == 1
    assert [counts[L.K_Q0 + i] for i in range(8)] == [0, 1, 1, 1, 1, 0, 0, 0]


def test_initial_state_counters_thresholds_and_piles():
    v = FIVE
    s = R.initial_state(v.params)
    assert [int(s[L.POS + a]) for a in range(5)] == [1, 2, 1, 2, 1]  # inner spaces, 12121
    assert [int(s[L.THR + a]) for a in range(5)] == [5, 4, 4, 4, 4]  # +1 file on agent 1
    assert s[L.STAT + 5] == L.ST_ABSENT
    assert s[L.NPILE] == s[L.NPILE + 1] == v.deck_size and s[L.NHAND] == 0
    assert R.current_player(s, v.params) == 0


@pytest.mark.slow
def test_loyalty_assignments_are_hidden_and_complete():
    v = make_variant("standard")
    s = R.initial_state(v.params)
    acts = legal(v, s)
    assert len(acts) == len(set(acts)) == 360 == math.factorial(6) // 2
    tokens = {tuple((int(a) & L.PAYLOAD) // 10**i % 10 for i in range(6)) for a in acts}
    assert all(sorted(t) == [1, 2, 2, 3, 4, 5] for t in tokens)
    a = loyal([5, 1, 2, 2, 3, 4])
    assert R.observation(s, v.params, a, 0) == a
    assert R.observation(s, v.params, a, 1) == L.code(L.O_LOYAL_HIDDEN, 0)
    s = R.step(s, v.params, a)
    assert R.current_player(s, v.params) == 1 and legal(v, s) == acts  # P2 sees nothing new
    s = R.step(s, v.params, loyal([1, 2, 2, 3, 4, 5]))
    assert R.current_player(s, v.params) == CHANCE and s[L.PHASE] == L.PH_DEAL


def test_first_hand_is_dealt_with_hypergeometric_probabilities():
    v = make_variant("standard")
    s = R.initial_state(v.params)
    s = R.step(R.step(s, v.params, loyal([1, 2, 2, 3, 4, 5])), v.params, loyal([1, 2, 2, 3, 4, 5]))
    codes, probs = np.empty(5000, dtype=np.int32), np.empty(5000)
    n = R.chance_outcomes(s, v.params, codes, probs)
    assert n == 4626 and abs(probs[:n].sum() - 1.0) < 1e-12
    a = deal(v, ["1", "1", "2", "2", "?=3"])
    i = list(codes[:n]).index(a)
    assert probs[i] == pytest.approx(1 / math.comb(22, 5))
    b = deal(v, ["5", "6", "7", "P", "0/7=7"])
    assert probs[list(codes[:n]).index(b)] == pytest.approx(2 * 2 * 2 / math.comb(22, 5))
    assert R.observation(s, v.params, a, 1) == L.code(L.O_DEAL_HIDDEN, 0)
    s = R.step(s, v.params, a)
    assert s[L.HAND + k("1")] == 2 and s[L.PILE + k("1")] == 0 and s[L.NPILE] == 17
    assert s[L.MOVER] == 1 and s[L.PHASE] == L.PH_DEAL


# --- a turn --------------------------------------------------------------------------------


def test_face_down_card_shows_its_back_to_the_opponent():
    v = FIVE
    s = setup(v, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1], ["1", "P", "0/7=7", "?=2", "5"],
              ["1", "2", "3", "4", "5"])
    for label, back in (("0/7=7", L.BACK_ZS), ("?=2", L.BACK_Q), ("P", 0), ("5", 5)):
        a = file(3, label)
        assert R.observation(s, v.params, a, 0) == a
        assert R.observation(s, v.params, a, 1) == L.code(L.O_FILE_BACK, (2 << 5) | back)
    s = step(v, s, file(3, "?=2"))
    assert s[L.QK + 2] == k("?=2") and s[L.CNT + 2] == 1 and s[L.SUM + 2] == 2
    assert s[L.NHAND] == 4 and s[L.HAND + k("?=2")] == 0


def test_only_one_question_card_per_agent_over_both_sides():
    v = FIVE
    s = setup(v, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1], ["1", "?=1", "?=2", "2", "3"],
              ["1", "?=3", "2", "3", "4"])
    assert file(2, "?=1") in legal(v, s)
    put(s, 1, 2, "?=3")  # P2's ? on agent 2: no more ? there, from either side
    acts = legal(v, s)
    assert file(2, "?=1") not in acts and file(2, "?=2") not in acts and file(2, "1") in acts
    assert file(1, "?=1") in acts
    put(s, 0, 1, "?=2")  # P1's own ? on agent 1 blocks its second one too
    assert file(1, "?=1") not in legal(v, s)


def test_delivery_at_threshold_with_loyalty_counter_bonus_and_personal_files():
    v = Variant(agents=3, loyalty="1,2,3", deck=BIG_DECK, hand=5, threshold=4, counters=0)
    s = setup(v, [2, 1, 3], [3, 2, 1], ["1", "P", "5", "2", "3"], ["1", "2", "3", "4", "5"])
    put(s, 0, 1, "5")
    put(s, 1, 1, "0/7=7", "?=2")
    # Agent 1: P1 token 2 + Personal Files 1 = 3 against P2's 3: a tie, and agent 1's counter
    # starts on P1's side (start 121): P1 takes the files.
    s = step(v, s, file(1, "P"))
    assert status(s, 1) == L.ST_P1 and s[L.PHASE] == L.PH_REVEAL
    assert s[L.SCORE] == 5 + 0 + 7 + 2 and s[L.SCARDS] == 4 and s[L.SCORE + 1] == 0
    # The reveal shows P1 P2's token and hidden faces, P2 P1's token.
    a = int(L.code(L.T_REVEAL, 0))
    q = k("?=2") - L.K_Q0 + 1
    assert R.observation(s, v.params, a, 0) == L.code(L.T_REVEAL, 0 | 3 << 3 | 1 << 7 | q << 11)
    assert R.observation(s, v.params, a, 1) == L.code(L.T_REVEAL, 0 | 2 << 3)
    s, order = reveal_all(v, s)
    assert order == [1] and s[L.PHASE] == L.PH_DRAW  # 2 agents left, no counters: refill
    # Without the Personal Files P1 loses 2 < 3; with the counter on P2's end P2 gets +1.
    t = setup(v, [2, 1, 3], [3, 2, 1], ["1", "P", "5", "2", "3"], ["1", "2", "3", "4", "5"])
    put(t, 0, 1, "5")
    put(t, 1, 1, "0/7=7", "?=2")
    assert status(step(v, t.copy(), file(1, "1")), 1) == L.ST_P2
    t[L.POS] = 3  # P2's nearest space: P2 3 + 1 = 4 > P1's 3
    assert status(step(v, t, file(1, "P")), 1) == L.ST_P2


def test_loyalty_tie_goes_to_the_side_of_the_counter():
    v = Variant(agents=3, loyalty="1,2,3", deck=BIG_DECK, hand=5, threshold=2, counters=0)
    for pos, taker in ((1, L.ST_P1), (2, L.ST_P2), (0, L.ST_P1), (3, L.ST_P2)):
        s = setup(v, [2, 1, 3], [2, 3, 1], ["1", "2", "3", "4", "5"], ["1", "2", "3", "4", "5"])
        s[L.POS] = pos  # space 0 gives P1 +1, space 3 gives P2 +1; 1 and 2 only a side
        put(s, 1, 1, "4")
        s = step(v, s, file(1, "5"))
        assert status(s, 1) == taker
        assert s[L.SCORE + taker - 1] == 9


def test_chain_reaction_through_two_neighbours_and_a_plus_one_file_counter():
    """The rulebook's example: S gets its 4th card and delivers; its neighbour B (3 cards)
    delivers too, and so does B's other neighbour C (3 cards); agent 1 has 3 cards but a
    `+1 file` counter, agent 5 only 2 cards."""
    v = FIVE
    s = setup(v, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1], ["1", "2", "3", "4", "5"],
              ["1", "2", "3", "4", "5"])
    put(s, 0, 1, "1", "1")
    put(s, 1, 1, "2")
    put(s, 0, 2, "3")
    put(s, 1, 2, "4", "4")
    put(s, 0, 3, "5", "5")
    put(s, 1, 3, "1")
    put(s, 0, 4, "2")
    put(s, 1, 4, "3", "3")
    put(s, 1, 5, "5", "5")
    s = step(v, s, file(2, "5"))
    assert [status(s, a) for a in range(1, 6)] == [L.ST_PLAY, L.ST_P2, L.ST_P1, L.ST_P1, L.ST_PLAY]
    assert s[L.THR] == 3 + 1 and s[L.THR + 4] == 3  # dropped, the +1 file counter still adds 1
    # Agent 2: 2 vs 4 -> P2 takes 3+4+4+5; agent 3: 3 vs 3, counter on P1's side -> P1 takes
    # 5+5+1; agent 4: 4 vs 2 -> P1 takes 2+3+3.
    assert s[L.SCORE + 1] == 16 and s[L.SCORE] == 11 + 8 and s[L.SCARDS] == 6
    assert s[L.PENDING] == 0b01110
    s, order = reveal_all(v, s)
    assert order == [2, 3, 4] and s[L.PHASE] == L.PH_DRAW
    # Agent 1 (3 cards, threshold 4) delivers at its 4th card; agent 5 at its 3rd.
    s = step(v, s, int(L.code(L.T_DRAW, k("1"))))
    s = step(v, s, file(5, "1"))  # P2's card: agent 5 delivers (P1's 5 against P2's 1)
    assert status(s, 5) == L.ST_P1
    t = setup(v, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1], ["1", "2", "3", "4", "5"],
              ["1", "2", "3", "4", "5"])
    put(t, 0, 1, "1", "1", "1", "1")
    assert t[L.THR] == 5 and status(step(v, t, file(1, "2")), 1) != L.ST_PLAY


def test_plus_one_file_counter_raises_the_threshold():
    v = Variant(agents=3, loyalty="1,2,3", deck=BIG_DECK, hand=5, threshold=2, counters=0,
                plus_one="2")
    s = setup(v, [1, 2, 3], [1, 2, 3], ["1", "2", "3", "4", "5"], ["1", "2", "3", "4", "5"])
    put(s, 1, 2, "4")
    s = step(v, s, file(2, "5"))
    assert status(s, 2) == L.ST_PLAY and s[L.THR + 1] == 3
    s = step(v, s, int(L.code(L.T_DRAW, k("1"))))
    s = step(v, s, file(2, "1"))
    assert status(s, 2) == L.ST_P2  # 2 vs 2, agent 2's counter on P2's side


def test_game_ends_when_at_most_one_agent_is_left():
    v = Variant(agents=3, loyalty="1,2,3", deck=BIG_DECK, hand=5, threshold=2,
                neighbour_threshold=1, counters=3)
    s = setup(v, [3, 2, 1], [3, 2, 1], ["1", "2", "3", "4", "5"], ["1", "2", "3", "4", "5"])
    put(s, 0, 1, "2")
    put(s, 1, 2, "3")
    s = step(v, s, file(1, "1"))  # agent 1 delivers; agent 2 (1 card, threshold now 1) too
    s, order = reveal_all(v, s)
    assert order == [1, 2]
    assert s[L.PHASE] == L.PH_OVER and R.current_player(s, v.params) == TERMINAL
    # Both ties: agent 1 (side P1) gives P1 1+2, agent 2 (side P2) gives P2 3: 3-3, and P2
    # wins on fewer cards in its score pile.
    assert (s[L.SCORE], s[L.SCORE + 1], s[L.SCARDS], s[L.SCARDS + 1]) == (3, 3, 2, 1)
    assert R.returns_p1(s, v.params) == -1.0


def test_game_ends_when_both_players_are_out_of_cards():
    v = Variant(agents=3, loyalty="1,2,3", deck="1,2", hand=2, threshold=4, counters=0)
    s = setup(v, [1, 2, 3], [1, 2, 3], ["1", "2"], ["1", "2"])
    for a in (file(1, "1"), file(2, "1"), file(1, "2")):
        s = step(v, s, a)
        assert s[L.PHASE] == L.PH_PLAY  # no pile: no draw, the move passes
    s = step(v, s, file(3, "2"))
    assert s[L.PHASE] == L.PH_OVER
    assert R.returns_p1(s, v.params) == 0.0  # nothing delivered: 0-0 with 0 cards each


def test_tie_break_on_fewer_score_pile_cards_and_the_margin_payoff():
    for payoff, expect in (("win", (1.0, -1.0, 0.0, 1.0)), ("margin", (0.0, 0.0, 0.0, 2.0))):
        v = Variant(agents=2, loyalty="1,2", deck="1,2", hand=1, payoff=payoff)
        s = R.initial_state(v.params)
        s[L.PHASE] = L.PH_OVER
        results = []
        for scores, cards in (((9, 9), (3, 4)), ((9, 9), (4, 3)), ((9, 9), (3, 3)),
                              ((9, 7), (5, 1))):
            s[L.SCORE], s[L.SCORE + 1] = scores
            s[L.SCARDS], s[L.SCARDS + 1] = cards
            results.append(float(R.returns_p1(s, v.params)))
        assert tuple(results) == expect


def test_refill_draws_copies_left_over_cards_left():
    v = Variant(agents=3, loyalty="1,2,3", deck="1*3,2*2,3", hand=2, threshold=4, counters=0)
    s = setup(v, [1, 2, 3], [1, 2, 3], ["1", "2"], ["1", "1"])
    s = step(v, s, file(1, "1"))
    assert s[L.PHASE] == L.PH_DRAW and R.current_player(s, v.params) == CHANCE
    codes, probs = np.empty(8, dtype=np.int32), np.empty(8)
    n = R.chance_outcomes(s, v.params, codes, probs)
    got = {int(c) & L.PAYLOAD: p for c, p in zip(codes[:n], probs[:n], strict=True)}
    assert got == {k("1"): 2 / 4, k("2"): 1 / 4, k("3"): 1 / 4}
    d = int(L.code(L.T_DRAW, k("3")))
    assert R.observation(s, v.params, d, 1) == L.code(L.O_DRAW_HIDDEN, 0)
    s = R.step(s, v.params, d)
    assert s[L.NHAND] == 2 and s[L.NPILE] == 3 and s[L.HAND + k("3")] == 1
    assert s[L.PHASE] == L.PH_PLAY and s[L.MOVER] == 1


def test_counters_are_activated_in_the_first_turns_only_once_each():
    v = Variant(agents=5, loyalty="1,2,3,4,5", deck=BIG_DECK, hand=5, threshold=8, counters=2)
    s = setup(v, [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], ["1", "1", "1", "2", "2"],
              ["1", "1", "1", "2", "2"])
    moves = [(0, 1), (1, 1 + 1), (0, 3), (1, 5)]  # (player, agent): P1 1, P2 2, P1 3, P2 5
    for p, agent in moves:
        assert s[L.MOVER] == p
        s = step(v, s, file(1, "1"))
        assert s[L.PHASE] == L.PH_COUNTER
        acts = legal(v, s)
        assert counter(agent) in acts
        assert all(counter(a) not in acts for _, a in moves if int(s[L.ACT + a - 1]))
        s = step(v, s, counter(agent))
        assert s[L.ACT + agent - 1] == 1
        s = step(v, s, int(L.code(L.T_DRAW, k("3"))))
    assert [int(s[L.POS + a]) for a in range(5)] == [0, 3, 0, 2, 2]  # towards the mover
    s = step(v, s, file(1, "1"))  # P1's third turn: no counter any more
    assert s[L.PHASE] == L.PH_DRAW


def test_counter_at_the_movers_end_and_none_left_to_move():
    v = Variant(agents=2, loyalty="1,2", deck="1*4", hand=1, threshold=8, track=2, counters=3)
    s = setup(v, [1, 2], [1, 2], ["1"], ["1"])
    assert [int(s[L.POS + a]) for a in range(2)] == [0, 1]  # track 2: the inner space is the end
    s = step(v, s, file(1, "1"))
    assert legal(v, s) == [counter(2)]  # agent 1's counter is already at P1's end
    s = step(v, s, counter(2))
    s = step(v, s, int(L.code(L.T_DRAW, k("1"))))
    s = step(v, s, file(1, "1"))
    assert legal(v, s) == [counter(1)]
    s = step(v, s, counter(1))
    s = step(v, s, int(L.code(L.T_DRAW, k("1"))))
    s = step(v, s, file(2, "1"))  # P1's second turn: every counter is activated
    assert s[L.PHASE] == L.PH_DRAW


@pytest.mark.parametrize("faceup", ["stuck", "always"])
def test_question_card_face_up(faceup):
    v = Variant(agents=3, loyalty="1,2,3", deck="1,?=1,?=2,?=3", hand=2, threshold=4,
                counters=0, faceup=faceup)
    s = setup(v, [1, 2, 3], [1, 2, 3], ["?=1", "?=2"], ["1", "?=3"])
    acts = legal(v, s)
    assert (up("?=1") in acts) == (faceup == "always")
    for agent in (1, 2, 3):
        put(s, 1, agent, "?=3")  # hand-built: a ? on every agent
    assert legal(v, s) == [up("?=1"), up("?=2")]  # stuck: face up is the only play
    s = step(v, s, up("?=2"))
    assert R.observation(s, v.params, up("?=2"), 1) == up("?=2")  # it is face up
    assert s[L.NHAND] == 1 and s[L.PHASE] == L.PH_DRAW


# --- bounds and properties -----------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_presets_honour_the_protocol(preset):
    params = make_variant(preset).params
    status_, done, deepest, widest, _ = check_playouts(params, 200, 3)
    assert status_ == PLAYOUT_OK, PLAYOUT_PROBLEMS[status_]
    assert deepest <= R.max_depth(params) and widest <= R.max_actions(params)


def _invariants(v: Variant, s, faceups: list[int]) -> None:
    deck = v.deck_size
    cards = (int(s[L.NHAND]) + int(s[L.NPILE]) + int(s[L.NHAND + 1]) + int(s[L.NPILE + 1])
             + int(s[L.SCARDS]) + int(s[L.SCARDS + 1]) + sum(faceups))
    for a in range(v.agents):
        on = int(s[L.CNT + a]) + int(s[L.CNT + L.A + a])
        if s[L.STAT + a] == L.ST_PLAY:
            cards += on
            assert on < s[L.THR + a]  # an agent at its threshold has delivered
        assert (s[L.QK + a] >= 0) + (s[L.QK + L.A + a] >= 0) <= 1  # one ? per agent
        assert s[L.THR + a] >= v.neighbour_threshold
    assert cards == 2 * deck  # every card is in a hand, a pile, on an agent, scored or up
    for p in (0, 1):
        assert int(s[L.NHAND + p]) == sum(int(s[L.HAND + p * L.NKINDS + i]) for i in range(19))
        assert int(s[L.NHAND + p]) <= v.hand
    assert int(s[L.ACT:L.ACT + L.A].sum()) <= min(v.agents, 2 * v.counters)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(["tiny", "small", "medium"]))
def test_random_games_keep_every_invariant(seed, preset):
    v = make_variant(preset)
    s = R.initial_state(v.params)
    faceups = [0, 0]
    for a in random_playout(v, seed):
        if int(a) >> L.SHIFT == L.T_UP:
            faceups[int(s[L.MOVER])] += 1
        s = R.step(s, v.params, a)
        _invariants(v, s, faceups)
    assert s[L.PHASE] == L.PH_OVER
    delivered = [a for a in range(v.agents) if s[L.STAT + a] in (L.ST_P1, L.ST_P2)]
    left = int(s[L.NHAND]) + int(s[L.NPILE]) + int(s[L.NHAND + 1]) + int(s[L.NPILE + 1])
    assert len(delivered) >= v.agents - 1 or left == 0
    assert R.returns_p1(s, v.params) in (-1.0, 0.0, 1.0)


def test_standard_random_games_keep_every_invariant():
    v = make_variant("standard")
    for seed in range(20):
        s = R.initial_state(v.params)
        faceups = [0, 0]
        for a in random_playout(v, seed):
            if int(a) >> L.SHIFT == L.T_UP:
                faceups[int(s[L.MOVER])] += 1
            s = R.step(s, v.params, a)
            _invariants(v, s, faceups)
        assert s[L.PHASE] == L.PH_OVER
