"""Words the workbench shows players, read through its WSGI application (no browser): the
openings page's columns as `spycfr openings` names them, the browser's count of histories."""

from __future__ import annotations

import html
import re
from pathlib import Path

from test_web_pages import _ask

RESULTS = Path(__file__).resolve().parent.parent / "results"


def _app(*runs: Path):
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    return make_app(discover([str(r) for r in runs]))


def test_the_openings_page_names_its_columns_as_the_command_and_says_what_they_mean():
    """The page's table was headed by the data frame's names (br_value, eq_value), with no
    word of what they mean, its values unsigned and a zero below 0 written "-0.0000", a tie's
    loss a number: it now reads as `spycfr openings` (eq prob, BR value, eq value, loss with
    'tie'), under the command's own explanation of the columns."""
    from spycfr.analysis.openings import columns_note, openings_spec

    code, page = _ask(_app(RESULTS / "mini"), "/openings", "run=mini")
    page = html.unescape(page)
    assert code == 200
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    assert heads.count("BR value") == 2 and heads.count("eq value") == 2  # P1's and P2's
    assert "br_value" not in page and "eq_value" not in page
    assert columns_note(openings_spec("agent-hunter")) in page
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    assert "-0.0000" not in cells
    assert "tie" in cells  # every placement of mini ties (the CLI's table says so)
    assert "+0.0000" in cells  # values are signed


def test_a_treeless_runs_openings_page_names_its_probabilities_and_shows_no_empty_columns():
    """A sampled run's and a search agent's openings have no values and no equilibrium: the
    page headed their probabilities "eq prob" (said to be how often the equilibrium plays
    the move) beside BR value and eq value columns of dashes only; now the probability is
    named as `spycfr openings` names it (avg prob, plan prob) and says what it is, and the
    empty columns are gone."""
    for run, head, who in [("standard-sampled", "avg prob", "the run's average strategy"),
                           ("standard", "plan prob", "the search agent's first plan")]:
        code, page = _ask(_app(RESULTS / "agent-avenue" / run), "/openings", f"run={run}")
        page = html.unescape(page)
        assert code == 200
        heads = set(re.findall(r"<th[^>]*>([^<]*)</th>", page))
        assert head in heads and not heads & {"eq prob", "BR value", "eq value", "loss"}, heads
        assert f"Column {head}: how often {who} plays the first move." in page
        assert "No BR value or eq value here" in page and "Columns: eq prob" not in page


def test_the_browser_counts_one_history_in_the_singular_and_says_what_histories_are():
    code, page = _ask(_app(RESULTS / "tiny"), "/browse", "run=tiny")
    assert code == 200
    assert "1 history (ways the hidden cards and moves" in page
    assert "1 histories" not in page
    code, page = _ask(_app(RESULTS / "tiny"), "/browse", "run=tiny&line=0.0")
    assert code == 200 and re.search(r"\d+ histories \(ways", page)


MINI_GAME = "place:2-1 place:0-1 house:2=1>2:eq>0 hand:2>1:eq house:2=0>1:eq"


def test_a_review_says_what_the_held_states_it_names_mean():
    """The review says what the opponent "then likely held" in Agent Hunter's few
    characters ("[2][0+] hand –"), which nothing on the page or in the terminal explained
    (the + a decoy, x an eliminated house): `spycfr review` prints the legend once above
    the games, the review page under each table that names held states, the notation box
    too."""
    from urllib.parse import urlencode

    from cli_helpers import spycfr
    from spycfr.analysis.views import held_legend
    from spycfr.games import get_plugin

    legend = held_legend(get_plugin("agent-hunter"))
    assert "[2][0+] hand 1" in legend and "x is an eliminated house" in legend
    code, out, _ = spycfr("review", str(RESULTS / "mini"), MINI_GAME)
    assert code == 0 and "likely held [" in out
    assert " ".join(out.split()).count(legend) == 1  # wrapped at 100 columns
    app = _app(RESULTS / "mini")
    code, page = _ask(app, "/review", "run=mini", urlencode({"records": MINI_GAME}).encode())
    page = html.unescape(page)
    assert code == 200 and "likely held [" in page
    assert page.count(f'<p class="note held">{legend}</p>') == 2  # under P1's and P2's table
    code, page = _ask(app, "/browse", "run=mini&line=0.0")
    assert legend[1:] in html.unescape(page)  # the notation box, its first letter capital


def test_a_review_lists_the_ties_in_the_games_order_after_the_moves_that_lost():
    """The review sorted every row by its loss, ties too, whose losses are below the
    tolerance: a game against results/standard's agent listed its tied moves 4, 6, 2, 3, 5,
    7 under the one that lost. The moves that lost come first, the costliest first, then
    the ties in the game's order (the page and `spycfr review`: review.costliest_first)."""
    from spycfr.analysis.review import costliest_first
    from spycfr.web.games import _review_html

    losses = [(0.0, True), (2e-3, True), (0.19, False), (4e-3, True), (0.5, False), (1e-3, True)]
    rows = [{"number": n, "move": f"m{n}", "probability": 0.1, "value": 0.0, "best_value": 0.0,
             "loss": loss, "tie": tie, "words": f"move {n}"}
            for n, (loss, tie) in enumerate(losses, 1)]
    assert [r["number"] for r in costliest_first(rows)] == [5, 3, 1, 2, 4, 6]
    page = _review_html(rows, 0, "")
    assert re.findall(r'<td class="l mv">(m\d)</td>', page) == [
        "m5", "m3", "m1", "m2", "m4", "m6"]


def test_the_index_says_what_exploitability_means():
    """The index's runs were ranked by an "exploitability" column (9.3e-05, or a sentence
    of a local best response's games) with no word of what it is."""
    code, page = _ask(_app(RESULTS / "tiny", RESULTS / "standard"), "/")
    page = html.unescape(page)
    assert code == 200
    runs = page.split("<h2>Runs</h2>")[1]
    assert "exploitability: how far a run's strategy is from perfect play" in runs
    assert "A search agent's is unknown" in runs


def test_agent_avenue_positions_are_drawn_and_its_grid_rows_name_the_hand():
    """Agent Avenue had no views module: the strategy grid named its rows by the seat's view
    ('deal:CB.CB|?'), the play page showed the position's lines and no notation. Its views
    name a row by the seat's hand (and discards, and its face-down card on offer), draw both
    seats' cards and explain the notation."""
    from spycfr.games.agent_avenue.analysis.views import private_state

    app = _app(RESULTS / "agent-avenue" / "tiny")
    code, page = _ask(app, "/browse", "run=tiny&line=0.0")  # the deal made: P1 to move
    page = html.unescape(page)
    rows = re.findall(r'<td class="l priv">([^<]*)</td>', page)
    assert code == 200 and "hand EN CB" in rows and not any("deal:" in r for r in rows), rows
    code, page = _ask(app, "/play", "run=tiny&seat=P1&seed=3")
    page = html.unescape(page)
    assert code == 200 and '<span class="card">EN</span><span class="card">CB</span>' in page
    assert "P2 (opponent)" in page and "<h2>notation</h2>" in page
    info = {"seats": None, "active": "P1", "shown": {"up": "DA", "down": "CB"},
            "players": [{"hand": {"DD": 1}, "discard_pile": {"EN": 2}}, {"hand": None}]}
    assert private_state(info, 0) == "hand DD · discarded EN EN · down CB"
    assert private_state({**info, "seats": [{}]}, 0) is None  # a team's: its view


def test_agent_double_double_agent_positions_are_drawn_and_its_grid_rows_name_the_holdings():
    """Agent Double Double Agent had no views module: the strategy grid named its rows by
    the seat's view tokens ('loyal:2-1 deal:0/7=7 file:0/7=7>2 draw:1', the hand left to
    work out), the play page drew nothing and explained no notation. Its views name a row
    by the seat's loyalty tokens, hand and the faces it filed hidden, draw the agents and
    both hands, and explain the notation."""
    from spycfr.games import make_variant
    from spycfr.games.agent_double_double_agent.analysis.views import private_state
    from spycfr.games.agent_double_double_agent.position import summary

    app = _app(RESULTS / "agent-double-double-agent" / "tiny")
    # both loyalties and both deals made: P1 to file
    code, page = _ask(app, "/browse", "run=tiny&line=0.0.0.0")
    rows = re.findall(r'<td class="l priv">([^<]*)</td>', html.unescape(page))
    assert code == 200 and sorted(rows) == sorted(
        f"loyal {t} · hand {c}" for t in ("1-2", "2-1") for c in ("0/7=0", "0/7=7", "1"))
    code, page = _ask(app, "/browse", "run=tiny&line=0.0.0.0.0")  # P1 filed on agent 1
    rows = re.findall(r'<td class="l priv">([^<]*)</td>', html.unescape(page))
    assert "loyal 2-1 · filed 0/7=7>1" in rows and not any(":" in r for r in rows), rows
    code, page = _ask(app, "/play", "run=tiny&seat=P1&seed=3&m=0")  # dealt: P1 to file
    page = html.unescape(page)
    assert code == 200 and "P2 (opponent)" in page and "<b>agent 2</b>" in page
    assert "counter on space 2 of 4, your side" in page
    assert ('hand: <span class="card" title="0/7=7" style="width:auto;padding:0 4px">0/7=7'
            '</span>') in page
    assert '<span class="card hidden">?</span>' in page  # P2's hand, face down
    assert "<h2>notation</h2>" in page and "<code>counter:3</code>" in page
    small = make_variant("agent-double-double-agent", "small")
    info = summary(small, "loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 "
                          "draw:1")
    assert private_state(info, 0) == "loyal 2-1-1 · hand 1 · filed ?=2>1"
    assert private_state(info, 1) == "loyal 1-2-1 · hand P"
    # a delivery reveals the faces: nothing filed is hidden then
    info = summary(small, "loyal:2-1-1 loyal:1-2-1 deal:?=2 deal:P file:?=2>1 counter:1 "
                          "draw:1 file:P>1 deliver:1:2-1:?=2|P>P1")
    assert private_state(info, 0) == "loyal 2-1-1 · hand 1"
    assert private_state(summary(small, ""), 0) == "nothing hidden"
