"""Play against a run in the browser, and reviews of played and recorded games.

A game in the browser is its seat, seed and the player's moves so far (``m``: indices into
each position's legal moves): every page replays it from the seed, so a game's URL is the
game, and a reloaded or shared page shows the same deal and the same program moves.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING

import bottle  # type: ignore[import-untyped]  # bottle ships no type information
import numpy as np

from spycfr.analysis import views
from spycfr.analysis.markdown import num
from spycfr.analysis.play import (
    SEATS,
    Narrator,
    choose,
    loss_text,
    probability_label,
    run_game,
)
from spycfr.analysis.review import costliest_first, explained, records_in, review_records
from spycfr.games import get_plugin
from spycfr.seeds import check_seed
from spycfr.web.bench import MAX_UPLOAD, PageError, entry_nav, fmt_eps, parse_line
from spycfr.web.html import esc, page, pct, table, url

if TYPE_CHECKING:
    from collections.abc import Iterator

MANY_MOVES = 24  # from this many legal moves on, a filter box and typed entry help choose
MAX_MOVES = 2000  # moves in one game's URL


class _Pending(Exception):
    """The replay reached a decision of the player that its moves do not cover yet."""

    def __init__(self, state, labels: list[str]) -> None:
        super().__init__("pending")
        self.state, self.labels = state, labels


def _eps(entry) -> str:
    """The exploitability in a play or review page's header, escaped: the bound's note on
    another agent's games without the codes (the run page names them)."""
    return esc(fmt_eps(entry.meta, brief=True))


def _seat(request) -> int:
    seat = (request.query.get("seat") or "P1").upper()
    if seat not in SEATS:
        raise PageError(f"seat {seat[:20]!r}: P1 or P2")
    return SEATS.index(seat)


def play(bench, request) -> str:
    entry = bench.entry(request.query.get("run"))
    seat = _seat(request)
    if request.query.get("seed") is None:
        return _start_form(entry, seat, bench.damage_html(entry))
    seed = check_seed(request.query.get("seed"))  # a bad one: a 400 page saying why
    from spycfr.runs.agent_run import is_agent_run

    if not is_agent_run(entry.meta):
        return _play(bench, request, entry, seat, seed)
    # its re-solves: the page waiting says so (the game's own line: pages of other games
    # against the agent, under way at once, have theirs)
    with bench.thinking.during(entry.name, game_page(seat, seed)):
        return _play(bench, request, entry, seat, seed)


def game_page(seat: int, seed: int) -> str:
    """The key of a game's pages in /thinking (THINKING_SCRIPT writes the same from the
    start form's seat and seed)."""
    return f"play:{SEATS[seat]}:{seed}"


def _play(bench, request, entry, seat: int, seed: int) -> str:
    """The play page of the game ``request`` names (its moves so far), replayed."""
    opp, game = bench.opponent(entry.name, (seat, seed))
    key = (entry.name, game_page(seat, seed))
    plugin = get_plugin(entry.meta["game"])
    moves = parse_line(request.query.get("m"), "moves", MAX_MOVES)
    queue = list(moves)
    said: list[str] = []
    narrator = Narrator(plugin, seat, said.append)
    # the same game told from the whole record, shown once the game is over: the end
    # reveals the cards that were '?' to the seat (a game without a record: none)
    revealed: list[str] = []
    whole = (Narrator(plugin, seat, revealed.append, view=_whole_record)
             if plugin.records is not None else None)
    befores, afters = [], []  # the states around each of the player's moves

    def decide(state, labels: list[str]) -> int:
        if not queue:
            raise _Pending(state, labels)
        i = queue.pop(0)
        if i >= len(labels):
            raise PageError(f"move {len(moves) - len(queue)} of the game: there is no move "
                            f"number {i} here (0..{len(labels) - 1})")
        befores.append(state)
        return i

    def observe(p: int, before: str, state, label: str | None) -> None:
        narrator.observe(p, before, state, label)
        if whole is not None:
            whole.observe(p, before, state, label)
        if label is not None:
            afters.append(state)

    base = {"run": entry.name, "seat": SEATS[seat], "seed": seed}
    dot = ".".join(map(str, moves))
    try:
        with _agent_turn(bench, opp, key):
            state, decisions = run_game(game, opp, seat, np.random.default_rng(seed), decide,
                                        observe)
    except _Pending as pending:
        typed = (request.query.get("typed") or "").strip()
        if typed:  # nothing typed (a form sent empty): the position again, no error
            i = choose(pending.labels, typed)
            if i is None:
                raise PageError(f"{typed[:60]!r} is not one of your moves here: type a move as "
                                "listed (or click it)") from None
            bottle.redirect(url("/play", **base, m=f"{dot}.{i}" if dot else str(i)))
        body = _position(plugin, game, pending.state, seat, said) + _choices(
            pending.labels, base, dot) + _thinking(entry, key[1]) + _notation(plugin)
        return page(f"Play {entry.title} as {SEATS[seat]}", _header(entry, seat, seed) + body,
                    entry_nav(entry))
    if state is None:  # decide never abandons (it raises _Pending): None.returns() as ever
        raise AttributeError("the game was abandoned: no final state")
    narrator.close(state)
    record = state.record() if hasattr(state, "record") else None
    if whole is not None and record is not None:
        whole.close(state)
        said = revealed
    u = state.returns()[seat]
    verdict = "you win" if u > 0 else "you lose" if u < 0 else "a draw"
    if queue:
        raise PageError(f"the game ended after {len(moves) - len(queue)} of your moves; the "
                        f"URL gives {len(moves)}")
    moments = list(zip(decisions, befores, afters, strict=True))
    with _agent_turn(bench, opp, key):
        rows = explained(opp, game, seat, moments, bench.reach(entry.name))
    body = (_position(plugin, game, state, seat, said, final=record)
            + f'<h2 id="result">result: {verdict} ({SEATS[seat]}\'s payoff {num(u, "{:+g}")})</h2>'
            + (f'<p>the whole record: <code id="record">{esc(record)}</code></p>' if record
               else "") + _review_html(rows, seat, views.held_legend(plugin))
            + f'<p><a href="{esc(url("/play", run=entry.name, seat=SEATS[seat]))}">'
              "another game</a></p>")
    return page(f"Play {entry.title} as {SEATS[seat]}", _header(entry, seat, seed) + body,
                entry_nav(entry))


def _whole_record(state) -> str:
    """The game so far with every card shown (a Narrator's view for the end of a game)."""
    return state.record()


@contextlib.contextmanager
def _agent_turn(bench, opp, key: tuple[str, str]) -> Iterator[None]:
    """One search agent page at a time (its walks share the loaded agent), its lines told
    to that page (``key``: run, page; Thinking.speaking); other runs free."""
    if opp.agent is None:
        yield
        return
    with bench.agent_lock, bench.thinking.speaking(*key):
        yield


def _start_form(entry, seat: int, damage: str) -> str:
    """The form that starts a game (seat, seed); ``damage``: the run's error line, where
    its agent cannot load (Workbench.damage_html)."""
    entropy = np.random.SeedSequence().entropy  # drawn from the OS when not given: an int
    if not isinstance(entropy, int):
        raise TypeError(f"SeedSequence gave entropy {entropy!r}, not an int")
    seed = int(entropy % 1_000_000)
    options = "".join(f'<option{" selected" if i == seat else ""}>{s}</option>'
                      for i, s in enumerate(SEATS))
    body = (f"<p>The program deals and plays the other seat with the strategy of "
            f"<b>{esc(entry.name)}</b> (exploitability {_eps(entry)}); you see "
            "only what your seat sees. After the game, each of your moves is reviewed.</p>"
            f'<form action="/play" method="get"><input type="hidden" name="run" '
            f'value="{esc(entry.name)}"> seat <select name="seat">{options}</select> seed '
            f'<input name="seed" id="seed" value="{seed}" size="10"> '
            '<button id="start">start</button></form>' + _thinking(entry))
    return page(f"Play {entry.title}", damage + body, entry_nav(entry))


# While the next page is computed (a search agent re-solves its reply: about 9 s a move on
# Agent Hunter standard; its first page loads the agent), the page that waits says the agent
# is thinking, the seconds, and the agent's last progress line (/thinking, asked each second).
THINKING_SCRIPT = """
(function(){var box=document.getElementById('thinking');if(!box)return;
 var run=box.dataset.run,page=box.dataset.page||'',began=null;
 function tell(line){var s=Math.round((Date.now()-began)/1000);
  box.textContent='the search agent is thinking ('+s+' s)'+(line?': '+line:'');}
 function tick(){tell(box.dataset.line);fetch('/thinking?run='+encodeURIComponent(run)+
   '&page='+encodeURIComponent(page)).then(function(r){return r.json();}).then(function(d){
   if(d.thinking){box.dataset.line=d.line;tell(d.line);}}).catch(function(){});}
 function start(e){if(began!==null)return;began=Date.now();box.dataset.line='';
  var f=e&&e.target,el=f&&f.elements;
  if(!page&&el&&el.seat&&el.seed){  /* the start form: the game it starts (game_page) */
   page='play:'+el.seat.value.toUpperCase()+':'+parseInt(el.seed.value.trim(),10);}
  box.hidden=false;tick();setInterval(tick,1000);}
 document.querySelectorAll('.moves a.move').forEach(function(a){
  a.addEventListener('click',start);});
 document.querySelectorAll('form').forEach(function(f){f.addEventListener('submit',start);});
})();
"""


def _thinking(entry, page_key: str = "") -> str:
    """A search agent's page: the line that says the agent is thinking once a move is
    chosen or the form sent (hidden until then), and its script; ``page_key``: the page's
    key in /thinking (a game's, a review's; '': the start form, whose script reads the
    game it starts); other runs answer at once: nothing."""
    from spycfr.runs.agent_run import is_agent_run

    if not is_agent_run(entry.meta):
        return ""
    return (f'<p id="thinking" class="thinking" data-run="{esc(entry.name)}" '
            f'data-page="{esc(page_key)}" hidden></p><script>{THINKING_SCRIPT}</script>')


def thinking(bench, request) -> str:
    """``/thinking?run=NAME&page=KEY``: whether that search agent is thinking for that page
    now (no page: for any page of the run), for how many seconds, and its last progress
    line (JSON), for the page that waits for its reply. The key is the page's as it sent
    it, of any length (Thinking keeps a short id of it, as the review POST does)."""
    import json

    entry = bench.entry(request.query.get("run"))
    key = request.query.getunicode("page") or None
    bottle.response.content_type = "application/json"
    return json.dumps(bench.thinking.status(entry.name, key))


def _header(entry, seat: int, seed: int) -> str:
    from spycfr.runs.agent_run import is_agent_run

    how = ("as the search agent of" if is_agent_run(entry.meta) else
           "with the strategy of")  # an agent re-solves as it plays (as `spycfr play` says)
    return (f"<p>you are <b>{SEATS[seat]}</b>; the program plays {SEATS[1 - seat]} {how} "
            f"{esc(entry.name)} (exploitability {_eps(entry)}); seed {seed}</p>")


def _position(plugin, game, state, seat: int, said: list[str], final: str | None = None
              ) -> str:
    """The position as the seat sees it, or at the end (``final``: the whole record) with
    everything shown, and what happened so far."""
    view = state.information_state(seat)
    if final:
        drawn, shown, over = views.end(plugin, game, final, seat)  # one replay
    else:
        drawn, shown, over = views.draw(plugin, game, view, seat), None, []
    if drawn is None:  # in lines: the seat's view, or at the end the whole record's
        shown = views.lines(plugin, game, view, seat) if shown is None else shown
        drawn = "<pre>" + esc("\n".join(shown)) + "</pre>"
    if over:
        drawn += '<p id="over"><b>' + "<br>".join(map(esc, over)) + "</b></p>"
    log = "".join(f"<li>{esc(x)}</li>" for x in said if x)
    title = "the end: everything is shown" if final else "your position"
    revealed = " (with the cards the end shows)" if final else ""
    return (f'<div class="box" id="position"><h2>{title}</h2>{drawn}'
            f'<p class="note">your view: <code>{esc(view) or "(nothing yet)"}</code></p></div>'
            f'<div class="box"><h2>what happened{revealed}</h2><ul id="log">{log}</ul>'
            + ("" if log else '<p class="note">nothing yet: you move first</p>') + "</div>")


def _choices(labels: list[str], base: dict, dot: str) -> str:
    links = "".join(
        f'<a class="move" href="{esc(url("/play", **base, m=f"{dot}.{i}" if dot else str(i)))}"'
        f">{esc(label)}</a>" for i, label in enumerate(labels))
    compact = ""
    if len(labels) >= MANY_MOVES:
        hidden = "".join(f'<input type="hidden" name="{k}" value="{esc(v)}">'
                         for k, v in [*base.items(), ("m", dot)] if v != "")
        options = "".join(f'<option value="{esc(label)}">' for label in labels)
        compact = ('<form action="/play" method="get">' + hidden + 'type a move: <input '
                   'name="typed" id="typed" list="legal" autocomplete="off" size="24">'
                   f'<datalist id="legal">{options}</datalist> <button>play</button> '
                   '<span class="note">or filter the list: </span><input id="filter" '
                   'size="12" placeholder="e.g. 3-"> <span class="note" id="filtered">'
                   '</span></form>')
    return (f'<div><h2>your move ({len(labels)} legal)</h2>{compact}'
            f'<div class="moves">{links}</div></div>')


def _notation(plugin) -> str:
    text = views.notation_help(plugin)
    return f'<div class="box note"><h2>notation</h2>{text}</div>' if text else ""


def _review_html(rows: list[dict], seat: int, held: str, mine: bool = True) -> str:
    """The review table of a seat's moves, the costliest first (``mine``: the player's own,
    addressed as "you"; ``held``: the game's legend of held states, said under the table
    where a row names what the opponent likely held)."""
    if not rows:
        return "<p>you made no move</p>"
    whose = "your" if mine else f"{SEATS[seat]}'s"
    # a sampled run's rows have no loss, and a search agent's move may have none (no value)
    valued = any(r.get("loss") is not None for r in rows)
    ordered = costliest_first(rows) if valued else rows
    body = []
    for r in ordered:
        loss = loss_text(r)
        body.append(f'<tr class="rv"><td>{r["number"]}</td><td class="l mv">{esc(r["move"])}'
                    f'</td><td class="p">{pct(r["probability"])}</td><td>'
                    f'{num(r.get("value"))}</td><td>{num(r.get("best_value"))}</td>'
                    f'<td class="loss">{loss}</td><td class="l w">{esc(r["words"])}</td></tr>')
    lost = [r for r in rows if r.get("tie") is not None and not r["tie"]]
    verdict = (f"every one of {whose} {len(rows)} moves was as good as the best move there"
               if valued and not lost else
               f"{len(lost)} of {whose} {len(rows)} moves lost value, the costliest first"
               if valued else "a sampled run: how often it plays each of your moves")
    return (f'<h2>review of {SEATS[seat]}\'s moves</h2><p id="verdict">{verdict}</p>'
            '<table class="review"><tr><th>#</th><th class=l>move</th>'
            f'<th>{probability_label(rows)}</th>'
            "<th>value</th><th>best</th><th>loss</th><th class=l>in words</th></tr>"
            + "".join(body) + f"</table><p class=note>{_review_note(rows, whose)}</p>"
            + (f'<p class="note held">{esc(held)}</p>'
               if held and any(r.get("likely") for r in rows) else ""))


def _review_note(rows: list[dict], whose: str = "your") -> str:
    """What the review's value and loss mean: a tree run's equilibrium values, or a search
    agent's re-solve (as `spycfr play` says it); ``whose``: "your" in a game just played,
    the seat's ("P2's") in a reviewed record."""
    if rows[0].get("basis") == "agent":
        return (f"value: {whose} expected payoff from that position as `spycfr query --seat` "
                "values it there: the search agent in that seat, against its model of the "
                "opponent (an estimate, not an equilibrium's value); loss: how far below the "
                f"best move there ('tie': within {rows[0]['tolerance']:g}, the re-solve's "
                "precision)")
    return (f"value: {whose} expected payoff from that position against the run's strategy, "
            "the game then going on at equilibrium; loss: how far below the best move there "
            "('tie': within what the run's exploitability allows)")


# what the review form says on a search agent's run, where the review takes minutes
AGENT_REVIEW_NOTE = ("The search agent re-solves along each game it reviews, once for each "
                     "seat (a walk of its own: the agent in that seat, valuing its moves as "
                     "`spycfr query --seat` does), so a review takes minutes on the bigger "
                     "games; review one seat to halve it. The page answers when the review "
                     "is done.")


def review_form(bench, request, message: str = "", status: int = 200) -> str:
    from spycfr.runs.agent_run import is_agent_run

    entry = bench.entry(request.query.get("run"))
    plugin = get_plugin(entry.meta["game"])
    example = plugin.records.example if plugin.records else ""
    agent = is_agent_run(entry.meta)
    key = review_page() if agent else ""  # its review in /thinking (the agent's line)
    action = url("/review", run=entry.name, page=key or None)
    body = (f"<p>Paste full game records (one per line, the game's notation, e.g. "
            f"<code>{esc(example)}</code>) or upload a file of them; each game's moves are "
            f"reviewed against {esc(entry.name)} (exploitability {_eps(entry)})."
            + (f'</p><p class="note" id="slow">{esc(AGENT_REVIEW_NOTE)}' if agent else "")
            + f'</p><form action="{esc(action)}" method="post" '
            'enctype="multipart/form-data" onsubmit="document.getElementById(\'wait\')'
            '.hidden=false"><textarea name="records" id="records" rows="6">'
            '</textarea><br>or a file: <input type="file" name="file" id="file"> seats: '
            '<select name="seat" id="seatsel"><option value="both">both</option><option>P1'
            '</option><option>P2</option></select> <button id="go">review</button> '
            '<span class="note" id="wait" hidden>reviewing: the page answers when the review '
            'is done</span></form>' + _thinking(entry, key))
    return page(f"Review games: {entry.title}", bench.damage_html(entry) + message + body,
                entry_nav(entry))


def review_page() -> str:
    """A new review form's key in /thinking (each form its own: two reviews at once)."""
    return "review:" + secrets.token_hex(6)


def review_post(bench, request):
    entry = bench.entry(request.query.get("run"))
    if (request.content_length or 0) > MAX_UPLOAD:
        _drain(request)
        raise PageError(f"the upload is {request.content_length:,} bytes; at most "
                        f"{MAX_UPLOAD:,} are reviewed at once (a file of records)", 413)
    text = request.forms.getunicode("records") or ""
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        raw = upload.file.read(MAX_UPLOAD + 1)
        if len(raw) > MAX_UPLOAD:
            raise PageError(f"the file is more than {MAX_UPLOAD:,} bytes", 413)
        try:
            text += "\n" + raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PageError("the file is not UTF-8 text (records, one per line)") from None
    records = records_in(text)  # a `spycfr play` game pasted whole: its record
    if not records:
        raise PageError("no record given: paste records (one per line) or upload a file")
    which = (request.forms.get("seat") or "both").upper()
    seats = {"BOTH": (0, 1), "P1": (0,), "P2": (1,)}.get(which)
    if seats is None:
        raise PageError(f"seats {which[:20]!r}: both, P1 or P2")
    from spycfr.runs.agent_run import is_agent_run

    # a search agent's review: the line under the form says what the agent does (its key:
    # the form's token, whole: /thinking asks with the same)
    key = (entry.name, request.query.getunicode("page") or "review")
    with (bench.thinking.during(*key) if is_agent_run(entry.meta) else
          contextlib.nullcontext()):
        opp, game = bench.opponent(entry.name)
        with _agent_turn(bench, opp, key):
            result = review_records(opp, game, records, seats)
    held = views.held_legend(get_plugin(entry.meta["game"]))
    body = _summary_html(result) + "".join(_game_html(g, held) for g in result["games"])
    status = 400 if result["errors"] else 200
    html = page(f"Review of {len(records)} game{'s' if len(records) != 1 else ''}: "
                f"{entry.title}", body, entry_nav(entry))
    return bottle.HTTPResponse(html, status=status,
                               headers={"Content-Type": "text/html; charset=utf-8"})


def _drain(request, limit: int = 16 << 20) -> None:
    """Read (and drop) what a client sends beyond the limit, up to ``limit`` bytes, so that
    it reads the answer instead of a reset connection."""
    body, left = request.environ["wsgi.input"], min(request.content_length, limit)
    while left > 0:
        chunk = body.read(min(left, 1 << 16))
        if not chunk:
            break
        left -= len(chunk)


def _summary_html(result: dict) -> str:
    rows = [[seat, s["moves"], s["lost_value"], f"{s['total_loss']:.4f}",
             f"{s['largest_loss']:.4f}"] for seat, s in result["summary"].items()]
    errors = (f'<p class="err">{result["errors"]} record(s) could not be replayed: see below'
              "</p>" if result["errors"] else "")
    return (errors + "<h2>summary over all games</h2>"
            + table(["seat", "moves", "lost value", "total loss", "largest loss"], rows,
                    cls="summary"))


def _game_html(g: dict, held: str) -> str:
    head = f'<h2>game {g["game"]}</h2><p><code>{esc(g["record"])}</code></p>'
    if "error" in g:
        return f'<div class="game">{head}<p class="err">{esc(g["error"])}</p></div>'
    result = ("unfinished" if not g["terminal"] else
              f"P1 {g['payoff'][0]:+g}, P2 {g['payoff'][1]:+g}")
    parts = [head, f"<p>result: {esc(result)}</p>"]
    for seat, data in g["seats"].items():
        rows = data["moves"]
        parts.append(_review_html(rows, SEATS.index(seat), held, mine=False) if rows else
                     f"<p>{seat} made no move</p>")
    agents = [d["moves"] for d in g["seats"].values()
              if d["moves"] and d["moves"][0].get("basis") == "agent"]
    if len(agents) == 2:  # both seats valued by the agent: why not opposite
        from spycfr.analysis.agentplay import SEATS_APART

        parts.append(f'<p class="note" id="apart">{esc(SEATS_APART[0].upper())}'
                     f"{esc(SEATS_APART[1:])}.</p>")
    return '<div class="game">' + "".join(parts) + "</div>"
