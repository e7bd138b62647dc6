"""User-facing errors: anything caused by bad input raises SpycfrError with a one-line message."""


class SpycfrError(Exception):
    """Bad input (game, variant, record, file). The CLI prints the message and exits non-zero."""


class VariantError(SpycfrError):
    """An invalid variant parameter: the message names it, the value and what is allowed."""


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
