"""Saying when numba compiles: numba's "numba:compile" event fires on a miss of its cache only,
so a command can tell the person waiting why the first run is slow, and say nothing when the
kernels load from the cache."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

COMPILING = ("numba is compiling kernels that its cache lacks (after installing, or after a "
             "kernel source changed): a minute or two")


@contextlib.contextmanager
def saying_when_compiling(say: Callable[[str], None], text: str = COMPILING,
                          kernel: Callable[[int], None] | None = None) -> Iterator[None]:
    """Say ``text`` once, when numba starts compiling a kernel during the block (in this
    process, any thread); ``kernel`` (where given) is called with +1 as each kernel's
    compiling starts and -1 as it ends, so a caller can tell whether numba still compiles."""
    from numba.core import event

    class Notice(event.Listener):
        said = False

        def on_start(self, _: event.Event) -> None:
            if not self.said:
                self.said = True
                say(text)
            if kernel is not None:
                kernel(1)

        def on_end(self, _: event.Event) -> None:
            if kernel is not None:
                kernel(-1)

    with event.install_listener("numba:compile", Notice()):
        yield
