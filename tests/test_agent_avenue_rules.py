"""Agent Avenue rules, clause by clause of the spec and the rulebook, on hand-built positions
(numba rules called directly), plus variants and chance probabilities."""

from __future__ import annotations

import math

import numpy as np
import pytest

from spycfr.errors import VariantError
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.variant import CODES, MOVES, make_variant

FULL = make_variant()  # the full simple game
SMALL = make_variant(None, {"names": "DA,EN,CB,DD,SE,SK,MO", "copies": 6, "hand": 4,
                            "discards": 4, "board": 14})


def code(variant, name: str) -> int:
    return variant.names.index(name)


def position(variant, hands=({}, {}), play=({}, {}), discarded=({}, {}), gap=None, active=0,
             phase=R.PH_PLAY, dleft=None, deck=None):
    """A state with the given cards (dicts name -> count); the deck holds the rest unless
    ``deck`` says otherwise."""
    params = variant.to_params()
    s = R.initial_state(params)
    for p in range(2):
        for table, base in ((hands, R.HAND), (play, R.PLAY), (discarded, R.DISC)):
            for name, k in table[p].items():
                i = code(variant, name)
                s[base + 8 * p + i] = k
                s[R.DECK + i] -= k
        s[R.HANDSIZE + p] = sum(hands[p].values())
    if deck is not None:
        for i, name in enumerate(variant.names):
            s[R.DECK + i] = deck.get(name, 0)
    assert np.all(s[R.DECK:R.DECK + len(variant.names)] >= 0)
    s[R.DECKSIZE] = s[R.DECK:R.DECK + len(variant.names)].sum()
    s[R.GAP] = variant.board // 2 if gap is None else gap
    s[R.ACTIVE] = active
    s[R.PHASE] = phase
    if dleft is not None:
        s[R.DLEFT], s[R.DLEFT + 1] = dleft
    return s


def legal(variant, s) -> list[int]:
    buf = np.empty(200, dtype=np.int32)
    return [int(a) for a in buf[:R.legal_actions(s, variant.to_params(), buf)]]


def step(variant, s, action) -> np.ndarray:
    out = np.empty_like(s)
    R.apply_action(s, variant.to_params(), np.int32(action), out)
    return out


def play(variant, up: str, down: str) -> int:
    return (R.T_PLAY << 20) | (code(variant, up) << 3) | code(variant, down)


def swap(variant, name: str) -> int:
    return (R.T_SWAP << 20) | code(variant, name)


TAKE_UP = (R.T_TAKE << 20) | R.TAKE_UP
TAKE_DOWN = (R.T_TAKE << 20) | R.TAKE_DOWN


def recruit(variant, s, take=TAKE_UP):
    """From a state with UP/DOWN on the table and the recruit pending, apply the take."""
    s = s.copy()
    s[R.PHASE] = R.PH_RECRUIT
    return step(variant, s, take)


def on_table(s, variant, up, down):
    s = s.copy()
    s[R.UP], s[R.DOWN] = code(variant, up), code(variant, down)
    return s


# --- setup and the deal -------------------------------------------------------------------


def test_setup_and_deal_probabilities():
    params = FULL.to_params()
    s = R.initial_state(params)
    assert s[R.DECKSIZE] == 38 and s[R.GAP] == 7 and R.current_player(s, params) == R.CHANCE
    codes = np.empty(400, dtype=np.int32)
    probs = np.empty(400)
    k = R.chance_outcomes(s, params, codes, probs)
    # Multisets of 4 from the six 6-copy names, plus SK and/or MO (one copy each).
    six = [math.comb(6 + r - 1, r) for r in (4, 3, 2)]
    assert k == six[0] + 2 * six[1] + six[2] == 259
    assert abs(probs[:k].sum() - 1.0) < 1e-12 and np.all(probs[:k] > 0)
    # Four Enforcers: C(6,4)/C(38,4).
    x = np.zeros(8, dtype=np.int64)
    x[code(FULL, "EN")] = 4
    en4 = int(R.draw_code(x, 8))
    got = dict(zip(codes[:k].tolist(), probs[:k].tolist(), strict=True))
    assert got[en4] == pytest.approx(math.comb(6, 4) / math.comb(38, 4), rel=1e-12)
    after = step(FULL, s, en4)
    assert after[R.HANDSIZE] == 4 and after[R.DECKSIZE] == 34 and after[R.PHASE] == R.PH_DEAL1
    assert after[R.DECK + code(FULL, "EN")] == 2


def test_sidekick_and_mole_are_single_copies():
    assert FULL.copies_of == (6, 6, 6, 6, 6, 6, 1, 1) and FULL.deck_size == 38
    assert make_variant(None, {"copies": 2}).copies_of == (2, 2, 2, 2, 2, 2, 1, 1)
    s = position(FULL, hands=({"SK": 1, "EN": 1}, {"MO": 1, "EN": 1}))
    assert s[R.DECK + code(FULL, "SK")] == 0 and s[R.DECK + code(FULL, "MO")] == 0
    # Sidekick +4 for its owner, Mole -3.
    t = recruit(FULL, on_table(s, FULL, "SK", "MO"), TAKE_DOWN)  # P2 takes MO, P1 gets SK
    assert t[R.GAP] == 7 - 4 - 3


# --- the play step ------------------------------------------------------------------------


def test_play_two_different_names():
    s = position(FULL, hands=({"EN": 2, "CB": 1, "DD": 1}, {"DA": 4}), dleft=(0, 0))
    moves = legal(FULL, s)
    assert play(FULL, "EN", "EN") not in moves  # different names unless the hand is one name
    assert {play(FULL, "EN", "CB"), play(FULL, "CB", "EN"), play(FULL, "DD", "CB")} <= set(moves)
    assert len(moves) == 3 * 2  # ordered pairs of the 3 names


def test_same_name_exception():
    s = position(FULL, hands=({"EN": 4}, {"DA": 4}), dleft=(0, 0))
    assert legal(FULL, s) == [play(FULL, "EN", "EN")]


def test_discard_and_draw():
    s = position(FULL, hands=({"EN": 2, "CB": 2}, {"DA": 4}), dleft=(1, 4))
    moves = legal(FULL, s)
    assert moves[:2] == [swap(FULL, "EN"), swap(FULL, "CB")]  # swaps come first
    t = step(FULL, s, swap(FULL, "CB"))
    assert t[R.PHASE] == R.PH_SWAP_DRAW and t[R.DLEFT] == 0 and t[R.HANDSIZE] == 3
    assert t[R.DISC + code(FULL, "CB")] == 1
    assert R.current_player(t, FULL.to_params()) == R.CHANCE
    x = np.zeros(8, dtype=np.int64)
    x[code(FULL, "SE")] = 1
    t = step(FULL, t, int(R.draw_code(x, 8)))
    assert t[R.PHASE] == R.PH_PLAY and t[R.HANDSIZE] == 4 and t[R.HAND + code(FULL, "SE")] == 1
    assert swap(FULL, "EN") not in legal(FULL, t)  # no discards left


def test_no_discard_with_an_empty_deck():
    s = position(FULL, hands=({"EN": 2, "CB": 2}, {"DA": 4}), dleft=(4, 4), deck={})
    assert s[R.DECKSIZE] == 0
    assert all((a >> 20) == R.T_PLAY for a in legal(FULL, s))


def test_draw_back_up_after_playing():
    s = position(FULL, hands=({"EN": 2, "CB": 2}, {"DA": 4}), dleft=(0, 0))
    t = step(FULL, s, play(FULL, "EN", "CB"))
    assert t[R.PHASE] == R.PH_REFILL and t[R.HANDSIZE] == 2
    codes, probs = np.empty(400, dtype=np.int32), np.empty(400)
    k = R.chance_outcomes(t, FULL.to_params(), codes, probs)
    x = np.zeros(8, dtype=np.int64)
    x[code(FULL, "EN")] = 2  # 4 EN left in a deck of 30: C(4,2)/C(30,2)
    assert dict(zip(codes[:k].tolist(), probs[:k].tolist(), strict=True))[
        int(R.draw_code(x, 8))] == pytest.approx(6 / 435)
    # A deck of one card: one card drawn; an empty deck: straight to the recruit.
    one = position(FULL, hands=({"EN": 2, "CB": 2}, {"DA": 4}), dleft=(0, 0), deck={"SE": 1})
    t = step(FULL, one, play(FULL, "EN", "CB"))
    assert R.chance_outcomes(t, FULL.to_params(), codes, probs) == 1
    empty = position(FULL, hands=({"EN": 2, "CB": 2}, {"DA": 4}), dleft=(0, 0), deck={})
    assert step(FULL, empty, play(FULL, "EN", "CB"))[R.PHASE] == R.PH_RECRUIT


# --- recruit and move ---------------------------------------------------------------------


def test_recruit_gives_the_other_card_and_both_move():
    s = position(FULL, hands=({"CB": 2}, {"DA": 4}), gap=7)
    t = recruit(FULL, on_table(s, FULL, "EN", "DD"), TAKE_UP)  # P2 takes EN (+1), P1 DD (+2)
    assert t[R.PLAY + 8 + code(FULL, "EN")] == 1 and t[R.PLAY + code(FULL, "DD")] == 1
    assert t[R.GAP] == 7 - 2 + 1 and t[R.PHASE] == R.PH_PLAY and t[R.ACTIVE] == 1
    t = recruit(FULL, on_table(s, FULL, "EN", "DD"), TAKE_DOWN)  # P2 takes DD, P1 EN
    assert t[R.GAP] == 7 - 1 + 2


@pytest.mark.parametrize("name", CODES[:6])
@pytest.mark.parametrize("before", [0, 1, 2, 3, 4])
def test_the_column_is_the_count_in_play_3_or_more_the_third(name, before):
    if name in ("CB", "DD") and before >= 2:
        return  # the third one ends the game (tested below)
    filler = next(c for c in ("DA", "EN", "SA") if c != name)
    s = position(FULL, hands=({filler: 2}, {filler: 2}), play=({name: before}, {}), gap=7)
    t = recruit(FULL, on_table(s, FULL, "SK", name), TAKE_UP)  # P2 takes SK, P1 gets `name`
    col = min(before + 1, 3) - 1
    assert t[R.GAP] == 7 - MOVES[name][col] + 4


def test_double_agent_column_values():
    assert MOVES["DA"] == (-1, 6, -1) and MOVES["SE"] == (0, 2, 6)


# --- the end step -------------------------------------------------------------------------


def test_catch_reaching_or_passing():
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=2)
    t = recruit(FULL, on_table(s, FULL, "CB", "DD"), TAKE_UP)  # P1 DD +2 -> gap 0: caught
    assert t[R.PHASE] == R.PH_OVER and t[R.WINNER] == 0 and t[R.ENDED] == R.END_P1_CATCH
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=12, active=1)
    t = recruit(FULL, on_table(s, FULL, "CB", "DD"), TAKE_UP)  # P2 DD +2 -> 14: caught
    assert t[R.WINNER] == 1 and t[R.ENDED] == R.END_P2_CATCH
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=1, active=1)
    t = recruit(FULL, on_table(s, FULL, "DA", "CB"), TAKE_UP)  # P1 takes DA: -1 -> gap 2
    assert t[R.PHASE] == R.PH_PLAY


def test_opponent_moving_backward_onto_you_is_a_catch():
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=1)
    t = recruit(FULL, on_table(s, FULL, "SA", "CB"), TAKE_UP)  # P2 takes SA: -1 -> gap 0
    assert t[R.WINNER] == 0 and t[R.ENDED] == R.END_P1_CATCH


def test_catch_and_escape_in_the_same_turn():
    # P1 reaches P2 (DD +2 from gap 2) but P2 escapes forward (EN +1): final gap 1.
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=2)
    t = recruit(FULL, on_table(s, FULL, "EN", "DD"), TAKE_UP)
    assert t[R.GAP] == 1 and t[R.PHASE] == R.PH_PLAY and t[R.WINNER] == -1


def test_three_codebreakers_win_three_daredevils_lose():
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({}, {"CB": 2}), gap=7)
    t = recruit(FULL, on_table(s, FULL, "CB", "SE"), TAKE_UP)  # P2's third CB
    assert t[R.WINNER] == 1 and t[R.ENDED] == R.END_P2_CB
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({"DD": 2}, {}), gap=7)
    t = recruit(FULL, on_table(s, FULL, "SE", "DD"), TAKE_UP)  # P1's third DD: P1 loses
    assert t[R.WINNER] == 1 and t[R.ENDED] == R.END_P1_DD


def test_win_only_at_the_end_step_both_conditions_tie_to_the_active_player():
    # P2 recruits its third Codebreaker while P1, the active player, catches P2: a tie.
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({}, {"CB": 2}), gap=2)
    t = recruit(FULL, on_table(s, FULL, "CB", "DD"), TAKE_UP)
    assert t[R.ENDED] == R.END_P1_CATCH | R.END_P2_CB | R.END_TIE and t[R.WINNER] == 0
    # The same with P2 active: P2 wins.
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({"CB": 2}, {}), gap=12, active=1)
    t = recruit(FULL, on_table(s, FULL, "CB", "DD"), TAKE_UP)  # P1 third CB, P2 catches
    assert t[R.ENDED] == R.END_P2_CATCH | R.END_P1_CB | R.END_TIE and t[R.WINNER] == 1


def test_catching_with_three_daredevils_is_a_tie():
    # P1, active, catches with its third Daredevil (+0 with 3 in play: needs the gap at 0
    # already reached by P2 moving back): win and lose at once -> the active player wins.
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({"DD": 2}, {}), gap=1)
    t = recruit(FULL, on_table(s, FULL, "SA", "DD"), TAKE_UP)  # P2 SA -1 -> gap 0
    assert t[R.ENDED] == R.END_P1_CATCH | R.END_P1_DD | R.END_TIE and t[R.WINNER] == 0
    # The non-active player in that tie loses: P2 catches with its third Daredevil.
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({}, {"DD": 2}), gap=13)
    t = recruit(FULL, on_table(s, FULL, "DD", "DA"), TAKE_UP)  # P2 DD (0), P1 DA -1 -> 14
    assert t[R.ENDED] == R.END_P2_CATCH | R.END_P2_DD | R.END_TIE and t[R.WINNER] == 0


def test_both_lose_conditions_tie_to_the_active_player():
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), play=({"DD": 2}, {"DD": 2}), gap=7,
                 active=1)
    s[R.DECK + code(FULL, "DD")] = 0
    t = recruit(FULL, on_table(s, FULL, "DD", "DD"), TAKE_UP)
    assert t[R.ENDED] == R.END_P1_DD | R.END_P2_DD | R.END_TIE and t[R.WINNER] == 1


def test_deck_out_the_closer_player_wins_equal_distance_to_the_active():
    base = dict(hands=({"SA": 2}, {"SA": 1}), deck={})
    t = recruit(FULL, on_table(position(FULL, gap=6, **base), FULL, "CB", "SE"), TAKE_UP)
    assert t[R.ENDED] == R.END_DECK_OUT and t[R.WINNER] == 0  # gap 6 < 7: P1 closer
    t = recruit(FULL, on_table(position(FULL, gap=8, **base), FULL, "CB", "SE"), TAKE_UP)
    assert t[R.WINNER] == 1
    t = recruit(FULL, on_table(position(FULL, gap=7, **base), FULL, "CB", "SE"), TAKE_UP)
    assert t[R.ENDED] == R.END_DECK_OUT | R.END_TIE and t[R.WINNER] == 0
    # The opponent still holds 2 cards: the game goes on; a card left in the deck too.
    t = recruit(FULL, on_table(position(FULL, gap=7, hands=({"SA": 2}, {"SA": 2}), deck={}),
                               FULL, "CB", "SE"), TAKE_UP)
    assert t[R.PHASE] == R.PH_PLAY and t[R.ACTIVE] == 1
    t = recruit(FULL, on_table(position(FULL, gap=7, hands=({"SA": 2}, {"SA": 1}),
                                        deck={"EN": 1}), FULL, "CB", "SE"), TAKE_UP)
    assert t[R.PHASE] == R.PH_PLAY


def test_returns():
    params = FULL.to_params()
    s = position(FULL, hands=({"SA": 2}, {"SA": 2}), gap=2)
    t = recruit(FULL, on_table(s, FULL, "CB", "DD"), TAKE_UP)
    assert R.returns_p1(t, params) == 1.0 and R.current_player(t, params) == R.TERMINAL


# --- variants -----------------------------------------------------------------------------


def test_variant_parameters_and_errors():
    v = make_variant(None, {"names": "dd,en,cb", "copies": "2", "hand": "2"})
    assert v.names == ("EN", "CB", "DD") and v.copies == 2 and v.deck_size == 6
    assert make_variant("standard") == FULL
    for params, needle in [
        ({"names": "EN"}, "names"), ({"names": "EN,XX"}, "XX"), ({"names": "EN,EN,CB"}, "distinct"),
        ({"copies": 7}, "copies=7"), ({"copies": "x"}, "integer"), ({"hand": 5}, "hand=5"),
        ({"discards": -1}, "discards"), ({"board": 7}, "even"), ({"board": 16}, "board=16"),
        ({"mode": "pro"}, "mode"), ({"nope": 1}, "nope"),
        ({"mode": "advanced", "board": 10}, "mode=advanced is only played with the full"),
        ({"names": "EN,CB", "copies": 2, "hand": 2}, "at least 2"),
    ]:
        with pytest.raises(VariantError, match=needle):
            make_variant(None, params)
    with pytest.raises(VariantError, match="tiny, mini, small, standard"):
        make_variant("huge")
