"""Agent Avenue's team variant (rulebook "Team Variant"; spec "Team variant"), clause by
clause on hand-built positions (numba rules called directly); 1v1 is the plain game; the
team presets' sizes; the team equilibrium against the open-hands bound."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from spycfr.errors import SpycfrError, VariantError
from spycfr.games import build_tree, make_game
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue import team_rules as T
from spycfr.games.agent_avenue.variant import make_variant
from spycfr.tree import CHANCE, TERMINAL

V21 = make_variant(None, {"names": "EN,CB,DD", "copies": 3, "hand": 2, "discards": 1,
                          "board": 6, "teams": "2v1"})
V22 = make_variant(None, {"names": "EN,CB,DD", "copies": 4, "hand": 2, "discards": 0,
                          "board": 6, "teams": "2v2"})


def position(variant, hands, phase, active=0, lead=-1, seat=-1, up=-1, down=-1, deck=None,
             open_hands=None):
    """A team state with ``hands`` (per seat, dicts name -> count), the deck the rest (or
    ``deck``: dict name -> count)."""
    params = variant.to_params()
    if open_hands is not None:
        params = params._replace(open_hands=np.int64(open_hands))
    s = T.initial_state(params)
    for p, hand in enumerate(hands):
        for name, k in hand.items():
            i = variant.names.index(name)
            s[T.HAND + 8 * p + i] = k
            s[T.DECK + i] -= k
        s[T.HANDSIZE + p] = sum(hand.values())
    if deck is not None:
        for i, name in enumerate(variant.names):
            s[T.DECK + i] = deck.get(name, 0)
    s[T.DECKSIZE] = s[T.DECK:T.DECK + len(variant.names)].sum()
    s[T.PHASE], s[T.ACTIVE], s[T.LEAD], s[T.SEAT] = phase, active, lead, seat
    s[T.UP], s[T.DOWN] = up, down
    return s, params


def actions(s, params) -> list[int]:
    out = np.empty(64, dtype=np.int32)
    return [int(a) for a in out[:T.legal_actions(s, params, out)]]


def play(s, params, action) -> np.ndarray:
    out = np.empty_like(s)
    T.apply_action(s, params, np.int32(action), out)
    return out


@pytest.mark.slow
def test_1v1_is_the_plain_game_unchanged():
    plain = make_variant("tiny")
    one = make_variant("tiny", {"teams": "1v1"})
    assert one == plain and one.as_dict() == plain.as_dict() and "teams" not in one.as_dict()
    assert isinstance(one.to_params(), R.AgentAvenueParams)
    tree = build_tree(make_game("agent-avenue", "tiny", {"teams": "1v1"}))
    assert tree.num_nodes == 1_324 and tree.num_seats == 2  # variant.py's measured size


@pytest.mark.slow
def test_team_presets_sizes_seats_and_teams():
    tiny = build_tree(make_game("agent-avenue", "team-tiny"))
    assert (tiny.num_nodes, tiny.num_infosets, tiny.num_seats) == (5_510, 1_885, 3)
    assert np.bincount(tiny.infoset_seat).tolist() == [904, 577, 404]
    duo = build_tree(make_game("agent-avenue", "team-duo"))
    assert (duo.num_nodes, duo.num_seats) == (14_871, 4)
    price = build_tree(make_game("agent-avenue", "team-price"))
    assert (price.num_nodes, price.num_infosets, price.num_seats) == (4_742, 1_373, 3)
    for tree, team0 in ((tiny, {0, 1}), (duo, {0, 1}), (price, {0, 1})):
        for s in range(tree.num_seats):
            owner = set(tree.infoset_player[tree.infoset_seat == s].tolist())
            assert owner == ({0} if s in team0 else {1})


def test_variant_refusals():
    with pytest.raises(VariantError, match="teams='3v1' is not allowed"):
        make_variant("tiny", {"teams": "3v1"})
    with pytest.raises(VariantError, match="4 seats needs at least 4\\*hand\\+2 = 10"):
        make_variant("tiny", {"teams": "2v2"})
    with pytest.raises(VariantError, match="open_hands=1 is not allowed with teams=1v1"):
        make_variant("tiny", {"open_hands": 1})
    with pytest.raises(VariantError, match="simple mode only"):
        make_variant("advanced", {"teams": "2v2"})


def test_deal_separate_hands_and_discard_allowances():
    params = V21.to_params()
    s = T.initial_state(params)
    assert T.num_seats(params) == 3
    # Teammates discard `discards` times each, the lone player twice as many (2 and 4).
    assert s[T.DLEFT:T.DLEFT + 3].tolist() == [1, 1, 2]
    for seat in range(3):  # a deal of `hand` cards to each seat in turn
        assert T.current_player(s, params) == CHANCE
        codes, probs = np.empty(64, dtype=np.int64), np.empty(64)
        k = T.chance_outcomes(s, params, codes, probs)
        assert abs(probs[:k].sum() - 1) < 1e-12
        s = play(s, params, codes[0])
        assert s[T.HANDSIZE + seat] == 2
    # Team 0 starts: its captain (seat 0) names who plays face up.
    assert T.current_seat(s, params) == 0 and T.current_player(s, params) == 0
    assert actions(s, params) == [T.T_LEAD << 20, (T.T_LEAD << 20) | 1]
    s = play(s, params, (T.T_LEAD << 20) | 1)
    assert s[T.LEAD] == 1 and T.current_seat(s, params) == 1 and s[T.PHASE] == T.PH_UP


def test_face_up_then_face_down_of_a_different_name():
    s, params = position(V21, [{"EN": 1, "CB": 1}, {"EN": 1, "DD": 1}, {}], T.PH_UP,
                         lead=0, seat=0)
    up = [a for a in actions(s, params) if a >> 20 == T.T_UP]
    assert up == [(T.T_UP << 20) | 0, (T.T_UP << 20) | 1]  # any card of the hand
    s = play(s, params, (T.T_UP << 20) | 0)  # EN face up; the teammate plays face down
    assert s[T.UP] == 0 and s[T.SEAT] == 1 and T.current_seat(s, params) == 1
    down = [a for a in actions(s, params) if a >> 20 == T.T_DOWN]
    assert down == [(T.T_DOWN << 20) | 2]  # not EN: the teammate holds another name


def test_identical_card_exception():
    s, params = position(V21, [{"CB": 2}, {"EN": 2}, {}], T.PH_DOWN, lead=0, seat=1, up=0)
    assert [a for a in actions(s, params) if a >> 20 == T.T_DOWN] == [T.T_DOWN << 20]


def test_discards_before_ones_own_card_then_draw():
    s, params = position(V21, [{"CB": 2}, {"EN": 1, "DD": 1}, {}], T.PH_DOWN, lead=0,
                         seat=1, up=1)
    swaps = [a for a in actions(s, params) if a >> 20 == T.T_SWAP]
    assert swaps == [(T.T_SWAP << 20) | 0, (T.T_SWAP << 20) | 2]
    s = play(s, params, (T.T_SWAP << 20) | 2)
    assert s[T.PHASE] == T.PH_SWAP_DRAW and s[T.DLEFT + 1] == 0 and s[T.DISC + 8 + 2] == 1
    s = play(s, params, R.draw_code(np.array([0, 1, 0]), 3))  # draws a CB
    assert s[T.PHASE] == T.PH_DOWN and s[T.HAND + 8 + 1] == 1
    assert not [a for a in actions(s, params) if a >> 20 == T.T_SWAP]  # allowance spent


def test_face_up_player_draws_the_last_card_then_the_other_team_recruits():
    s, params = position(V21, [{"EN": 1, "CB": 1}, {"DD": 2}, {"EN": 1, "CB": 1}], T.PH_DOWN,
                         lead=0, seat=1, up=0, deck={"CB": 1})
    s[T.HANDSIZE + 0] = 1  # seat 0 has played its EN face up
    s[T.HAND + 0] = 0
    s = play(s, params, (T.T_DOWN << 20) | 2)
    assert s[T.PHASE] == T.PH_REFILL and s[T.SEAT] == 0  # the face-up player draws first
    s = play(s, params, R.draw_code(np.array([0, 1, 0]), 3))
    assert s[T.PHASE] == T.PH_RECRUIT  # nothing left for the face-down player
    assert T.current_seat(s, params) == 2 and T.current_player(s, params) == 1


def test_the_lone_player_plays_a_pair_and_the_teams_captain_recruits():
    s, params = position(V21, [{"EN": 2}, {"CB": 2}, {"EN": 1, "DD": 1}], T.PH_PAIR,
                         active=1, seat=2, deck={})
    plays = actions(s, params)
    assert plays == [(T.T_PLAY << 20) | (0 << 3) | 2, (T.T_PLAY << 20) | (2 << 3) | 0]
    s = play(s, params, plays[0])
    assert s[T.PHASE] == T.PH_RECRUIT and T.current_seat(s, params) == 0


def test_deck_out_when_an_opponent_holds_no_cards():
    # Team 1 (lone, seat 2) recruits after team 0's turn; the deck is empty.
    s, params = position(V21, [{}, {"DD": 1}, {"EN": 1, "DD": 1}], T.PH_RECRUIT, lead=0,
                         up=0, down=1, deck={})
    # The lone player holds 2 cards: it can play; the game goes on to its turn.
    assert play(s, params, T.T_TAKE << 20)[T.PHASE] == T.PH_PAIR
    s[T.HANDSIZE + 2] = 1
    s[T.HAND + 16 + 2] = 0
    end = play(s, params, T.T_TAKE << 20)  # fewer than 2 cards alone: the deck-out
    assert T.current_player(end, params) == TERMINAL and end[T.ENDED] & R.END_DECK_OUT
    # A team of two is out when one teammate holds no card (2v2, team 1 to play next).
    s, params = position(V22, [{"EN": 1}, {"EN": 1}, {}, {"CB": 2}], T.PH_RECRUIT, lead=0,
                         up=0, down=1, deck={})
    end = play(s, params, T.T_TAKE << 20)
    assert T.current_player(end, params) == TERMINAL and end[T.ENDED] & R.END_DECK_OUT


def test_teammates_do_not_see_each_others_cards_unless_hands_are_open():
    s, params = position(V21, [{"EN": 1, "CB": 1}, {"CB": 1, "DD": 1}, {}], T.PH_DOWN,
                         lead=0, seat=1, up=0)
    down = (T.T_DOWN << 20) | 2
    assert T.observation(s, params, down, 1) & 0xF == 2
    for seat in (0, 2):  # the teammate does not see the face-down card, nor the opponent
        assert T.observation(s, params, down, seat) & 0xF == R.HIDDEN
    s, params = position(V21, [{"EN": 1, "CB": 1}, {"CB": 1, "DD": 1}, {}], T.PH_DOWN,
                         lead=0, seat=1, up=0, open_hands=1)
    assert T.observation(s, params, down, 0) & 0xF == 2
    assert T.observation(s, params, down, 2) & 0xF == R.HIDDEN


def test_cfr_refuses_a_team_variant(tmp_path):
    from spycfr.runs.solve import SolveConfig, solve_run

    config = SolveConfig(game="agent-avenue", preset="team-tiny", params={},
                         algorithm="cfr+", iterations=10)
    with pytest.raises(SpycfrError, match="spycfr team agent-avenue"):
        solve_run(config, tmp_path / "run")


def test_seat_views_are_the_trees_infosets_and_name_the_seat():
    """Walking the Python states of team-tiny: each seat's view of the record is one key per
    infoset of the numba tree (no split, no merge), and tokens name the seat that moved."""
    game = make_game("agent-avenue", "team-tiny")
    tree = build_tree(game)
    key_of: dict = {}
    stack = [(0, game.new_initial_state())]
    while stack:
        v, state = stack.pop()
        player = int(tree.node_player[v])
        if player in (0, 1):
            i = int(tree.node_infoset[v])
            key = (int(tree.infoset_seat[i]),
                   state.information_state(int(tree.infoset_seat[i])))
            assert key_of.setdefault(key, i) == i
        first, k = int(tree.first_child[v]), int(tree.num_children[v])
        for c in range(first, first + k):
            stack.append((c, state.child(int(tree.node_action[c]))))
    assert len(key_of) == tree.num_infosets
    state = game.new_initial_state()
    for c in (0, 0, 0):  # the deal: S1, S2, S3's hands
        state = state.child(state.chance_outcomes()[c][0])
    assert state.information_state(0).split() == ["S1:deal:EN.EN", "S2:deal:?", "S3:deal:?"]
    assert [state.action_label(a) for a in state.legal_actions()] == ["lead:S1", "lead:S2"]
    state = state.child(state.legal_actions()[1])  # S1 names S2 to play face up
    assert state.information_state(2).split()[-1] == "S1:lead:S2"
    assert state.current_player() == 0 and "up:EN" in [
        state.action_label(a) for a in state.legal_actions()]


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["dag", "colgen"])
def test_spycfr_team_writes_a_run(tmp_path, algorithm):
    """2v1 on a small deck: both solvers close their interval, the printed (certified)
    interval never widens, and a team that cannot talk is worth at most a team that sees
    both hands."""
    from click.testing import CliRunner

    from spycfr.cli.main import cli

    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [
        "team", "agent-avenue", "--names", "EN,CB", "--copies", "4", "--hand", "2",
        "--discards", "0", "--board", "4", "--teams", "2v1", "--out", str(out),
        "--algorithm", algorithm, "--tolerance", "1e-7"])
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "team.json").read_text())
    bounds = [(float(lo), float(hi)) for lo, hi in
              re.findall(r"value in \[([-+.\de]+), ([-+.\de]+)\]", result.output)]
    assert bounds and bounds[-1][1] - bounds[-1][0] <= 1e-7
    assert all(a[0] <= b[0] and a[1] >= b[1] for a, b in zip(bounds, bounds[1:], strict=False))
    assert meta["algorithm"] == f"tmecor-{algorithm}" and meta["converged"]
    assert meta["seats"] == 3
    assert meta["lower"] - 1e-9 <= meta["value_team0"] <= meta["upper"] + 1e-9
    assert meta["lower"] <= meta["pooled"]["value_team0"] + 1e-9  # the certified side
    plans = np.load(out / "team_plans.npz")
    assert abs(plans["team0_weights"].sum() - 1) < 1e-9
    assert "Price of not communicating" in (out / "report.md").read_text()



@pytest.mark.slow
def test_not_communicating_costs_the_team_in_team_price():
    """team-price: the TMECor interval closes below the open-hands value, so the price of
    not communicating is certified positive (results/agent-avenue/team-price)."""
    from spycfr.runs.team import team_run

    meta = team_run("agent-avenue", "team-price", {}, None, tolerance=1e-9)
    assert meta["converged"] and meta["gap"] <= 1e-9
    assert meta["pooled"]["value_team0"] - meta["upper"] > 0.2
