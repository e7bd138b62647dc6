"""What a command says while it works and has nothing else to show: a heartbeat on stderr
(numba compiling on a first run, a big run's tree rebuilt), so that no command is silent for
long at a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator

import click


class Heartbeat(threading.Thread):
    """A line after ``delay`` seconds (at once by default), then another every ``every``
    seconds until cancelled; nothing when cancelled before the first."""

    def __init__(self, first: str, again: str, every: float = 15.0, delay: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.first, self.again, self.every, self.delay = first, again, every, delay
        self.stopped = threading.Event()

    def run(self) -> None:
        start = time.monotonic()
        if self.stopped.wait(self.delay):
            return
        click.echo(self.first, err=True)
        while not self.stopped.wait(self.every):
            click.echo(self.again.format(time.monotonic() - start), err=True)

    def cancel(self) -> None:
        self.stopped.set()


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


COMPILING = ("numba is compiling kernels that its cache lacks (after installing, or after a "
             "kernel source changed): a minute or two")


@contextlib.contextmanager
def saying_when_compiling(say: Callable[[str], None], text: str = COMPILING
                          ) -> Iterator[None]:
    """Say ``text`` once, when numba starts compiling a kernel during the block: numba's
    "numba:compile" event fires on a miss of its cache only, so nothing is said when the
    kernels load from the cache."""
    from numba.core import event

    class Notice(event.Listener):
        said = False

        def on_start(self, _: event.Event) -> None:
            if not self.said:
                self.said = True
                say(text)

        def on_end(self, _: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Notice()):
        yield


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
