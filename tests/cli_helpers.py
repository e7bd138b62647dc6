"""Running the real ``spycfr`` entry point in-process, for the CLI tests, and a benchmarks/
script as a module, for the tests of the scripts."""

from __future__ import annotations

import importlib.util
import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

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


def bench_script(name: str):
    """benchmarks/``name``.py as a module (its main() callable in this process); its folder
    on sys.path, as when it is run, for the scripts' own shared module (leaf_options)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
