"""What the workbench serves: the run, sweep and team directories it was given (or found
below the folders it was given), each under a name no other has (its path below the folder
given, longer where two would be equal: :func:`discover`), and the only files of theirs a
page may fetch (figures listed when the server starts).

No path from a request ever reaches the file system: a request names an entry and a file by
the names listed here, and anything else is unknown.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from spycfr.errors import SpycfrError

KINDS = {"run.json": "run", "sweep.json": "sweep", "team.json": "team"}
FIGURES = ("*.png", "*.svg", "report_files/*.png", "report_files/*.svg")
MAX_DEPTH = 4  # how deep below a given folder entries are looked for
MAX_SCANNED = 5_000  # folders looked at in all (a folder given by mistake stays cheap)
MAX_JSON = 16 << 20  # bytes of a run.json, sweep.json or team.json read for the listing


@dataclass
class Entry:
    """One directory served: its name in URLs, where it is, what it is, its metadata and
    the files a page may fetch from it (name -> path)."""

    name: str
    path: Path
    kind: str
    meta: dict
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The name with the game and preset (a page's title: two runs of different games
        may end alike, ``standard``)."""
        game = self.meta.get("game", "?")
        what = self.meta.get("preset") or ""
        return f"{self.name} ({game}{' ' + str(what) if what else ''})"


def _kind(path: Path) -> str | None:
    for marker, kind in KINDS.items():
        if (path / marker).is_file():
            return kind
    return None


def _read_meta(path: Path, kind: str) -> dict:
    marker = next(m for m, k in KINDS.items() if k == kind)
    target = path / marker
    try:
        if target.stat().st_size > MAX_JSON:
            raise ValueError("too large")
        meta = json.loads(target.read_text())
    except (OSError, ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise SpycfrError(f"{str(target)!r} is unreadable ({str(exc)[:100]})") from None
    if not isinstance(meta, dict):
        raise SpycfrError(f"{str(target)!r} is not a JSON object")
    return meta


def _figures(path: Path) -> dict[str, Path]:
    """The figure files of a directory (regular files, no links), by relative name."""
    root = path.resolve()
    out = {}
    for pattern in FIGURES:
        for f in sorted(path.glob(pattern)):
            if f.is_file() and not f.is_symlink() and f.resolve().is_relative_to(root):
                out[f.relative_to(path).as_posix()] = f
    if (path / "report.md").is_file() and not (path / "report.md").is_symlink():
        out["report.md"] = path / "report.md"
    if (path / "sweep.csv").is_file() and not (path / "sweep.csv").is_symlink():
        out["sweep.csv"] = path / "sweep.csv"
    return out


def _found(root: Path) -> list[tuple[str, Path, str]]:
    """(name relative to ``root``, path, kind) of every entry at or below ``root``."""
    kind = _kind(root)
    if kind is not None:
        return [(root.resolve().name, root, kind)]
    out, queue, scanned = [], [(root, 0)], 0
    while queue:
        folder, depth = queue.pop(0)
        scanned += 1
        if scanned > MAX_SCANNED:
            break
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()
                              and not p.name.startswith("."))
        except OSError:
            continue
        for child in children:
            kind = _kind(child)
            if kind is not None:
                out.append((child.relative_to(root).as_posix(), child, kind))
            elif depth + 1 < MAX_DEPTH:
                queue.append((child, depth + 1))
    return out


def discover(paths: list[str], problems: list[str] | None = None) -> dict[str, Entry]:
    """The entries of the directories ``paths`` (each a run, sweep or team directory, or a
    folder holding them), by unique name; a one-line error for a path that holds none or
    is unreadable. One found below a folder that is unreadable is left out, and said in
    ``problems``. A directory reached twice (a folder and a run in it, both given) is
    served once, under the name it was first found by.

    An entry's name is its path below the folder given (``agent-avenue/standard`` under
    ``results``), or its folder's name where it was given itself; names that would be equal
    (``results/standard`` and ``results/agent-avenue/standard`` given, or found below two
    folders given) take the parent folders of their directories until they differ
    (``results/standard`` and ``agent-avenue/standard``), so that no entry is named after
    another's folder; a unique name is unchanged."""
    found: list[tuple[str, Path, Path, str, dict]] = []
    seen: set[Path] = set()
    for given in paths:
        root = Path(given)
        if not root.is_dir():
            raise SpycfrError(f"{given!r} is not a directory (give run, sweep or team "
                              "directories, or folders holding them)")
        listed = _found(root)
        if not listed:
            raise SpycfrError(f"{given!r} holds no run, sweep or team directory (none has "
                              "run.json, sweep.json or team.json)")
        for name, path, kind in listed:
            real = path.resolve()
            if real in seen:
                continue
            try:
                meta = _read_meta(path, kind)
            except SpycfrError as exc:
                if path == root or problems is None:
                    raise
                problems.append(f"left out: {exc}")
                continue
            seen.add(real)
            found.append((name, path, real, kind, meta))
    names = _unique_names([(name, real) for name, _, real, _, _ in found])
    return {unique: Entry(unique, path, kind, meta, _figures(path))
            for unique, (_, path, _, kind, meta) in zip(names, found, strict=True)}


def _unique_names(named: list[tuple[str, Path]]) -> list[str]:
    """Each (name, resolved directory)'s name, made unique: while names are equal, each of
    them takes one more of its directory's parent folders in front (a name is the tail of
    its directory's path; two directories differ, so their paths differ somewhere)."""
    names = [name for name, _ in named]
    parts = [real.parts[1:] if real.is_absolute() else real.parts for _, real in named]
    while True:
        groups: dict[str, list[int]] = {}
        for i, name in enumerate(names):
            groups.setdefault(name, []).append(i)
        longer = False
        for same in groups.values():
            if len(same) < 2:
                continue
            for i in same:
                depth = names[i].count("/") + 1
                if depth < len(parts[i]):
                    names[i] = "/".join(parts[i][-depth - 1:])
                    longer = True
        if not longer:
            return names
