"""The one solve loop of every iterative solver: stop rules, measurements, progress and
checkpoints.

A solver gives ``iteration`` (iterations done), ``seconds`` (iteration time so far, over
all its runs), ``log`` (rows of (iteration, seconds, measured value)), ``warm_up()`` and
``iterate(n)`` (which may raise :class:`MemoryLimitReached` between two iterations, its
state intact); :func:`drive` runs it until a number of iterations, a target value, a time
limit or its memory limit, measuring every ``check_every`` iterations and at the end, and
checkpointing every ``checkpoint_every`` iterations and at the end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from spycfr.errors import MemoryLimitReached, SpycfrError

DEFAULT_ITERATIONS = 1000


@dataclass
class SolveResult:
    """Outcome of a solve; ``log`` rows are (iteration, seconds, value).

    ``value`` is what ``measure`` returned last: the exact exploitability when ``kind`` is
    ``"exact"``, otherwise an estimate that ``kind`` names.
    """

    iterations: int
    seconds: float
    value: float
    kind: str
    stopped_by: str  # iterations, target, time or memory
    log: list[tuple[int, float, float]] = field(default_factory=list)
    note: str | None = None  # why a solver stopped itself (the memory limit's message)

    @property
    def exploitability(self) -> float:
        return self.value


def check_limits(iterations: int | None, target: float | None, time_limit: float | None,
                 check_every: int | None) -> None:
    """One-line errors for limits out of range."""
    if iterations is not None and iterations < 1:
        raise SpycfrError(f"iterations must be >= 1, got {iterations}")
    if target is not None and not target > 0:
        raise SpycfrError(f"target exploitability must be > 0, got {target}")
    if time_limit is not None and not time_limit > 0:
        raise SpycfrError(f"time limit must be > 0 seconds, got {time_limit}")
    if check_every is not None and check_every < 1:
        raise SpycfrError(f"check-every must be >= 1, got {check_every}")


def drive(
    solver,
    measure: Callable[[], float],
    kind: str = "exact",
    iterations: int | None = None,
    target: float | None = None,
    time_limit: float | None = None,
    check_every: int = 100,
    progress: Callable[[int, float, float | None], None] | None = None,
    checkpoint_every: int | None = None,
    checkpoint: Callable[[float], None] | None = None,
) -> SolveResult:
    """Iterate ``solver`` until ``iterations`` more are done, ``measure()`` is at most
    ``target``, ``time_limit`` seconds of iterations have passed or the solver reaches its
    memory limit, whichever comes first.

    Only iteration time counts toward ``seconds`` and the time limit (measuring is extra).
    ``progress(iteration, seconds, value or None)`` is called after each batch;
    ``checkpoint(seconds)`` at every multiple of ``checkpoint_every`` iterations and when
    the loop stops.
    """
    if iterations is None and target is None and time_limit is None:
        iterations = DEFAULT_ITERATIONS
    check_limits(iterations, target, time_limit, check_every)
    if checkpoint_every is not None and checkpoint_every < 1:
        raise SpycfrError(f"checkpoint-every must be >= 1, got {checkpoint_every}")
    solver.warm_up()
    end = None if iterations is None else solver.iteration + iterations
    seconds, done, since, value, stopped, note = 0.0, 0, 0, math.inf, "iterations", None
    while True:
        step = check_every - since
        if end is not None:
            step = min(step, end - solver.iteration)
        if checkpoint_every is not None:
            step = min(step, checkpoint_every - solver.iteration % checkpoint_every)
        if time_limit is not None:
            # Aim each batch at about 0.1 s and never (by the current rate) past the limit.
            rate = done / seconds if done and seconds > 0 else 0.0
            if rate:
                left = max(time_limit - seconds, 0.0)
                step = min(step, max(1, int(min(left, 0.1) * rate)))
            else:
                step = 1
        before = solver.iteration
        t0 = time.perf_counter()
        try:
            solver.iterate(step)
        except MemoryLimitReached as exc:
            stopped, note = "memory", str(exc)
        seconds += time.perf_counter() - t0
        done += solver.iteration - before
        since += solver.iteration - before
        finished = end is not None and solver.iteration >= end
        out_of_time = time_limit is not None and seconds >= time_limit
        at_checkpoint = checkpoint is not None and (
            finished or out_of_time or stopped == "memory"
            or (checkpoint_every is not None and solver.iteration % checkpoint_every == 0))
        measured = None
        # Measure on schedule, at the end, and at every checkpoint (whose log then ends
        # with its own iteration).
        if since >= check_every or finished or out_of_time or stopped == "memory" or (
                at_checkpoint):
            since = 0
            value = measured = measure()
            solver.log.append((solver.iteration, solver.seconds, value))
        if progress is not None:
            progress(solver.iteration, seconds, measured)
        if stopped != "memory":
            if target is not None and measured is not None and value <= target:
                stopped = "target"
            elif out_of_time and not finished:
                stopped = "time"
        if at_checkpoint or (checkpoint is not None and stopped != "iterations"):
            checkpoint(seconds)
        if finished or stopped != "iterations":
            break
    return SolveResult(solver.iteration, seconds, value, kind, stopped, list(solver.log), note)
