"""The process's memory as the operating system counts it: resident set now and at its
peak, so that memory limits are promises about what is measured, not about table sizes."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import sys
import threading
from collections.abc import Callable, Iterator

from spycfr.errors import SpycfrError


def rss_bytes() -> int:
    """Resident set size now (Linux /proc; elsewhere the peak, an upper bound)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_rss_bytes()


def peak_rss_bytes() -> int:
    """The largest resident set size of this process so far: VmHWM on Linux (getrusage's
    ru_maxrss survives exec, so a process started by a big parent would report the parent's
    size); ru_maxrss elsewhere."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


DEFAULT_ADVICE = "give a larger --memory-limit"  # a refusal's advice where its work gave none


def size_text(nbytes: float) -> str:
    """``nbytes`` for a refusal: GiB to 3 figures, MiB below 0.01 GiB (a need of "0 GiB"
    says nothing), "under 1 MiB" below that."""
    if nbytes >= 0.01 * 2**30:
        return f"{nbytes / 2**30:.3g} GiB"
    if nbytes >= 2**20:
        return f"{nbytes / 2**20:.3g} MiB"
    return "under 1 MiB"


class MemoryLimitError(SpycfrError):
    """An allocation that would take the process past its memory limit (refused)."""


@contextlib.contextmanager
def reading(message: Callable[[Exception], str],
            error: Callable[[str], Exception] = SpycfrError,
            keep: tuple[type[Exception], ...] = ()) -> Iterator[None]:
    """A file loader's guard: any error inside (numpy, zipfile, json, pandas raise many types
    on a damaged file) becomes one line, ``error(message(exc))`` (a :class:`SpycfrError` by
    default), without the chain; a :class:`MemoryLimitError` goes through as it is (the memory
    watchdog's, landed inside the load: not the file's fault, and its own line says why), and
    so do the errors of ``keep`` (the loader's own lines, raised inside)."""
    try:
        yield
    except MemoryLimitError:
        raise
    except keep:  # () catches nothing
        raise
    except Exception as exc:
        raise error(message(exc)) from None


def missing_or(exc: Exception, limit: int = 200) -> str:
    """An error's text for a loader's line: ``no 'field'`` for a missing field (a KeyError's
    own text is only the key), its message cut to ``limit`` characters otherwise."""
    return f"no {exc}" if isinstance(exc, KeyError) else str(exc)[:limit]


class MemoryBudget:
    """A ``--memory-limit``: checked before every large allocation of a full-tree solve, so
    that the process's peak resident memory stays under it (the allocation is refused with
    a one-line error, never made)."""

    def __init__(self, limit_bytes: float, name: str | None = None) -> None:
        self.limit_bytes = float(limit_bytes)
        self.name = name or f"--memory-limit {self.limit_bytes / 2**30:.3g} GiB"

    def fits(self, extra_bytes: float) -> bool:
        """Whether ``extra_bytes`` more than the resident memory now stay under the limit."""
        return rss_bytes() + extra_bytes <= self.limit_bytes

    def require(self, what: str, extra_bytes: float, advice: str = "") -> None:
        """Raise MemoryLimitError unless ``what`` (``extra_bytes`` more) fits under the limit;
        the error says what to do (``advice``, else a larger limit), and where the process is
        past the limit already it says so rather than a need of about nothing."""
        now = rss_bytes()
        if now + extra_bytes > self.limit_bytes:
            todo = advice or DEFAULT_ADVICE
            if now > self.limit_bytes:
                raise MemoryLimitError(f"{self.name}: {what}: already over the limit, "
                                       f"{size_text(now)} resident; {todo}")
            raise MemoryLimitError(
                f"{self.name}: {what} needs about {size_text(extra_bytes)} more and "
                f"{size_text(now)} are resident already; {todo}")

    def tracker(self, what: str, advice: str = "", every: int = 4096) -> GrowthCheck:
        """A check for work that grows in many small steps (nodes read, states expanded):
        see :class:`GrowthCheck`."""
        return GrowthCheck(self, what, advice, every)


GRAIN = 2**20  # a growth check's need beyond its measure (GrowthCheck)


class GrowthCheck:
    """Checks a budget every ``every`` steps of a growing piece of work (and at every power
    of two before, so that a walk whose steps are big is caught early), with the growth per
    step measured as it goes: the work is refused when the next stretch of steps, at twice
    the growth per step measured, would pass the limit. No bytes-per-step guess is needed, so
    it holds for any work (a chess state or a tree node).

    The growth per step is the largest of the last stretch's (between the last two checks)
    and the average since the end of the first stretch (the work's first step), the average
    started again every ``4 * every`` steps and the largest finished one kept. The first
    step's growth is resident, so counted, but not taken as what every step costs: one-off
    costs land there (imports, a first buffer, a first label; numba loading its kernels made
    a subgame's check of this kind ask for 96.9 GiB for a build of 2.3 MiB, docs/search.md
    "Memory limits"). A one-off growth later, or the allocator's granularity, adds at most
    four times itself to the next check's need, never that times the steps to come. A check
    asks for ``GRAIN`` more besides: resident memory grows in grains (an arena of Python's
    allocator, a list copied as it grows), which a stretch may start."""

    def __init__(self, budget: MemoryBudget, what: str, advice: str, every: int) -> None:
        self.budget, self.what, self.advice, self.every = budget, what, advice, every
        self.checks = 0
        # (steps, resident bytes) at the last check and where the average started, from
        # the end of the first stretch
        self.last: tuple[int, int] | None = None
        self.since: tuple[int, int] | None = None
        self.settled = 0.0  # the largest finished average

    def tick(self, steps: int) -> None:
        """Call with the number of steps done so far (cheap: a check every ``every`` steps)."""
        if steps % self.every and (steps & (steps - 1) or steps > self.every):
            return
        now = rss_bytes()
        self.checks += 1
        rate = self.settled
        if self.last is not None and steps > self.last[0]:
            rate = max(rate, max(now - self.last[1], 0) / (steps - self.last[0]))
        if self.since is not None and steps > self.since[0]:
            done = steps - self.since[0]
            average = max(now - self.since[1], 0) / done
            rate = max(rate, average)
            if done >= 4 * self.every:  # a long average: keep it, and start another
                self.settled, self.since = max(self.settled, average), (steps, now)
        elif self.since is None and self.checks >= 2:  # the first stretch is over
            self.since = (steps, now)
        if self.checks >= 2:
            self.last = (steps, now)
        interval = min(self.every, max(steps, 1))  # the steps to the next check
        what, advice = _in_context(f"{self.what} ({steps:,} done)", self.advice)
        self.budget.require(what, 2 * interval * rate + GRAIN, advice)


def physical_bytes() -> float:
    """The machine's RAM (8 GiB if it cannot be read)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 8.0 * 2**30


def budget_for(limit_gib: float | None) -> MemoryBudget:
    """The budget of a ``--memory-limit`` in GiB (None: half the RAM, the default); a one-line
    error for a limit that is not > 0 or more than half the RAM."""
    half = physical_bytes() / 2**31
    if limit_gib is None:
        return MemoryBudget(half * 2**30, f"the default --memory-limit of {half:.3g} GiB "
                                          "(half the RAM)")
    if not 0.0 < limit_gib <= half:
        raise SpycfrError(f"--memory-limit must be > 0 and at most half the RAM ({half:.3g} "
                          f"GiB here), got {limit_gib!r}")
    return MemoryBudget(limit_gib * 2**30)


# --- the budget of the running command ---------------------------------------------------
_current: MemoryBudget | None = None
# the watchdogs of the commands under way (use_budget's), each with its stop
_watching: list[tuple[threading.Event, threading.Thread]] = []
# per thread (the workbench serves pages from threads): the work under way, innermost last,
# as (what, advice) pairs of :func:`doing`
_doing = threading.local()


def require(what: str, extra_bytes: float, advice: str = "") -> None:
    """:meth:`MemoryBudget.require` of the running command's budget (nothing outside one),
    ``what`` prefixed by the work under way and ``advice`` by default the innermost
    :func:`doing`'s."""
    if _current is not None:
        said, advice = _in_context(what, advice)
        _current.require(said, extra_bytes, advice)


def _in_context(what: str, advice: str) -> tuple[str, str]:
    """``what`` prefixed by the work under way (:func:`doing`), and ``advice`` or else the
    innermost advice given there."""
    stack = getattr(_doing, "stack", ())
    said = [a for _, a in stack if a]
    return (": ".join([*(w for w, _ in stack if w), what]),
            advice or (said[-1] if said else ""))


@contextlib.contextmanager
def doing(what: str, advice: str = "") -> Iterator[None]:
    """Name the work under way for the refusals of :func:`require` inside it (``what`` as a
    prefix: "the agent's first plan: a public tree of ... needs about ...") and what to do
    about one (``advice``, where the refusal's own gives none): library code that allocates
    (a tree's build, a solve) knows sizes but not why it was asked; its caller knows both
    what it is doing and which setting would make it smaller."""
    stack = getattr(_doing, "stack", ())
    _doing.stack = (*stack, (what, advice))
    try:
        yield
    finally:
        _doing.stack = stack


def end_of_command() -> None:
    """After a command (the CLI's last step): no watchdog runs and no budget is current,
    whatever way its end went. The watchdog's error can land in the command's way out
    before use_budget's cleanup (contextlib's exit), which then never stops its watchdog:
    in a process that goes on (pytest's, the commands run in it) that watchdog stopped the
    process later, and library code run later was refused for the stale budget."""
    global _current
    while _watching:
        stop, watcher = _watching.pop()
        stop.set()
        watcher.join()
    if threading.current_thread() is threading.main_thread():  # an error not met yet
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(threading.main_thread().ident or 0), None)
    _current = None


def current_budget() -> MemoryBudget | None:
    """The budget the running command was given (None outside :func:`use_budget`): what
    library code that builds big things checks when its caller passed no budget."""
    return _current


class MemoryWatchdogError(MemoryLimitError):
    """Raised in the main thread by the watchdog of :func:`use_budget`."""

    message = "memory limit reached"

    def __init__(self, *args) -> None:
        super().__init__(*(args or (self.message,)))


def _stop_process(text: str) -> None:
    """The watchdog's last resort, where the main thread has not met its error in time: the
    error line, then exit 2 at once (outputs are written atomically, so nothing is left
    half-written). A seam for tests, which run commands inside pytest's own process."""
    os.write(2, f"error: {text}\n".encode())
    os._exit(2)


WATCH_MARGIN = 0.04  # the watchdog stops the command this far below the limit
WATCH_SECONDS = 0.01


@contextlib.contextmanager
def use_budget(budget: MemoryBudget, what: str = "this command") -> Iterator[MemoryBudget]:
    """Run a command under ``budget``: library code finds it with :func:`current_budget` (and
    refuses big allocations before making them), and a watchdog thread stops the command
    (MemoryLimitError in the main thread) if its resident memory still comes within
    WATCH_MARGIN of the limit, for the allocations no one checked beforehand."""
    global _current
    saved, _current = _current, budget
    stop = threading.Event()
    main = threading.main_thread().ident or 0  # a started thread always has an ident
    threshold = budget.limit_bytes * (1 - WATCH_MARGIN)
    hard = budget.limit_bytes * (1 - WATCH_MARGIN / 2)

    def watch() -> None:
        raised = False
        while not stop.wait(WATCH_SECONDS):
            now = rss_bytes()
            if now <= threshold:
                continue
            text = (f"{budget.name}: {what} reached {now / 2**30:.3g} GiB resident and was "
                    "stopped before passing the limit; give a larger --memory-limit")
            if not raised:  # delivered when the main thread next runs Python code
                MemoryWatchdogError.message = text
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(main), ctypes.py_object(MemoryWatchdogError))
                raised = True
            elif now > hard:  # still inside one long compiled call: stop the process now
                _stop_process(text)

    watcher = None
    if threading.current_thread() is threading.main_thread():
        watcher = threading.Thread(target=watch, name="spycfr-memory-watchdog", daemon=True)
        watcher.start()
        _watching.append((stop, watcher))
    try:
        yield budget
    finally:
        # The watchdog's error may land here, after the command: it must not skip restoring
        # the budget (a later command, or test, would run under this one's limit), and one
        # raised but not yet met must not land after this returns.
        while True:
            try:
                _current = saved
                stop.set()
                if watcher is not None:
                    watcher.join()
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), None)
                    if (stop, watcher) in _watching:
                        _watching.remove((stop, watcher))
                break
            except MemoryWatchdogError:
                continue
