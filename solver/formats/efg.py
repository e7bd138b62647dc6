"""Export of an enumerated tree in Gambit's extensive-form format (``.efg``, version 2).

The file lists the nodes in depth-first pre-order: ``p`` (player) lines carry
the player (1 or 2), the per-player 1-based infoset number, its name and the
action labels; ``c`` (chance) lines carry each outcome's probability (exact
rationals such as ``1/3`` where the float is one); ``t`` (terminal) lines carry
both payoffs (zero-sum). Gambit and OpenSpiel (``pyspiel.load_efg_game``) read it.
Big trees are streamed to the file in chunks; the walk uses an explicit stack.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.formats.efg_reader import efg_summary, read_efg, tree_from_efg  # noqa: F401
from spycfr.io import atomic_write
from spycfr.tree import CHANCE, TERMINAL, Tree
from spycfr.words import params_text

MAX_EFG_NODES = 5_000_000  # ~50-100 bytes a node: a few hundred MB of text at most
_CHUNK_LINES = 20_000
_MAX_DENOMINATOR = 1_000_000  # keeps both halves of a rational inside OpenSpiel's int32


def format_number(x: float) -> str:
    """``x`` exactly: an integer, a small rational ``n/d`` whose value is this float, or repr."""
    x = float(x)
    if not math.isfinite(x):
        raise SpycfrError(f"cannot export a non-finite number ({x}) to .efg")
    if x == 0.0:
        return "0"
    if x.is_integer() and abs(x) < 2**53:
        return str(int(x))
    frac = Fraction(x).limit_denominator(_MAX_DENOMINATOR)
    if frac.numerator / frac.denominator == x and abs(frac.numerator) < 2**31:
        return f"{frac.numerator}/{frac.denominator}"
    return repr(x)


def quote(text: str) -> str:
    """A Gambit string literal: double quotes, with backslashes and quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def default_title(tree: Tree) -> str:
    shown = params_text(tree.variant)
    return f"spycfr {tree.game}" + (f" {shown}" if shown else "")


def _labels(tree: Tree) -> tuple[list[str], list[list[str]]]:
    """Infoset names and action labels; generic ones for a tree of no registered game."""
    from spycfr.games import game_names, tree_labels

    if tree.infoset_keys is not None and tree.action_labels is not None or (
            tree.game in game_names()):
        keys, actions = tree_labels(tree)
    else:
        nact = tree.infoset_num_actions.tolist()
        keys = [f"infoset {i}" for i in range(tree.num_infosets)]
        actions = [[f"a{k}" for k in range(nact[i])] for i in range(tree.num_infosets)]
    return keys, actions


def _unique(labels: list[str]) -> list[str]:
    """Action labels made distinct inside one infoset (readers look children up by label)."""
    if len(set(labels)) == len(labels):
        return labels
    return [f"{a}#{k}" for k, a in enumerate(labels)]


def _iter_chunks(tree: Tree, title: str | None, max_nodes: int) -> Iterator[str]:
    """The .efg text in chunks of many lines (pre-order walk with an explicit stack)."""
    n = tree.num_nodes
    if n == 0:
        raise SpycfrError("cannot export an empty tree")
    if n > max_nodes:
        raise SpycfrError(
            f"tree too big to export as .efg ({n:,} nodes; at most {max_nodes:,}); "
            "choose a smaller variant"
        )
    keys, actions = _labels(tree)
    # Per-player 1-based infoset numbers in infoset-id order; one cached line body per infoset.
    owner = tree.infoset_player.tolist()
    nact = tree.infoset_num_actions.tolist()
    counter = [0, 0]
    infoset_line: list[str] = []
    for i in range(tree.num_infosets):
        counter[owner[i]] += 1
        acts = _unique(list(actions[i]))
        if len(acts) != nact[i]:
            raise SpycfrError(f"infoset {i}: {len(acts)} action labels for {nact[i]} actions")
        infoset_line.append(
            f'p "" {owner[i] + 1} {counter[owner[i]]} {quote(keys[i])} '
            f'{{ {" ".join(quote(a) for a in acts)} }} 0\n'
        )
    outcome_line: dict[float, str] = {}  # one Gambit outcome per distinct payoff

    fc = tree.first_child.tolist()
    nc = tree.num_children.tolist()
    pl = tree.node_player.tolist()
    inf = tree.node_infoset.tolist()
    act = tree.node_action.tolist()
    util = tree.utility.tolist()
    cprob = tree.chance_prob.tolist()

    yield f'EFG 2 R {quote(title if title is not None else default_title(tree))} {{ "P1" "P2" }}\n'
    buf: list[str] = []
    n_chance = 0
    stack = [0]
    while stack:
        v = stack.pop()
        p = pl[v]
        if p == TERMINAL:
            u = util[v]
            line = outcome_line.get(u)
            if line is None:
                line = (
                    f't "" {len(outcome_line) + 1} "" '
                    f"{{ {format_number(u)}, {format_number(-u)} }}\n"
                )
                outcome_line[u] = line
            buf.append(line)
        else:
            c, k = fc[v], nc[v]
            if p == CHANCE:
                n_chance += 1
                off = inf[v]
                outs = " ".join(
                    f"{quote(str(act[c + j]))} {format_number(cprob[off + j])}" for j in range(k)
                )
                buf.append(f'c "" {n_chance} "" {{ {outs} }} 0\n')
            else:
                buf.append(infoset_line[inf[v]])
            stack.extend(range(c + k - 1, c - 1, -1))  # child 0 is popped first
        if len(buf) >= _CHUNK_LINES:
            yield "".join(buf)
            buf.clear()
    if buf:
        yield "".join(buf)


def efg_text(tree: Tree, title: str | None = None, max_nodes: int = MAX_EFG_NODES) -> str:
    """The whole .efg file as one string (small trees; use :func:`write_efg` for big ones)."""
    return "".join(_iter_chunks(tree, title, max_nodes))


def write_efg(
    tree: Tree, path: str | os.PathLike, title: str | None = None,
    max_nodes: int = MAX_EFG_NODES,
) -> int:
    """Stream the tree's .efg to ``path`` atomically (UTF-8); returns the file's size in bytes."""
    chunks = _iter_chunks(tree, title, max_nodes)
    first = next(chunks)  # size check and labels before any file is created

    size = 0

    def writer(fh) -> None:
        nonlocal size
        for chunk in itertools.chain([first], chunks):
            data = chunk.encode()
            fh.write(data)
            size += len(data)

    atomic_write(path, writer, mode="wb")
    return size


def pre_order(tree: Tree) -> np.ndarray:
    """int64[n]: the tree's node ids in the order the .efg lists them."""
    fc, nc = tree.first_child.tolist(), tree.num_children.tolist()
    out = []
    stack = [0]
    while stack:
        v = stack.pop()
        out.append(v)
        stack.extend(range(fc[v] + nc[v] - 1, fc[v] - 1, -1))
    return np.asarray(out, dtype=np.int64)
