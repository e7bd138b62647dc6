"""Running the real ``spycfr`` entry point in-process, for the CLI tests."""

from __future__ import annotations

import io
import sys
from contextlib import redirect_stderr, redirect_stdout

from spycfr.cli.main import main


def spycfr(*args: str) -> tuple[int, str, str]:
    """Run ``spycfr ARGS`` through ``main()`` (error handling included): (exit code, stdout,
    stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = ["spycfr", *args]
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved
    return code, out.getvalue(), err.getvalue()
