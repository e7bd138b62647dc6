"""A module of this repository as it was at another git revision, imported beside this
tree's own: what the benchmarks that time a kernel file against an earlier commit's load
(bench_mccfr.py, bench_search_passes.py). Only that file is old: the modules it imports are
this tree's."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


class RevisionError(ValueError):
    """A file git cannot show at a revision: the message says which and git's last line."""


def module_at(rev: str, path: str, name: str, folder: Path) -> ModuleType:
    """The file ``path`` (from the repository root) as of git revision ``rev``, written into
    ``folder`` as ``name``.py (numba compiles it there) and imported as module ``name``;
    RevisionError where git cannot show it."""
    shown = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=False,
                           capture_output=True, text=True)
    if shown.returncode != 0:
        last = shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else \
            f"exit {shown.returncode}"
        raise RevisionError(f"git show {rev}:{path} failed ({last})")
    source = shown.stdout
    file = folder / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
