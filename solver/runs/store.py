"""Run directories on disk: one solve of one variant, everything to use or resume it.

Layout of ``RUN_DIR``:

- ``run.json``: game, variant, algorithm and parameters, iterations, seed, seconds,
  value_p1, exploitability, nash_conv, tree sizes, spycfr version, status.
- ``strategy.npz``: the average strategy as an exact float64 array (what the
  analysis commands load), with the tree fingerprint it belongs to.
- ``strategy.parquet`` and ``strategy.csv``: the same strategy as a tidy table
  (see :mod:`solver.formats.strategy_table`).
- ``convergence.csv``: iteration, seconds, exploitability.
- ``checkpoint.npz``: the solver's full state (regrets, strategy sums, ...), written
  atomically every ``checkpoint_every`` iterations; ``resume`` continues from it
  bit-identically.

Monte-Carlo CFR runs on variants too big to enumerate have no tree: ``exploitability``
and ``nash_conv`` are null, ``exploitability_estimate`` holds the sampled-regret bound and
says so, ``convergence.csv`` has an ``exploitability_estimate`` column, there are no
strategy tables, and ``openings.csv`` holds the average strategy at the game's opening
decisions (player, opening, probability, seen), where the game defines them.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from solver import __version__
from solver.errors import SpycfrError
from solver.exact.best_response import infoset_values
from solver.formats.strategy_table import strategy_table
from solver.games import build_tree, make_game
from solver.io import atomic_path, write_text
from solver.tree import Tree

RUN_JSON = "run.json"
CHECKPOINT = "checkpoint.npz"
STRATEGY_NPZ = "strategy.npz"
CONVERGENCE = "convergence.csv"
OPENINGS_CSV = "openings.csv"
RUN_FILES = (RUN_JSON, CHECKPOINT, STRATEGY_NPZ, CONVERGENCE, OPENINGS_CSV,
             "strategy.parquet", "strategy.csv")

TREELESS_CAVEAT = "approximate: MCCFR, exploitability not measured"


@dataclass
class Run:
    """A loaded run directory: its metadata, the rebuilt tree and the average strategy."""

    path: Path
    meta: dict
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
    frame = pd.DataFrame(log, columns=["iteration", "seconds", column])
    return frame.to_csv(index=False, float_format="%.17g")


def save_checkpoint(run_dir: Path, config: dict, state: dict, seconds: float, log: list,
                    value_column: str) -> None:
    """Write the solver ``state`` (arrays and scalars) with the run's configuration, then the
    convergence log, each atomically."""
    arrays = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    scalars = {k: v for k, v in state.items() if not isinstance(v, np.ndarray)}
    meta = {"config": config, "solver": scalars, "seconds": seconds, "log": log,
            "version": __version__}
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


def load_checkpoint(run_dir: Path) -> tuple[dict, dict, float, list]:
    """(config, solver state, seconds, log) of a run's checkpoint."""
    path = run_dir / CHECKPOINT
    if not path.is_file():
        raise SpycfrError(f"cannot resume: {str(path)!r} does not exist")
    try:
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            state = {k: data[k] for k in data.files if k != "meta"}
    except Exception as exc:
        raise SpycfrError(f"cannot resume: {str(path)!r} is unreadable ({exc})") from None
    state.update(meta["solver"])
    return meta["config"], state, float(meta["seconds"]), [tuple(r) for r in meta["log"]]


def holds_run(run_dir: Path) -> bool:
    return any((run_dir / name).exists() for name in (RUN_JSON, CHECKPOINT))


def read_run_meta(path: str | Path) -> dict:
    """run.json of a run directory (errors say what is missing or corrupt)."""
    path = Path(path)
    if path.is_file():
        raise SpycfrError(f"{str(path)!r} is a file, not a run directory")
    if not path.is_dir():
        raise SpycfrError(f"run directory {str(path)!r} does not exist")
    meta_path = path / RUN_JSON
    if not meta_path.is_file():
        raise SpycfrError(f"{str(path)!r} is not a run directory: {RUN_JSON} is missing")
    try:
        meta = json.loads(meta_path.read_text())
        config = meta["config"]
        for key in ("game", "preset", "params"):
            config[key]  # noqa: B018 (a run is rebuilt from these)
    except (ValueError, KeyError, TypeError) as exc:
        raise SpycfrError(f"{str(meta_path)!r} is corrupt ({exc})") from None
    return meta


def is_treeless(meta: dict) -> bool:
    """Whether a run was solved by MCCFR without a tree (no strategy tables, no exact values)."""
    return meta.get("tree_enumerated") is False


def treeless_openings(path: str | Path) -> tuple[dict, pd.DataFrame] | None:
    """(run.json, ``openings.csv``) of a tree-less MCCFR run; None if the run has a tree."""
    meta = read_run_meta(path)
    if not is_treeless(meta):
        return None
    target = Path(path) / OPENINGS_CSV
    try:
        table = pd.read_csv(target)
    except Exception as exc:
        raise SpycfrError(f"{str(target)!r} is missing or corrupt ({exc})") from None
    return meta, table


def strategy_run_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """The tidy strategy table with reach probabilities and conditional action values."""
    cfv, reach, opp = infoset_values(tree, strategy)
    return strategy_table(tree, strategy, cfv=cfv, reach=reach, opponent_reach=opp)


def load_run(path: str | Path) -> Run:
    """Load a run directory (rebuilding its tree); errors say what is missing or wrong."""
    path = Path(path)
    meta = read_run_meta(path)
    config = meta["config"]
    if is_treeless(meta):
        raise SpycfrError(
            f"run {str(path)!r} was solved by MCCFR on a variant too big to enumerate: it has "
            "no tree or strategy tables, only `spycfr openings` can read it"
        )
    try:
        with np.load(path / STRATEGY_NPZ) as data:
            strategy = np.array(data["average"], dtype=np.float64)
    except Exception as exc:
        raise SpycfrError(f"{str(path / STRATEGY_NPZ)!r} is missing or corrupt ({exc})") from None
    tree = build_tree(make_game(config["game"], config["preset"], config["params"]))
    if fingerprint(tree) != meta.get("fingerprint") or strategy.shape[0] != tree.num_infosets:
        raise SpycfrError(
            f"run {str(path)!r} does not match the tree of its variant (made by another version?)"
        )
    if tree.infoset_keys is None:
        _labels_from_table(tree, path / "strategy.parquet")
    return Run(path, meta, tree, strategy)


def _labels_from_table(tree: Tree, table_path: Path) -> None:
    """Take the infoset keys and action labels from the run's own table (rows are in infoset
    and action order), which is much faster than replaying every infoset."""
    try:
        table = pd.read_parquet(table_path, columns=["infoset", "action"])
    except Exception:
        return  # labels are recomputed on demand
    counts = tree.infoset_num_actions.astype(np.int64)
    if len(table) != int(counts.sum()):
        return
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    keys = table["infoset"].to_numpy()
    actions = table["action"].tolist()
    tree.infoset_keys = [str(keys[i]) for i in starts]
    tree.action_labels = [actions[i:i + k] for i, k in zip(starts, counts, strict=True)]
