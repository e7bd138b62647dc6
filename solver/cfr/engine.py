"""What the one solve loop (:func:`spycfr.cfr.driver.drive`) runs: the :class:`Engine`
protocol of every iterative solver, and :class:`IterativeSolver`, the base that gives the
full-tree, GPU and Monte-Carlo solvers the same ``warm_up`` and ``iterate``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

# One row of a solver's log: (iteration, seconds of iterations so far, measured value).
LogRow = tuple[int, float, float]


class Engine(Protocol):
    """An iterative solver as the driver runs it."""

    iteration: int  # iterations done
    seconds: float  # iteration time so far, over all the solver's runs (a resumed one too)
    log: list[LogRow]

    @property
    def kind(self) -> str:
        """What :meth:`measure` returns: "exact" (the exploitability), else the estimate's
        name."""
        ...

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the kernels without running an iteration."""
        ...

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` more iterations; may raise :class:`spycfr.errors.MemoryLimitReached`
        between two of them, its state intact."""
        ...

    def measure(self) -> float:
        """The value the stop rules and the log read (see :attr:`kind`)."""
        ...

    def strategy(self) -> np.ndarray | None:
        """The average strategy on the tree (None for a solver without one)."""
        ...

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume bit-identically (a checkpoint's content)."""
        ...

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`state_dict`."""
        ...


class IterativeSolver:
    """``warm_up`` and ``iterate`` over a subclass's ``_run(n)`` (which runs
    ``n`` iterations, 0 compiling only)."""

    iteration: int
    seconds: float
    log: list[LogRow]

    def _run(self, n: int) -> None:
        raise NotImplementedError

    def warm_up(self) -> None:
        """Compile (or load from cache) the kernels without running an iteration."""
        self._run(0)

    def iterate(self, n: int = 1) -> None:
        """Run ``n`` more iterations."""
        if n < 0:
            raise ValueError(f"iterations must be >= 0, got {n}")
        if n:
            t0 = time.perf_counter()
            try:
                self._run(int(n))
            finally:  # a memory stop or Ctrl-C between iterations keeps the time spent
                self.seconds += time.perf_counter() - t0
