"""The tree of a run's game: a built-in game's, rebuilt from its variant, or a foreign
game's, read from a Gambit .efg file or enumerated through OpenSpiel and stored in the run
directory (``tree.npz``), so that the run never needs the file or the library again."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.formats.efg_reader import check_utf8, tree_from_efg
from spycfr.formats.openspiel import tree_from_openspiel
from spycfr.games import OPENSPIEL_PREFIX, build_tree, foreign_kind, make_game
from spycfr.io import save_npz
from spycfr.memory import MemoryBudget, current_budget, reading
from spycfr.tree import Tree

TREE_NPZ = "tree.npz"
MAX_EFG_BYTES = 1 << 30
_ARRAYS = ("first_child", "num_children", "node_player", "node_infoset", "node_action",
           "utility", "chance_prob", "infoset_player", "infoset_num_actions", "infoset_node",
           "infoset_seat")


def game_tree(name: str, preset: str | None = None, params: dict | None = None,
              memory: MemoryBudget | None = None) -> Tree:
    """The tree of game ``name``: a built-in game's variant, a path to an .efg file, or
    ``openspiel:GAME_STRING``; within ``memory``'s limit (by default the running command's
    budget)."""
    memory = memory if memory is not None else current_budget()
    kind = foreign_kind(name)
    if kind is None:
        return build_tree(make_game(name, preset, params), memory=memory)
    start = time.perf_counter()
    tree = _foreign_tree(name, kind, preset, params, memory)
    tree.build_seconds = time.perf_counter() - start
    return tree


def _foreign_tree(name: str, kind: str, preset: str | None, params: dict | None,
                  memory: MemoryBudget | None) -> Tree:
    if preset is not None or params:
        given = ", ".join((["--preset"] if preset is not None else []) +
                          [f"--{k.replace('_', '-')}" for k in params or {}])
        raise SpycfrError(f"{name} is a complete game description: it takes no {given}")
    if kind == "openspiel":
        return tree_from_openspiel(name[len(OPENSPIEL_PREFIX):], memory=memory)
    path = Path(name)
    try:
        size = path.stat().st_size
        if size > MAX_EFG_BYTES:
            raise SpycfrError(f"{name} is larger than {MAX_EFG_BYTES >> 30} GiB: too big to "
                              "read as one .efg")
        if memory is not None:  # the file's bytes stay resident while they are parsed
            memory.require(f"reading {name} ({size / 2**20:.3g} MiB)", size,
                           "give a larger --memory-limit or a smaller game")
        data = path.read_bytes()
        check_utf8(data)
    except FileNotFoundError:
        raise SpycfrError(f"no such .efg file: {name!r}") from None
    except IsADirectoryError:
        raise SpycfrError(f"{name!r} is a directory, not an .efg file") from None
    except UnicodeDecodeError:
        raise SpycfrError(f"{name!r} is not a text .efg file (not UTF-8)") from None
    except OSError as exc:
        raise SpycfrError(f"cannot read {name!r}: {exc.strerror or exc}") from None
    return tree_from_efg(data, name, {"sha256": hashlib.sha256(data).hexdigest()}, memory)


def save_tree(path: Path, tree: Tree) -> None:
    """Store a tree with its labels (atomically)."""
    text = json.dumps({"game": tree.game, "variant": tree.variant,
                       "infoset_keys": tree.infoset_keys, "action_labels": tree.action_labels})
    save_npz(path, meta=np.array(text), **{k: getattr(tree, k) for k in _ARRAYS})


def load_tree(path: Path) -> Tree:
    """A tree stored by :func:`save_tree` (SpycfrError if missing or corrupt)."""
    # numpy, zipfile and json raise many types
    with reading(lambda exc: f"{str(path)!r} is missing or corrupt ({str(exc)[:200]})"):
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            arrays: dict[str, Any] = {k: np.array(data[k]) for k in _ARRAYS}
        return Tree(game=meta["game"], variant=meta["variant"], **arrays,
                    infoset_keys=meta["infoset_keys"], action_labels=meta["action_labels"])
