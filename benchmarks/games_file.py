"""A games file of the benchmark scripts (agent_headtohead.py's pairs, lbr_diagnose.py's
games): one JSON object a line, read back with a wrong file said in one line."""

from __future__ import annotations

import json
from pathlib import Path


def json_lines(path: str, what: str) -> list[dict]:
    """``path``'s JSON lines (blank ones passed over); a line that is not JSON is one
    ValueError naming the file, the line and ``what`` a line should be."""
    rows = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                raise ValueError(f"{path} line {i}: not a JSON line ({what})") from None
    return rows
