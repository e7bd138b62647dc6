"""Words the terminal commands show players: plain, and true of the position they describe."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import spycfr

RESULTS = Path(__file__).resolve().parent.parent / "results"


def test_a_rare_positions_tie_tolerance_is_not_said_to_be_for_a_frequent_one():
    """`spycfr query` said its tie tolerance was "what the exploitability allows at a
    position this frequent" of a position reached in 0.03% of games (the next lines call it
    rare), and its '~' note read "more than the run's precision where a position is
    frequent (0.00019) below the best"."""
    code, out, _ = spycfr("query", str(RESULTS / "mini"), "--seat", "P2",
                          "place:? place:2-0 house:1=1>1:lo+hand")
    text = " ".join(out.split())
    assert code == 0 and "arises in 0.0294% of games" in text
    assert "this frequent" not in text
    assert "what the exploitability allows at a position reached this often" in text
    assert ("'~': within that, but more than 0.00019 (the run's precision at a frequent "
            "position) below the best, so not ranked") in text


def test_an_agent_avenue_review_names_the_hand_the_opponent_likely_held():
    """Agent Avenue's held states are the seat's view less the other's (no private_state
    hook): a token hiding the other's part and showing its own was dropped for its '?', so
    the deal, the seat's hand, never showed and `spycfr review` on results/agent-avenue/mini
    said P2 "likely held nothing hidden (100%)" with three cards in its hand."""
    from spycfr.analysis.views import default_private

    assert default_private("deal:?|EN.CB.DD swap:?>? play:EN/CB",
                           "deal:DA.CB.DD|? swap:DA>DA play:EN/?".split()) == (
        "deal:?|EN.CB.DD play:EN/CB")  # its hand and its play; not the other's swap
    assert default_private("place:? place:1-0 switch:1=4>6@2",
                           "place:2-1 place:? switch:1=4>?@2".split()) == (
        "place:1-0 switch:1=4>6@2")
    record = ("deal:DA.CB.DD|EN.CB.DD swap:DA>DA swap:DA>EN play:EN/CB take:up=CB play:EN/DD "
              "take:up=DD")
    code, out, _ = spycfr("review", str(RESULTS / "agent-avenue" / "mini"), "--seat", "P1",
                          record)
    assert code == 0 and "nothing hidden" not in out, out
    assert "P2 then likely held hand " in out, out  # the game's views name the hand


def test_an_agent_avenue_position_shows_hands_recruits_and_discards_as_a_player_reads_them():
    """`spycfr record check` (and play's board, query's position) wrote Agent Avenue's
    position as 'turns played: 1   gap: P2's meeple is 4 spaces ahead ... deck: 0' on one
    line of 150 characters and each seat's cards as 'DDx1 (1 card)   in play: CBx1   discards
    left: 0   discarded: 2': now the turn and the deck, the gap, and per seat its hand,
    its recruits and its discards, cards written as laid out."""
    code, out, err = spycfr("record", "check", "agent-avenue", "--preset", "mini",
                            "deal:EN.CB.DD|DA.CB.DD swap:EN>EN swap:EN>DA play:DA/CB "
                            "take:up=CB play:DA/DD take:up=DD")
    assert code == 0, err
    lines = out.splitlines()
    assert "turns played: 2   deck: 0 cards left" in lines
    assert any(x.startswith("gap: P2's meeple is 7 spaces ahead of P1's") for x in lines)
    assert "P1  hand: DD (1 card)   recruited: DA CB   discards: 0 left, 2 made" in lines, out
    assert "P2  hand: CB (1 card)   recruited: DA DD   discards: 2 left, 0 made" in lines, out
    assert "x1" not in out and max(len(x) for x in lines[2:]) <= 130


def test_the_run_header_counts_iterations_in_words():
    """`spycfr query` and `openings` headed their output 'cfr+ x21800': a multiplication to
    the eye; they now say 'cfr+, 21,800 iterations'."""
    code, out, err = spycfr("query", str(RESULTS / "mini"), "--seat", "P1")
    assert code == 0, err
    assert ": cfr+, 21,800 iterations, value(P1) +0.00000" in out.splitlines()[0], out
    assert " x21800" not in out
