"""Which code is running: the spycfr version and, where the package runs from a git checkout
(an editable install of a clone), the commit checked out and whether the package's files
differ from it. Recorded with results that accumulate over many runs (LBR's games file:
:mod:`spycfr.analysis.lbr_agent_dask`), so that games played by different code can be told
apart after the fact. Never fails: outside a checkout, or without git, the commit is None."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from spycfr import __version__

PACKAGE = Path(__file__).resolve().parent
GIT_TIMEOUT = 10.0  # seconds; a git that hangs (a locked index on a network disk) gives None


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                              text=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def git_code(folder: Path = PACKAGE) -> tuple[str | None, bool | None]:
    """(the commit checked out, whether ``folder``'s tracked files differ from it) where
    ``folder`` is tracked in a git checkout, else (None, None). A package installed into a
    virtual environment inside a clone is not tracked there (.venv is ignored), so it
    reads None rather than the clone's commit, which is not the code it runs."""
    tracked = _git(folder, "ls-files", "--error-unmatch", "__init__.py")
    if tracked is None or tracked.returncode != 0:
        return None, None
    head = _git(folder, "rev-parse", "HEAD")
    if head is None or head.returncode != 0 or not head.stdout.strip():
        return None, None
    diff = _git(folder, "diff", "--quiet", "HEAD", "--", ".")
    modified = None if diff is None or diff.returncode not in (0, 1) else diff.returncode == 1
    return head.stdout.strip(), modified


def code_version() -> dict:
    """This process's code: {"version": spycfr's version, "commit": the git commit or None,
    "modified": whether the package's files differ from that commit (None: unknown or no
    commit)}; asked of git once per process. A new dict each call: a caller that changes
    its copy (a games file's row) changes no other caller's."""
    return dict(_code_version())


@functools.cache
def _code_version() -> dict:
    commit, modified = git_code()
    return {"version": __version__, "commit": commit, "modified": modified}


def _recorded(code: dict | None) -> bool:
    """Whether ``code`` records a version or a commit (else: code not recorded)."""
    return code is not None and not (code.get("version") is None and code.get("commit") is None)


def _named(code: dict) -> str:
    """A recorded code's version and commit: 'spycfr 0.1.0 at 1a2b3c4' (', modified'),
    'spycfr 0.1.0 (no git commit)'."""
    commit = code.get("commit")
    return f"spycfr {code.get('version')}" + (
        f" at {str(commit)[:7]}" + (", modified" if code.get("modified") else "")
        if commit else " (no git commit)")


def _noted(code: dict | None) -> str:
    """A recorded code's ``note`` in brackets, '' without one."""
    return f" ({code['note']})" if code and code.get("note") else ""


def code_words(code: dict | None) -> str:
    """A code recorded by :func:`code_version` in words: 'spycfr 0.1.0 at 1a2b3c4' (with
    ', modified' where its files differed from the commit), 'spycfr 0.1.0 (no git commit)',
    or, where nothing was recorded, 'code not recorded'; a recorded ``note`` follows."""
    return (_named(code) if code and _recorded(code) else "code not recorded") + _noted(code)


def agent_words(code: dict | None) -> str:
    """The agent a recorded code played (:func:`code_words`): 'the agent of spycfr 0.1.0 at
    1a2b3c4', or 'an agent whose code was not recorded' (with its ``note``)."""
    return (f"the agent of {_named(code)}" if code and _recorded(code)
            else "an agent whose code was not recorded") + _noted(code)


def games_by_words(codes: list[dict]) -> str:
    """How many games each code played (each a recorded code with its ``games``, as a
    games file's codes are counted): '5 games by spycfr 0.1.0 at 1a2b3c4, 1 game by code not
    recorded'."""
    return ", ".join(f"{c['games']:,} game{'' if c['games'] == 1 else 's'} by {code_words(c)}"
                     for c in codes)


def count_codes(rows: list[dict], games_per_row: int = 1) -> list[dict]:
    """The code that played ``rows`` (each row's ``code``, :func:`code_version` in the
    process that played it; absent in rows played before it was recorded): one entry per
    distinct code, in the order first met, with its number of games (``games_per_row`` a
    row: 2 for a pair of games), as :func:`games_by_words` takes them."""
    count: dict[tuple, int] = {}
    for row in rows:
        code = row.get("code") or {}
        key = tuple(code.get(k) for k in ("version", "commit", "modified", "note"))
        count[key] = count.get(key, 0) + games_per_row
    return [{"version": k[0], "commit": k[1], "modified": k[2], "games": n}
            | ({"note": k[3]} if k[3] else {}) for k, n in count.items()]


# how played_by_words's sentence starts, one code or several: what without_played_by cuts at
PLAYED_BY_ONE, PLAYED_BY_SEVERAL = "Every game played by ", "Played by "


def played_by_words(codes: list[dict]) -> str:
    """Which code played a measurement's games (``codes`` as :func:`games_by_words` takes
    them), for its method: the one code, or, where a games file was resumed across code
    changes (or merged from machines that ran other code), how many games each played; a
    mean over several codes measures none of them exactly. A method ends with it after
    '. ' (:func:`without_played_by` takes it off)."""
    if len(codes) == 1:
        return PLAYED_BY_ONE + code_words(codes[0])
    return (f"{PLAYED_BY_SEVERAL}{len(codes)} different codes (a games file resumed or merged "
            "across code changes: the mean mixes their agents): " + games_by_words(codes))


def without_played_by(method: str) -> str:
    """A recorded method without its closing :func:`played_by_words` sentence (where a line
    beside it names the agent of those games): cut where that sentence starts, by its
    opening words alone, so a method recorded while the code's words read otherwise (a
    note, another format) still loses the whole sentence; a method without one as it is."""
    cuts = [i for i in (method.find(". " + PLAYED_BY_ONE), method.find(". " + PLAYED_BY_SEVERAL))
            if i >= 0]
    return method[:min(cuts)] if cuts else method


def same_code(a: dict | None, b: dict | None) -> bool:
    """Whether two recorded codes (:func:`code_version`) are known to be the same: one git
    commit and one version. A code without a commit (not recorded, or run outside a
    checkout) is not known to be any other."""
    a, b = a or {}, b or {}
    return a.get("commit") is not None and (a.get("version"), a.get("commit")) == (
        b.get("version"), b.get("commit"))
