"""A search agent under a --memory-limit: its first plan's solve and read and its re-solves'
subgames are checked against the budget before they are made, with a one-line error that
names the work, the need, the limit and what to do (Agent Hunter tiny; the resident memory
pinned at 0 so that the checks alone decide and the watchdog stays out)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import spycfr
from spycfr import memory
from spycfr.compiling import COMPILING
from spycfr.engine import protocol as P
from spycfr.errors import SpycfrError
from spycfr.games import make_variant
from spycfr.memory import MemoryBudget, MemoryLimitError, use_budget
from spycfr.search.agent import AgentConfig, SearchAgent
from spycfr.search.resolve import solve, solve_bytes
from spycfr.search.saved_plan import load_plans, read_bytes, save_plans
from spycfr.search.subgame import subgame
from spycfr.search.tree import build, expand_bytes, tree_bytes
from test_faults import one_line_error

TINY = make_variant("agent-hunter", "tiny").as_dict()
RESULTS = Path(__file__).resolve().parent.parent / "results"


@pytest.fixture
def no_rss(monkeypatch):
    """The resident memory read as 0: a budget refuses exactly what its checks foresee."""
    monkeypatch.setattr(memory, "rss_bytes", lambda: 0)


def _agent() -> SearchAgent:
    return SearchAgent("agent-hunter", TINY, AgentConfig(iterations=5))


def test_tree_and_solve_sizes_are_what_they_allocate():
    agent = _agent()
    t = build(agent.model, depth=3)
    arrays = [t.pub, t.kind, t.parent, t.label, t.first, t.count, t.prob, *t.mask, t.row,
              t.row_kid, t.row_next, t.row_prob, t.row_count, t.term]
    rows = int((t.row >= 0).sum())
    assert tree_bytes(agent.model, t.size, rows, t.row_kid.shape[2], t.pub[0]) == \
        sum(a.nbytes for a in arrays)
    sol = solve(t, agent.model.weights, 3, agent.values)
    made = 2 * sol.strategy.nbytes + sum(a.nbytes for a in (*sol.reach, *sol.values,
                                                            *sol.best))
    # the three CFR+ tables at once, the solution's node arrays and the leaves' values
    assert made <= solve_bytes(t) <= 2 * made


def test_the_first_plans_solve_is_refused_before_it_is_built(no_rss):
    agent = _agent()
    with use_budget(MemoryBudget(2048, "--memory-limit test")):
        with pytest.raises(MemoryLimitError) as err:
            agent.plan()
    text = str(err.value)
    # its build's first stretch (the start's, the root a decision, expands nothing)
    assert text.startswith("--memory-limit test: the agent's first plan: building a subgame ")
    assert "needs about" in text and "--plan-endgame" in text and "\n" not in text


def test_reading_a_saved_plan_is_refused_before_it_is_inflated(no_rss, tmp_path):
    agent = _agent()
    plan = agent.plan()
    save_plans(tmp_path / "plan.npz", [plan], {})
    with np.load(tmp_path / "plan.npz") as data:
        need = read_bytes(data)
    dense = sum(np.asarray(a).astype(np.int64).nbytes if np.asarray(a).dtype.kind in "iu"
                else np.asarray(a).nbytes
                for a in (*vars(plan.tree).values(), *plan.tree.mask, plan.strategy,
                          *plan.reach, *plan.values, *plan.best)
                if isinstance(a, np.ndarray))
    assert dense <= need <= 2 * dense
    with use_budget(MemoryBudget(need - 1, "--memory-limit test")):
        with pytest.raises(MemoryLimitError, match="the plan is read whole"):
            load_plans(tmp_path / "plan.npz", agent.model)
    with use_budget(MemoryBudget(need + 1, "--memory-limit test")):
        assert len(load_plans(tmp_path / "plan.npz", agent.model)) == 1


def test_a_re_solve_is_refused_with_what_to_make_smaller(no_rss):
    agent = _agent()
    budget = MemoryBudget(2**40, "--memory-limit test")
    impl = P.implementations(agent.params)
    state = impl["initial_state"](agent.params)
    with use_budget(budget):
        g = agent.game(0)
        budget.limit_bytes = 2048  # the plan made: now the re-solves alone meet the limit
        with pytest.raises(MemoryLimitError) as err:
            while impl["current_player"](state, agent.params) >= 0:
                acts = agent.legal(state)
                state = agent.after(state, int(acts[0]))
                g.observe(state)
    text = str(err.value)
    assert text.startswith("--memory-limit test: a re-solve: ")
    assert "--endgame or --depth" in text and "\n" not in text


def test_a_subgames_scratch_buffers_are_checked_before_they_are_made(no_rss, monkeypatch):
    """The expanders' scratch buffers are counted in the first stretch's check, and made
    after it: under a limit a byte short of that check nothing is allocated (they were
    made before the first check); a build that expands nothing makes none."""
    from spycfr.search import subgame as sg

    made = []
    real = sg._expand_buffers
    monkeypatch.setattr(sg, "_expand_buffers", lambda *a: made.append(a) or real(*a))
    game = _agent().model
    root = game.root()
    scratch = expand_bytes(root, max(game.n), game.max_actions, game.max_private_actions)
    assert scratch == sum(b.nbytes for b in real(root, max(game.n), game.max_actions,
                                                  game.max_private_actions))
    first = sg.CHECK_BYTES + sg.list_bytes(game, root, game.max_actions, 1,
                                           game.max_private_actions) + scratch + 7 * sg._ARRAY
    with use_budget(MemoryBudget(first - 1, "--memory-limit test")):
        with pytest.raises(MemoryLimitError, match=r"building a subgame 2 decision levels "
                                                   r"deep, public nodes \(1 done\)"):
            sg.subgame(game, root, 2)
    assert made == []
    with use_budget(MemoryBudget(2**40, "--memory-limit test")):
        t = sg.subgame(game, root, 2)
    assert len(made) == 1 and t.size > 1  # made once, at the first expansion
    made.clear()
    with use_budget(MemoryBudget(first - 1, "--memory-limit test")):
        assert sg.subgame(game, root, 0, terminal_leaves=True).size == 1  # the root a leaf
    assert made == []


def test_a_subgame_is_checked_before_its_arrays_are_made(no_rss, monkeypatch):
    from spycfr.search import subgame as sg

    monkeypatch.setattr(sg, "CHECK_BYTES", 2**16)  # the lists' stretches under the arrays'
    agent = _agent()
    t = subgame(agent.model, agent.model.root(), 4)  # no budget: no check
    # the tree's arrays, the (nodes, 2, nmax) array the masks pass through, the terminals'
    # and leaves' indices (terminals are leaves here: no payoffs)
    need = tree_bytes(agent.model, t.size, t.row_kid.shape[0], t.row_kid.shape[2],
                      t.pub[0]) + (16 * max(agent.model.n) + 24) * t.size
    with use_budget(MemoryBudget(need - 1, "--memory-limit test")):
        with memory.doing("testing"):
            with pytest.raises(MemoryLimitError, match="^--memory-limit test: testing: a "
                                                       f"subgame of {t.size:,} public nodes"):
                subgame(agent.model, agent.model.root(), 4)
    with use_budget(MemoryBudget(need, "--memory-limit test")):
        assert subgame(agent.model, agent.model.root(), 4).size == t.size


# (the resident memory pinned: None, its own; the watchdog on) -- not pinned above the
# limit with the watchdog on: it would stop pytest itself. numba's notice that it compiles
# (a cold cache, or a kernel the watchdog's exception interrupted while it loaded) is a
# line of its own before the error and not counted. The watchdog's last resort, exiting the
# process where the main thread is still inside one compiled call 10 ms after its error was
# raised, is recorded instead (it exited pytest's worker in about 1 run in 6).
@pytest.mark.parametrize("resident, watchdog", [(None, False), (1.86 * 2**30, False),
                                                (None, True)])
def test_an_agents_command_under_too_small_a_limit_is_one_line(monkeypatch, resident,
                                                               watchdog):
    """Whatever the process holds already and whichever refuses first, the watchdog or a
    check (in a pytest-xdist worker holding 1.86 GiB the agent's start reached its check
    before the watchdog woke, and the refusal gave no advice and a need of "0 GiB"), the
    refusal is one line with its advice."""
    if resident is not None:
        monkeypatch.setattr(memory, "rss_bytes", lambda: resident)
    if not watchdog:  # it sleeps longer than the command runs: the checks alone refuse
        monkeypatch.setattr(memory, "WATCH_SECONDS", 600.0)
    monkeypatch.setattr(memory, "_stop_process", lambda text: None)
    code, _, err = spycfr("query", str(RESULTS / "standard"), "--seat", "P1",
                          "place:4-0-1 place:?", "--memory-limit", "0.001")
    lines = [x for x in err.strip().splitlines() if x != COMPILING]
    assert code == 2 and len(lines) == 1, err
    line = lines[0]
    assert line.startswith("error: --memory-limit 0.001 GiB: ")
    assert "larger --memory-limit" in line
    assert " 0 GiB" not in line


def test_a_refusal_says_what_to_do_and_a_figure_that_means_something(monkeypatch):
    budget = MemoryBudget(2**30, "--memory-limit 1 GiB")
    monkeypatch.setattr(memory, "rss_bytes", lambda: 0.5 * 2**30)
    with pytest.raises(MemoryLimitError) as err:
        budget.require("a table", 0.6 * 2**30)
    assert str(err.value) == ("--memory-limit 1 GiB: a table needs about 0.6 GiB more and "
                              "0.5 GiB are resident already; give a larger --memory-limit")
    monkeypatch.setattr(memory, "rss_bytes", lambda: 2**30 - 2**20)
    with pytest.raises(MemoryLimitError, match="needs about 3 MiB more .*; the advice$"):
        budget.require("a table", 3 * 2**20, "the advice")
    monkeypatch.setattr(memory, "rss_bytes", lambda: 2**30 - 1000)
    with pytest.raises(MemoryLimitError, match="needs about under 1 MiB more"):
        budget.require("a table", 2000)
    monkeypatch.setattr(memory, "rss_bytes", lambda: 1.86 * 2**30)
    with pytest.raises(MemoryLimitError) as err:
        budget.require("a table", 0)
    assert str(err.value) == ("--memory-limit 1 GiB: a table: already over the limit, 1.86 GiB "
                              "resident; give a larger --memory-limit")


@pytest.mark.parametrize("command", ["play RUN", "query RUN --seat P1", "review RUN",
                                     "openings RUN", "head-to-head RUN uniform",
                                     "measure RUN", "serve RUN"])
def test_every_command_that_runs_an_agent_takes_a_memory_limit(command):
    args = [str(RESULTS / "standard") if a == "RUN" else a for a in command.split()]
    code, out, _ = spycfr(*args, "--help")
    assert code == 0 and "--memory-limit GIB" in out
    one_line_error([*args, "--memory-limit", "-1"], "--memory-limit must be")


@pytest.mark.parametrize("chained", ["cause", "context"])
def test_a_watchdog_error_that_numba_wrapped_in_a_system_error_is_one_line(monkeypatch, chained):
    """The watchdog's error can land while numba unpickles a cached kernel; numba then raises
    a SystemError chained to it (seen in CI: test above, the watchdog case). The CLI still
    says the watchdog's one line, and a SystemError of anything else is still a bug."""
    from spycfr.cli import main as cli_main

    text = "--memory-limit 0.001 GiB: spycfr query reached 2.13 GiB resident and was stopped"

    def wrapped(**_):
        try:
            raise memory.MemoryWatchdogError(text)
        except memory.MemoryWatchdogError as exc:
            if chained == "cause":
                raise SystemError("CPUDispatcher returned a result with an exception set") from exc
            raise SystemError("CPUDispatcher returned a result with an exception set")  # noqa: B904

    monkeypatch.setattr(cli_main.cli, "main", wrapped)
    code, _, err = spycfr("query")
    assert code == 2 and err.strip() == f"error: {text}"

    def bare(**_):
        raise SystemError("a bug of ours")

    monkeypatch.setattr(cli_main.cli, "main", bare)
    with pytest.raises(SystemError, match="a bug of ours"):
        spycfr("query")


def test_the_watchdogs_error_inside_a_files_load_is_not_called_a_corrupt_file(monkeypatch,
                                                                              tmp_path):
    """Seen with a cold numba cache: the watchdog's error landed while the openings table
    loaded, and the loader's catch-all called the file corrupt."""
    from spycfr.runs import source, store
    from spycfr.search import openings, saved_plan

    def load(*_, **__):
        raise memory.MemoryWatchdogError("--memory-limit 0.001 GiB: stopped")

    (tmp_path / store.CHECKPOINT).write_bytes(b"")
    monkeypatch.setattr(np, "load", load)
    for read in (lambda: openings.OpeningTable.load(RESULTS / "standard" / "openings-table.npz"),
                 lambda: saved_plan.plan_meta(RESULTS / "agent-avenue" / "advanced" / "plan.npz"),
                 lambda: source.load_tree(tmp_path / "tree.npz"),
                 lambda: store.load_checkpoint(tmp_path)):
        with pytest.raises(memory.MemoryWatchdogError, match="stopped"):
            read()


def test_a_loaders_guard_lets_the_watchdogs_error_through_and_makes_others_one_line():
    """memory.reading, every catch-all file loader's guard: any other error becomes the
    loader's own one line (no chain: ``from None``), of the loader's error type."""
    from functools import partial

    from spycfr.web.bench import PageError

    def guarded(exc: BaseException, **kw) -> BaseException:
        with pytest.raises(BaseException) as err:
            with memory.reading(lambda e: f"bad file ({memory.missing_or(e)})", **kw):
                raise exc
        return err.value

    error = guarded(KeyError("meta"))
    assert type(error) is SpycfrError and str(error) == "bad file (no 'meta')"
    assert error.__cause__ is None and error.__suppress_context__
    assert str(guarded(ValueError("x" * 300))) == f"bad file ({'x' * 200})"
    page = guarded(OSError("gone"), error=partial(PageError, status=409))
    assert isinstance(page, PageError) and page.status == 409 and str(page) == "bad file (gone)"
    watchdog = memory.MemoryWatchdogError("--memory-limit 0.001 GiB: stopped")
    assert guarded(watchdog) is watchdog
    own = PageError("the loader's own line", status=404)  # raised inside, kept as it is
    assert guarded(own, keep=(PageError,)) is own
    assert str(guarded(own)) == "bad file (the loader's own line)"


def test_the_watchdogs_error_landing_after_the_command_leaves_no_budget_behind(monkeypatch):
    """Seen in CI (108 tests of one worker failed under '--memory-limit 0.001 GiB'): the
    watchdog's error landed in use_budget's cleanup and skipped restoring the budget. Here
    it lands in the cleanup's first call, every time."""
    import threading
    from types import SimpleNamespace

    class Event(threading.Event):
        fired = False

        def set(self) -> None:
            if not Event.fired:
                Event.fired = True
                raise memory.MemoryWatchdogError("landed late")
            super().set()

    monkeypatch.setattr(memory, "threading", SimpleNamespace(  # memory's Event only
        Event=Event, Thread=threading.Thread, main_thread=threading.main_thread,
        current_thread=threading.current_thread))
    monkeypatch.setattr(memory, "rss_bytes", lambda: 0)  # the watchdog itself stays quiet
    with use_budget(MemoryBudget(2**30, "--memory-limit 1 GiB")):
        assert memory.current_budget() is not None
    assert Event.fired and memory.current_budget() is None


def test_the_watchdogs_error_inside_a_strategy_table_or_sweep_load_is_not_a_bad_file(
        monkeypatch, tmp_path):
    """The other catch-all loaders (bd816cf fixed the first ones): a strategy table's read
    and the workbench's sweep page let the watchdog's error through instead of calling the
    file unreadable."""
    from types import SimpleNamespace

    import pandas as pd

    from spycfr.formats.strategy_table import read_table
    from spycfr.web import many
    from spycfr.web.bench import Workbench
    from spycfr.web.catalog import discover

    table = tmp_path / "strategy.csv"
    table.write_text("player,infoset,action,probability\n")

    def load(*_, **__):
        raise memory.MemoryWatchdogError("--memory-limit 0.001 GiB: stopped")

    monkeypatch.setattr(pd, "read_csv", load)
    with pytest.raises(memory.MemoryWatchdogError, match="stopped"):
        read_table(table)
    bench = Workbench(discover([str(RESULTS / "sweeps" / "agent-hunter-decoys")]))
    with pytest.raises(memory.MemoryWatchdogError, match="stopped"):
        many.sweep(bench, SimpleNamespace(query={"run": "agent-hunter-decoys"}))


def test_a_subgames_growth_is_bounded_by_its_lists_bytes_not_the_resident_growth(monkeypatch):
    """The build's checks bound what it allocates (tracemalloc: numpy's data and Python's
    objects) and are not absurd: before each stretch of its lists at most CHECK_BYTES and
    one more expansion, which no stretch passed; before its arrays, their bytes, within a
    factor 1.5. The resident memory's growth plays no part: its first steps' one-off growth
    (numba loading its kernels) made the old estimate of this plan 4.2 GiB on a warm cache
    and 75.9 GiB on a cold one, for a build of 2.3 MiB."""
    import tracemalloc

    from spycfr.search import subgame as sg

    game = _agent().model
    sg.subgame(game, game.root(), 1)  # the expanders loaded
    default = sg.CHECK_BYTES + sg.list_bytes(game, game.root(), game.max_actions, 1,
                                             game.max_private_actions)
    assert default < 4.1 * 2**20  # the first plan's check (4 levels): the old 4.2 GiB
    monkeypatch.setattr(sg, "CHECK_BYTES", 2**18)  # stretches of a quarter MiB: several here
    jumps = iter(range(0, 2**40, 40 * 2**20))  # resident memory 40 MiB more each time read
    monkeypatch.setattr(memory, "rss_bytes", lambda: next(jumps))
    seen: list[tuple[str, float, int]] = []

    class Recording(MemoryBudget):
        def require(self, what, extra_bytes, advice=""):
            seen.append((what, extra_bytes, tracemalloc.get_traced_memory()[0]))
            tracemalloc.reset_peak()

    tracemalloc.start()
    try:
        with use_budget(Recording(2.0**50, "--memory-limit test")):
            t = sg.subgame(game, game.root(), 4)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    stretch = sg.CHECK_BYTES + sg.list_bytes(game, game.root(), game.max_actions, 1,
                                             game.max_private_actions)
    growth = [s for s in seen if s[0].startswith("building")]
    final = [s for s in seen if s[0].startswith("a subgame of")]
    assert len(growth) >= 3 and len(final) == 1 and t.size == 1943
    # the first stretch's check counts the expanders' scratch buffers, made after it
    scratch = expand_bytes(game.root(), max(game.n), game.max_actions,
                           game.max_private_actions) + 7 * sg._ARRAY
    assert [need for _, need, _ in growth] == [stretch + scratch] + [stretch] * (len(growth) - 1)
    made = [b[2] - a[2] for a, b in zip(growth, growth[1:] + final, strict=True)]
    assert all(m <= need for m, (_, need, _) in zip(made, growth, strict=True))  # bounded
    assert max(made) > 0.5 * sg.CHECK_BYTES  # and tight
    arrays = peak - final[0][2]  # the arrays made after the last check, at their peak
    assert arrays <= final[0][1] <= 1.5 * arrays


def test_the_watchdog_stops_the_process_when_the_main_thread_does_not_meet_its_error(
        monkeypatch):
    """Inside one long call that runs no Python code (a sleep here, a compiled kernel in
    use), the main thread cannot meet the watchdog's error: the watchdog then stops the
    process with the error line (recorded here instead), and the error still lands after."""
    stops = []
    monkeypatch.setattr(memory, "rss_bytes", lambda: 2**30)
    monkeypatch.setattr(memory, "_stop_process", stops.append)
    with pytest.raises(MemoryLimitError, match="reached 1 GiB resident"):
        with use_budget(MemoryBudget(2**29, "--memory-limit test")):
            time.sleep(0.3)
    assert stops and stops[0].startswith("--memory-limit test: this command reached 1 GiB")


def test_no_watchdog_runs_after_a_command_whose_cleanup_was_skipped(monkeypatch):
    """Seen in a pre-CI run: the watchdog's error of a command run in pytest's own process
    (`query --memory-limit 0.001` above) was met, but its watchdog was still running after
    the test (the error can land in the command's way out, before the cleanup that stops
    the watchdog) and, the test's seam undone, stopped the worker. The CLI's last step
    (end_of_command) stops every watchdog; here the command's cleanup is never run."""
    stops: list[str] = []
    monkeypatch.setattr(memory, "rss_bytes", lambda: 2**30)
    monkeypatch.setattr(memory, "_stop_process", stops.append)
    command = use_budget(MemoryBudget(2**29, "--memory-limit test"))
    command.__enter__()
    with pytest.raises(MemoryLimitError, match="reached 1 GiB resident"):
        while True:  # Python code between short sleeps: the error is met
            time.sleep(0.001)
    watchdogs = [t for t in threading.enumerate() if t.name == "spycfr-memory-watchdog"]
    assert watchdogs and all(t.is_alive() for t in watchdogs)
    memory.end_of_command()
    stops.clear()
    time.sleep(0.1)  # over the hard line all along
    assert not stops and not any(t.is_alive() for t in watchdogs)
    assert memory.current_budget() is None
    command.__exit__(None, None, None)  # late, and harmless


def test_no_budget_is_left_after_a_command_whatever_its_end(monkeypatch):
    """The CLI's last step forgets the command's budget (a budget left current would refuse
    library work later in the same process: 108 tests of one CI worker once)."""
    monkeypatch.setattr(memory, "_current", MemoryBudget(1, "--memory-limit stale"))
    code, _, _ = spycfr("games")
    assert code == 0 and memory.current_budget() is None
