"""Agent Avenue's advanced mode (black market cards): every ability and every clarification
of the rulebook on hand-built positions (numba rules called directly), the End step's new
win conditions, random playouts (no crash, every card in exactly one place, information
states well formed), records (full, views, games in progress, illegal ones), the heuristic
player and the variant's limits."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numba import njit

from avenue_games import recruitments
from cli_helpers import spycfr
from spycfr.analysis.headtohead import head_to_head, heuristic_player, uniform_player
from spycfr.engine.playout import PLAYOUT_OK, check_playouts
from spycfr.errors import RecordError, VariantError
from spycfr.games import make_game
from spycfr.games.agent_avenue import advanced as A
from spycfr.games.agent_avenue import market as M
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.position import summary
from spycfr.games.agent_avenue.record import format_record, random_playout, replay, replay_view
from spycfr.games.agent_avenue.variant import CODES, make_variant

ADV = make_variant("advanced")
PARAMS = ADV.to_params()
N = 8


def ag(name: str) -> int:
    return CODES.index(name)


def bm(key: str) -> int:
    return M.KEYS.index(key)


def position(hands=({}, {}), play=({}, {}), spaces=(0, 7), active=0, deck=None,
             supply=("MIND", "TWIN", "TRUCK"), ongoing=((), ()), bm_deck=None, dleft=(4, 4)):
    """A position at the start of ``active``'s turn: agents as dicts name -> count (the deck
    holds the rest unless ``deck`` says otherwise), the meeples on ``spaces``, black market
    cards by key (the black market deck holds the rest unless ``bm_deck`` lists it; the
    others are then discarded)."""
    s = A.initial_state(PARAMS)
    for p in range(2):
        for table, base in ((hands, R.HAND), (play, R.PLAY)):
            for name, k in table[p].items():
                s[base + 8 * p + ag(name)] = k
                s[R.DECK + ag(name)] -= k
        s[R.HANDSIZE + p] = sum(hands[p].values())
    if deck is not None:
        for i, name in enumerate(CODES):
            s[R.DECK + i] = deck.get(name, 0)
    assert np.all(s[R.DECK:R.DECK + N] >= 0)
    s[R.DECKSIZE] = s[R.DECK:R.DECK + N].sum()
    s[A.POS], s[A.POS + 1] = spaces
    s[R.GAP] = (spaces[1] - spaces[0]) % 14
    placed = {bm(k): A.L_SUPPLY for k in supply}
    for p in range(2):
        placed.update({bm(k): A.L_OWNER + p for k in ongoing[p]})
    for c in range(A.N_BM):
        default = A.L_DECK if bm_deck is None or M.KEYS[c] in bm_deck else A.L_DISCARD
        s[A.LOC + c] = placed.get(c, default)
    s[A.SUPPLY] = len(supply)
    s[A.BMDECK] = int(np.sum(s[A.LOC:A.LOC + A.N_BM] == A.L_DECK))
    s[R.ACTIVE] = active
    s[R.PHASE] = R.PH_PLAY
    s[R.DLEFT], s[R.DLEFT + 1] = dleft
    return s


def step(s, action) -> np.ndarray:
    out = np.empty_like(s)
    A.apply_action(s, PARAMS, np.int32(action), out)
    return out


def legal(s) -> list[int]:
    buf = np.empty(600, dtype=np.int32)
    return [int(a) for a in buf[:A.legal_actions(s, PARAMS, buf)]]


def outcomes(s) -> dict[int, float]:
    codes = np.empty(600, dtype=np.int32)
    probs = np.empty(600)
    k = A.chance_outcomes(s, PARAMS, codes, probs)
    return dict(zip(codes[:k].tolist(), probs[:k].tolist(), strict=True))


def recruit(s, up: str, down: str, take=R.TAKE_UP) -> np.ndarray:
    """The active player's ``up``/``down`` on the table (already out of its hand) and the
    opponent's recruit: the opponent gets ``up`` with TAKE_UP."""
    s = s.copy()
    s[R.UP], s[R.DOWN] = ag(up), ag(down)
    s[R.PHASE] = R.PH_RECRUIT
    return step(s, (R.T_TAKE << 20) | take)


def take(key: str) -> int:
    return (A.T_BM << 20) | bm(key)


def choose(name: str, at_once: bool = False) -> int:
    return (A.T_ABILITY << 20) | (int(at_once) << 4) | ag(name)


def supply_to(s, key: str) -> np.ndarray:
    """The supply refilled with ``key`` (the chance draw after a take)."""
    assert s[R.PHASE] == A.PH_BM_SUPPLY and bm(key) in outcomes(s)
    return step(s, bm(key))


def forced(s) -> int:
    """The one outcome of a forced ability effect."""
    out = outcomes(s)
    assert s[R.PHASE] == A.PH_EFFECT and len(out) == 1
    return next(iter(out))


def check_gap(s) -> None:
    assert (int(s[A.POS + 1]) - int(s[A.POS]) - int(s[R.GAP])) % 14 == 0


# --- setup, board and landing -------------------------------------------------------------


def test_setup_supply_of_three_after_the_deal():
    s = A.initial_state(PARAMS)
    assert s[A.POS] == 0 and s[A.POS + 1] == 7 and s[A.BMDECK] == 15 and s[A.SUPPLY] == 0
    for _ in range(2):  # the deal, then the black market supply
        s = step(s, next(iter(outcomes(s))))
    assert s[R.PHASE] == A.PH_MARKET and A.current_player(s, PARAMS) == R.CHANCE
    out = outcomes(s)
    assert len(out) == 455 and abs(sum(out.values()) - 1) < 1e-12  # C(15, 3), equally likely
    mask = (1 << bm("OUTPOST")) | (1 << bm("SMOKE")) | (1 << bm("SPYCATION"))
    t = step(s, mask)
    assert t[R.PHASE] == R.PH_PLAY and t[A.SUPPLY] == 3 and t[A.BMDECK] == 12
    assert M.card_list(t, A.L_SUPPLY) == ["OUTPOST", "SMOKE", "SPYCATION"]


def test_landing_exactly_takes_a_card_from_the_supply():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(0, 7))
    t = recruit(s, "EN", "DD")  # P2 gets EN (+1: 8), P1 DD (+2: space 2)
    assert (t[A.POS], t[A.POS + 1], t[R.GAP]) == (2, 8, 6)
    assert t[R.PHASE] == A.PH_BM_TAKE and A.current_player(t, PARAMS) == 0
    assert legal(t) == [take("TWIN"), take("MIND"), take("TRUCK")]  # card order


def test_landing_by_moving_backward_takes_a_card():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(3, 8))
    t = recruit(s, "EN", "SA")  # P1's Saboteur: -1, from 3 back to 2
    assert t[A.POS] == 2 and t[R.PHASE] == A.PH_BM_TAKE and t[A.BMP] == 0
    check_gap(t)


def test_crossing_a_black_market_space_takes_none():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(1, 9))
    t = recruit(s, "EN", "DD")  # from 1 to 3, over space 2 (P2 from 9 to 10)
    assert t[A.POS] == 3 and t[R.PHASE] == R.PH_PLAY and t[R.ACTIVE] == 1


def test_no_card_for_a_move_of_zero_on_a_black_market_space():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(2, 9))
    t = recruit(s, "CB", "SE", take=R.TAKE_DOWN)  # P2 SE (0), P1 CB (0): both stay on spaces
    assert (t[A.POS], t[A.POS + 1]) == (2, 9) and t[R.PHASE] == R.PH_PLAY


def test_landing_with_an_empty_supply_takes_nothing():
    s = position(hands=({"SA": 4}, {"DA": 4}), supply=(), bm_deck=())
    t = recruit(s, "EN", "DD")
    assert t[A.POS] == 2 and t[R.PHASE] == R.PH_PLAY


def test_supply_refilled_before_the_ability_then_chained_take():
    # P1 on 5 takes Secret Recruit; Outpost (the deck's only card) refills the supply first;
    # the Sidekick recruited moves P1 4 spaces to 9: a black market space, take again.
    s = position(hands=({"SK": 1, "SA": 3}, {"DA": 4}), spaces=(5, 10), supply=(
        "SECRET", "TWIN", "TRUCK"), bm_deck=("OUTPOST",))
    s[R.PHASE], s[A.BMP] = A.PH_BM_TAKE, 0
    t = step(s, take("SECRET"))
    assert t[R.PHASE] == A.PH_BM_SUPPLY and t[A.SUPPLY] == 2 and outcomes(t) == {bm("OUTPOST"): 1}
    t = supply_to(t, "OUTPOST")
    assert t[A.SUPPLY] == 3 and t[R.PHASE] == A.PH_CHOOSE and t[A.CARD] == bm("SECRET")
    assert legal(t) == [choose("SA"), choose("SK")]  # names in hand, none in play
    t = step(t, choose("SK"))
    assert t[A.POS] == 9 and t[R.PHASE] == A.PH_BM_TAKE and t[A.BMP] == 0
    assert take("OUTPOST") in legal(t) and t[A.LOC + bm("SECRET")] == A.L_DISCARD
    check_gap(t)


def test_active_player_resolves_first_and_completely():
    # Both land (P1 on 2, P2 on 9); P1 is active: P1 takes, chains, refills, then P2.
    s = position(hands=({"SK": 1, "SA": 3}, {"DA": 4}), spaces=(0, 7), supply=(
        "SECRET", "TWIN", "WATCHTOWER"), bm_deck=())
    t = recruit(s, "DD", "DD")
    assert (t[A.POS], t[A.POS + 1]) == (2, 9) and t[A.LAND + 1] == 1
    assert t[R.PHASE] == A.PH_BM_TAKE and t[A.BMP] == 0
    t = step(t, take("SECRET"))  # the black market deck is empty: no refill
    t = step(t, choose("SK"))  # +4: from 2 to 6, no space
    assert t[A.POS] == 6 and t[R.PHASE] == A.PH_HAND_DRAW and t[A.BMP] == 0  # P1's refill
    t = step(t, next(iter(outcomes(t))))
    assert t[R.PHASE] == A.PH_BM_TAKE and t[A.BMP] == 1  # then P2
    assert legal(t) == [take("WATCHTOWER"), take("TWIN")]
    t = step(t, take("TWIN"))
    assert t[A.LOC + bm("TWIN")] == A.L_OWNER + 1 and t[R.PHASE] == R.PH_PLAY
    # With P2 active, P2 resolves first.
    s2 = position(hands=({"SA": 4}, {"DA": 4}), spaces=(0, 7), active=1)
    t = recruit(s2, "DD", "DD")
    assert t[R.PHASE] == A.PH_BM_TAKE and t[A.BMP] == 1 and t[A.LAND] == 1


def test_black_market_deck_empty_the_supply_shrinks():
    s = position(hands=({"SA": 4}, {"DA": 4}), supply=("TWIN",), bm_deck=())
    t = recruit(s, "EN", "DD")
    t = step(t, take("TWIN"))
    assert t[A.SUPPLY] == 0 and t[R.PHASE] == R.PH_PLAY


# --- ongoing cards -------------------------------------------------------------------------


def moved(name: str, ongoing=(), before=0, space=0, p=0) -> int:
    """Spaces p's meeple moves on recruiting ``name`` with ``before`` of it in play."""
    s = position(play=({name: before} if p == 0 else {}, {name: before} if p == 1 else {}),
                 ongoing=(ongoing, ()) if p == 0 else ((), ongoing), spaces=(space, 7 + space))
    t = s.copy()
    landed = A.recruit_one(t, PARAMS, p, ag(name))
    assert landed == A.is_bm_space(int(t[A.POS + p]))
    check_gap(t)
    return int((t[A.POS + p] - s[A.POS + p]) % 14)


def test_distraction_device_saboteur_moves_forward():
    assert moved("SA") == 13 and moved("SA", ("DEVICE",)) == 1  # -1 becomes +1
    assert moved("SA", ("DEVICE",), before=2) == 2  # -2 becomes +2


def test_watchtower_enforcer_two_more():
    assert [moved("EN", ("WATCHTOWER",), before=b) for b in (0, 1, 2)] == [3, 4, 5]


def test_sinister_twin_double_agent_twice_as_far():
    assert moved("DA", ("TWIN",)) == 12  # -1 -> -2
    assert moved("DA", ("TWIN",), before=1) == 12  # +6 -> +12
    assert moved("DA", ("TWIN",), before=1, p=1) == 12


def test_supercomputer_codebreaker_moves_three():
    assert moved("CB") == 0 and moved("CB", ("SUPERCOMPUTER",), before=2) == 3
    assert moved("EN", ("SUPERCOMPUTER", "DEVICE", "TWIN")) == 1  # only their own agent


def test_getaway_car_on_a_home_space_moves_three_more():
    # P1 from 5 with a Daredevil's +2 to 7 (P2's home, P2 elsewhere): 3 more, to 10.
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(5, 12), ongoing=(("GETAWAY",), ()))
    t = recruit(s, "EN", "DD")
    assert t[A.POS] == 10 and t[R.PHASE] == R.PH_PLAY  # 10 is no black market space
    check_gap(t)
    # Its own home space too (12 + 2 = 0, then 3).
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(12, 5), ongoing=(("GETAWAY",), ()))
    assert recruit(s, "EN", "DD")[A.POS] == 3
    # A move of 0 on a home space does not stop there again.
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(0, 7), ongoing=(("GETAWAY",), ()))
    assert recruit(s, "EN", "CB")[A.POS] == 0
    # Without the card, the meeple stays on the home space.
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(5, 12))
    assert recruit(s, "EN", "DD")[A.POS] == 7


def test_ongoing_card_has_no_effect_on_the_agent_just_recruited():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(1, 8), supply=("WATCHTOWER",),
                 bm_deck=())
    t = recruit(s, "DD", "EN")  # P1's Enforcer +1: to 2
    t = step(t, take("WATCHTOWER"))
    assert t[A.POS] == 2 and t[A.LOC + bm("WATCHTOWER")] == A.L_OWNER  # in front of P1
    assert A.recruit_move(t, PARAMS, 0, ag("EN"), 2) == 4  # the next one: +2 more


def test_ongoing_cards_trigger_however_the_agent_is_recruited():
    # Supercomputer with Smoke Screen's Codebreaker.
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(2, 9), supply=("SMOKE",), bm_deck=(),
                 ongoing=(("SUPERCOMPUTER",), ()), deck={"CB": 1})
    s[R.PHASE], s[A.BMP] = A.PH_BM_TAKE, 0
    t = step(s, take("SMOKE"))
    assert outcomes(t) == {ag("CB"): 1.0}
    t = step(t, ag("CB"))
    assert t[A.POS] == 5 and t[R.PLAY + ag("CB")] == 1 and t[R.DECKSIZE] == 0
    # Watchtower with Double Trouble's Enforcer, Distraction Device with Spycation's Saboteur.
    s = position(hands=({"EN": 2, "SA": 2}, {"DA": 4}), play=({"SA": 1}, {}), spaces=(2, 9),
                 supply=("DOUBLE", "SPYCATION"), bm_deck=(),
                 ongoing=(("WATCHTOWER", "DEVICE"), ()))
    s[R.PHASE], s[A.BMP] = A.PH_BM_TAKE, 0
    t = step(step(s, take("DOUBLE")), choose("EN"))
    assert t[A.POS] == 5  # +1 +2: lands on 5, takes again
    t = step(step(t, take("SPYCATION")), choose("SA", at_once=True))
    assert t[A.POS] == 6 and t[R.PLAY + ag("SA")] == 1  # the first Saboteur: +1 instead of -1


# --- instant abilities ---------------------------------------------------------------------


def at_card(key: str, **kw) -> np.ndarray:
    """P1 on space 2 about to take ``key`` (the black market deck empty: no refill)."""
    kw.setdefault("spaces", (2, 9))
    s = position(supply=(key,), bm_deck=(), **kw)
    s[R.PHASE], s[A.BMP] = A.PH_BM_TAKE, 0
    return step(s, take(key))


def test_outpost_recruits_a_sentinel_from_the_hand():
    t = at_card("OUTPOST", hands=({"SE": 1, "SA": 3}, {"DA": 4}), play=({"SE": 2}, {}))
    assert forced(t) == ag("SE")
    t = step(t, ag("SE"))  # the third Sentinel: +6, from 2 to 8
    assert t[A.POS] == 8 and t[R.PLAY + ag("SE")] == 3 and t[R.HANDSIZE] == 3
    assert t[R.PHASE] == A.PH_HAND_DRAW and t[A.BMP] == 0  # the hand refilled after
    assert t[A.LOC + bm("OUTPOST")] == A.L_DISCARD
    draw = next(iter(outcomes(t)))
    assert A.observation(t, PARAMS, np.int32(draw), 0) == (R.O_DRAW << 21) | draw
    assert A.observation(t, PARAMS, np.int32(draw), 1) == (R.O_DRAW << 21) | (1 << 20) | 1
    u = step(t, draw)
    assert u[R.HANDSIZE] == 4 and u[R.PHASE] == R.PH_PLAY


def test_smoke_screen_recruits_the_top_card_of_the_agent_deck():
    t = at_card("SMOKE", hands=({"SA": 4}, {"DA": 4}), deck={"DD": 2, "SK": 1})
    assert outcomes(t) == pytest.approx({ag("DD"): 2 / 3, ag("SK"): 1 / 3})
    u = step(t, ag("SK"))
    assert u[A.POS] == 6 and u[R.PLAY + ag("SK")] == 1 and u[R.DECKSIZE] == 2
    assert u[R.HANDSIZE] == 4 and u[R.PHASE] == R.PH_PLAY  # the hand is untouched


def test_mind_control_takes_an_opponents_agent_into_the_hand():
    t = at_card("MIND", hands=({"SA": 4}, {"DA": 4}), play=({}, {"DA": 1, "SE": 2}))
    assert t[R.PHASE] == A.PH_CHOOSE and legal(t) == [choose("DA"), choose("SE")]
    u = step(t, choose("SE"))
    assert u[R.PLAY + 8 + ag("SE")] == 1 and u[R.HAND + ag("SE")] == 1 and u[R.HANDSIZE] == 5
    # The removal moves no meeple; a hand above the size draws nothing.
    assert (u[A.POS], u[A.POS + 1], u[R.GAP]) == (2, 9, 7) and u[R.PHASE] == R.PH_PLAY


def test_mind_control_on_a_third_codebreaker_prevents_the_win():
    # P1 (active) lands on 2 while P2 recruits its third Codebreaker this turn.
    s = position(hands=({"SA": 4}, {"DA": 4}), play=({}, {"CB": 2}), spaces=(0, 8),
                 supply=("MIND",), bm_deck=())
    t = recruit(s, "CB", "DD")
    assert t[R.PLAY + 8 + ag("CB")] == 3 and t[R.PHASE] == A.PH_BM_TAKE
    t = step(step(t, take("MIND")), choose("CB"))
    assert t[R.PHASE] == R.PH_PLAY and t[R.WINNER] == -1 and t[R.PLAY + 8 + ag("CB")] == 2
    # Without it, P2 wins in the End step.
    s = position(hands=({"SA": 4}, {"DA": 4}), play=({}, {"CB": 2}), spaces=(1, 8))
    t = recruit(s, "CB", "DD")
    assert t[R.PHASE] == R.PH_OVER and t[R.WINNER] == 1 and t[R.ENDED] & R.END_P2_CB


def test_double_trouble_recruits_one_of_a_pair_and_keeps_the_other():
    t = at_card("DOUBLE", hands=({"DD": 2, "EN": 1, "SA": 3}, {"DA": 4}), play=({"DD": 1}, {}),
                deck={"SE": 5})
    assert legal(t) == [choose("SA"), choose("DD")]  # the names with two in hand
    u = step(t, choose("DD"))  # the second Daredevil: +3, from 2 to 5 (the supply is empty)
    assert u[R.HAND + ag("DD")] == 1 and u[R.PLAY + ag("DD")] == 2 and u[R.HANDSIZE] == 5
    assert u[A.POS] == 5 and u[R.PHASE] == R.PH_PLAY  # 5 cards left in hand: no draw


def test_surveillance_truck_moves_forward_one():
    t = at_card("TRUCK", hands=({"SA": 4}, {"DA": 4}), spaces=(12, 5))
    assert forced(t) == A.EFF_MOVED
    u = step(t, A.EFF_MOVED)
    assert u[A.POS] == 13 and u[R.PHASE] == R.PH_PLAY and u[A.LOC + bm("TRUCK")] == A.L_DISCARD
    check_gap(u)


def test_secret_recruit_a_name_not_in_play():
    t = at_card("SECRET", hands=({"EN": 1, "DA": 2, "SK": 1}, {"DA": 4}),
                play=({"EN": 2}, {}))
    assert legal(t) == [choose("DA"), choose("SK")]  # EN is in play already
    u = step(t, choose("DA"))  # the first Double Agent: -1, from 2 to 1
    assert u[A.POS] == 1 and u[R.PLAY + ag("DA")] == 1 and u[R.PHASE] == A.PH_HAND_DRAW


def test_spycation_back_to_hand_or_recruited_at_once():
    t = at_card("SPYCATION", hands=({"SA": 4}, {"DA": 4}), play=({"DA": 2, "CB": 1}, {}))
    assert legal(t) == [choose("DA"), choose("DA", True), choose("CB"), choose("CB", True)]
    keep = step(t, choose("DA"))  # back to the hand: no move
    assert keep[R.PLAY + ag("DA")] == 1 and keep[R.HAND + ag("DA")] == 1
    assert keep[A.POS] == 2 and keep[R.HANDSIZE] == 5
    again = step(t, choose("DA", True))  # recruited at once: its second again, +6
    assert again[R.PLAY + ag("DA")] == 2 and again[A.POS] == 8 and again[R.HANDSIZE] == 4


@pytest.mark.parametrize("key,kw", [
    ("MIND", {"hands": ({"SA": 4}, {"DA": 4})}),  # the opponent has no agent in play
    ("DOUBLE", {"hands": ({"SA": 1, "EN": 1, "DD": 1, "CB": 1}, {"DA": 4})}),  # no pair
    ("SECRET", {"hands": ({"SA": 4}, {"DA": 4}), "play": ({"SA": 1}, {})}),  # all in play
    ("SPYCATION", {"hands": ({"SA": 4}, {"DA": 4})}),  # nothing in play
    ("OUTPOST", {"hands": ({"SA": 4}, {"DA": 4})}),  # no Sentinel in hand
    ("SMOKE", {"hands": ({"SA": 4}, {"DA": 4}), "deck": {}}),  # the agent deck is empty
])
def test_an_ability_that_cannot_be_performed_is_ignored(key, kw):
    t = at_card(key, **kw)
    assert forced(t) == A.EFF_NONE
    u = step(t, A.EFF_NONE)
    before = t.copy()
    before[A.LOC + bm(key)] = A.L_DISCARD
    diff = np.flatnonzero(u != before)
    assert set(diff.tolist()) <= {R.PHASE, A.CARD, A.BMP, R.TURN, R.ACTIVE, R.WINNER, R.ENDED}
    assert u[A.LOC + bm(key)] == A.L_DISCARD


# --- the End step ----------------------------------------------------------------------------


def test_leader_of_the_pack_three_daredevils_win():
    s = position(hands=({"SA": 4}, {"DA": 4}), play=({"DD": 2}, {}), spaces=(1, 9),
                 ongoing=(("LEADER",), ()))
    t = recruit(s, "EN", "DD")
    assert t[R.WINNER] == 0 and t[R.ENDED] & A.END_P1_LEADER and not t[R.ENDED] & R.END_P1_DD
    s = position(hands=({"SA": 4}, {"DA": 4}), play=({"DD": 2}, {}), spaces=(1, 9))
    assert recruit(s, "EN", "DD")[R.WINNER] == 1  # without it: a loss


def test_masterplan_seven_different_agents():
    six = {"DA": 1, "EN": 1, "CB": 1, "SA": 1, "SE": 1, "SK": 1}
    s = position(hands=({"SA": 4}, {"DA": 3, "MO": 1}), play=(six, {}), spaces=(1, 9),
                 ongoing=(("MASTERPLAN",), ()))
    t = recruit(s, "EN", "DD")  # P1's seventh name
    assert t[R.WINNER] == 0 and t[R.ENDED] & A.END_P1_MASTER
    t = recruit(s, "EN", "SE")  # still six names
    assert t[R.PHASE] == R.PH_PLAY


def test_security_system_opponent_on_your_home_space():
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(3, 12), ongoing=(("SECURITY",), ()))
    t = recruit(s, "DD", "CB")  # P2's Daredevil: from 12 to 0, P1's home
    assert t[A.POS + 1] == 0 and t[R.WINNER] == 0 and t[R.ENDED] & A.END_P1_SECURITY
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(5, 10), ongoing=((), ("SECURITY",)),
                 active=1)
    t = recruit(s, "DD", "CB")  # P1 recruits DD: to 7, P2's home
    assert t[R.WINNER] == 1 and t[R.ENDED] & A.END_P2_SECURITY


def test_a_tie_goes_to_the_active_player():
    # P1 (active) catches P2 on 7, P2's home, where P2's Security System makes P2 win too.
    s = position(hands=({"SA": 4}, {"DA": 4}), spaces=(5, 7), ongoing=((), ("SECURITY",)))
    t = recruit(s, "CB", "DD")
    assert t[R.ENDED] & R.END_TIE and t[R.ENDED] & A.END_P2_SECURITY and t[R.WINNER] == 0
    s[R.ACTIVE] = 1
    t = recruit(s, "DD", "CB")  # the same with P2 active: P2 wins
    assert t[R.ENDED] & R.END_TIE and t[R.WINNER] == 1


def test_deck_out_still_ends_the_game():
    s = position(hands=({"SA": 2}, {"SA": 1}), spaces=(1, 7), deck={})
    t = recruit(s, "CB", "SE")
    assert t[R.PHASE] == R.PH_OVER and t[R.ENDED] & R.END_DECK_OUT and t[R.WINNER] == 0


# --- random playouts --------------------------------------------------------------------------


def _conserved(s) -> None:
    """Every agent and every black market card in exactly one place."""
    for i in range(N):
        where = sum(int(s[b + i]) for b in (R.HAND, R.HAND + 8, R.PLAY, R.PLAY + 8, R.DECK,
                                            R.DISC, R.DISC + 8))
        where += (int(s[R.UP]) == i) + (int(s[R.DOWN]) == i)
        assert where == PARAMS.copies[i]
        assert all(int(s[b + i]) >= 0 for b in (R.HAND, R.HAND + 8, R.PLAY, R.PLAY + 8, R.DECK))
    for p in range(2):
        assert int(s[R.HANDSIZE + p]) == int(s[R.HAND + 8 * p:R.HAND + 8 * p + N].sum())
    assert int(s[R.DECKSIZE]) == int(s[R.DECK:R.DECK + N].sum())
    loc = s[A.LOC:A.LOC + A.N_BM]
    assert set(loc.tolist()) <= {A.L_DECK, A.L_SUPPLY, A.L_OWNER, A.L_OWNER + 1, A.L_HELD,
                                 A.L_DISCARD}
    assert int(np.sum(loc == A.L_SUPPLY)) == s[A.SUPPLY] <= 3
    assert int(np.sum(loc == A.L_DECK)) == s[A.BMDECK]
    assert int(np.sum(loc == A.L_HELD)) == (1 if s[A.CARD] >= 0 else 0)
    assert np.all(loc[A.N_ONGOING:] != A.L_OWNER) and np.all(loc[A.N_ONGOING:] != A.L_OWNER + 1)
    assert np.all(loc[:A.N_ONGOING] != A.L_DISCARD)
    check_gap(s)


@pytest.mark.slow
def test_random_playouts_honour_the_protocol():
    status, done, deepest, widest, _ = check_playouts(PARAMS, 3000, 11)
    assert status == PLAYOUT_OK and done == 3000 and widest == 455


def test_random_games_conserve_every_card():
    rng = np.random.default_rng(3)
    taken = 0
    for _ in range(60):
        s = A.initial_state(PARAMS)
        for a in random_playout(ADV, rng):
            s = step(s, a)
            _conserved(s)
            taken += int(s[R.PHASE]) == A.PH_BM_SUPPLY
        assert s[R.PHASE] == R.PH_OVER
    assert taken > 30  # the black market is used


@pytest.mark.slow
def test_views_are_well_formed_information_states():
    """Every position consistent with a seat's view, where that seat moves, offers the same
    moves (the observations tell the seat everything it can tell apart) and has the same
    abstraction key."""
    rng = np.random.default_rng(8)
    checked = 0
    for _ in range(12):
        actions = random_playout(ADV, rng)
        s = A.initial_state(PARAMS)
        for n, a in enumerate(actions):
            p = int(A.current_player(s, PARAMS))
            if p in (0, 1) and s[R.PHASE] >= A.PH_MARKET and rng.random() < 0.5:
                seen = replay_view(ADV, format_record(ADV, actions[:n], p), p)
                moves = {tuple(legal(c)) for c in seen.candidates}
                assert len(moves) == 1 and all(A.current_player(c, PARAMS) == p
                                               for c in seen.candidates)
                # The information abstraction uses only what the seat knows.
                assert len({A.abstraction_key(c, PARAMS, p) for c in seen.candidates}) == 1
                checked += 1
            s = step(s, a)
    assert checked > 5


# --- records ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_random_records_round_trip():
    rng = np.random.default_rng(5)
    for g in range(25):
        actions = random_playout(ADV, rng, max_tokens=None if g % 3 else int(rng.integers(1, 40)))
        full = format_record(ADV, actions)
        rep = replay(ADV, full)
        assert rep.actions == actions and rep.record == full
        for p in (0, 1):
            view = format_record(ADV, actions, p)
            seen = replay_view(ADV, view, p)
            assert seen.record == view
            assert any(np.array_equal(c, rep.state) for c in seen.candidates)


RECORD = ("deal:DA.DD.DD.SE|EN.CB.SA.SE market:TWIN.MIND.SECRET play:DD/SE draw:EN.DD "
          "take:up=SE bm:P2=SECRET>OUTPOST secret:EN draw:CB")
BEFORE_BM = RECORD.split(" bm:")[0]
BEFORE_SECRET = RECORD.split(" secret:")[0]


def test_notation_views_and_position():
    rep = replay(ADV, RECORD)
    assert rep.record == RECORD
    s = rep.state
    # P2 recruited the Daredevil (+2: from 7 to 9, a black market space), P1 the Sentinel
    # (0: no move); P2 took Secret Recruit, recruited an Enforcer (+1: to 10), drew.
    assert (s[A.POS], s[A.POS + 1], s[R.GAP]) == (0, 10, 10)
    assert s[R.PHASE] == R.PH_PLAY and s[R.ACTIVE] == 1 and s[R.HANDSIZE + 1] == 4
    view1 = RECORD.replace("|EN.CB.SA.SE", "|?").replace("draw:CB", "draw:?")
    view2 = ("deal:?|EN.CB.SA.SE market:TWIN.MIND.SECRET play:DD/? draw:?.? take:up=SE "
             "bm:P2=SECRET>OUTPOST secret:EN draw:CB")
    assert format_record(ADV, rep.actions, 0) == view1
    assert format_record(ADV, rep.actions, 1) == view2
    for p, view in ((0, view1), (1, view2)):
        seen = replay_view(ADV, view, p)
        assert seen.record == view and any(np.array_equal(c, s) for c in seen.candidates)
    info = summary(ADV, RECORD)
    assert info["spaces"] == [0, 10] and info["black_market"]["supply"] == [
        "TWIN", "OUTPOST", "MIND"]
    assert info["black_market"]["deck_size"] == 11 and info["black_market"]["discard_pile"] == [
        "SECRET"]
    # A game in progress: the supply's refill pending; the ability's choices as moves.
    info = summary(ADV, BEFORE_BM + " bm:P2=SECRET")
    assert info["phase"] == "black market supply refill" and info["to_move"] is None
    info = summary(ADV, BEFORE_BM + " bm:P2=SECRET>OUTPOST")
    assert info["to_move"] == "P2" and info["legal_moves"] == [
        "secret:EN", "secret:CB", "secret:SA", "secret:SE"]
    # Numbers and English names are accepted for cards; output uses the keys.
    alt = RECORD.replace("market:TWIN.MIND.SECRET", "market:3.mind-control.Secret_Recruit") \
        .replace("bm:P2=SECRET>OUTPOST", "bm:14>9")
    assert replay(ADV, alt).record == RECORD


@pytest.mark.parametrize("record,needle", [
    ("deal:DA.DD.DD.SE|EN.CB.SA.SE market:TWIN.MIND", "token 2 `market:TWIN.MIND`: the supply"),
    ("deal:DA.DD.DD.SE|EN.CB.SA.SE market:TWIN.MIND.FOO", "FOO is not a black market card"),
    ("deal:DA.DD.DD.SE|EN.CB.SA.SE play:DD/SE", "token 2 `play:DD/SE`: expected market"),
    (BEFORE_BM + " bm:P1=SECRET>OUTPOST", "token 6 `bm:P1=SECRET>OUTPOST`: P2 takes a card"),
    (BEFORE_BM + " bm:P2=TRUCK>OUTPOST", "that card is not in the supply"),
    (BEFORE_BM + " bm:P2=SECRET play:EN/CB", "the supply is refilled before"),
    (BEFORE_BM + " bm:P2=SECRET>TWIN", "not in the black market deck"),
    (BEFORE_SECRET + " mind:CB", "expected secret here (P2 resolves Secret Recruit)"),
    (BEFORE_SECRET + " secret:DD", "Secret Recruit allows only secret:EN"),
    (BEFORE_SECRET + " secret:EN+recruit", "+recruit follows Spycation"),
    (BEFORE_SECRET + " secret:-", "token 7 `secret:-`: Secret Recruit allows only"),
    (BEFORE_SECRET + " secret:XX", "XX is not an agent code"),
    (RECORD + " draw:DA", "expected swap or play"),
])
def test_illegal_records_name_the_token(record, needle):
    with pytest.raises(RecordError, match=needle.replace("(", r"\(").replace(")", r"\)")
                       .replace("+", r"\+")):
        replay(ADV, record)


def test_cli_record_check_advanced():
    code, out, err = spycfr("record", "check", "agent-avenue", "--preset", "advanced", "--json",
                            RECORD)
    assert code == 0, err
    info = json.loads(out)
    assert info["valid"] and info["variant"]["mode"] == "advanced"
    assert set(info["black_market"]) >= {"supply", "deck_size", "ongoing", "discard_pile"}
    code, out, err = spycfr("record", "check", "agent-avenue", "--preset", "advanced", RECORD)
    assert code == 0 and "black market: supply" in out
    code, _, err = spycfr("record", "check", "agent-avenue", "--preset", "advanced",
                          "deal:DA.DD.DD.SE|EN.CB.SA.SE market:X.Y")
    assert code == 2 and err.startswith("error: token 2") and "Traceback" not in err


# --- variant, heuristic ----------------------------------------------------------------------


def test_advanced_mode_only_with_the_full_deck_and_board():
    assert ADV.mode == "advanced" and ADV.rules is A
    assert type(ADV.to_params()).__name__ == "AgentAvenueAdvancedParams"
    assert make_variant(None, {"mode": "advanced", "hand": 3, "discards": 0}).hand == 3
    for params in ({"board": 12}, {"copies": 5}, {"names": "DA,EN,CB,SA,DD,SE,SK"}):
        with pytest.raises(VariantError, match="mode=advanced is only played with the full"):
            make_variant("advanced", params)


def test_the_heuristic_beats_uniform_play():
    game = make_game("agent-avenue", "advanced")
    res = head_to_head(game, heuristic_player(game), uniform_player(), 2000, 0)
    assert res["a_payoff"]["ci95"][0] > 0.3


# P2, active, has played CB/DD: P1 recruited its third Codebreaker (a win at the End step)
# and P2's Daredevil landed it on black market space 12, one space behind P1's meeple.
TAKE_TO_WIN = (
    "deal:EN.EN.SA.DD|DA.CB.SA.MO market:LEADER.TRUCK.SPYCATION play:EN/DD draw:DD.SE "
    "take:up=DD bm:P1=LEADER>GETAWAY play:CB/MO draw:EN.CB take:down=MO play:EN/DD draw:EN.SE "
    "take:up=DD bm:P1=TRUCK>TWIN truck:+1 play:EN/DA draw:EN.CB take:down=DA bm:P1=TWIN>SMOKE "
    "play:EN/SA draw:DA.DA take:down=SA bm:P2=SMOKE>WATCHTOWER smoke:SE play:EN/CB draw:EN.SA "
    "take:down=CB play:DA/SE draw:CB.SE take:down=SE play:EN/SA draw:DA.CB take:down=SA "
    "play:CB/DA draw:SA.DD take:down=DA bm:P2=WATCHTOWER>DEVICE play:DA/SA draw:DA.DD "
    "take:down=SA play:SE/SA draw:SA.DD take:down=SA play:CB/DD draw:SA.DD take:up=DD")


def test_a_rollout_takes_the_black_market_card_that_wins():
    """The search agent's rollout leaves (rollout_advanced.py) play the advanced heuristic,
    which takes a black market card by its fixed preference: here Distraction Device, and
    P1's third Codebreaker wins at the End step; Spycation would have won (P2 takes back an
    agent and recruits it at once: its meeple catches P1's, a tie the active P2 wins). A
    rollout's taker now looks at the rest of the turn (take_choice): Spycation, and the game
    played out from here is P2's in every play (P1's payoff -1; +1 before). So a leaf
    before such a take is no longer valued as if the win were not there (the agent's value
    leapt at the take: docs/search.md, "A value that leaps at a black market take")."""
    from spycfr.games.agent_avenue.rollout_advanced import play_out, take_choice

    s = replay(ADV, TAKE_TO_WIN).state
    assert s[R.PHASE] == A.PH_BM_TAKE and A.current_player(s, PARAMS) == 1
    acts = np.empty(A.max_actions(PARAMS), np.int32)
    k = A.legal_actions(s, PARAMS, acts)
    cards = [M.KEYS[a & 31] for a in acts[:k]]
    assert cards == ["DEVICE", "GETAWAY", "SPYCATION"]
    probs = np.empty(k)
    A.heuristic_policy(s, PARAMS, acts, k, probs)
    assert cards[int(np.argmax(probs))] == "DEVICE"
    heuristic = s.copy()
    nxt = np.empty_like(s)
    A.apply_action(heuristic, PARAMS, acts[int(np.argmax(probs))], nxt)
    assert play_out(nxt, PARAMS, 0, 0) == 1  # the heuristic's take: P1 wins
    assert cards[take_choice(s, PARAMS, acts, k)] == "SPYCATION"
    for _ in range(5):
        assert play_out(s.copy(), PARAMS, 0, 0) == -1  # the rollout's own take: P2 wins


# --- the rollouts' styles (rollout_advanced.py, advanced_heuristic.styled_policy) -----------


def test_the_advanced_cautious_and_bold_recruiters_judge_the_hidden_card_as_in_simple_mode():
    """advanced_heuristic.styled_policy's recruiters (the rollouts' styles 1 and 2): the
    face-up card is taken when, the hidden card the name worst (cautious) or best (bold)
    for the recruiter in each choice, keeping it is at least as good as the hidden one (by
    hand, over the names the recruiter cannot see, the gains the advanced heuristic's with
    the ongoing cards); the mean style is the heuristic itself, and the styles change
    recruitments."""
    from spycfr.games.agent_avenue import advanced_heuristic as H

    acts = np.zeros(A.max_actions(PARAMS), np.int32)
    probs = np.zeros(A.max_actions(PARAMS))
    changed = {R.CAUTIOUS: 0, R.BOLD: 0}
    states = recruitments(A, PARAMS, 30, seed=3)
    assert len(states) > 100
    for state in states:
        a = int(state[R.ACTIVE])
        o = 1 - a
        k = A.legal_actions(state, PARAMS, acts)
        unseen = [t for t in range(PARAMS.n) if R.unseen_copies(state, PARAMS, o, t) > 0]
        up = int(state[R.UP])
        A.heuristic_policy(state, PARAMS, acts, k, probs)
        heuristic = probs[:k].copy()
        H.styled_policy(state, PARAMS, R.MEAN, acts, k, probs)
        assert np.array_equal(probs[:k], heuristic)
        for style, pick in ((R.CAUTIOUS, (max, min)), (R.BOLD, (min, max))):
            keep = H._next_gain(state, PARAMS, o, up) - pick[0](
                H._next_gain(state, PARAMS, a, t) for t in unseen)
            swap = pick[1](H._next_gain(state, PARAMS, o, t) for t in unseen) - \
                H._next_gain(state, PARAMS, a, up)
            H.styled_policy(state, PARAMS, style, acts, k, probs)
            assert probs[:k].tolist() == ([1.0, 0.0] if keep >= swap else [0.0, 1.0])
            changed[style] += probs[0] != heuristic[0]
    assert changed[R.CAUTIOUS] > 5 and changed[R.BOLD] > 5


@njit
def _seeded(seed):
    np.random.seed(seed)


def test_a_rollout_of_style_0_is_the_heuristic_game_of_before():
    """Style 0 on both seats plays the game rollout_advanced played before the styles (the
    heuristic's moves by ``heuristic_policy``, take_choice's takes), draw for draw: the
    same payoff for the same seed from states of random games; the styles change some."""
    from spycfr.engine.rng import sample
    from spycfr.games.agent_avenue import rollout_advanced as RA

    @njit
    def before(state, params, seed):
        np.random.seed(seed)
        nxt = np.empty(state.shape[0], np.int16)
        m = A.max_actions(params)
        actions = np.empty(m, np.int32)
        probs = np.empty(m)
        while state[R.PHASE] != R.PH_OVER:
            if state[R.PHASE] == A.PH_BM_TAKE:
                k = A.legal_actions(state, params, actions)
                A.apply_action(state, params, actions[RA.take_choice(state, params, actions, k)],
                               nxt)
                state[:] = nxt
            else:  # the heuristic's step as rollout_advanced wrote it before the styles
                if A.current_player(state, params) == R.CHANCE:
                    k = A.chance_outcomes(state, params, actions, probs)
                else:
                    k = A.legal_actions(state, params, actions)
                    A.heuristic_policy(state, params, actions, k, probs)
                A.apply_action(state, params, actions[sample(probs, k, np.random.random())], nxt)
                state[:] = nxt
        return A.returns_p1(state, params)

    states = recruitments(A, PARAMS, 4, seed=8)[::6]
    differ = 0
    for n, s in enumerate(states):
        for seed in range(3):
            want = before(s.copy(), PARAMS, 100 * n + seed)
            _seeded(100 * n + seed)
            assert RA.play_out(s.copy(), PARAMS, 0, 0) == want
            for style in (1, 2):
                _seeded(100 * n + seed)
                differ += RA.play_out(s.copy(), PARAMS, style, 0) != want
    assert differ > 0


def test_the_rollout_styles_are_named_for_either_mode():
    """The plug-in names the rollouts' styles (rollout.py's STYLES, both modes; the
    swapper is simple mode's, refused by advanced mode's rollouts: test_agent_avenue_rollout),
    so an advanced agent's leaves can guard against cautious and bold (--opposing); by
    default they guard against the heuristic alone."""
    from types import SimpleNamespace

    from spycfr.games import get_plugin
    from spycfr.search.configure import configure_agent
    from spycfr.search.leafvalues import value_function
    from spycfr.search.tree import GameModel

    plugin = get_plugin("agent-avenue")
    assert plugin.rollout_styles == ("heuristic", "cautious", "bold", "swapper")
    vf = value_function("rollout", GameModel.of(PARAMS), plugin)
    assert vf.inner.own_styles == (0,) and vf.inner.opposing_styles == (0,)
    configure_agent(SimpleNamespace(values=vf, plugin=plugin),
                    opposing=["heuristic", "cautious", "bold"])
    assert vf.inner.own_styles == (0,) and vf.inner.opposing_styles == (0, 1, 2)
    with pytest.raises(ValueError, match="not a rollout style of agent-avenue"):
        configure_agent(SimpleNamespace(values=vf, plugin=plugin), opposing=["ranger"])


# --- the discards a hand needs (advanced_heuristic.swap_choice, leaf.needed_moves) --------


def _best_play_by_hand(state, a) -> float:
    """The advanced heuristic's best play score for ``a`` by hand: over the rules' legal
    plays, a's gain less the recruiter's as the recruiter (judging the hidden card by its
    mean among those ``a`` cannot see) takes."""
    from spycfr.games.agent_avenue import advanced_heuristic as H

    o, best = 1 - a, -1e300
    for act in legal(state):
        if (act >> 20) != R.T_PLAY:
            continue
        up, down = (act >> 3) & 7, act & 7
        if H._takes_up(state, PARAMS, up, o, a, a, R.MEAN):
            score = H._next_gain(state, PARAMS, a, down) - H._next_gain(state, PARAMS, o, up)
        else:
            score = H._next_gain(state, PARAMS, a, up) - H._next_gain(state, PARAMS, o, down)
        best = max(best, score)
    return best


def test_the_advanced_swap_choice_discards_the_card_whose_draw_raises_its_best_play_most():
    """advanced_heuristic.swap_choice (the needs-only agent's rule in advanced mode): at
    plays of random games, while a discard is left and the deck holds a card, the card
    whose discard and draw (in proportion to the copies the mover cannot see) raise the
    heuristic's best play most on average (its plays the rules' legal ones, its gains the
    black market's), where that rise is at least SWAP_MARGIN; else -1; the state left as
    it was."""
    from avenue_games import random_states
    from spycfr.games.agent_avenue import advanced_heuristic as H

    plays = random_states(A, PARAMS, 12, 4,
                          lambda s: s.copy() if s[R.PHASE] == R.PH_PLAY else None)
    chose = {True: 0, False: 0}
    for state in plays:
        a = int(state[R.ACTIVE])
        before = state.copy()
        got = H.swap_choice(state, PARAMS, a, R.SWAP_MARGIN)
        assert np.array_equal(state, before)
        want = -1
        if state[R.DLEFT + a] > 0 and state[R.DECKSIZE] > 0:
            unseen = [max(R.unseen_copies(state, PARAMS, a, t), 0) for t in range(N)]
            now, rises = _best_play_by_hand(state, a), {}
            for c in range(N):
                if state[R.HAND + 8 * a + c] == 0:
                    continue
                total = 0.0
                for d in range(N):
                    if unseen[d]:
                        after = state.copy()  # c discarded, d drawn
                        after[R.HAND + 8 * a + c] -= 1
                        after[R.DISC + 8 * a + c] += 1
                        after[R.HAND + 8 * a + d] += 1
                        total += unseen[d] * _best_play_by_hand(after, a)
                rises[c] = total / sum(unseen) - now
            c = max(rises, key=rises.__getitem__)
            want = c if rises[c] >= R.SWAP_MARGIN else -1
        assert got == want
        chose[got >= 0] += 1
    assert chose[True] > 5 and chose[False] > 5


@pytest.mark.parametrize("hand, needs", [
    ({"CB": 3, "DD": 1}, "CB"),
    ({"DD": 3, "SK": 1}, "DD"),  # simple mode's gains (no black market space) would not
    ({"EN": 2, "DD": 1, "MO": 1}, None),  # simple mode's gains would discard an Enforcer
    ({"CB": 2, "DD": 1, "SE": 1}, None),
])
def test_needed_moves_in_advanced_mode_allow_discards_only_where_the_hand_needs_one(hand, needs):
    """The plug-in's needed_moves in advanced mode (AgentConfig.needs_only): at P1's first
    play every play is allowed, and the discards all where advanced_heuristic.swap_choice
    finds one the hand needs (by this mode's gains: EN.EN.DD.MO needs none here though
    rules.swap_choice, blind to the black market spaces, would discard an Enforcer, and
    DD.DD.DD.SK needs one though it would not), else none; with no discard left, every
    move."""
    from spycfr.games.agent_avenue import advanced_heuristic as H
    from spycfr.games.agent_avenue import leaf as L

    s = position(hands=(hand, {"DA": 2, "SA": 2}), supply=("DEVICE", "WATCHTOWER", "TWIN"))
    acts = np.array(legal(s), np.int32)
    swaps = (acts >> 20) == R.T_SWAP
    assert swaps.any() and (~swaps).any()
    got = H.swap_choice(s.copy(), PARAMS, 0, R.SWAP_MARGIN)
    assert got == (-1 if needs is None else ag(needs))
    simple = R.swap_choice(s.copy(), PARAMS, 0, R.SWAP_MARGIN)
    if hand == {"EN": 2, "DD": 1, "MO": 1}:
        assert simple == ag("EN")
    if hand == {"DD": 3, "SK": 1}:
        assert simple == -1
    allowed = L.needed_moves(PARAMS, s, 0, acts)
    assert allowed[~swaps].all()
    assert allowed[swaps].all() if needs else not allowed[swaps].any()
    spent = s.copy()
    spent[R.DLEFT] = 0
    acts = np.array(legal(spent), np.int32)
    assert L.needed_moves(PARAMS, spent, 0, acts).all()
