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
