"""The workbench's pages through its WSGI application (no server, no browser): which runs
it calls search agents, and the names of entries whose folders end alike."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from cli_helpers import spycfr
from spycfr.analysis.play import COMPLETED
from spycfr.runs.agent_run import is_agent_run
from spycfr.runs.result import RunResult
from spycfr.runs.store import read_run_meta

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
AGENT = RESULTS / "standard"  # Agent Hunter's search agent
SAMPLED = RESULTS / "agent-avenue" / "standard-sampled"  # an MCCFR run without a tree
TREE = RESULTS / "tiny"  # a run with its tree


def test_one_test_of_a_search_agents_run_serves_the_workbench():
    """is_agent_run takes run.json's object as the workbench holds it (sweeps and team runs
    included) as well as a RunResult; every page that says whether a run is a search agent
    asks it (no module of spycfr.web compares the algorithm itself: it did in five places)."""
    from spycfr.web import bench as bench_module
    from spycfr.web import games, pages
    from spycfr.web.bench import PageError, Workbench
    from spycfr.web.catalog import discover

    agent, sampled, tree = (read_run_meta(p) for p in (AGENT, SAMPLED, TREE))
    assert is_agent_run(agent) and is_agent_run(RunResult.from_json(agent))
    assert not is_agent_run(sampled) and not is_agent_run(RunResult.from_json(tree))
    assert not is_agent_run({"game": "agent-hunter", "swept": {}})  # a sweep's sweep.json
    for source in (ROOT / "solver" / "web").glob("*.py"):
        assert not re.search(r"ALGORITHM|re-solving", source.read_text()), source.name

    unmeasured = {"exploitability": None}
    assert "a search agent" in bench_module.fmt_eps({**unmeasured, "algorithm": "re-solving"})
    assert "a sampled run" in bench_module.fmt_eps({**unmeasured, "algorithm": "es-mccfr"})
    assert "a search agent" in pages._nodes(agent)
    assert "a sampled run" in pages._nodes(sampled)
    bench = Workbench(discover([str(AGENT), str(SAMPLED), str(TREE)]))
    for name, words in (("standard", "as the search agent of"),
                        ("tiny", "with the strategy of")):
        assert words in games._header(bench.entry(name), 0, 1)
    note = games.AGENT_REVIEW_NOTE
    assert note in games.review_form(bench, SimpleNamespace(query={"run": "standard"}))
    assert note not in games.review_form(bench, SimpleNamespace(query={"run": "tiny"}))
    with pytest.raises(PageError, match="is a search agent"):
        bench.load("standard")
    with pytest.raises(PageError, match="was sampled without a tree"):
        bench.load("standard-sampled")


def _ask(app, path: str, query: str = "", data: bytes | None = None) -> tuple[int, str]:
    """(status, page) of a request to the WSGI application ``app`` (POST where ``data``)."""
    import io
    from wsgiref.util import setup_testing_defaults

    environ: dict = {"PATH_INFO": path, "QUERY_STRING": query}
    if data is not None:
        environ.update({"REQUEST_METHOD": "POST", "CONTENT_LENGTH": str(len(data)),
                        "CONTENT_TYPE": "application/x-www-form-urlencoded",
                        "wsgi.input": io.BytesIO(data)})
    setup_testing_defaults(environ)
    environ["wsgi.errors"] = io.StringIO()
    said: list[str] = []
    body = b"".join(app(environ, lambda status, headers, *_: said.append(status)))
    return int(said[0].split()[0]), body.decode(errors="replace")


def test_entries_whose_folders_end_alike_are_named_apart_on_every_page(tmp_path):
    """Two runs whose folders are both `tiny` (Agent Hunter's and Agent Avenue's), two team
    runs and two sweeps likewise: each is named by as much of its path as tells it apart
    (the second was 'tiny-2' before, with nothing saying which it was), the index lists
    both with their games, and every page that takes run= shows the entry it names;
    the folder's name alone says which names end with it. A name that was unique keeps
    its URL (the browser tests' `tiny`, `team-tiny`, ...)."""
    import shutil
    from urllib.parse import quote

    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    team, sweep = RESULTS / "agent-avenue" / "team-tiny", RESULTS / "sweeps" / "agent-hunter-decoys"
    copies = tmp_path / "copies"
    for source in (team, sweep):
        shutil.copytree(source, copies / source.name)
    meta = json.loads((copies / team.name / "team.json").read_text())
    (copies / team.name / "team.json").write_text(json.dumps({**meta, "value_team0": 0.123456}))
    meta = json.loads((copies / sweep.name / "sweep.json").read_text())
    (copies / sweep.name / "sweep.json").write_text(
        json.dumps({**meta, "fixed": {**meta["fixed"], "marker": "copy-of-the-sweep"}}))
    hunter, avenue = TREE, RESULTS / "agent-avenue" / "tiny"
    entries = discover([str(hunter), str(avenue), str(team), str(copies), str(sweep)])
    assert sorted(entries) == sorted([
        "results/tiny", "agent-avenue/tiny", "agent-avenue/team-tiny", "copies/team-tiny",
        "sweeps/agent-hunter-decoys", "copies/agent-hunter-decoys"])
    assert [e.name for e in discover([str(hunter), str(team)]).values()] == ["tiny",
                                                                              "team-tiny"]
    app = make_app(entries)

    code, index = _ask(app, "/")
    assert code == 200
    for name, game in (("results/tiny", "agent-hunter"), ("agent-avenue/tiny", "agent-avenue")):
        assert f'href="/run?run={quote(name, safe="")}">{name}</a></td><td class="l">{game}<' \
            in index
    code, page = _ask(app, "/browse", "run=tiny")
    assert code == 404 and "named by more of their path" in page
    assert "results/tiny (agent-hunter tiny)" in page
    assert "agent-avenue/tiny (agent-avenue tiny)" in page

    record = "place:0-1 place:1-0 hand:2>1:hi"  # an Agent Hunter game
    for name, game, title in (("results/tiny", "agent-hunter", "Agent Hunter"),
                              ("agent-avenue/tiny", "agent-avenue", "Agent Avenue")):
        run = "run=" + quote(name, safe="")
        own = f"{name} ({game} tiny)"  # every page's title: the entry's name and game
        for path, query, says in [
                ("/run", run, f"<td class=\"l\">{title}</td>"),
                ("/browse", run, f"<p>{title} · "),
                ("/openings", run, "P1"), ("/report", run, "Headline numbers"),
                ("/play", run, "start"), ("/play", run + "&seat=P1&seed=3", "you are <b>P1</b>"),
                ("/review", run, "Paste full game records")]:
            code, page = _ask(app, path, query)
            assert code == 200, (path, name, page[-400:])
            assert own in page and says in page, (path, name)
            assert f"run={quote(name, safe='')}" in page, (path, name)  # links stay on it
        code, page = _ask(app, "/review", run, b"records=" + quote(record).encode())
        assert code == (200 if game == "agent-hunter" else 400), (name, page[-400:])
        entry = entries[name]
        figure = next(f for f in entry.files if f.endswith(".png"))
        code, page = _ask(app, "/file", f"{run}&name={quote(figure)}")
        assert code == 200 and entry.path == (hunter if game == "agent-hunter" else avenue)

    for name, copy in (("agent-avenue/team-tiny", False), ("copies/team-tiny", True)):
        code, page = _ask(app, "/team", "run=" + quote(name, safe=""))
        assert code == 200 and f"{name} (agent-avenue team-tiny)" in page
        assert ("+0.1235" in page) == copy, name
    for name, copy in (("sweeps/agent-hunter-decoys", False),
                       ("copies/agent-hunter-decoys", True)):
        code, page = _ask(app, "/sweep", "run=" + quote(name, safe=""))
        assert code == 200 and f"Sweep {name} (agent-hunter" in page
        assert ("copy-of-the-sweep" in page) == copy, name


def _log(page: str) -> list[str]:
    found = re.search(r'<ul id="log">(.*?)</ul>', page, re.S)
    assert found, page[-400:]
    return [html.unescape(x) for x in re.findall(r"<li>(.*?)</li>", found.group(1))]


def _public_line(page: str) -> str:
    """The strategy browser's public line, as text."""
    line = html.unescape(re.sub(r"<[^>]+>", " ", page.split("public line:", 1)[1]))
    return " ".join(line.split("this public state")[0].split())


def test_the_browsers_line_says_who_sees_a_chance_step():
    """Agent Avenue's deal, two chance steps, read "chance: deal:?| -> chance: (private)":
    each now says which seat alone sees it; a step both see (Agent Hunter's placements,
    the seats' moves) is written as before."""
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    app = make_app(discover([str(RESULTS / "agent-avenue" / "tiny"), str(TREE)]))
    code, page = _ask(app, "/browse", "run=agent-avenue%2Ftiny&line=0.0")
    assert code == 200 and "(private)" not in page
    assert _public_line(page) == ("start → chance: deal:?| (seen by P1 only) → chance: "
                                  "(seen by P2 only)")
    code, page = _ask(app, "/browse", "run=results%2Ftiny&line=0.0")
    assert code == 200 and _public_line(page) == "start → P1: place:? → P2: place:?"


@pytest.mark.parametrize("folder,seat", [(TREE, "P1"), (RESULTS / "agent-avenue" / "tiny", "P2")])
def test_the_end_of_a_game_tells_what_happened_with_the_cards_it_reveals(folder, seat, tmp_path,
                                                                        monkeypatch):
    """The play page's "what happened" showed '?' for the opponent's hidden cards after the
    game, where the end shows them (the whole record): at the end it tells the same steps
    from the whole record; during the game they stay hidden. The end says how the game
    ended in the game's words, as `spycfr play` prints them for the same game (Agent
    Hunter's page said only "game over")."""
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    app = make_app(discover([str(folder)]))
    base = f"run=tiny&seat={seat}&seed=3"
    # before anything happened the box says so (Agent Hunter as P1: an empty box before)
    code, page = _ask(app, "/play", base)
    assert code == 200 and ("nothing yet: you move first" in page) == (not _log(page))
    # the typed-move form sent empty (Enter in its filter box, a browser without scripts):
    # the same position, no error page (it was "'' is not one of your moves")
    code, again = _ask(app, "/play", base + "&typed=+")
    assert code == 200 and again == page
    if seat == "P1" and folder == TREE:
        assert not _log(page)
    moves: list[str] = []
    hidden = False
    for _ in range(60):
        code, page = _ask(app, "/play", base + ("&m=" + ".".join(moves) if moves else ""))
        assert code == 200, page[-400:]
        if 'id="result"' in page:
            break
        hidden = hidden or any("?" in line or "hidden from you" in line for line in _log(page))
        moves.append("0")
    else:
        raise AssertionError("the game did not end in 60 moves")
    assert hidden  # something was hidden during the game
    # the end page replays the whole record once (its drawing, lines and ending each did)
    import dataclasses

    from spycfr.games import get_plugin
    from spycfr.web import games

    plugin = get_plugin(json.loads((folder / "run.json").read_text())["game"])
    replays: list[str] = []

    def summary(variant, text):
        replays.append(text)
        return plugin.records.summary(variant, text)

    counted = dataclasses.replace(plugin, records=dataclasses.replace(plugin.records,
                                                                      summary=summary))
    monkeypatch.setattr(games, "get_plugin", lambda name: counted)
    code, again = _ask(app, "/play", base + "&m=" + ".".join(moves))
    assert code == 200 and again == page and len(replays) == 1, replays
    monkeypatch.undo()
    record = html.unescape(re.search(r'<code id="record">(.*?)</code>', page).group(1))
    assert "?" not in record
    over = re.search(r'<p id="over"><b>(.*?)</b></p>', page)
    assert over, page[-600:]
    ended = html.unescape(over.group(1)).split("<br>")
    (tmp_path / "moves").write_text("1\n" * len(moves))  # the terminal numbers from 1
    code, out, err = spycfr("play", str(folder), "--seat", seat, "--seed", "3", "--moves",
                            str(tmp_path / "moves"))
    assert code == 0, err
    assert f"the whole record: {record}" in out.splitlines()  # the same game
    assert ended == [x for x in out.splitlines() if x.startswith("game over:")], (ended, out)
    position = re.search(r'id="position">(.*?)<p class="note">your view', page, re.S)
    assert position and position.group(1).count("game over:") == 1  # not twice
    # the review form reads a `spycfr play` game pasted whole as its record (every line an
    # error before): one game reviewed, no error
    from urllib.parse import urlencode

    pasted = f"result: you win\nthe whole record: {record}\n\nreview of your moves\n"
    code, reviewed = _ask(app, "/review", "run=tiny", urlencode({"records": pasted}).encode())
    assert code == 200 and "<h2>game 1</h2>" in reviewed and "<h2>game 2</h2>" not in reviewed
    assert 'class="err"' not in reviewed
    told = _log(page)
    assert told and not any("?" in line or "hidden from you" in line for line in told), told
    assert "(with the cards the end shows)" in page
    # every step told, in order, is the record's, the seat's own moves as the record writes
    # them (Agent Hunter's 'you: hand:2>1' lacked its answer ':hi', Agent Avenue's 'you:
    # take:up' the card it gave the opponent): the lines are the whole record
    news = " ".join(line.split(": ", 1)[1].replace(COMPLETED, "")
                    for line in told)
    assert news == record, (told, record)


def test_thinking_says_which_agent_thinks_since_when_and_its_last_line():
    """/thinking's answer (the page waiting for a search agent's reply asks it): the page
    under way (a run's game or review) thinks, with its seconds and last progress line;
    any other run or page, or after the page, does not."""
    import time

    from spycfr.web.app import make_app
    from spycfr.web.bench import Thinking
    from spycfr.web.catalog import discover

    thinking = Thinking()
    thinking.say("standard", "before any page: dropped")
    with thinking.during("standard", "play:P1:5"):
        time.sleep(0.15)
        with thinking.speaking("standard", "play:P1:5"):
            thinking.say("standard", "solving the subgame from here (5 public nodes): 3/100 "
                         "CFR+ iterations")
            now = thinking.status("standard", "play:P1:5")
            assert now["thinking"] and now["seconds"] >= 0.1
            assert now["line"].endswith("3/100 CFR+ iterations")
            assert thinking.status("standard") == now  # any page of the run
        assert not thinking.status("tiny")["thinking"]
        assert not thinking.status("standard", "play:P1:6")["thinking"]
    assert thinking.status("standard") == {"thinking": False, "seconds": 0.0, "line": ""}
    app = make_app(discover([str(AGENT), str(TREE)]))
    code, answer = _ask(app, "/thinking", "run=standard&page=play:P1:5")
    assert code == 200 and json.loads(answer) == {"thinking": False, "seconds": 0.0, "line": ""}
    code, answer = _ask(app, "/thinking", "run=nowhere")
    assert code == 404 and "unknown run" in answer
    code, answer = _ask(app, "/thinking", "run=standard&page=" + "x" * 500)  # any length
    assert code == 200 and not json.loads(answer)["thinking"]
    code, answer = _ask(app, "/play", "run=standard&seat=P1")  # the start form: its line
    assert code == 200 and 'id="thinking"' in answer and 'data-run="standard"' in answer
    assert 'data-page=""' in answer  # its script reads the game from the form
    code, answer = _ask(app, "/play", "run=tiny&seat=P1")
    assert code == 200 and 'id="thinking"' not in answer
    # the review form of an agent's run: the same line, keyed by the form's own token,
    # which its POST carries (two forms: two tokens)
    forms = [_ask(app, "/review", "run=standard")[1] for _ in range(2)]
    keys = [re.search(r'id="thinking"[^>]*data-page="(review:[0-9a-f]{12})"', f) for f in forms]
    assert keys[0] and keys[1] and keys[0].group(1) != keys[1].group(1)
    for form, key in zip(forms, keys, strict=True):
        assert key is not None
        assert f'action="/review?run=standard&amp;page={key.group(1).replace(":", "%3A")}"' \
            in form
    code, answer = _ask(app, "/review", "run=tiny")
    assert code == 200 and 'id="thinking"' not in answer and "page=" not in answer


def test_two_agent_pages_at_once_each_say_what_their_agent_does():
    """Two pages of agent games under way at once (two tabs; the workbench's agent lock
    lets one re-solve at a time): one slot for the workbench had the first page's end say
    "not thinking" while the second then re-solved. Each page (a game: run, seat, seed) is
    its own: the one the agent works for gets its lines, the other is told it waits, and the
    first's end leaves the second thinking. Two threads run the play page's own locking
    (games._agent_turn)."""
    import threading
    import time

    from spycfr.web import games
    from spycfr.web.bench import Thinking

    bench = SimpleNamespace(agent_lock=threading.Lock(), thinking=Thinking())
    opp = SimpleNamespace(agent=object())
    first, second = ("standard", games.game_page(0, 1)), ("standard", games.game_page(1, 2))
    assert first[1] == "play:P1:1" and second[1] == "play:P2:2"
    inside, release, done = threading.Event(), threading.Event(), threading.Event()

    def page(key, hold: bool) -> None:
        with bench.thinking.during(*key), games._agent_turn(bench, opp, key):
            bench.thinking.say("standard", f"re-solving for {key[1]}")
            if hold:
                inside.set()
                assert release.wait(10)
            else:
                done.wait(10)

    one = threading.Thread(target=page, args=(first, True))
    one.start()
    assert inside.wait(10)
    two = threading.Thread(target=page, args=(second, False))
    two.start()
    for _ in range(500):  # the second page is under way, waiting for the agent
        if bench.thinking.status(*second)["thinking"]:
            break
        time.sleep(0.01)
    assert bench.thinking.status(*first)["line"] == "re-solving for play:P1:1"
    assert bench.thinking.status(*second)["line"] == Thinking.WAITING
    release.set()
    one.join(10)
    assert not bench.thinking.status(*first)["thinking"]
    for _ in range(500):  # the second page's turn: its own line
        if bench.thinking.status(*second)["line"] == "re-solving for play:P2:2":
            break
        time.sleep(0.01)
    now = bench.thinking.status(*second)  # the first's end: the second still thinks
    assert now["thinking"] and now["line"] == "re-solving for play:P2:2", now
    done.set()
    two.join(10)
    assert not bench.thinking.status("standard")["thinking"]
    # an agent loading (no page of its run speaking) tells every page of its run
    with bench.thinking.during(*first), bench.thinking.during(*second):
        bench.thinking.say("standard", "building the first plan")
        assert {bench.thinking.status(*k)["line"] for k in (first, second)} == {
            "building the first plan"}


def test_a_review_under_way_is_asked_for_by_its_page_key_whatever_its_length(monkeypatch):
    """The review POST of an agent's run is under way in Thinking by the page key its form
    carries, and /thinking asked with the same key finds it, however long: the POST cut the
    key at 80 characters where /thinking refused a longer one (a 400), so such a review's
    page showed no line. Both keep a short id of the key (bench.page_id). The agent is not
    loaded: the review's load of it asks /thinking (in another thread, as the browser does)
    and stops there."""
    import threading
    from urllib.parse import quote, urlencode

    from spycfr.web.app import make_app
    from spycfr.web.bench import PageError, Workbench, page_id
    from spycfr.web.catalog import discover

    app = make_app(discover([str(AGENT)]))
    seen: list[tuple[int, str]] = []

    def opponent(self, name, game_key=None):
        asked = threading.Thread(target=lambda: seen.append(
            _ask(app, "/thinking", f"run={name}&page={quote(key)}")))
        asked.start()
        asked.join(30)
        raise PageError("stopped before the agent loads", 409)

    monkeypatch.setattr(Workbench, "opponent", opponent)
    for key in ("review:" + "0123456789abcdef" * 12, "review:00aa11bb22cc"):
        seen.clear()
        code, answer = _ask(app, "/review", f"run=standard&page={quote(key)}",
                            urlencode({"records": "place:0-2 place:2-1 hand:1>1:lo"}).encode())
        assert code == 409 and "stopped before the agent loads" in answer, answer[-300:]
        assert len(seen) == 1 and seen[0][0] == 200, seen
        assert json.loads(seen[0][1])["thinking"], seen
    assert page_id("review:00aa11bb22cc") != page_id("review:00aa11bb22cd")
    assert len(page_id("x" * 10_000)) == 16


def test_a_page_between_its_two_agent_turns_shows_no_line_of_its_last_turn():
    """A game's page takes the agent twice (its moves, then its review); between the two,
    another page's agent work ran while the first page still showed its last line (a line
    of a re-solve that was over). A page's line is cleared with the turn's end and start,
    in the lock take that changes the speaker: between its turns it says it waits, then
    nothing until the agent says something for it."""
    import threading

    from spycfr.web import games
    from spycfr.web.bench import Thinking

    bench = SimpleNamespace(agent_lock=threading.Lock(), thinking=Thinking())
    opp = SimpleNamespace(agent=object())
    first, second = ("standard", games.game_page(0, 1)), ("standard", games.game_page(1, 2))
    with bench.thinking.during(*first):
        with games._agent_turn(bench, opp, first):  # its moves
            bench.thinking.say("standard", "re-solving for the first page")
            assert bench.thinking.status(*first)["line"] == "re-solving for the first page"
        assert bench.thinking.status(*first)["line"] == ""  # its turn over: no line
        with bench.thinking.during(*second), games._agent_turn(bench, opp, second):
            bench.thinking.say("standard", "re-solving for the second page")
            assert bench.thinking.status(*first)["line"] == Thinking.WAITING
            assert bench.thinking.status(*second)["line"] == "re-solving for the second page"
        assert bench.thinking.status(*first)["line"] == ""
        with games._agent_turn(bench, opp, first):  # its review
            assert bench.thinking.status(*first)["line"] == ""
            bench.thinking.say("standard", "reviewing")
            assert bench.thinking.status(*first)["line"] == "reviewing"
    assert not bench.thinking.status("standard")["thinking"]


def test_the_index_says_an_earlier_agent_played_the_bounds_games():
    """agent-avenue/advanced's lower bound is a local best response's whose games an earlier
    agent played: the index says so beside the bound, in the report's words (it listed the
    bound alone)."""
    from spycfr.analysis.bound import games_agent_words
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    folder = RESULTS / "agent-avenue" / "advanced"
    data = json.loads((folder / "run.json").read_text())
    note = games_agent_words(data["measured"], data.get("code"))
    assert note and "an earlier agent" in note
    assert " ".join(note.split()) in " ".join((folder / "report.md").read_text().split())
    code, index = _ask(make_app(discover([str(folder), str(TREE)])), "/")
    assert code == 200 and note in html.unescape(index)
    assert html.unescape(index).count("earlier agent") == 1  # not beside the tree run


def test_an_openings_page_without_values_says_why():
    """A run without a tree (a search agent, an MCCFR run) has no BR value and eq value
    (columns of '–' once, dropped now): its openings page says why and where values are
    found (it said nothing); a run with a tree shows its values and no such line."""
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    avenue = RESULTS / "agent-avenue" / "standard"
    app = make_app(discover([str(AGENT), str(SAMPLED), str(TREE), str(avenue)]))
    for name, says in (("results/standard", "spycfr openings"),
                       ("agent-avenue/standard", "spycfr query"),
                       ("standard-sampled", "sampled without a tree")):
        code, page = _ask(app, "/openings", "run=" + name)
        page = html.unescape(page)
        assert code == 200 and "BR value" not in re.findall(r"<th[^>]*>([^<]*)</th>", page)
        assert "No BR value or eq value here" in page and says in page, name
    code, page = _ask(app, "/openings", "run=tiny")
    page = html.unescape(page)
    assert code == 200 and "No BR value or eq value" not in page
    assert "BR value" in re.findall(r"<th[^>]*>([^<]*)</th>", page)


def test_a_damaged_plan_is_said_by_every_page_of_the_run(tmp_path):
    """A search agent's plan.npz changed after its run: the index, run, openings, report,
    play and review pages each say so in one line, the CLI's words (play and review said it
    only where they loaded the agent), as openings and report say on stderr; an intact
    copy says nothing."""
    import shutil

    from spycfr.runs.agent_run import damaged_plan
    from spycfr.web.app import make_app
    from spycfr.web.catalog import discover

    run = tmp_path / "aas"
    shutil.copytree(RESULTS / "agent-avenue" / "standard", run)
    app = make_app(discover([str(run)]))
    pages = [("/", ""), ("/run", "run=aas"), ("/openings", "run=aas"),
             ("/report", "run=aas"), ("/play", "run=aas"), ("/review", "run=aas")]
    for path, query in pages:
        code, page = _ask(app, path, query)
        assert code == 200 and 'class="err"' not in page, path
    data = bytearray((run / "plan.npz").read_bytes())
    data[5000] ^= 0xFF
    (run / "plan.npz").write_bytes(bytes(data))
    words = damaged_plan(run, json.loads((run / "run.json").read_text()))
    assert words is not None and "does not match run.json" in words
    for path, query in pages:
        code, page = _ask(app, path, query)
        assert code == 200 and html.unescape(page).count(words) == 1, path
    code, out, err = spycfr("play", str(run), "--seat", "P1", "--seed", "3")
    assert code != 0 and f"error: {words}" in err
    for args in (("openings", str(run), "--top", "1"),
                 ("report", str(run), "-o", str(tmp_path / "r.md"))):
        code, out, err = spycfr(*args)
        assert code == 0 and err.count(f"warning: {words}") == 1, args


def test_the_damage_check_does_not_wait_for_a_run_loading():
    """Workbench.damage hashed a run's plan file under the lock a run's load holds (one load
    at a time, minutes for a large tree or agent), so the index, run, openings, report and
    play pages, which check the plan, waited for another page's load: it answers while that
    lock is held (fails before: blocked until it is released)."""
    import threading

    from spycfr.web.bench import Workbench
    from spycfr.web.catalog import discover

    bench = Workbench(discover([str(RESULTS / "agent-avenue" / "standard")]))
    entry = next(iter(bench.entries.values()))
    held, release = threading.Event(), threading.Event()

    def loading() -> None:  # another page loading a run
        with bench._lock:
            held.set()
            release.wait(120)

    answered: list = []
    loader = threading.Thread(target=loading)
    checker = threading.Thread(target=lambda: answered.append(bench.damage(entry)))
    loader.start()
    try:
        assert held.wait(30)
        checker.start()
        checker.join(60)
        assert answered == [None]  # the intact committed plan, checked meanwhile
    finally:
        release.set()
        loader.join()
        if checker.is_alive():
            checker.join()
