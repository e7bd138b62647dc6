"""The compiled engines are cached on disk: a second process compiles nothing.

Each engine is compiled once per game (the game's params type selects its rules) and
cached by numba like any ``cache=True`` function. Counted with numba's compile events,
in a fresh cache directory so that the first process has to compile everything.

The cache guard (:mod:`spycfr._numba_cache`) drops the cached kernels exactly when a source
they can depend on changes: tried on a small package built for each of its rules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from spycfr import _numba_cache as guard

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


# A package laid out for each rule of the guard: the comment says whether a module's edits
# must drop the cached kernels.
PACKAGE = {
    "__init__.py": "",  # kept: parent of kern (importing spycfr.kern runs it)
    "kern.py": """
from numba import njit
from spycfr.consts import K
from spycfr.sub.mod import helper
from .rel import R


def driver():
    from spycfr.lazy import L  # binds a local: no kernel sees it
    return L


def factory():
    from spycfr.closed import C  # a kernel made here closes over it

    @njit(cache=True)
    def kernel():
        return C
    return kernel


def register(fn):
    pass
""",
    "consts.py": "from spycfr.deep import D\nK = D + 1\n",  # kept: kern imports it
    "deep.py": "D = 1\n",  # kept: imported by consts, which kern imports
    "sub/__init__.py": "",  # kept: parent package of sub.mod
    "sub/mod.py": "def helper():\n    pass\n",  # kept
    "rel.py": "R = 2\n",  # kept: a relative import
    "closed.py": "C = 3\n",  # kept: a factory's import
    "lazy.py": "L = 4\n",  # dropped: imported inside a plain function only
    "reg.py": "from spycfr import kern\nkern.register(print)\n",  # kept: registers with kern
    "user.py": "from spycfr.kern import driver\nVALUE = driver()\n",  # dropped: a user
    "gpu.py": "from spycfr.gpukit import cuda\n\n\n@cuda.jit(cache=True)\ndef k():\n    pass\n",
    "gpukit.py": "cuda = None\n",  # kept: gpu.py compiles kernels with a decorator from it
    "pages.py": "TEXT = 'numba is mentioned here'\n",  # dropped: names numba in text only
}
KERNEL_SOURCES = sorted(name for name in PACKAGE
                        if name not in ("lazy.py", "user.py", "pages.py"))


def _package(root: Path) -> Path:
    for name, text in PACKAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_the_kernel_sources_follow_the_imports(tmp_path):
    package = _package(tmp_path)
    found = [str(p.relative_to(package)) for p in guard.kernel_sources(package)]
    assert found == KERNEL_SOURCES


@pytest.mark.parametrize("name", sorted(PACKAGE))
def test_an_edit_drops_the_cache_only_for_a_kernel_source(tmp_path, name):
    package = _package(tmp_path)
    cached = package / "__pycache__" / "kern.driver-1.py312.nbi"
    cached.parent.mkdir(exist_ok=True)
    cached.write_text("")
    guard.guard_cache(package)  # first sight: no stamp, so the cache goes
    assert not cached.exists()
    cached.write_text("")
    key = guard.source_key(package)
    with (package / name).open("a") as f:
        f.write("# edited\n")
    guard.guard_cache(package)
    assert cached.exists() == (name not in KERNEL_SOURCES)
    assert (guard.source_key(package) == key) == (name not in KERNEL_SOURCES)


def test_unchanged_sources_are_not_parsed_again(tmp_path, monkeypatch):
    package = _package(tmp_path)
    guard.guard_cache(package)

    def parse(*args):
        raise AssertionError("parsed unchanged sources")

    monkeypatch.setattr(guard, "source_key", parse)
    guard.guard_cache(package)  # the sizes and times match the stamp's
    (package / "deep.py").write_text("D = 5\n")
    with pytest.raises(AssertionError, match="parsed"):
        guard.guard_cache(package)


def test_the_search_agent_is_no_kernel_source():
    # An edit of the agent's Python driver keeps the compiled kernels (139 s of compiling a
    # query otherwise); a numba module importing it at its top would make it one.
    package = ROOT / "solver"
    sources = {str(p.relative_to(package)) for p in guard.kernel_sources(package)}
    assert "search/agent.py" not in sources and "search/agentgame.py" not in sources
    # nor the re-solve (Python over the passes' kernels), which lbr_agent imports lazily
    assert "search/resolve.py" not in sources
    assert {"engine/protocol.py", "games/agent_hunter/registration.py",
            "games/agent_hunter/rules.py"} <= sources
