"""The one solve loop of every iterative solver: stop rules, measurements, progress and
checkpoints.

:class:`SolveLoop` runs an :class:`spycfr.cfr.engine.Engine` until a number of iterations, a
target value, a time limit or its memory limit, measuring every ``check_every`` iterations
and at the end, and checkpointing every ``checkpoint_every`` iterations and at the end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from spycfr.cfr.engine import Engine, LogRow
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
    log: list[LogRow] = field(default_factory=list)
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


@dataclass(frozen=True)
class Batch:
    """What one batch of iterations left: where the run is, the value measured (None when
    not measured this time), whether a checkpoint is due now, and why the loop stops after
    it (None: it goes on), which that checkpoint records."""

    iteration: int
    seconds: float  # iteration time of this loop so far
    measured: float | None
    checkpoint: bool
    stopped: str | None = None


class SolveLoop:
    """The solve loop as batches to iterate over (``for batch in loop``), so that the caller
    shows progress and writes checkpoints itself, nothing called back; :attr:`result` once
    the loop ends.

    It iterates ``solver`` until ``iterations`` more are done, ``solver.measure()`` is at
    most ``target``, ``time_limit`` seconds of iterations have passed or the solver reaches
    its memory limit, whichever comes first. Only iteration time counts toward ``seconds``
    and the time limit (measuring is extra). With ``checkpoints``, a checkpoint is due at
    every multiple of ``checkpoint_every`` iterations and when the loop stops, and the
    value is measured there too (so that a checkpoint's log ends with its own iteration).
    """

    def __init__(self, solver: Engine, iterations: int | None = None,
                 target: float | None = None, time_limit: float | None = None,
                 check_every: int = 100, checkpoint_every: int | None = None,
                 checkpoints: bool = False) -> None:
        if iterations is None and target is None and time_limit is None:
            iterations = DEFAULT_ITERATIONS
        check_limits(iterations, target, time_limit, check_every)
        if checkpoint_every is not None and checkpoint_every < 1:
            raise SpycfrError(f"checkpoint-every must be >= 1, got {checkpoint_every}")
        self.solver, self.iterations, self.target = solver, iterations, target
        self.time_limit, self.check_every = time_limit, check_every
        self.checkpoint_every, self.checkpoints = checkpoint_every, checkpoints
        self.result: SolveResult | None = None

    def __iter__(self) -> Iterator[Batch]:
        solver, target, time_limit = self.solver, self.target, self.time_limit
        check_every, checkpoint_every = self.check_every, self.checkpoint_every
        solver.warm_up()
        end = None if self.iterations is None else solver.iteration + self.iterations
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
            at_checkpoint = self.checkpoints and (
                finished or out_of_time or stopped == "memory"
                or (checkpoint_every is not None and solver.iteration % checkpoint_every == 0))
            measured = None
            if since >= check_every or finished or out_of_time or stopped == "memory" or (
                    at_checkpoint):
                since = 0
                value = measured = solver.measure()
                solver.log.append((solver.iteration, solver.seconds, value))
            if stopped != "memory":
                if target is not None and measured is not None and value <= target:
                    stopped = "target"
                elif out_of_time and not finished:
                    stopped = "time"
            due = at_checkpoint or (self.checkpoints and stopped != "iterations")
            ending = finished or stopped != "iterations"
            yield Batch(solver.iteration, seconds, measured, due, stopped if ending else None)
            if ending:
                break
        self.result = SolveResult(solver.iteration, seconds, value, solver.kind, stopped,
                                  list(solver.log), note)


def drive(
    solver: Engine,
    iterations: int | None = None,
    target: float | None = None,
    time_limit: float | None = None,
    check_every: int = 100,
    progress: Callable[[int, float, float | None], None] | None = None,
    checkpoint_every: int | None = None,
    checkpoint: Callable[[float], None] | None = None,
) -> SolveResult:
    """Run a :class:`SolveLoop` to its end, calling ``progress(iteration, seconds, value or
    None)`` after each batch and ``checkpoint(seconds)`` where one is due."""
    loop = SolveLoop(solver, iterations, target, time_limit, check_every, checkpoint_every,
                     checkpoint is not None)
    for batch in loop:
        if progress is not None:
            progress(batch.iteration, batch.seconds, batch.measured)
        if batch.checkpoint and checkpoint is not None:
            checkpoint(batch.seconds)
    assert loop.result is not None
    return loop.result
