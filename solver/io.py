"""Atomic file output: a crash or Ctrl-C never leaves a half-written file behind.

Every writer goes to a temporary file in the destination folder, flushes and
fsyncs it, then renames it over the target (``os.replace`` is atomic on POSIX).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import numpy as np


@contextmanager
def atomic_path(target: str | os.PathLike):
    """Yield a temporary path next to ``target``; rename it over ``target`` on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp creates 0600; outputs are ordinary files
    try:
        yield Path(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write(target: str | os.PathLike, writer: Callable[[IO], None], mode: str = "w") -> None:
    """Call ``writer(file)`` on a temporary file and move it over ``target`` atomically."""
    with atomic_path(target) as tmp, open(tmp, mode) as fh:
        writer(fh)


def write_text(target: str | os.PathLike, text: str) -> None:
    atomic_write(target, lambda fh: fh.write(text))


def write_json(target: str | os.PathLike, obj) -> None:
    write_text(target, json.dumps(obj, indent=2, default=_json_default) + "\n")


def save_npz(target: str | os.PathLike, **arrays: np.ndarray) -> None:
    """Atomically save arrays as a compressed .npz (exact round trip; strategy tables are
    padded to the widest infoset, so they are mostly zeros and compress well)."""
    with atomic_path(target) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
