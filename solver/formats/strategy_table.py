"""Strategies as tidy tables (one row per infoset and action) and back.

A table has the columns ``player`` (P1/P2), ``infoset`` (the acting player's
information state: the record as that player saw it, for Agent Hunter),
``action`` (record notation) and ``probability``; tables written by spycfr add
``reach_probability`` (total probability that play reaches the infoset) and
``counterfactual_value`` (the acting player's expected payoff of the action,
conditional on reaching the infoset; empty where the opponent never gets there).
The same format, with only the first four columns, is how users hand their own
strategies to ``spycfr exploitability``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.games import tree_labels
from spycfr.io import atomic_path, check_free_space
from spycfr.memory import reading
from spycfr.tree import Tree

if TYPE_CHECKING:  # pandas is imported where a table is made or read (0.5 s): not by query
    import pandas as pd

REQUIRED_COLUMNS = ("player", "infoset", "action", "probability")
FORMATS = ("csv", "parquet", "json")
PLAYER_NAMES = ("P1", "P2")


def strategy_table(
    tree: Tree,
    strategy: np.ndarray,
    cfv: np.ndarray | None = None,
    reach: np.ndarray | None = None,
    opponent_reach: np.ndarray | None = None,
) -> pd.DataFrame:
    """Tidy table of ``strategy``; ``cfv``/``reach`` come from best_response.counterfactual_values.

    ``opponent_reach`` (sum over the infoset's nodes of the opponent-and-chance reach) turns
    counterfactual values into conditional values; where it is 0 the value is left empty.
    """
    import pandas as pd

    keys, actions = tree_labels(tree)
    counts = tree.infoset_num_actions.astype(np.int64)
    rows = np.repeat(np.arange(tree.num_infosets), counts)
    cols = np.concatenate([np.arange(k) for k in counts]) if len(counts) else np.zeros(0, int)
    table = pd.DataFrame(
        {
            "player": np.array(PLAYER_NAMES)[tree.infoset_player[rows]],
            "infoset": np.array(keys, dtype=object)[rows],
            "action": [actions[i][k] for i, k in zip(rows, cols, strict=True)],
            "probability": strategy[rows, cols],
        }
    )
    if reach is not None:
        table["reach_probability"] = reach[rows]
    if cfv is not None:
        values = cfv[rows, cols].astype(float)
        if opponent_reach is not None:
            denom = opponent_reach[rows]
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.where(denom > 0, values / denom, np.nan)
        table["counterfactual_value"] = values
    return table


def table_format(path: str | Path, fmt: str | None = None) -> str:
    """The format a table written to ``path`` gets (``fmt``, else the extension), checked."""
    fmt = fmt or Path(path).suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise SpycfrError(f"unknown table format {fmt or Path(path).name!r}; allowed: "
                          f"{', '.join(FORMATS)} (by the file's extension)")
    return fmt


# Bytes a strategy table takes per row on disk, rounded up from what was measured (Leduc:
# CSV 157, JSON 265; Agent Hunter small: CSV 127, Parquet 14): for the free-space checks.
DISK_BYTES_PER_ROW = {"csv": 170, "json": 300, "parquet": 60}


def check_table_space(path: Path, fmt: str, rows: int) -> None:
    """One-line error before writing when ``path``'s folder lacks the space for ``rows`` rows
    (not for a device or pipe such as /dev/stdout, written into, not replaced)."""
    if path.exists() and not path.is_file():
        return
    check_free_space(path.parent, DISK_BYTES_PER_ROW[fmt] * rows, f"the table {path.name!r}")


def write_table(table: pd.DataFrame, path: str | Path, fmt: str | None = None) -> Path:
    """Write ``table`` atomically as CSV, Parquet or JSON (floats written losslessly)."""
    path = Path(path)
    fmt = table_format(path, fmt)
    check_table_space(path, fmt, len(table))
    with atomic_path(path) as tmp:
        if fmt == "csv":
            # repr-style floats: %.17g round-trips every float64 exactly
            table.to_csv(tmp, index=False, float_format="%.17g")
        elif fmt == "parquet":
            table.to_parquet(tmp, index=False)
        else:
            # json's float repr is the shortest exact one (pandas caps at 15 digits)
            records = table.astype(object).where(table.notna(), None).to_dict(orient="records")
            tmp.write_text(json.dumps(records, indent=1) + "\n")
    return path


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a strategy table (by extension: .csv, .parquet, .json); errors name the problem."""
    import pandas as pd

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower()
    if not path.is_file():
        raise SpycfrError(f"strategy table {str(path)!r} does not exist")
    if fmt not in FORMATS:
        raise SpycfrError(
            f"strategy table {str(path)!r}: unknown extension; allowed: .csv, .parquet, .json"
        )
    # pandas raises many types for unreadable files
    with reading(lambda exc: f"cannot read strategy table {str(path)!r}: {exc}"):
        if fmt == "csv":
            # keep_default_na=False: the empty record (P1's placement) is a real infoset key
            table = pd.read_csv(path, dtype={"player": str, "infoset": str, "action": str},
                                keep_default_na=False, na_values={"probability": [""]})
        elif fmt == "parquet":
            table = pd.read_parquet(path)
        else:
            table = pd.DataFrame(json.loads(path.read_text()))
    missing = [c for c in REQUIRED_COLUMNS if c not in table.columns]
    if missing:
        raise SpycfrError(
            f"strategy table {str(path)!r} lacks column(s) {', '.join(missing)}; "
            f"required: {', '.join(REQUIRED_COLUMNS)}"
        )
    return table


def strategy_from_table(
    tree: Tree, table: pd.DataFrame, default: str = "uniform", tolerance: float = 1e-6
) -> tuple[np.ndarray, int]:
    """Strategy array from a table; infosets the table omits get ``default`` (uniform).

    Returns the array and how many infosets were filled by default. Unknown infosets or
    actions, negative or non-numeric probabilities and rows not summing to 1 are errors.
    """
    import pandas as pd

    keys, actions = tree_labels(tree)
    index = {(PLAYER_NAMES[tree.infoset_player[i]], k): i for i, k in enumerate(keys)}
    strategy = np.zeros((tree.num_infosets, max(tree.max_actions, 1)))
    seen = np.zeros(tree.num_infosets, dtype=bool)
    given = np.zeros_like(strategy, dtype=bool)
    probs = pd.to_numeric(table["probability"], errors="coerce")
    for row, (player, key, action, p, raw) in enumerate(
        zip(table["player"], table["infoset"], table["action"], probs, table["probability"],
            strict=True),
        start=1,
    ):
        where = f"strategy table row {row}"
        # JSON/parquet tables may carry numbers where a key is meant (Kuhn's infoset 0)
        key, action = _text(key), _text(action)
        if player not in PLAYER_NAMES:
            raise SpycfrError(f"{where}: player {player!r} is not one of P1, P2")
        i = index.get((player, key))
        if i is None:
            raise SpycfrError(f"{where}: {player} has no information state {key!r} in this game")
        try:
            k = actions[i].index(action)
        except ValueError:
            raise SpycfrError(
                f"{where}: action {action!r} is not legal at {key!r}; "
                f"legal: {', '.join(actions[i])}"
            ) from None
        if not np.isfinite(p) or p < 0:
            shown = repr(raw) if isinstance(raw, str) else str(raw)
            raise SpycfrError(f"{where}: probability {shown} must be a number >= 0")
        if given[i, k]:
            raise SpycfrError(f"{where}: {player} {key!r} action {action!r} is given twice")
        given[i, k] = True
        strategy[i, k] = p
        seen[i] = True
    sums = strategy.sum(axis=1)
    bad = np.flatnonzero(seen & (np.abs(sums - 1.0) > tolerance))
    if len(bad):
        i = bad[0]
        raise SpycfrError(
            f"strategy table: probabilities at {PLAYER_NAMES[tree.infoset_player[i]]} "
            f"{keys[i]!r} sum to {sums[i]:.9g}, not 1 ({len(bad)} infoset(s) affected)"
        )
    # Renormalise only rows that need it: a table spycfr wrote (sums 1 up to rounding) must
    # load back bit-identical to the run's own strategy.
    fix = seen & (np.abs(sums - 1.0) > 1e-12)
    strategy[fix] /= sums[fix][:, None]
    n_default = int((~seen).sum())
    if n_default:
        if default != "uniform":
            raise SpycfrError(f"strategy table omits {n_default} information state(s)")
        for missing in np.flatnonzero(~seen):
            n_act = int(tree.infoset_num_actions[missing])
            strategy[missing, :n_act] = 1.0 / n_act
    return strategy, n_default


def _text(value) -> str:
    """A table cell as text: integral numbers without a decimal point."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) or (
        isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer()
    ):
        return str(int(value))
    return str(value)


SAMPLED_CHUNK_ROWS = 1 << 20  # rows built and written at a time
SAMPLED_JSON_ROWS = 1 << 20  # JSON is one document: written only up to this many rows


def write_sampled_table(average: dict, path: str | Path, fmt: str | None = None) -> int:
    """Write the average strategy of a run sampled without a tree (``MCCFRSolver.
    average_table()``) atomically, a chunk of rows at a time: player, infoset_key (the
    table's 63-bit key: the information abstraction's or the observation history's),
    action_index (in the rules' order of legal actions), probability. Returns the rows."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    fmt = table_format(path, fmt)
    rows = int(average["num_actions"].sum())
    if fmt == "json" and rows > SAMPLED_JSON_ROWS:
        raise SpycfrError(f"the table has {rows:,} rows, too many for one JSON document "
                          f"(at most {SAMPLED_JSON_ROWS:,}): use --format csv or parquet")
    check_table_space(path, fmt, rows)
    chunks = _sampled_chunks(average)
    with atomic_path(path) as tmp:
        if fmt == "json":
            write_table(pd.concat(list(chunks), ignore_index=True), tmp, "json")
        elif fmt == "csv":
            for n, chunk in enumerate(chunks):
                chunk.to_csv(tmp, index=False, float_format="%.17g", mode="a", header=n == 0)
        else:
            writer = None
            for chunk in chunks:
                batch = pa.Table.from_pandas(chunk, preserve_index=False)
                writer = writer or pq.ParquetWriter(tmp, batch.schema)
                writer.write_table(batch)
            if writer is not None:
                writer.close()
    return rows


def _sampled_chunks(average: dict):
    """The rows of write_sampled_table, about SAMPLED_CHUNK_ROWS at a time (one empty
    chunk for an empty table)."""
    import pandas as pd

    counts = average["num_actions"].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)])
    first = 0
    while True:
        last = max(int(np.searchsorted(starts, starts[first] + SAMPLED_CHUNK_ROWS, "right")) - 1,
                   min(first + 1, len(counts)))
        k = counts[first:last]
        idx = np.repeat(np.arange(first, last), k)
        action = np.arange(int(k.sum())) - np.repeat(starts[first:last] - starts[first], k)
        yield pd.DataFrame({
            "player": np.where(average["player"][idx] == 0, "P1", "P2"),
            "infoset_key": average["key"][idx], "action_index": action,
            "probability": average["policy"][average["offset"][idx] + action]})
        first = last
        if first >= len(counts):
            return
