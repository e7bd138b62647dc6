"""User-facing errors: anything caused by bad input raises SpycfrError with a one-line message."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


class SpycfrError(Exception):
    """Bad input (game, variant, record, file). The CLI prints the message and exits non-zero."""


class VariantError(SpycfrError):
    """An invalid variant parameter: the message names it, the value and what is allowed."""


class ParameterError(SpycfrError):
    """A library function's argument out of its range. The message names each parameter as
    the function does (``{name}`` in ``template``, one of ``parameters``), so that the CLI,
    which knows its flags, can say them as the user gave them (``error: --games ...``)."""

    def __init__(self, template: str, *parameters: str) -> None:
        self.template, self.parameters = template, parameters
        super().__init__(self.said())

    def said(self, names: Mapping[str, str] | None = None) -> str:
        """The message with each parameter said as ``names`` says (default: its own name)."""
        names = names or {}
        return re.sub(r"\{(\w+)\}", lambda m: names.get(m[1], m[1])
                      if m[1] in self.parameters else m[0], self.template)

    def renamed(self, names: Mapping[str, str]) -> ParameterError:
        """The same error about parameters that a caller names otherwise (``names``: the
        callee's name to the caller's)."""
        new = {p: names.get(p, p) for p in self.parameters}
        return ParameterError(self.said({p: "{" + n + "}" for p, n in new.items()}),
                              *new.values())


@contextmanager
def parameters_named(**names: str) -> Iterator[None]:
    """A caller that passes its own parameters on under other names: errors about them are
    said in the caller's names (``parameters_named(games="lbr_games")``)."""
    try:
        yield
    except ParameterError as exc:
        raise exc.renamed(names) from None


class RecordError(SpycfrError):
    """An illegal or malformed game record: the message names the move number, token and reason."""


class Interrupted(SpycfrError):
    """The user pressed Ctrl-C; the message says what was kept (exit code 130)."""


class MemoryLimitReached(SpycfrError):
    """A solver's tables would outgrow the memory limit; raised between iterations, so the
    solver's state is consistent and can be checkpointed."""


def is_interrupt(exc: BaseException | None) -> bool:
    """Whether ``exc`` is Ctrl-C: a KeyboardInterrupt, possibly wrapped by numba in a
    SystemError when the signal lands as a compiled function returns."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def wrapped_error(exc: BaseException | None) -> SpycfrError | None:
    """The SpycfrError under numba's SystemError wrappers, or None: an error raised in the
    main thread from elsewhere (the memory watchdog's) can land while numba loads a cached
    kernel, and numba then reports a SystemError chained to it."""
    seen = 0
    while isinstance(exc, SystemError) and seen < 10:
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return exc if seen and isinstance(exc, SpycfrError) else None
