"""What a command says while it works and has nothing else to show: a heartbeat on stderr
(numba compiling on a first run, a big run's tree rebuilt), so that no command is silent for
long at a terminal."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import click

from spycfr.compiling import COMPILING, saying_when_compiling
from spycfr.ticking import Ticker

__all__ = ["COMPILING", "Heartbeat", "heartbeat", "load_run_saying", "saying_when_compiling"]


class Heartbeat(Ticker):
    """A line after ``delay`` seconds (at once by default), then another every ``every``
    seconds until cancelled; nothing when cancelled before the first (a
    :class:`~spycfr.ticking.Ticker`; ``again`` is formatted with the seconds spent and may
    be changed while it runs)."""

    def __init__(self, first: str, again: str, every: float = 15.0, delay: float = 0.0) -> None:
        super().__init__(self._line, every, first=delay)
        self.first, self.again, self.told = first, again, False

    def _line(self, seconds: float) -> None:
        click.echo(self.again.format(seconds) if self.told else self.first, err=True)
        self.told = True

    def cancel(self) -> None:
        self.stop(join=False)

    def join(self, timeout: float | None = None) -> None:
        self.thread.join(timeout)


@contextlib.contextmanager
def heartbeat(first: str, again: str, delay: float = 1.0) -> Iterator[None]:
    """At a terminal, ``first`` on stderr if the block takes more than ``delay`` seconds, then
    ``again`` (formatted with the seconds spent) every 15 seconds until it ends."""
    if not sys.stderr.isatty():
        yield
        return
    beat = Heartbeat(first, again, delay=delay)
    beat.start()
    try:
        yield
    finally:
        beat.cancel()
        beat.join(1.0)


def load_run_saying(run_dir: str):
    """``load_run(run_dir)``, saying at a terminal what takes the time when it is long (the
    tree rebuilt; on a first run numba compiles the game's rules)."""
    from spycfr.runs.store import load_run, read_run

    nodes = read_run(run_dir).nodes  # a missing or broken run is named at once
    size = f"its tree of {nodes:,} nodes" if nodes else "its tree"
    with heartbeat(f"loading {run_dir}: rebuilding {size} (after installing, the first "
                   "run also compiles the game's rules: a minute or two)",
                   f"still loading {run_dir} ({{:.0f}} s)"):
        return load_run(run_dir)
