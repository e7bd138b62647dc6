"""The search agent's first plan in a file: the solved subgame from the game's root (its
public tree's arrays and the solution's strategy, reaches and values), so that a process
that loads an agent reads it in a second instead of solving it again (minutes and GBs where
the plan spans the whole game: Agent Avenue small, Agent Hunter small).

One compressed ``.npz`` holds one or more plans, each keyed by its root public state (an
agent may plan from several roots), arrays named ``p<k>.<field>``, with ``meta`` (JSON:
PLAN_FORMAT, the game model's sizes, each plan's tree's counts, and what the caller records,
e.g. the configuration the plans were solved with): a reader checks those against what it
would solve now (:func:`stale`, :func:`plan_mismatch`) rather than trust a file of older
code or other settings.
Integer tables are stored in the narrowest type that holds them and read back as int64;
an array mostly of zeros (the strategy and row tables, padded to the widest row; reaches,
values and masks at the many nodes a seat's private state never reaches) as the bits of its
nonzero entries and those entries (one where they are all equal, as the 0/1 masks): reading
a plan inflates about the nonzero bytes, not the dense arrays (Agent Hunter ``small``'s
whole-game plan: 4-5 GiB dense, 41 s to read at format 1). The arrays round-trip exactly
(bits, so -0.0 and NaN too), so a loaded plan plays bit for bit as the solved one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from spycfr import memory
from spycfr.errors import SpycfrError
from spycfr.io import save_npz
from spycfr.search.resolve import Solution
from spycfr.search.subgame import subgame
from spycfr.search.tree import GameModel, Subtree, build, nodes_to_end

# the format of the arrays below, and of the plans they hold: a file of another format is not
# read (the plan is solved again). Bump it when the plan's solve changes what a plan is; a
# change of the rules or a public model shows in the model's sizes or the tree's counts that
# the file records (stale, plan_mismatch), or at the root (fits_model)
PLAN_FORMAT = 2  # 2: arrays mostly of zeros stored sparse (_pack)
_TREE = ("pub", "kind", "parent", "label", "first", "count", "prob", "row", "row_kid",
         "row_next", "row_prob", "row_count", "term", "payoff", "leaves")
_OPTIONAL = ("source_row", "origin")  # an extracted tree's


class PlanFileError(SpycfrError):
    """A plan file that cannot be read as plans of this game (corrupt, or another game's)."""


def save_plans(path: str | os.PathLike, plans: list[Solution], meta: dict[str, Any]) -> None:
    """Write ``plans`` (at most one per root public state) and ``meta`` to ``path``,
    atomically."""
    record: dict[str, Any] = {**meta, "format": PLAN_FORMAT, "plans": len(plans),
                              "trees": [tree_counts(p.tree) for p in plans]}
    if plans:
        record["model"] = model_sizes(plans[0].tree.game)
    arrays: dict[str, Any] = {"meta": json.dumps(record)}
    for k, sol in enumerate(plans):
        t = sol.tree
        fields = {name: getattr(t, name) for name in _TREE}
        fields.update({name: getattr(t, name) for name in _OPTIONAL
                       if getattr(t, name) is not None})
        fields.update({"mask0": t.mask[0], "mask1": t.mask[1], "strategy": sol.strategy,
                       "reach0": sol.reach[0], "reach1": sol.reach[1],
                       "values0": sol.values[0], "values1": sol.values[1],
                       "best0": sol.best[0], "best1": sol.best[1],
                       "iterations": np.int64(sol.iterations)})
        if sol.enter is not None:
            fields["enter"] = sol.enter
        for name, a in fields.items():
            arrays.update(_pack(f"p{k}.{name}", _narrow(np.asarray(a))))
    save_npz(path, **arrays)


def plan_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The ``meta`` of a plan file (PlanFileError if unreadable)."""
    with memory.reading(lambda exc: f"the agent's plan file {str(path)!r} is unreadable "
                                    f"({str(exc)[:120]})", PlanFileError):
        with np.load(path) as data:  # zipfile, numpy and json raise many types
            return json.loads(str(data["meta"]))


def load_plans(path: str | os.PathLike, game: GameModel) -> dict[bytes, Solution]:
    """The plans of ``path`` for ``game``, by their root public state's bytes
    (:func:`plan_key`); PlanFileError where the file is unreadable or does not fit ``game``
    (its private states, its public state's size)."""
    name = Path(path).name
    # zipfile, numpy and json raise many types; the file's own errors (_plan's) are lines
    with memory.reading(lambda exc: f"the agent's plan file {name!r} is unreadable "
                                    f"({str(exc)[:120]})", PlanFileError, (PlanFileError,)):
        with np.load(path) as data:
            meta = json.loads(str(data["meta"]))
            nodes = sum(int(t.get("nodes", 0)) for t in meta.get("trees") or [])
            memory.require(f"reading {int(meta['plans'])} first plan(s) of {nodes:,} public "
                           f"nodes from {name}", read_bytes(data),
                           "give a larger --memory-limit (the plan is read whole)")
            plans = {}
            for k in range(int(meta["plans"])):
                plan = _plan(data, f"p{k}.", game)
                plans[plan_key(plan.tree.pub[0])] = plan
    return plans


def read_bytes(data) -> int:
    """The bytes that reading every plan of an opened plan file (``np.load``'s) makes: each
    array dense (integers as int64), from the arrays' headers and the sparse ones' recorded
    shapes, before any array is inflated; and the largest array's entries once more (a
    sparse array's bits, unpacked to one byte each, while it is made dense)."""
    total, largest = 0, 0
    for name in data.files:
        if name == "meta" or name.endswith(f"{_SPARSE}bits") or name.endswith(
                f"{_SPARSE}vals"):
            continue
        if name.endswith(f"{_SPARSE}shape"):
            base = name[:-len(f"{_SPARSE}shape")]
            shape = tuple(int(x) for x in data[name])
            dtype = _header(data, f"{base}{_SPARSE}vals")[1]
        else:
            shape, dtype = _header(data, name)
        size = int(np.prod(shape, dtype=np.int64))
        total += size * (8 if dtype.kind in "iu" else dtype.itemsize)
        largest = max(largest, size)
    return total + largest


def _header(data, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype of array ``name`` of an opened ``.npz``, from its header alone."""
    with data.zip.open(f"{name}.npy") as fh:
        version = np.lib.format.read_magic(fh)
        shape, _, dtype = (np.lib.format.read_array_header_1_0(fh) if version == (1, 0)
                           else np.lib.format.read_array_header_2_0(fh))
    return shape, dtype


def model_sizes(game: GameModel) -> dict[str, Any]:
    """The sizes of a game's model that a plan's arrays are made of (recorded in the file:
    a rules change that alters one makes every saved plan stale)."""
    return {"private_states": list(game.n), "public_state": int(game.root().shape[0]),
            "actions": int(game.max_actions), "private_actions": int(game.max_private_actions)}


def tree_counts(tree: Subtree) -> dict[str, int]:
    """A plan's tree's counts as its file records them: public nodes, leaves, rows."""
    return {"nodes": tree.size, "leaves": int(tree.leaves.size),
            "rows": int((tree.row >= 0).sum())}


def stale(meta: dict[str, Any], game: GameModel,
          solved_with: dict[str, Any] | None = None) -> str | None:
    """Why a plan file's ``meta`` (:func:`plan_meta`) is not what this spycfr would solve
    for ``game`` from ``solved_with`` (the caller's record of the settings, compared with
    the file's ``solved_with`` where given), in a phrase; None where it is: the format, the
    game model's sizes, the settings."""
    if meta.get("format") != PLAN_FORMAT:
        return f"is of format {meta.get('format')}, this spycfr reads format {PLAN_FORMAT}"
    was, now = meta.get("model") or {}, model_sizes(game)
    changed = [f"{k} {was.get(k)} -> {v}" for k, v in now.items() if was.get(k) != v]
    if changed:
        return (f"was solved for another game model than this spycfr's ({'; '.join(changed)}"
                "): the rules or the public model changed")
    if solved_with is not None and meta.get("solved_with") != solved_with:
        was = meta.get("solved_with") or {}
        changed = [f"{k} {was.get(k)!r} -> {v!r}" for k, v in solved_with.items()
                   if was.get(k) != v] or ["its record"]
        return f"was solved with other settings than the agent's ({'; '.join(changed)})"
    return None


def plan_mismatch(plan: Solution, decisions: int | None = None) -> str | None:
    """Why ``plan`` is not the tree that the game's model makes now from its root, in a
    phrase; None where it is. Its root and children (:func:`fits_model`), then its public
    nodes counted again: to the end of the game where the plan has no leaves (a numba count,
    about 0.15 us a node), else ``decisions`` decision levels deep (the subgame built again;
    skipped where ``decisions`` is None). A rules change below the root shows here as long
    as it changes the tree's shape."""
    t = plan.tree
    if not fits_model(plan):
        return ("starts otherwise than this spycfr's game model (its root's children: public "
                "states, chance probabilities, masks or private rows)")
    if t.leaves.size == 0:
        fresh = nodes_to_end(t.game, t.pub[0], t.size)
        now = f"{fresh:,}" if fresh is not None else f"more than {t.size:,}"
    elif decisions is not None:
        try:
            again = subgame(t.game, t.pub[0], decisions, max_nodes=t.size + 1)
            now = f"{again.size:,} ({again.leaves.size:,} leaves)"
            fresh = again.size if again.leaves.size == t.leaves.size else -1
        except ValueError:
            fresh, now = None, f"more than {t.size:,}"
    else:
        return None
    if fresh != t.size:
        leaves = f" ({t.leaves.size:,} leaves)" if t.leaves.size else ""
        return (f"has {t.size:,} public nodes{leaves} where this spycfr's game model makes "
                f"{now} from its root: the rules or the public model changed")
    return None


def fits_model(plan: Solution) -> bool:
    """Whether the plan's root and its children are what the game's model makes now (their
    public states, chance probabilities and masks, the root's private rows): a cheap check,
    one node expanded, that the rules or public model did not change since the plan was
    solved at its root (a change deeper down goes unseen: PLAN_FORMAT is bumped for it)."""
    t = plan.tree
    fresh = build(t.game, t.pub[0], depth=1)
    kids = slice(int(t.first[0]), int(t.first[0] + t.count[0]))
    if (fresh.size != 1 + int(t.count[0]) or fresh.kind[0] != t.kind[0]
            or not np.array_equal(fresh.pub[1:], t.pub[kids])
            or not np.array_equal(fresh.prob[1:], t.prob[kids])
            or any(not np.array_equal(fresh.mask[s][1:], t.mask[s][kids]) for s in (0, 1))):
        return False
    if t.row[0] < 0:
        return bool(fresh.row[0] < 0)
    a, b = fresh.row[0], t.row[0]
    w = int(t.row_count[b].max(initial=0))
    return bool(np.array_equal(fresh.row_count[a], t.row_count[b])
                and np.array_equal(fresh.row_next[a][:, :w], t.row_next[b][:, :w])
                and np.array_equal(fresh.row_kid[a][:, :w], t.row_kid[b][:, :w])
                and np.array_equal(fresh.row_prob[a][:, :w], t.row_prob[b][:, :w]))


def plan_key(pub: np.ndarray) -> bytes:
    """A plan's key: its root public state's bytes (int64)."""
    return np.asarray(pub, np.int64).tobytes()


def _plan(data, p: str, game: GameModel) -> Solution:
    names = {name.split(_SPARSE)[0] for name in data.files if name.startswith(p)}
    get = {name[len(p):]: _unpack(data, name) for name in names}
    for name in (*_TREE, "mask0", "mask1", "strategy", "reach0", "reach1", "values0",
                 "values1", "best0", "best1", "iterations"):
        if name not in get:
            raise PlanFileError(f"the agent's plan file lacks {p}{name}")
    for name, a in get.items():
        if a.dtype.kind in "iu" and name != "pub":
            get[name] = a.astype(np.int64)
    n, size = game.n, get["kind"].shape[0]
    shapes = {"mask0": (size, n[0]), "mask1": (size, n[1]), "reach0": (size, n[0]),
              "reach1": (size, n[1]), "values0": (size, n[0]), "values1": (size, n[1]),
              "best0": (size, n[0]), "best1": (size, n[1])}
    root = game.root()
    if (any(get[k].shape != s for k, s in shapes.items()) or get["payoff"].shape[1:] != n
            or get["pub"].shape[1:] != root.shape or get["strategy"].shape != get[
                "row_kid"].shape):
        raise PlanFileError("the agent's plan file is another game's (its arrays' shapes "
                            "differ from this game's private states)")
    pub = get["pub"].astype(root.dtype)
    tree = Subtree(game, pub, get["kind"], get["parent"], get["label"], get["first"],
                   get["count"], get["prob"], (get["mask0"], get["mask1"]), get["row"],
                   get["row_kid"], get["row_next"], get["row_prob"], get["row_count"],
                   get["term"], get["payoff"], get["leaves"], get.get("source_row"),
                   get.get("origin"))
    return Solution(tree, get["strategy"], (get["reach0"], get["reach1"]),
                    (get["values0"], get["values1"]), (get["best0"], get["best1"]),
                    get.get("enter"), int(get["iterations"]))


# an array stored sparse: NAME~bits (np.packbits of its nonzero entries, by their bits),
# NAME~vals (those entries in order, or one where all are equal), NAME~shape
_SPARSE = "~"


def _pack(name: str, a: np.ndarray) -> dict[str, np.ndarray]:
    """``{name: a}``, or where that is at most half the bytes, ``a`` sparse: the bits of its
    nonzero entries (nonzero bits: -0.0 and NaN are entries) and those entries, or the one
    value they all share."""
    if a.ndim == 0 or a.size == 0:
        return {name: a}
    bits = a.reshape(-1).view(np.dtype(f"u{a.itemsize}")) if a.itemsize in (1, 2, 4, 8) \
        else None
    if bits is None:
        return {name: a}
    nonzero = bits != 0
    vals = a.reshape(-1)[nonzero]
    if vals.size and np.all(vals.view(bits.dtype) == vals.view(bits.dtype)[0]):
        vals = vals[:1]  # all one value (by its bits)
    if a.size / 8 + vals.nbytes > a.nbytes / 2:
        return {name: a}
    return {f"{name}{_SPARSE}bits": np.packbits(nonzero), f"{name}{_SPARSE}vals": vals,
            f"{name}{_SPARSE}shape": np.asarray(a.shape, np.int64)}


def _unpack(data, name: str) -> np.ndarray:
    """The array ``name`` of an opened plan file, dense (as :func:`_pack` was given it)."""
    if name in data.files:
        return data[name]
    shape = tuple(int(x) for x in data[f"{name}{_SPARSE}shape"])
    vals = data[f"{name}{_SPARSE}vals"]
    size = int(np.prod(shape))
    nonzero = np.unpackbits(data[f"{name}{_SPARSE}bits"], count=size).view(np.bool_)
    out = np.zeros(size, vals.dtype)
    out[nonzero] = vals
    return out.reshape(shape)


def _narrow(a: np.ndarray) -> np.ndarray:
    """An integer array in the narrowest type that holds its values (exact); others as
    they are."""
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    low, high = int(a.min()), int(a.max())
    if low >= 0:
        return a.astype(np.min_scalar_type(high))
    # the narrowest signed type (numpy's promotion of int8 and uint16 gives int32)
    return a.astype(next(t for t in (np.int8, np.int16, np.int32, np.int64)
                         if np.iinfo(t).min <= low and high <= np.iinfo(t).max))
