"""Run directories on disk: one solve of one variant, everything to use or resume it.

Layout of ``RUN_DIR``:

- ``run.json``: game, variant, algorithm and parameters, iterations, seed, seconds,
  value_p1, exploitability, nash_conv, tree sizes, spycfr version, status.
- ``strategy.npz``: the average strategy as an exact float64 array (what the
  analysis commands load), with the tree fingerprint it belongs to.
- ``strategy.parquet`` and ``strategy.csv``: the same strategy as a tidy table
  (see :mod:`spycfr.formats.strategy_table`).
- ``convergence.csv``: iteration, seconds, exploitability.
- ``tree.npz``: the tree, for a game read from an .efg file or OpenSpiel (built-in games'
  trees are rebuilt from their variant).
- ``checkpoint.npz``: the solver's full state (regrets, strategy sums, ...), written
  atomically every ``checkpoint_every`` iterations; ``resume`` continues from it
  bit-identically.

Monte-Carlo CFR runs on variants too big to enumerate have no tree: ``exploitability``
and ``nash_conv`` are null, ``exploitability_estimate`` holds the sampled-regret bound and
says so, ``convergence.csv`` has an ``exploitability_estimate`` column, there are no
strategy tables, and ``openings.csv`` holds the average strategy at the game's opening
decisions (player, opening, probability, seen), where the game defines them. The strategy
itself is in the checkpoint; ``spycfr measure`` adds ``measured`` to run.json (head to head,
a lower bound on the exploitability, the openings' stability).
"""

from __future__ import annotations

import hashlib
import json
import math
import zipfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from spycfr import __version__
from spycfr.errors import SpycfrError
from spycfr.exact.best_response import infoset_values
from spycfr.formats.strategy_table import strategy_table
from spycfr.games import build_tree, foreign_kind, make_game, sample_labels
from spycfr.io import atomic_path, write_json, write_text
from spycfr.memory import missing_or, reading, require
from spycfr.runs.result import RunResult
from spycfr.runs.source import TREE_NPZ, load_tree
from spycfr.tree import Tree

if TYPE_CHECKING:  # pandas is imported where a table is made or read (0.5 s): not by query
    import pandas as pd

RUN_JSON = "run.json"
TEAM_JSON = "team.json"  # a team run (spycfr team) has this instead
CHECKPOINT = "checkpoint.npz"
# Why a run stopped, as load_checkpoint gives it for a checkpoint written before the record
# (41329e2): it may have been its memory limit, which a resumed run must not solve past.
UNRECORDED = "unrecorded"
STRATEGY_NPZ = "strategy.npz"
CONVERGENCE = "convergence.csv"
OPENINGS_CSV = "openings.csv"
RUN_FILES = (RUN_JSON, CHECKPOINT, STRATEGY_NPZ, CONVERGENCE, OPENINGS_CSV,
             "strategy.parquet", "strategy.csv", TREE_NPZ)

TREELESS_CAVEAT = "approximate: MCCFR, exploitability not measured"
MAX_RUN_JSON = 64 << 20  # bytes: far above any run.json spycfr writes


@dataclass(frozen=True)
class Run:
    """A loaded run directory: its result (run.json), the rebuilt tree and the average
    strategy."""

    path: Path
    result: RunResult
    tree: Tree
    strategy: np.ndarray


def fingerprint(tree: Tree) -> dict:
    """Sizes that identify a tree well enough to catch a strategy loaded on the wrong one."""
    return {
        "nodes": tree.num_nodes,
        "infosets": tree.num_infosets,
        "infosets_p1": int(np.count_nonzero(tree.infoset_player == 0)),
        "actions": int(tree.infoset_num_actions.astype(np.int64).sum()),
    }


def convergence_csv(log, column: str = "exploitability") -> str:
    import pandas as pd

    frame = pd.DataFrame(log, columns=["iteration", "seconds", column])
    return frame.to_csv(index=False, float_format="%.17g")


def save_checkpoint(run_dir: Path, config: dict, state: dict, seconds: float, log: list,
                    value_column: str, stopped: str | None = None) -> None:
    """Write the solver ``state`` (arrays and scalars) with the run's configuration and why
    it stopped (None: it goes on), then the convergence log, each atomically."""
    arrays = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in state.items() if not isinstance(v, np.ndarray)}
    meta = {"config": config, "solver": scalars, "seconds": seconds, "log": log,
            "stopped_by": stopped, "version": __version__}
    _save_fast_npz(run_dir / CHECKPOINT, meta=np.array(json.dumps(meta)), **arrays)
    write_text(run_dir / CONVERGENCE, convergence_csv(log, value_column))


def _save_fast_npz(target: Path, **arrays: np.ndarray) -> None:
    """Atomically save a compressed .npz at zlib level 1: checkpoints are written often and
    MCCFR's hold GiBs of mostly-zero tables (about 3x faster than the default level, files
    barely larger); streamed in chunks, so no extra copy of the arrays."""
    with atomic_path(target) as tmp, zipfile.ZipFile(
        tmp, "w", zipfile.ZIP_DEFLATED, allowZip64=True, compresslevel=1
    ) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.asanyarray(array), allow_pickle=False)


def load_checkpoint(run_dir: Path) -> tuple[dict, dict, float, list, str | None]:
    """(config, solver state, seconds, log, why it stopped: None where it went on,
    UNRECORDED where the checkpoint predates the record) of a run's checkpoint, checked: its
    metadata has every field, and its tables hold finite numbers."""
    path = run_dir / CHECKPOINT
    if not path.is_file():
        raise SpycfrError(f"cannot resume: {str(path)!r} does not exist")
    # numpy, zipfile, json and the checks raise many types
    with reading(lambda exc: f"cannot resume: {str(path)!r} is unreadable or incomplete "
                             f"({missing_or(exc)}): solve again"):
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            state = {k: data[k] for k in data.files if k != "meta"}
        config, solver, seconds, log = (meta["config"], meta["solver"], float(meta["seconds"]),
                                        [tuple(r) for r in meta["log"]])
        stopped = meta.get("stopped_by", UNRECORDED)
        if not isinstance(config, dict) or not isinstance(solver, dict):
            raise TypeError("config and solver must be objects")
        if stopped is not None and not isinstance(stopped, str):
            raise TypeError("stopped_by must be a string")
    for name, array in state.items():
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise SpycfrError(f"cannot resume: {str(path)!r} holds non-finite numbers in its "
                              f"table {name!r} (corrupt): solve again")
    state.update(solver)
    return config, state, seconds, log, stopped


def holds_run(run_dir: Path) -> bool:
    return any((run_dir / name).exists() for name in (RUN_JSON, CHECKPOINT))


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


def vouch_files(run_dir: str | Path, written: tuple[str, ...] = (),
                dropped: tuple[str, ...] = ()) -> None:
    """Rewrite run.json's ``files`` (atomically) after files of the run changed: the sha256 of
    each of ``written`` (just written from the run's checked strategy), no entry for those in
    ``dropped`` (deleted: a table that `spycfr export` rewrites). Hold the run's lock."""
    run_dir = Path(run_dir)
    meta = read_run_meta(run_dir)
    if meta.get("files") is None and not written:
        return  # an older run that vouches for nothing: nothing to take back
    files = {name: sha for name, sha in (meta.get("files") or {}).items()
             if name not in dropped}
    files.update({name: file_sha256(run_dir / name) for name in written})
    meta["files"] = files
    write_json(run_dir / RUN_JSON, meta)


def _recover(run_dir: Path) -> str:
    """How to get a sound run back: from its checkpoint if it has one (a finished run's last
    state, resumed by the run's own limits: solved no further), else by solving."""
    if (run_dir / CHECKPOINT).is_file():
        return (f"rewrite it from the checkpoint with `spycfr solve --resume {run_dir}` (the "
                "run's last state, by its own limits: a run stopped by its iterations, time, "
                "target or memory limit comes back as recorded; or solve again)")
    return "solve again"


def _fail(path: Path, what: str) -> SpycfrError:
    """run.json (``path``) is wrong: what, and the way back (it named no way back)."""
    return SpycfrError(f"{str(path)!r} {what}: {_recover(path.parent)}")


def _expect(meta: dict, key: str, kinds: tuple, meta_path: Path, optional: bool = True):
    value = meta.get(key)
    if value is None:
        if optional:
            return None
        raise _fail(meta_path, f"is corrupt: {key} is missing")
    if not isinstance(value, kinds) or isinstance(value, bool) and bool not in kinds:
        names = " or ".join(k.__name__.replace("dict", "an object").replace("str", "a string")
                            .replace("int", "an integer").replace("float", "a number")
                            for k in kinds)
        raise _fail(meta_path, f"is corrupt: {key} must be {names}, got "
                               f"{type(value).__name__}")
    return value


def read_run(path: str | Path) -> RunResult:
    """run.json of a run directory, checked (errors say what is missing or corrupt, and how
    to recover) and typed."""
    return RunResult.from_json(read_run_meta(path))


def read_run_meta(path: str | Path) -> dict[str, Any]:
    """run.json of a run directory as its JSON object, checked: its fields have the right
    types (errors say what is missing or corrupt, and how to recover)."""
    path = Path(path)
    if path.is_file():
        raise SpycfrError(f"{str(path)!r} is a file, not a run directory")
    if not path.is_dir():
        raise SpycfrError(f"run directory {str(path)!r} does not exist")
    meta_path = path / RUN_JSON
    if not meta_path.is_file() and (path / TEAM_JSON).is_file():
        raise SpycfrError(f"{str(path)!r} is a team run (`spycfr team`): this command reads "
                          "two-player runs (`spycfr solve`); a team run answers `spycfr query "
                          "RUN --as S1..S4` and its report is report.md in the run directory")
    if not meta_path.is_file():
        if (path / CHECKPOINT).is_file():
            raise SpycfrError(f"{str(path)!r} holds an interrupted solve (a checkpoint, no "
                              f"{RUN_JSON} yet): finish it with `spycfr solve --resume "
                              f"{path}`, then read it")
        raise SpycfrError(f"{str(path)!r} is not a run directory: {RUN_JSON} is missing")
    try:
        if meta_path.stat().st_size > MAX_RUN_JSON:
            raise ValueError(f"{meta_path.stat().st_size:,} bytes, more than any run.json")
        meta = json.loads(meta_path.read_text())
    except (ValueError, RecursionError, UnicodeDecodeError, OSError) as exc:
        raise _fail(meta_path, f"is corrupt ({str(exc)[:200]})") from None
    if not isinstance(meta, dict):
        raise _fail(meta_path, "is corrupt: not a JSON object")
    config = _expect(meta, "config", (dict,), meta_path, optional=False)
    for key, kinds in (("game", (str,)), ("params", (dict,))):
        _expect(config, key, kinds, meta_path, optional=False)
    _expect(config, "preset", (str,), meta_path)
    _expect(meta, "game", (str,), meta_path, optional=False)
    _expect(meta, "variant", (dict,), meta_path, optional=False)
    _expect(meta, "iterations", (int,), meta_path, optional=False)
    for key in ("value_p1", "exploitability", "nash_conv", "best_response_p1",
                "best_response_p2"):
        value = _expect(meta, key, (int, float), meta_path)
        if value is not None and not math.isfinite(value):
            raise _fail(meta_path, f"is corrupt: {key} is {value}")
    if meta.get("tree_enumerated") is not False:  # a run with a tree has exact values
        for key in ("value_p1", "exploitability", "fingerprint"):
            if meta.get(key) is None:
                raise _fail(meta_path, f"is corrupt: {key} is missing")
    _expect(meta, "files", (dict,), meta_path)
    return meta


def treeless_openings(path: str | Path) -> tuple[RunResult, pd.DataFrame] | None:
    """(run.json, ``openings.csv``) of a tree-less MCCFR run; None if the run has a tree."""
    import pandas as pd

    meta = read_run(path)
    if not meta.treeless:
        return None
    target = Path(path) / OPENINGS_CSV
    verify_file(Path(path), meta, OPENINGS_CSV)
    with reading(lambda exc: f"{str(target)!r} is missing or corrupt ({exc})"):
        table = pd.read_csv(target)
    return meta, table


def strategy_run_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """The tidy strategy table with reach probabilities and conditional action values."""
    cfv, reach, opp = infoset_values(tree, strategy)
    return strategy_table(tree, strategy, cfv=cfv, reach=reach, opponent_reach=opp)


def _rewrite(path: Path, name: str) -> str:
    """How to get back a file of the run that is gone: a strategy table by `spycfr export`,
    any other by :func:`_recover`."""
    stem, _, fmt = name.partition(".")
    if stem == "strategy" and fmt in ("parquet", "csv"):
        return f"write it again with `spycfr export {path} --format {fmt}`"
    return _recover(path)


def verify_file(path: Path, meta: RunResult, name: str, required: bool = True) -> bool:
    """Whether ``name`` is the file run.json vouches for (its sha256); a missing file, or a
    mismatch (a write interrupted or the file changed), is an error when ``required`` (which
    file, and how to get it back), else False."""
    expected = (meta.files or {}).get(name)
    if expected is None:
        return True
    target = path / name
    if not target.is_file():
        if required:
            raise SpycfrError(f"{str(target)!r} is missing ({RUN_JSON} vouches for it: the "
                              f"run is not whole): {_rewrite(path, name)}")
        return False
    if file_sha256(target) == expected:
        return True
    if required:
        raise SpycfrError(f"{str(target)!r} does not match {RUN_JSON} (its hash differs: an "
                          f"interrupted write, or the file changed since): {_recover(path)}")
    return False


def _read_strategy(path: Path, meta: RunResult) -> np.ndarray:
    """A tree run's strategy.npz, checked against run.json: the file's hash where it vouches
    for it (the bytes written, so the array written: not hashed again), else the array's
    (``strategy_sha256``); a one-line error saying how to recover."""
    vouched = verify_file(path, meta, STRATEGY_NPZ) and STRATEGY_NPZ in (meta.files or {})
    with reading(lambda exc: f"{str(path / STRATEGY_NPZ)!r} is missing or corrupt "
                             f"({str(exc)[:200]}): {_recover(path)}"):
        with np.load(path / STRATEGY_NPZ) as data:
            strategy = np.array(data["average"], dtype=np.float64)
    expected = meta.strategy_sha256
    if expected is not None and not vouched and (
            hashlib.sha256(strategy.tobytes()).hexdigest() != expected):
        raise SpycfrError(f"{str(path / STRATEGY_NPZ)!r} does not match {RUN_JSON} (not the "
                          f"strategy it was written with: an interrupted write?): "
                          f"{_recover(path)}")
    return strategy


def _verify_files(path: Path, meta: RunResult, checked: Collection[str] = ()) -> None:
    """Every file run.json vouches for, but those in ``checked``, is there and matches its
    hash (SpycfrError otherwise)."""
    for name in meta.files or {}:
        if name not in checked:
            verify_file(path, meta, name)


def check_run(path: str | Path, checked: Collection[str] = ()) -> RunResult:
    """run.json, checked with what needs no tree: every file it vouches for (there, its hash;
    each hashed once) and a tree run's strategy (its file's hash; loaded, its array hashed,
    only where run.json vouches for no files: :func:`_read_strategy`); SpycfrError otherwise.
    ``checked``: files the caller has checked in its own words (an agent's saved plan, which
    its load solves again where the file is gone). Cheap (the files, not the tree): a
    command that says things before its long load (`spycfr play`) checks this first, so
    that a broken run is its one error line."""
    path = Path(path)
    meta = read_run(path)
    _verify_files(path, meta, checked)
    if not meta.treeless and meta.strategy_sha256 is not None and (
            STRATEGY_NPZ not in (meta.files or {})):
        _read_strategy(path, meta)  # an older run's array hash, or the missing file's error
    return meta


def verify_run_files(path: str | Path) -> dict:
    """run.json of a run directory, checked, with every file it vouches for matching its
    hash (SpycfrError otherwise): a cheap check that a run is the one it says it is."""
    path = Path(path)
    meta = read_run(path)
    _verify_files(path, meta)
    return meta.to_json()


# What analysing a run costs a node (its tree, the strategy's reach and values, the tables):
# `spycfr report results/small` (5.6 million nodes) peaked at 1.84 GiB, about 300 B a node
# above the ~0.25 GiB the program takes by itself.
ANALYSIS_BYTES_PER_NODE = 300


def require_analysis(meta: RunResult, what: str) -> None:
    """Refuse (MemoryLimitError) before analysing a run that would not fit the running
    command's --memory-limit, by its node count in run.json."""
    nodes = meta.nodes
    if isinstance(nodes, int) and not isinstance(nodes, bool) and nodes > 0:
        require(f"{what} of a {nodes:,}-node tree", nodes * ANALYSIS_BYTES_PER_NODE,
                "give a larger --memory-limit")


def check_strategy(strategy: np.ndarray, tree: Tree, where: str, recover: str) -> None:
    """A strategy array fits the tree: finite, non-negative, rows summing to 1 over each
    infoset's legal actions and 0 beyond; else a one-line error naming the first bad row."""
    k = tree.infoset_num_actions.astype(np.int64)
    if strategy.ndim != 2 or strategy.shape[0] != tree.num_infosets or (
            strategy.shape[1] < tree.max_actions):
        raise SpycfrError(f"{where}: shape {strategy.shape} does not fit the tree "
                          f"({tree.num_infosets} infosets, {tree.max_actions} actions)")
    legal = np.arange(strategy.shape[1])[None, :] < k[:, None]
    bad = ~np.isfinite(strategy).all(axis=1) | (strategy < 0).any(axis=1)
    bad |= (np.where(legal, 0.0, strategy) != 0).any(axis=1)
    bad |= np.abs(np.where(legal, strategy, 0.0).sum(axis=1) - 1.0) > 1e-6
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = ", ".join(f"{x:.6g}" for x in strategy[i, :k[i]])
        raise SpycfrError(f"{where}: infoset {i} has probabilities [{row}] (negative, not "
                          f"finite or not summing to 1; {int(bad.sum())} infoset(s) affected): "
                          f"{recover}")


def load_run(path: str | Path) -> Run:
    """Load a run directory (rebuilding its tree), checked: run.json's fields, the files it
    vouches for (hashes), the strategy's shape and probabilities; errors say what is wrong
    and how to recover."""
    path = Path(path)
    meta = read_run(path)
    config = meta.config
    assert config is not None  # read_run_meta requires it
    require_analysis(meta, f"loading {str(path)!r}")
    if meta.treeless:
        raise SpycfrError(
            f"run {str(path)!r} was solved by MCCFR on a variant too big to enumerate: it has "
            "no tree for this (openings, query, report, export, measure and head-to-head read "
            "it)"
        )
    strategy = _read_strategy(path, meta)
    if foreign_kind(config.game) is not None:  # its tree was saved with it
        verify_file(path, meta, TREE_NPZ)
        tree = load_tree(path / TREE_NPZ)
    else:
        tree = build_tree(make_game(config.game, config.preset, config.params))
    if fingerprint(tree) != meta.fingerprint or strategy.shape[0] != tree.num_infosets:
        raise SpycfrError(
            f"run {str(path)!r} does not match the tree of its variant (made by another version?)"
        )
    check_strategy(strategy, tree, str(path / STRATEGY_NPZ), _recover(path))
    if tree.infoset_keys is None and verify_file(path, meta, "strategy.parquet", required=False):
        _labels_from_table(tree, path / "strategy.parquet")
    return Run(path, meta, tree, strategy)


def _labels_from_table(tree: Tree, table_path: Path) -> None:
    """Take the infoset keys and action labels from the run's own table (rows are in infoset
    and action order), which is much faster than replaying every infoset; spot-checked
    against a replay of a few infosets, and not used when they disagree. Read by pyarrow
    itself: pandas' import (0.4 s) was most of it, and `spycfr query` needs no other table."""
    import pyarrow.parquet as pq

    counts = tree.infoset_num_actions.astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    try:
        table = pq.ParquetFile(table_path).read(columns=["infoset", "action"])
        if table.num_rows != int(counts.sum()):
            return
        # each infoset's key from its first row; not arrow's take, which imports pandas
        # (the import this function exists to avoid: tests/test_query_advice.py)
        keys = table.column("infoset").to_pylist()
        infoset_keys = [str(keys[i]) for i in starts]
        actions = table.column("action").to_pylist()  # every row: the labels
    except Exception:
        return  # labels are recomputed on demand
    action_labels = [actions[i:i + k] for i, k in zip(starts, counts, strict=True)]
    sample = np.unique(np.linspace(0, tree.num_infosets - 1, 16).astype(np.int64))
    for i, (key, labels) in zip(sample, sample_labels(tree, sample), strict=True):
        if infoset_keys[i] != key or action_labels[i] != labels:
            return  # a table that does not belong to this tree: labels are replayed instead
    tree.infoset_keys, tree.action_labels = infoset_keys, action_labels
