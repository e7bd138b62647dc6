"""What every page shares: the served entries and the runs loaded from them, the error a
page answers bad input with, the links of an entry's pages, the parsing of move lists."""

from __future__ import annotations

import collections
import contextlib
import functools
import hashlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from spycfr.web.catalog import Entry
from spycfr.web.html import url

if TYPE_CHECKING:
    import numpy as np

    from spycfr.runs.store import Run

MAX_UPLOAD = 1 << 20  # bytes of records a review request may send
WALKS_KEPT = 4  # games against a search agent whose walks the workbench keeps


class PageError(Exception):
    """Bad input: its message goes on the page with ``status``."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Thinking:
    """What the search agent's pages under way are doing, for the pages that wait for them
    (``/thinking``): each page (``page``: a game, its seat and seed; a review, its form's
    token), since when, and the agent's last progress line (its solves say their iterations
    and time left after a few seconds, its first plan its build; SearchAgent's
    ``progress``). A re-solve takes about 9 s a move on Agent Hunter standard, and the page
    showed nothing meanwhile.

    Keyed by (run, page): one slot for the workbench had the first of two agent pages end
    by clearing it ("not thinking") while the second still waited for the agent and then
    re-solved. The agent works for one page at a time (the workbench's ``agent_lock``):
    that page ``speaking`` gets its lines; a page waiting for its turn is told so. A page's
    line is the agent's while it speaks for that page: it is cleared as the page's turn
    begins and ends, in the lock take that changes the speaker (a game's page takes the
    agent twice, its moves then its review, and between the two showed its last line while
    the agent worked for another page).

    A page is keyed by a short id of its text (:func:`page_id`), whatever its length: the
    review POST cut a long key that ``/thinking`` refused, so that page showed no line."""

    WAITING = "waiting: the agent answers another page first"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (run, page id) -> [since, last line, pages open with that key (a reload, two tabs)]
        self._pages: dict[tuple[str, str], list] = {}
        self._speaker: tuple[str, str] | None = None  # the page the agent works for now

    @contextlib.contextmanager
    def during(self, run: str, page: str) -> Iterator[None]:
        """Page ``page`` of ``run`` waits for its agent while the block runs."""
        key = (run, page_id(page))
        with self._lock:
            entry = self._pages.setdefault(key, [time.monotonic(), "", 0])
            entry[2] += 1
        try:
            yield
        finally:
            with self._lock:
                entry[2] -= 1
                if entry[2] == 0:
                    del self._pages[key]

    @contextlib.contextmanager
    def speaking(self, run: str, page: str) -> Iterator[None]:
        """The agent works for page ``page`` of ``run`` while the block runs (under the
        workbench's ``agent_lock``): its progress lines go to that page, whose line starts
        and ends empty (a line of its turn is no line of another's)."""
        key = (run, page_id(page))
        with self._lock:
            before, self._speaker = self._speaker, key
            self._clear(key)
        try:
            yield
        finally:
            with self._lock:
                self._speaker = before
                self._clear(key)

    def _clear(self, key: tuple[str, str]) -> None:
        """Page ``key``'s line emptied (under ``_lock``)."""
        if key in self._pages:
            self._pages[key][1] = ""

    def say(self, run: str, text: str) -> None:
        """A progress line of ``run``'s agent (its ``progress`` callback, bound to the run):
        to the page it works for, or, while it loads (no page of that run speaking), to
        every page of the run (they all wait for that load)."""
        with self._lock:
            if self._speaker is not None and self._speaker[0] == run:
                keys = [self._speaker]
            else:
                keys = [k for k in self._pages if k[0] == run]
            for key in keys:
                if key in self._pages:
                    self._pages[key][1] = text

    def status(self, run: str, page: str | None = None) -> dict:
        """Whether page ``page`` of ``run`` (None: any page of it) waits for its agent, for
        how many seconds, and its last line (or that the agent works for another page)."""
        with self._lock:
            keys = ([(run, page_id(page))] if page is not None else
                    sorted((k for k in self._pages if k[0] == run),
                           key=lambda k: self._pages[k][0]))
            keys = [k for k in keys if k in self._pages]
            if not keys:
                return {"thinking": False, "seconds": 0.0, "line": ""}
            key = self._speaker if self._speaker in keys else keys[0]
            since, line, _ = self._pages[key]
            if not line and self._speaker is not None and self._speaker != key:
                line = self.WAITING
            return {"thinking": True, "seconds": round(time.monotonic() - since, 1),
                    "line": line}


def page_id(page: str) -> str:
    """The short id of a page's key in :class:`Thinking` (a game's ``play:P1:5``, a review
    form's token, or whatever a request sends as ``page=``): 16 hex digits of its sha256,
    so that the page's POST and its ``/thinking`` requests meet whatever its length."""
    return hashlib.sha256(page.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class Loaded:
    """A tree run loaded for the pages: the run, its Python game, its values."""

    run: Run
    game: object
    values: tuple  # (cfv, reach, opp_reach) of the run's strategy
    node_reach: np.ndarray | None = None  # reach[n, 0/1/2] of every node, once a review needs it

    @property
    def eps(self) -> float:
        return float(self.run.result.exploitability or 0.0)


class Workbench:
    """The entries served and the runs loaded from them (a few kept in memory)."""

    def __init__(self, entries: dict[str, Entry], keep: int = 3) -> None:
        self.entries = entries
        self._lock = threading.RLock()  # one load at a time (runs are large)
        self._loaded = functools.lru_cache(maxsize=keep)(self._load)
        self._sampled = functools.lru_cache(maxsize=1)(self._load_sampled)
        # a search agent follows one game: a walk per game played (run, seat, seed), a few
        # kept, each page's replay reusing its answers; one agent page at a time (the
        # walks share the loaded agent)
        self._walks: collections.OrderedDict[tuple, object] = collections.OrderedDict()
        self.agent_lock = threading.Lock()
        self.thinking = Thinking()  # what an agent's page does meanwhile (its progress)
        self._damage: dict[tuple, str | None] = {}  # (name, plan file size, time): its error
        # its own lock: a page saying the damage does not wait for a run loading (_lock)
        self._damage_lock = threading.Lock()

    def damage(self, entry: Entry) -> str | None:
        """The error that loading ``entry``'s search agent stops at, where its saved plan
        file is damaged (:func:`spycfr.runs.agent_run.damaged_plan`, the CLI's words), for
        every page of the run to say (the play and review pages said it, the index,
        openings and report pages did not); None where there is none. Hashed once for
        each size and time of the file, under a lock of its own (not the one a run's load
        holds: the index would wait for a load of another page)."""
        from spycfr.runs.agent_run import damaged_plan, plan_name

        record = entry.meta.get("plan")
        if entry.kind != "run" or not isinstance(record, dict):
            return None
        try:
            st = (entry.path / plan_name(record)).stat()
        except OSError:
            return None  # missing: the agent solves its plan again, and says so
        key = (entry.name, st.st_size, st.st_mtime_ns)
        with self._damage_lock:
            if key not in self._damage:
                self._damage[key] = damaged_plan(entry.path, entry.meta)
            return self._damage[key]

    def damage_html(self, entry: Entry, named: bool = False) -> str:
        """:meth:`damage` as a page's error line ('' where none), the entry's name first
        where ``named`` (the index)."""
        from spycfr.web.html import esc

        words = self.damage(entry)
        if words is None:
            return ""
        return f'<p class="err">{esc(entry.name + ": " if named else "")}error: {esc(words)}</p>'

    def load(self, name: str) -> Loaded:
        """The tree run ``name``, loaded once (a few kept)."""
        with self._lock:
            return self._loaded(name)

    def entry(self, name: str | None, kind: str | None = "run") -> Entry:
        entry = self.entries.get(name or "")
        if entry is None:
            shown = repr(name[:80]) if name else "(none given)"
            fuller = [e.title for n, e in self.entries.items() if name and n.endswith("/" + name)]
            if fuller:  # a folder's name that several entries end with (catalog.discover)
                raise PageError(f"unknown run {shown}: the entries ending so are named by more "
                                "of their path, " + ", ".join(fuller[:20]), 404)
            raise PageError(f"unknown run {shown}: this server serves "
                            + (", ".join(sorted(self.entries)[:20]) or "nothing"), 404)
        if kind is not None and entry.kind != kind:
            raise PageError(f"{name!r} is a {entry.kind} directory, not a {kind} directory",
                            404)
        return entry

    def opponent(self, name: str, game_key: tuple | None = None):
        """(the run's strategy as a player, its Python game): a tree run's from its loaded
        tree, a sampled run's from its checkpoint, a search agent's as a walk of its own
        (the one kept for ``game_key``, the game's seat and seed, where given; use it
        under ``agent_lock``)."""
        from spycfr.analysis.play import Opponent
        from spycfr.games import make_game
        from spycfr.runs.result import RunResult

        entry = self.entry(name)
        if not RunResult.from_json(entry.meta).treeless:
            loaded = self.load(name)
            run = loaded.run
            return Opponent(run.result, run.tree, run.strategy), loaded.game
        with self._lock:
            opp = self._sampled(name)
            self._drop_walks_but(None if opp.agent is None else opp.agent.agent)
        if opp.agent is not None:
            with self._lock:
                key = (name, game_key)
                walk = self._walks.get(key) if game_key is not None else None
                if walk is None:
                    walk = opp.agent.fresh()
                    if game_key is not None:
                        self._walks[key] = walk
                        while len(self._walks) > WALKS_KEPT:
                            self._walks.popitem(last=False)
                else:
                    self._walks.move_to_end(key)
            opp = replace(opp, agent=walk)
        return opp, make_game(opp.result.game, None, opp.result.variant)

    def _drop_walks_but(self, agent) -> None:
        """Forget the kept walks of every search agent but ``agent`` (the one loaded now;
        None: none is): the cache of sampled runs keeps one, and a walk holds its agent, so
        walks of games against other agents kept up to WALKS_KEPT agents in memory (1-3 GB
        each on Agent Avenue). A game against an agent no longer loaded loads it again and
        walks from the start, as it would have anyway."""
        for key in [k for k, w in self._walks.items() if getattr(w, "agent", None) is not agent]:
            del self._walks[key]

    def reach(self, name: str):
        """Node reach probabilities of a tree run under its strategy (None: sampled run)."""
        from spycfr.runs.result import RunResult

        if RunResult.from_json(self.entry(name).meta).treeless:
            return None
        loaded = self.load(name)
        with self._lock:
            return self._reach(loaded)

    @staticmethod
    def _reach(loaded: Loaded):
        if loaded.node_reach is None:
            from spycfr.analysis.play import Opponent
            from spycfr.analysis.review import node_reach

            run = loaded.run
            loaded.node_reach = node_reach(Opponent(run.result, run.tree, run.strategy))
        return loaded.node_reach

    def _load_sampled(self, name: str):
        from spycfr.analysis.play import load_opponent

        # the agent's lines are its run's (Thinking.say): bound to the name, not a page
        return load_opponent(str(self.entry(name).path), functools.partial(self.thinking.say,
                                                                           name))

    def _load(self, name: str) -> Loaded:
        from spycfr.exact.best_response import infoset_values
        from spycfr.games import make_game, tree_labels
        from spycfr.runs.result import RunResult
        from spycfr.runs.store import load_run

        entry = self.entry(name)
        if RunResult.from_json(entry.meta).treeless:
            from spycfr.runs.agent_run import is_agent_run

            what = ("is a search agent (it re-solves as it plays, keeping no tree; `spycfr "
                    "query` answers a position)" if is_agent_run(entry.meta)
                    else "was sampled without a tree (Monte-Carlo CFR)")
            raise PageError(f"run {name!r} {what}: its openings, play and review pages work, "
                            "the strategy browser needs a tree", 409)
        run = load_run(entry.path)
        tree_labels(run.tree)
        game = make_game(run.result.game, None, run.result.variant)
        return Loaded(run, game, infoset_values(run.tree, run.strategy))


def entry_nav(entry: Entry) -> list[tuple[str, str]]:
    """The links of an entry's pages."""
    if entry.kind != "run":
        return [(entry.name, url(f"/{entry.kind}", run=entry.name))]
    links = [(entry.name, url("/run", run=entry.name)),
             ("browse", url("/browse", run=entry.name)),
             ("openings", url("/openings", run=entry.name)),
             ("play", url("/play", run=entry.name)),
             ("review", url("/review", run=entry.name))]
    if "report.md" in entry.files:
        links.append(("report", url("/report", run=entry.name)))
    return links


def fmt_eps(meta: dict, brief: bool = False) -> str:
    """The run's exploitability, or why it is unknown and the lower bound measured instead
    (:func:`spycfr.analysis.bound.bound_words`, which says where the bound's games were
    another agent's, naming the codes): a sampled run's, or a search agent's on a game too
    big for a best response; ``brief``: that note without the codes, as `spycfr query`
    says it (the play and review pages' header)."""
    eps = meta.get("exploitability")
    if eps is not None:
        return f"{eps:.2g}"
    from spycfr.analysis.bound import bound_words

    bound = bound_words(meta.get("measured"), meta.get("code"), brief)
    if bound is not None:
        return f"unknown; {bound}"
    from spycfr.runs.agent_run import is_agent_run

    return "unknown (" + ("a search agent" if is_agent_run(meta) else "a sampled run") + \
        ": not measured)"


def parse_line(text: str | None, what: str = "line", limit: int = 400) -> list[int]:
    """A dot-separated list of small non-negative integers (the public line, moves)."""
    if not text:
        return []
    parts = text.split(".")
    if len(parts) > limit or not all(p.isascii() and p.isdigit() and len(p) <= 6
                                     for p in parts):
        raise PageError(f"the {what} {text[:60]!r} is not a list of move numbers separated "
                        f"by dots (at most {limit})")
    return [int(p) for p in parts]
