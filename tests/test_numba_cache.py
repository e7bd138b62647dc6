"""The compiled engines are cached on disk: a second process compiles nothing.

Each engine is compiled once per game (the game's params type selects its rules) and
cached by numba like any ``cache=True`` function. Counted with numba's compile events,
in a fresh cache directory so that the first process has to compile everything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

COUNT = """
import sys
from numba.core import event

compiled = []


class Listener(event.Listener):
    def on_start(self, ev):
        pass

    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)


event.register("numba:compile", Listener())
sys.argv = ["spycfr", *sys.argv[1:]]
from spycfr.cli.main import main

try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(len(compiled))
"""


def _compiled(args: list[str], cache_dir: Path) -> int:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir))
    proc = subprocess.run([sys.executable, "-c", COUNT, *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_second_process_compiles_nothing(tmp_path):
    # Enumerator, best response and MCCFR on a game with chance nodes, then CFR+.
    for args in (["solve", "kuhn", "--algorithm", "es-mccfr", "--iterations", "50"],
                 ["solve", "kuhn", "--iterations", "50"]):
        assert _compiled([*args, "-q", "--json"], tmp_path) > 5
        assert _compiled([*args, "-q", "--json"], tmp_path) == 0
