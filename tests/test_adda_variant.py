"""Agent Double Double Agent variants: defaults, presets, and one-line refusals that name the
parameter, the value and what is allowed."""

from __future__ import annotations

import pytest

from spycfr.errors import VariantError
from spycfr.games import get_plugin, make_variant
from spycfr.games.agent_double_double_agent.variant import (
    PARAMETERS,
    PRESETS,
    STANDARD_DECK,
    Variant,
    variant_words,
)

GAME = "agent-double-double-agent"


def test_every_parameter_is_an_option_and_every_preset_is_valid():
    plugin = get_plugin(GAME)
    assert [p.name for p in plugin.parameters] == list(PARAMETERS)
    assert {p.flag for p in plugin.parameters} >= {"--agents", "--deck", "--neighbour-threshold",
                                                   "--plus-one"}
    for preset in PRESETS:
        v = make_variant(GAME, preset)
        assert Variant(**v.as_dict()) == v  # as_dict round-trips (run directories rely on it)
        assert make_variant(GAME, None, v.as_dict()) == v


def test_defaults_follow_the_number_of_agents():
    v = make_variant(GAME, None, {"agents": "3"})
    assert v.loyalty == "1,2,3" and v.start == "121" and v.neighbour_threshold == 3
    v = make_variant(GAME, None, {"agents": "4", "threshold": "3"})
    assert v.loyalty == "1,2,3,4" and v.start == "1212" and v.neighbour_threshold == 2
    assert make_variant(GAME, "standard").deck == Variant(deck=STANDARD_DECK).deck


def test_cli_strings_are_accepted_and_canonicalised():
    v = make_variant(GAME, None, {"agents": "3", "loyalty": "3-1-2", "deck": "2,1,1, ?=3",
                                  "hand": "2", "plus_one": "3,1", "faceup": "Always",
                                  "payoff": "MARGIN", "track": "6", "start": "212"})
    assert v.loyalty == "3,1,2" and v.deck == "1*2,2,?=3" and v.plus_one == "1,3"
    assert v.faceup == "always" and v.payoff == "margin" and v.track == 6
    assert v.start_space(0) == 3 and v.start_space(1) == 2  # inner spaces of a 6-space track


@pytest.mark.parametrize("params,message", [
    ({"agents": "7"}, "agents=7 is not allowed: an integer 2..6"),
    ({"agents": "x"}, "agents='x' is not allowed: an integer"),
    ({"loyalty": "1,2,3"}, "loyalty='1,2,3' is not allowed: 6 tokens, one per agent (agents=6), "
                           "got 3"),
    ({"loyalty": "1,2,2,3,4,10"}, "loyalty='1,2,2,3,4,10' is not allowed: 6 tokens 0..9"),
    ({"deck": "1,8"}, "deck='1,8' is not allowed: '8' is not a card (cards 0..7, P, 0/7=0, "
                      "0/7=7, ?=0..?=7, each optionally *N)"),
    ({"deck": "1*31"}, "deck='1*31' is not allowed: 1..30 cards (got 31)"),
    ({"deck": "0,P,1,2,3"}, "deck='0,P,1,2,3' is not allowed: a simple 0 and Personal Files (P) "
                            "would share the back `0`"),
    ({"deck": "1,2", "hand": "3"}, "hand=3 is not allowed: at most the deck's 2 cards"),
    ({"hand": "9"}, "hand=9 is not allowed: an integer 1..8"),
    ({"threshold": "1"}, "threshold=1 is not allowed: an integer 2..8"),
    ({"neighbour_threshold": "5"}, "neighbour_threshold=5 is not allowed with threshold=4: an "
                                   "integer 1..4"),
    ({"track": "5"}, "track=5 is not allowed: an even integer 2..8"),
    ({"track": "10"}, "track=10 is not allowed: an integer 2..8"),
    ({"start": "12"}, "start='12' is not allowed: 6 digits 1 or 2, one per agent (e.g. 121212)"),
    ({"start": "123123"}, "start='123123' is not allowed"),
    ({"counters": "7"}, "counters=7 is not allowed: an integer 0..6"),
    ({"plus_one": "7"}, "plus_one='7' is not allowed: distinct agents 1..6 separated by commas, "
                        "or none"),
    ({"plus_one": "2,2"}, "plus_one='2,2' is not allowed"),
    ({"faceup": "never"}, "faceup='never' is not allowed: one of stuck, always"),
    ({"payoff": "vp"}, "payoff='vp' is not allowed: one of win, margin"),
    ({"deck": "0,1,2,3,4,5,6,7,0/7=0,0/7=7,?=0,?=1,?=2,?=3,?=4,?=5,?=6,?=7", "hand": "8"},
     "possible first hands (at most 20,000)"),
    ({"cards": "3"}, "unknown parameter 'cards' for agent-double-double-agent; parameters: "
                     "agents, loyalty"),
])
def test_bad_parameters_are_refused_in_one_line(params, message):
    with pytest.raises(VariantError) as exc:
        make_variant(GAME, None, params)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_unknown_preset():
    with pytest.raises(VariantError, match="unknown preset 'huge' for agent-double-double-agent; "
                                           "presets: tiny, small, medium, standard"):
        make_variant(GAME, "huge")


def test_words_say_what_is_assumed():
    words = variant_words(make_variant(GAME, "standard").as_dict())
    assert "Assumed (not in the rulebook)" in words and "22-card deck" in words
    assert ("counters' starting sides (agents 1, 3, 5 on P1's side, agents 2, 4, 6 on P2's "
            "side, each on its inner space)") in words
    words = variant_words(make_variant(GAME, "tiny").as_dict())
    assert "a reduced deck" in words and "first turn" in words


def test_a_deck_without_a_question_card_assumes_nothing_of_it():
    """tiny's deck (1, 0/7=0, 0/7=7) has no ? card, yet its report listed as an assumption
    'no action texts: a ? card played face up has no effect', and its cards ended '=? a face
    you cannot see' (a view writes 0/7=?). The committed reports say what the code now
    writes."""
    from pathlib import Path

    from spycfr.games.agent_double_double_agent.variant import assumptions, card_words

    tiny, small = (make_variant(GAME, p).as_dict() for p in ("tiny", "small"))
    assert not any("? card" in a for a in assumptions(tiny))
    assert any(a.startswith("no action texts: a ? card played face up") for a in
               assumptions(small))
    assert card_words(tiny["deck"]).endswith("(its back shows 0/7); 0/7=? a face you cannot see")
    assert card_words(small["deck"]).endswith("(its back shows ?); ?=? a face you cannot see")
    results = Path(__file__).resolve().parent.parent / "results" / "agent-double-double-agent"
    for name, variant in (("tiny", tiny), ("small", small)):
        report = (results / name / "report.md").read_text()
        assert f"| game | Agent Double Double Agent: {variant_words(variant)} |" in report
        assert "=? a face" not in report.replace("0/7=? a face", "").replace("?=? a face", "")
    assert "a ? card played face up" not in (results / "tiny" / "report.md").read_text()


def test_the_cards_and_the_variant_are_said_in_words_where_a_position_is_shown():
    """The card ``?=2`` read like the hidden mark ``?`` and the position's head was the
    parameters as typed ('agent-double-double-agent  agents=3 loyalty=1,1,2 deck=1,P,?=2 ...
    start=121 ...'): the head now says the variant in words and what each card of its deck
    is, and the report's words say where the counters start by agent."""
    from spycfr.games.agent_double_double_agent.position import position_lines, summary
    from spycfr.games.agent_double_double_agent.variant import card_words

    small = make_variant(GAME, "small")
    lines = position_lines(summary(small, "loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P"), small)
    record = next(i for i, x in enumerate(lines) if x.startswith("record:"))
    head = " ".join(" ".join(lines[:record]).split())  # its lines wrapped at 100
    assert head.startswith("Agent Double Double Agent: 3 agents (loyalty tokens 1,1,2), deck "
                           "1,P,?=2 per player, hand 1; an agent delivers at 2 cards")
    assert "cards: 1 worth its number; P Personal Files" in head
    assert "?=2 worth 2 (its back shows ?)" in head and "agents=3" not in head
    assert card_words(make_variant(GAME, "standard").deck) == (
        "1..7 worth their number; P Personal Files (worth 0, +1 loyalty to its owner); 0/7=0, "
        "0/7=7 worth 0 or 7 (its back shows 0/7); ?=1..?=4 worth 1..4 (its back shows ?); 0/7=?, "
        "?=? each a face you cannot see")
    # a deck whose numbers skip is listed, not a run naming cards it lacks (1..7 for 1,3,7)
    assert card_words("1,3,7") == "1, 3, 7 worth their number"
    assert card_words("?=1,?=4").startswith("?=1, ?=4 worth 1, 4 (its back shows ?)")
    assert card_words("1,0/7=0").startswith("1 worth its number; 0/7=0 worth 0 (its back")
    words = variant_words(small.as_dict())
    assert "counters start with agents 1, 3 on P1's side, agent 2 on P2's side" in words
    assert "sides 121" not in words and "Cards: 1 worth its number;" in words
