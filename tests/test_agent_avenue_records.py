"""Agent Avenue records: the spec's notation, views, games in progress, illegal records,
and the CLI (`spycfr record check agent-avenue`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr.errors import RecordError
from spycfr.games.agent_avenue import rules as R
from spycfr.games.agent_avenue.position import summary
from spycfr.games.agent_avenue.record import (
    format_record,
    random_playout,
    record_to_actions,
    replay,
    replay_view,
)
from spycfr.games.agent_avenue.variant import make_variant

TINY = make_variant("tiny")
MINI = make_variant("mini")
FULL = make_variant()
FULL_ADVANCED = make_variant("advanced")


@pytest.mark.slow
@pytest.mark.parametrize("variant", [TINY, MINI, FULL], ids=["tiny", "mini", "full"])
def test_random_records_round_trip(variant):
    rng = np.random.default_rng(5)
    for _ in range(40 if variant is not FULL else 15):
        actions = random_playout(variant, rng, max_tokens=int(rng.integers(1, 30)))
        full = format_record(variant, actions)
        rep = replay(variant, full)
        assert rep.actions == actions and rep.record == full
        for p in (0, 1):
            view = format_record(variant, actions, p)
            seen = replay_view(variant, view, p)
            assert seen.record == view
            # The true state is among those consistent with the view.
            assert any(np.array_equal(c, rep.state) for c in seen.candidates)


def test_spec_notation():
    full = "deal:EN.CB.DD.SE|DA.EN.CB.CB swap:DD>CB play:EN/CB draw:DA.SE take:up=CB"
    rep = replay(FULL, full)
    assert rep.record == full
    s = rep.state
    en, cb = FULL.names.index("EN"), FULL.names.index("CB")
    assert s[R.PLAY + 8 + en] == 1 and s[R.PLAY + cb] == 1  # P2 took EN up, P1 recruits CB
    assert s[R.DLEFT] == 3 and s[R.HANDSIZE] == 4 and s[R.ACTIVE] == 1
    assert replay(FULL, "deal:EN.CB.DD.SE|? swap:DD>CB play:EN/CB draw:DA.SE take:up=CB"
                  ).viewer == 0
    p2 = replay(FULL, "deal:?|DA.EN.CB.CB swap:?>? play:EN/? draw:?.? take:up=CB")
    assert p2.viewer == 1 and len(p2.candidates) > 1
    # Lower case and any order of a hand are accepted; output is canonical.
    assert replay(FULL, "deal:se.dd.cb.en|DA.EN.CB.CB").record == (
        "deal:EN.CB.DD.SE|DA.EN.CB.CB")


def test_games_in_progress_and_pending_swap():
    rep = replay(FULL, "deal:EN.CB.DD.SE|DA.EN.CB.CB swap:DD")
    assert int(rep.state[R.PHASE]) == R.PH_SWAP_DRAW and rep.record.endswith("swap:DD")
    info = summary(FULL, "deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/CB draw:DA.SE")
    assert info["to_move"] == "P2" and info["legal_moves"] == ["take:up", "take:down"]
    assert info["shown"] == {"up": "EN", "down": "CB"}
    # take without the card: filled in from the play in a full record.
    assert replay(FULL, "deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/CB draw:DA.SE take:down"
                  ).tokens[-1] == "take:down=CB"
    view = summary(FULL, "deal:?|DA.EN.CB.CB play:EN/? draw:?.?")
    assert view["shown"] == {"up": "EN", "down": None} and view["players"][0]["hand"] is None


@pytest.mark.parametrize("record,needle", [
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/EN", "token 2 `play:EN/EN`: the two cards must"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB play:DA/CB", "token 2 `play:DA/CB`: P1 cannot play"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB take:up=CB", "token 2 `take:up=CB`: expected swap or play"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/CB take:up", "expected draw"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/CB draw:DA",
     "token 3 `draw:DA`: P1 draws 2 cards here, the token names 1: write 2 cards"),
    ("deal:?|DA.EN.CB.CB play:EN/? draw:?.?.?", "P1 draws 2 cards here, the token names 3"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/CB draw:DA.SE take:up=DD", "face-down card was"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB swap:DD play:EN/CB", "token 2 `swap:DD`: a swap is "),
    ("deal:EN.CB.DD.XX|DA.EN.CB.CB", "XX is not an agent code"),
    # a hand too many or too few: said as such (it blamed the deck)
    ("deal:EN.CB.DD|DA.EN.CB.CB", "token 1 `deal:EN.CB.DD|DA.EN.CB.CB`: a hand is 4 cards "
     "here, the token gives P1 3: write 4 cards a side"),
    ("deal:EN.CB.DD.SE|DA.EN.CB.CB.SE", "the token gives P2 5"),
    ("deal:EN.CB.DD|?", "a hand is 4 cards here, the token gives P1 3"),
    ("deal:EN.CB.DD.SE|? play:EN/?", "only the player who plays sees the face-down card"),
    ("hello", "token 1 `hello`: not a token"),
    ("deal:SK.SK.EN.EN|DA.EN.CB.CB", "the deck cannot give that"),
])
def test_illegal_records_name_the_token(record, needle):
    with pytest.raises(RecordError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        replay(FULL, record)


@pytest.mark.parametrize("record", ["deal:EN.CB.DD.SE|?",
                                    "deal:EN.CB.DD.SE|DA.EN.CB.CB play:EN/? draw:?.?"])
def test_a_full_records_hidden_card_says_full_records_show_every_card(record):
    """A view where a whole record is needed (spycfr review): the hidden card is named as
    such, as Agent Hunter's records say it (it said 'P2 sees its own hand')."""
    with pytest.raises(RecordError, match="only allowed in a player's view; a full record "
                                          "shows every card"):
        record_to_actions(FULL, record)


@pytest.mark.parametrize("card, what", [("XX", "an agent code"),
                                        ("SK", "in this variant's deck")])
def test_an_unknown_card_lists_the_variants_cards(card, what):
    """mini deals four names: the error lists those, not the game's eight."""
    with pytest.raises(RecordError) as caught:
        replay(MINI, f"deal:EN.CB.{card}|DA.EN.CB")
    assert str(caught.value).endswith(
        f"{card} is not {what} (this variant's cards: DA,EN,CB,DD)")


def test_no_discard_once_the_allowance_is_spent():
    v = make_variant(None, {"names": "EN,CB,DD", "copies": 3, "hand": 2, "discards": 1,
                            "board": 8})  # one discard each
    acts = record_to_actions(v, "deal:EN.CB|CB.DD swap:EN>DD")
    with pytest.raises(RecordError, match="no discards left"):
        replay(v, format_record(v, acts) + " swap:DD>EN")


def test_cli_record_check_json_and_errors(tmp_path):
    code, out, err = spycfr("record", "check", "agent-avenue", "--preset", "tiny", "--json",
                            "deal:EN.CB|CB.DD play:EN/CB draw:EN.DD take:up=CB")
    assert code == 0, err
    info = json.loads(out)
    for key in ("valid", "error", "terminal", "turns", "payoff", "to_move", "legal_moves", "gap",
                "deck_size", "players"):
        assert key in info
    assert info["valid"] and info["turns"] == 1 and info["deck_size"] == 0
    assert info["players"][0]["in_play"] == {"CB": 1} and info["players"][1]["hand_size"] == 2
    code, out, err = spycfr("record", "check", "agent-avenue", "--preset", "tiny",
                            "deal:EN.CB|CB.DD play:EN/EN")
    assert code == 2 and err.startswith("error: token 2 `play:EN/EN`") and "Traceback" not in err
    rng = np.random.default_rng(2)
    lines = [format_record(TINY, random_playout(TINY, rng)) for _ in range(50)] + ["nonsense"]
    path = tmp_path / "records.txt"
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = spycfr("record", "check", "agent-avenue", "--preset", "tiny", "--file",
                          str(path))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and len(results) == 51
    assert all(r["valid"] for r in results[:50]) and not results[50]["valid"]
    assert all(r["terminal"] for r in results[:50])
    assert set(results[50]) >= {"valid", "error", "line"}


@pytest.mark.slow
def test_a_view_reads_one_row_of_a_sampled_run(tmp_path):
    """query on a run sampled in the abstraction: every full state consistent with a view has
    the same abstraction key (so one state stands for the view), and the CLI answers from it;
    a record that stops before a draw is refused in one line."""
    from spycfr.cfr.mccfr_kernels import state_abstraction_key

    view = "deal:?|EN.CB.DD.SA play:DA/? draw:?.?"
    rep = replay_view(FULL, view, 1)
    assert len(rep.candidates) > 1
    params = FULL.to_params()
    keys = {int(state_abstraction_key(s, params, np.int64(1))) for s in rep.candidates}
    assert len(keys) == 1
    run = tmp_path / "aa"
    code, out, err = spycfr("solve", "agent-avenue", "--preset", "standard", "--algorithm",
                            "es-mccfr", "--abstraction", "--fallback", "heuristic",
                            "--store-depth", "2", "--iterations", "300", "-o", str(run), "-q")
    assert code == 0, err
    code, out, err = spycfr("query", str(run), "--as", "P2", view, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert [m["move"] for m in sorted(answer["moves"], key=lambda m: m["move"])] == [
        "take:down", "take:up"]
    assert sum(m["probability"] for m in answer["moves"]) == pytest.approx(1.0)
    assert "information abstraction" in answer["source"]
    code, out, err = spycfr("query", str(run), "--as", "P2", "deal:?|EN.CB.DD.SA play:DA/?")
    assert code != 0 and "a deal or draw (chance) comes next" in err and "None" not in err


def test_the_position_line_reads_the_gap_the_other_way_only_before_a_catch():
    from spycfr.games.agent_avenue import PLUGIN
    from spycfr.games.agent_avenue.position import position_lines, summary

    variant = PLUGIN.make_variant("standard", None)
    info = summary(variant, "deal:EN.CB.DD.SE|DA.EN.CB.CB swap:DD>CB play:EN/CB")
    board = variant.board
    info["gap"] = 5
    # the catches measured by the gap, its number given (it read "P1 catches at 0, P2 at
    # 14", two numbers with nothing to measure them by)
    assert (f"({board - 5} the other way; P1 catches when the gap of 5 falls to 0, P2 when it "
            f"reaches {board})") in "\n".join(position_lines(info, variant))
    for caught, past in ((0, ""), (board, ""), (board + 2, ": 2 spaces past it"),
                         (-1, ": 1 space past it")):  # a catch: no distance "the other way"
        info["gap"] = caught
        text = "\n".join(position_lines(info, variant))
        who = "P1's meeple has reached P2's" if caught <= 0 else "P2's meeple has reached P1's"
        assert "the other way" not in text and "spaces ahead" not in text
        assert f"gap: {who} (gap {caught}{past}, not a catch yet: the End step judges" in text
    info["gap"] = 1
    assert "P2's meeple is 1 space ahead of P1's (" in "\n".join(position_lines(info, variant))


def test_a_gap_past_the_board_says_how_far_past_the_catch():
    """The gap is counted along the chase (the spec's g), not round the loop: a turn's moves
    can carry it past the catch. Here (standard, board 14) P2's third Sentinel (+6) takes
    the gap from 11 to 17 and P1's Mole (-3) to 20, which the line wrote "gap 20" on a
    14-space board with nothing to read it by: P2's meeple has come round to P1's (14) and
    gone 6 spaces beyond, a catch (the rulebook: reaching or exceeding its position)."""
    from spycfr.games.agent_avenue import PLUGIN
    from spycfr.games.agent_avenue.position import position_lines, summary

    variant = PLUGIN.make_variant("standard", None)
    record = ("deal:SA.SE.SE.MO|DA.SA.SE.SE play:SE/SA draw:SA.DD take:up=SA play:SA/SE "
              "draw:EN.CB take:up=SE play:MO/SE draw:DA.SE take:down=SE")
    info = summary(variant, record)
    text = "\n".join(position_lines(info, variant))
    assert info["terminal"] and info["gap"] == 20
    assert ("gap: P2's meeple has caught P1's (gap 20: 6 spaces past it; P1 catches when the "
            "gap falls to 0, P2 when it reaches 14)") in text
    assert "game over: P2 wins (P2 caught P1's meeple)" in text


# Agent Avenue advanced: P2, active, recruits the Sidekick and reaches P1's meeple on space
# 12 (gap 14), a black market space for both; P2 takes Security System first (the active
# player resolves first), then P1 takes: the turn's End step comes after both.
REACHED = ("deal:SA.SA.SA.SE|DA.CB.SA.SK market:MASTERPLAN.SECURITY.SPYCATION swap:SE>EN "
           "play:SA/EN draw:DD.DD take:down=EN swap:CB>CB play:SA/SK draw:EN.CB take:up=SK "
           "bm:P2=SECURITY>TRUCK")


def test_a_meeple_reached_before_the_end_step_is_not_yet_caught():
    """Only the End step catches (rulebook: "you can win the game only during the End step";
    a meeple that escapes forward in the same turn is not caught), and in advanced mode the
    black market resolves before it: `spycfr play results/agent-avenue/advanced --seed 7`
    said "P2's meeple has caught P1's" with a take pending, and the game went on. Here P1
    still takes: Surveillance Truck moves it 1 forward, out of reach, and the game goes on;
    Masterplan moves nothing, and the End step's catch ends the game."""
    from spycfr.games.agent_avenue.position import position_lines

    def line(record: str) -> tuple[str, dict]:
        info = summary(FULL_ADVANCED, record)
        return "\n".join(position_lines(info, FULL_ADVANCED)), info

    text, info = line(REACHED)
    assert not info["terminal"] and "P1 to move (black market take)" in text
    assert ("gap: P2's meeple has reached P1's (gap 14, not a catch yet: the End step judges "
            "it after the black market resolves; P1 catches when the gap falls to 0, P2 when it "
            "reaches 14)") in text
    assert "caught" not in text
    text, info = line(REACHED + " bm:P1=TRUCK>DEVICE truck:+1")  # P1 escapes forward
    assert not info["terminal"] and info["gap"] == 13
    assert "gap: P2's meeple is 13 spaces ahead of P1's (1 the other way;" in text
    text, info = line(REACHED + " bm:P1=MASTERPLAN>DEVICE")  # the End step catches
    assert info["terminal"] and "game over: P2 wins (P2 caught P1's meeple)" in text
    assert ("gap: P2's meeple has caught P1's (gap 14; P1 catches when the gap falls to 0, P2 "
            "when it reaches 14)") in text


def test_a_view_that_stops_before_the_black_market_says_how_to_give_it():
    """Advanced mode deals the black market's supply after the deal: a record that stops
    there (`spycfr query DIR --as P1 "deal:CB.CB.DD.SE|?"`) says that the market comes next
    and how to write it, not the generic "a deal or draw"; the example given replays."""
    from spycfr.analysis.query import _view_to_move
    from spycfr.errors import SpycfrError
    from spycfr.games.agent_avenue import PLUGIN
    from spycfr.games.agent_avenue import advanced as A
    from spycfr.games.agent_avenue.position import PHASES, chance_next

    variant = make_variant("advanced")
    with pytest.raises(SpycfrError) as err:
        _view_to_move(PLUGIN.records, variant, "deal:CB.CB.DD.SE|?", 0)
    said = str(err.value)
    assert said.startswith("no player moves after this record: the black market's supply is "
                           "dealt next (advanced mode): give it with a market: token")
    assert "a deal or draw" not in said and said.endswith("give the record up to P1's move, "
                                                          "its cards included")
    example = said.split("e.g. ")[1].split(";")[0]
    _, position, name = _view_to_move(PLUGIN.records, variant, f"deal:CB.CB.DD.SE|? {example}",
                                      0)
    assert name == "P1" and position["to_move"] == "P1"
    assert "bm:P1=" in chance_next(variant, {"phase": PHASES[A.PH_BM_SUPPLY]})
    assert chance_next(variant, {"phase": PHASES[R.PH_REFILL]}) is None
