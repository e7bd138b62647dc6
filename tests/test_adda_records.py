"""Agent Double Double Agent records: the notation, views, round trips, refused records and
the generic commands that read them (`record check`, `query`, `openings`)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_helpers import spycfr
from spycfr.cli.main import cli
from spycfr.errors import RecordError
from spycfr.games import build_tree, make_game, tree_labels
from spycfr.games.agent_double_double_agent import PLUGIN
from spycfr.games.agent_double_double_agent.position import summary, view_key
from spycfr.games.agent_double_double_agent.record import (
    format_record,
    random_playout,
    record_to_actions,
    view_of,
)
from spycfr.games.agent_double_double_agent.variant import make_variant
from spycfr.games.agent_double_double_agent.view import replay

GAME = "agent-double-double-agent"
SMALL = make_variant("small")
# P1 hides ?=2 on agent 1 and moves its counter to P1's end; P2's Personal Files completes
# agent 1 (P1: 2 + 1 counter bonus = 3 against P2: 1 + 1 Personal Files), whose delivery drops
# agent 2's threshold to 1; P1's 1 then delivers agent 2 to P2 (1 against 2 + 1): agent 3 is
# the only one left, the game is over, P1 wins 2 points to 1.
RECORD = ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:P>1 "
          "deliver:1:2-1:?=2|P>P1 counter:2 draw:?=2 file:1>2 deliver:2:1-2:1|>P2")
P1_VIEW = ("loyal:2-1-1 loyal:? deal:?=2 deal:? file:?=2>1 counter:1 draw:1 file:P>1 "
           "deliver:1:2-1:?=2|P>P1 counter:2 draw:? file:1>2 deliver:2:1-2:1|>P2")
P2_VIEW = ("loyal:? loyal:1-2-1 deal:? deal:P file:?=?>1 counter:1 draw:? file:P>1 "
           "deliver:1:2-1:?=2|P>P1 counter:2 draw:?=2 file:1>2 deliver:2:1-2:1|>P2")


def test_the_example_record_and_its_views():
    actions = record_to_actions(SMALL, RECORD)
    assert format_record(SMALL, actions) == RECORD
    assert view_of(SMALL, RECORD, 0) == P1_VIEW and view_of(SMALL, RECORD, 1) == P2_VIEW
    state = make_game(GAME, "small").new_initial_state()
    for a in actions:
        state = state.child(a)
    assert state.record() == RECORD
    assert state.information_state(0) == P1_VIEW and state.information_state(1) == P2_VIEW
    info = summary(SMALL, RECORD)
    assert info["terminal"] and info["payoff"] == [1.0, -1.0]
    assert [p["score"] for p in info["players"]] == [2, 1]
    assert [a["status"] for a in info["agents"]] == ["delivered to P1", "delivered to P2",
                                                     "in play"]
    assert info["agents"][1]["threshold"] == 1  # dropped by agent 1's delivery
    for seat, view in ((0, P1_VIEW), (1, P2_VIEW)):
        rep = replay(SMALL, view)
        assert rep.viewer == seat and rep.record == view
        assert summary(SMALL, view)["payoff"] == [1.0, -1.0]


def test_a_view_hides_what_the_seat_cannot_see():
    info = summary(SMALL, "loyal:? loyal:1-2-1 deal:? deal:P file:?=?>1")
    assert info["view"] == "P2" and info["to_move"] == "P1" and info["phase"] == "counter"
    assert info["legal_moves"] is None  # listed only for the seat to move
    assert info["agents"][0]["cards"] == [["?=?"], []]
    assert info["agents"][0]["tokens"] == [None, 1]
    assert info["players"][0]["hand"] is None and info["players"][1]["hand"] == ["P"]
    own = summary(SMALL, "loyal:2-1-1 loyal:? deal:?=2 deal:?")
    assert own["legal_moves"] == ["file:?=2>1", "file:?=2>2", "file:?=2>3"]


@pytest.mark.parametrize("record,message", [
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:1>1",
     "token 5 `file:1>1`: P1 has no `1` in hand"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 draw:1",
     "token 6 `draw:1`: expected P1's counter move (`counter:A`, A one of 1, 2, 3)"),
    ("loyal:2-1-1 loyal:1-2-2", "token 2 `loyal:1-2-2`: the tokens are 1,1,2, each used once"),
    ("loyal:2-1", "token 1 `loyal:2-1`: a loyalty assignment names 3 tokens, one per agent"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:P>1 counter:2",
     "token 9 `counter:2`: expected the delivery of agent 1: `deliver:1:2-1:?=2|P>P1`"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:P>1 "
     "deliver:1:2-1:?=2|P>P2", "token 9 `deliver:1:2-1:?=2|P>P2`: the delivery is "
                               "`deliver:1:2-1:?=2|P>P1`"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>4",
     "token 5 `file:?=2>4`: agent 4 does not exist (agents 1..3)"),
    ("loyal:2-1-1 x", "token 2 `x`: not a token"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:0/7=7>1",
     "token 5 `file:0/7=7>1`: there is no `0/7=7` in the deck (1,P,?=2)"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:2 draw:1 file:?=2>1",
     "token 8 `file:?=2>1`: P2 has no `?=2` in hand"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:?=2>1",
     "token 8 `file:?=2>1`: P2 has no `?=2` in hand"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2,1 deal:P", "token 3 `deal:?=2,1`: a first hand has 1 card"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P up:?=2",
     "token 5 `up:?=2`: with faceup=stuck a ? card goes face up only when no card can go face "
     "down"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P up:1", "only a ? card can be played face up"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:?=2",
     "token 7 `draw:?=2`: P1's draw pile holds no `?=2`"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:P>1 "
     "deliver:2:2-1:?=2|P>P1", "the delivery is `deliver:1:2-1:?=2|P>P1`"),
    (RECORD + " file:1>3", "token 14 `file:1>3`: the game is over after token 13"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 counter:1",
     "token 7 `counter:1`: expected P1's draw (`draw:C`)"),
    ("loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 draw:1 file:P>1 "
     "deliver:1:2-1:?=2|P>P1 counter:1", "agent 1 has already delivered"),
    ("loyal:2-1-1 loyal:1-2-1 deal:? deal:P", "token 3 `deal:?`: `?` hides a card or token only "
                                              "in a player's view"),
    # views
    ("loyal:? loyal:1-2-1 deal:? deal:P file:?=2>1",
     "token 5 `file:?=2>1`: P2 cannot see the face of P1's card: write `file:?=?>1`"),
    ("loyal:? loyal:1-2-1 deal:?=2 deal:P", "token 3 `deal:?=2`: P2 cannot see P1's first hand: "
                                            "write `deal:?`"),
    ("loyal:? loyal:1-2-1 deal:? deal:?", "token 4 `deal:?`: in P2's view P2's own first hand "
                                          "is written out"),
    ("loyal:2-1-1 loyal:? deal:?=2 deal:? file:?=2>1 counter:1 draw:1 file:?=?>1",
     "token 8 `file:?=?>1`: impossible after the earlier tokens (possible: `file:1>1`"),
    ("loyal:? loyal:1-2-1 deal:? deal:P file:?=?>1 counter:1 draw:? file:P>1 "
     "deliver:1:3-1:?=2|P>P1", "token 9 `deliver:1:3-1:?=2|P>P1`: P1's token under agent 1 "
                               "cannot be 3: P1's tokens are 1,1,2, each under one agent"),
    ("loyal:? loyal:1-2-1 deal:? deal:P file:?=?>1 counter:1 draw:? file:P>1 "
     "deliver:1:2-2:?=2|P>P1", "should be written `deliver:1:2-1:?=2|P>P1`"),
])
def test_bad_records_are_refused_with_the_token_and_the_reason(record, message):
    with pytest.raises(RecordError) as exc:
        summary(SMALL, record)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("preset,seeds", [("tiny", 30), ("small", 30), ("medium", 20),
                                          ("standard", 2)])
def test_random_records_round_trip_through_views(preset, seeds):
    v = make_variant(preset)
    game = make_game(GAME, preset)
    for seed in range(seeds):
        actions = random_playout(v, seed)
        record = format_record(v, actions)
        assert record_to_actions(v, record) == actions
        assert replay(v, record).record == record
        state = game.new_initial_state()
        for a in actions:
            state = state.child(a)
        for seat in (0, 1):
            view = view_of(v, record, seat)
            assert view == state.information_state(seat)
            assert replay(v, view).record == view


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(0, 40))
def test_partial_records_round_trip(seed, cut):
    actions = random_playout(SMALL, seed)[:cut]
    record = format_record(SMALL, actions)
    assert record_to_actions(SMALL, record) == actions
    for seat in (0, 1):
        key, info = view_key(SMALL, view_of(SMALL, record, seat), seat)
        assert key == view_of(SMALL, record, seat)
        assert info["consistent_positions"] >= 1


@pytest.mark.slow
def test_every_infoset_of_the_tree_is_a_view_that_replays():
    tree = build_tree(make_game(GAME, "tiny"))
    keys, labels = tree_labels(tree)
    v = make_variant("tiny")
    for i, key in enumerate(keys):
        seat = int(tree.infoset_seat[i])
        got, info = view_key(v, key, seat)
        assert got == key
        assert info["to_move"] == ("P1", "P2")[int(tree.infoset_player[i])]
        if info["legal_moves"] is not None:
            assert info["legal_moves"] == labels[i]


# --- commands ------------------------------------------------------------------------------


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def test_record_check_text_json_and_file(tmp_path):
    r = run("record", "check", GAME, "--preset", "small", RECORD)
    assert r.exit_code == 0, r.output
    assert "game over: P1 wins" in r.output and "agent 1: delivered to P1" in r.output
    r = run("record", "check", GAME, "--preset", "small", "--json", P2_VIEW)
    d = json.loads(r.output)
    assert d["valid"] and d["view"] == "P2" and d["payoff"] == [1.0, -1.0]
    path = tmp_path / "records.txt"
    path.write_text(RECORD + "\nloyal:2-1-1 loyal:1-2-2\n" + P1_VIEW + "\n")
    r = run("record", "check", GAME, "--preset", "small", "--file", str(path))
    assert r.exit_code == 1
    lines = [json.loads(x) for x in r.output.splitlines()]
    assert [x["valid"] for x in lines] == [True, False, True]
    assert lines[1]["error"].startswith("token 2 `loyal:1-2-2`")
    r = run("record", "check", GAME, "--agents", "3", "--loyalty", "1,1,2", "--deck", "1,P,?=2",
            "--hand", "1", "--threshold", "2", "--neighbour-threshold", "1", "--counters", "1",
            "--json", RECORD)
    assert json.loads(r.output)["valid"]


def test_bad_input_is_one_line_and_exit_code_2():
    code, out, err = spycfr("record", "check", GAME, "--preset", "small", "loyal:2-1-1 loyal:1-2-2")
    assert code == 2 and err.strip() == ("error: token 2 `loyal:1-2-2`: the tokens are 1,1,2, each "
                                         "used once")
    code, out, err = spycfr("info", GAME, "--agents", "7")
    assert code == 2 and err.strip() == "error: agents=7 is not allowed: an integer 2..6"
    code, out, err = spycfr("info", GAME, "--deck", "1,9")
    assert code == 2 and "deck='1,9' is not allowed: '9' is not a card" in err
    code, out, err = spycfr("info", GAME, "--preset", "standard")
    assert code == 2 and "os-mccfr" in err and err.count("\n") == 1


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("adda") / "tiny"
    r = run("solve", GAME, "--preset", "tiny", "--target-exploitability", "1e-4", "-o", str(out))
    assert r.exit_code == 0, r.output
    return out


def test_query_a_view_of_a_solved_run(tiny_run):
    r = run("query", str(tiny_run), "--as", "P2", "loyal:?", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    moves = {m["move"]: m for m in d["moves"]}
    assert set(moves) == {"loyal:1-2", "loyal:2-1"}
    assert abs(sum(m["probability"] for m in d["moves"]) - 1) < 1e-9
    r = run("query", str(tiny_run), "--as", "P1", "loyal:1-2 loyal:? deal:1 deal:?")
    assert r.exit_code == 0, r.output
    assert "file:1>1" in r.output


def test_openings_of_a_solved_run(tiny_run):
    r = run("openings", str(tiny_run), "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    text = json.dumps(d)
    assert "loyal:1-2" in text and "loyal:2-1" in text
    assert PLUGIN.openings.group("loyal:1-2-2") == "2 on agents 2,3"


def test_report_sections_of_a_solved_run(tiny_run):
    r = run("report", str(tiny_run), "-o", str(tiny_run / "report.md"))
    assert r.exit_code == 0, r.output
    text = (tiny_run / "report.md").read_text()
    for heading in ("What is assumed", "How loyalty is spread", "Which agents are contested",
                    "What the first move is worth", "How much the assumed counter starts matter"):
        assert heading in text
    assert "**assumptions**" in text
    for fig in ("loyalty.png", "agents.png"):
        assert (tiny_run / "report_files" / fig).stat().st_size > 1000


def test_games_summary_says_what_is_assumed():
    r = run("games")
    assert r.exit_code == 0
    line = next(x for x in r.output.splitlines() if x.startswith(GAME))
    assert "ASSUMED" in line
    assert "--neighbour-threshold" in r.output and "preset medium" in r.output


def test_views_of_standard_follow_hidden_hands():
    v = make_variant("standard")
    record = format_record(v, random_playout(v, np.random.default_rng(5), 40))
    view = view_of(v, record, 1)
    info = summary(v, view)
    assert info["view"] == "P2" and info["consistent_positions"] >= 1
