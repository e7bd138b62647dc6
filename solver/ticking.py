"""Saying that slow work goes on: a daemon thread that calls ``tell(seconds)`` (the seconds
since it started) after a first wait and then every ``every`` seconds until it is stopped.

One idea with several users, so they behave alike: SearchAgent.beating (a plan's tree
built, a plan file read), the LBR games' wait for the first finished game
(spycfr.analysis.lbr_agent_dask), `spycfr solve`'s exact LP (cli/solve_progress.py) and the
CLI's heartbeat while a run is prepared (cli/progress.py). Nothing is told when the work
ends before the first wait; ``stop`` returns at once where ``tell`` blocks on slow output
(``join=False``) or waits for the thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType


class Ticker:
    """``tell(seconds)`` after ``first`` seconds (``every`` unless given), then every
    ``every`` seconds, in a daemon thread, until :meth:`stop` (or the ``with`` block's end)."""

    def __init__(self, tell: Callable[[float], None], every: float,
                 first: float | None = None) -> None:
        self.tell, self.every = tell, every
        self.after = every if first is None else first
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Ticker:
        self.thread.start()
        return self

    def stop(self, join: bool = True) -> None:
        """Tell no more; with ``join`` wait until a ``tell`` under way has returned."""
        self.stopped.set()
        if join and self.thread.is_alive() and self.thread is not threading.current_thread():
            self.thread.join()

    def _run(self) -> None:
        start, wait = time.monotonic(), self.after
        while not self.stopped.wait(wait):
            self.tell(time.monotonic() - start)
            wait = self.every

    def __enter__(self) -> Ticker:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
