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
import re
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.io import atomic_write
from spycfr.tree import CHANCE, TERMINAL, Tree

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
    shown = " ".join(f"{k}={v}" for k, v in tree.variant.items())
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


# --- a small reader, for tests and sanity checks ---------------------------------------
_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s{},"]+)|([{}])|(")')


def _tokens(text: str) -> Iterator[tuple[str, str]]:
    """("str", value) for quoted strings, ("sym", value) for words, numbers and braces."""
    for m in _TOKEN.finditer(text):
        if m.group(4) is not None:
            raise ValueError(f"a string opened at character {m.start()} is never closed")
        if m.group(1) is not None:
            yield "str", re.sub(r"\\(.)", r"\1", m.group(1))
        else:
            yield "sym", m.group(2) if m.group(2) is not None else m.group(3)


def _number(tok: str) -> Fraction:
    return Fraction(tok)  # accepts integers, "n/d" and decimals exactly


def read_efg(text: str) -> dict:
    """Parse a Gambit .efg (version 2, ``R`` or ``D``) into plain lists (pre-order nodes).

    Returns ``{"title", "players", "nodes"}``; each node is a dict with ``type``
    ("p", "c" or "t") and: ``player``, ``infoset``, ``name``, ``actions`` (p);
    ``infoset``, ``actions``, ``probs`` as Fractions (c); ``outcome``, ``payoffs``
    as Fractions (t, and p/c nodes whose outcome is not 0). Gambit's shorthands are
    accepted: an outcome's payoffs given once and referred to by number after, a
    repeated infoset's action list left out. Also checks that the node list forms
    exactly one tree. Errors are ValueErrors naming the token.
    """
    toks = list(_tokens(text))
    pos = 0

    def take(kind: str | None = None, value: str | None = None) -> str:
        nonlocal pos
        if pos >= len(toks):
            raise ValueError("unexpected end of .efg")
        k, v = toks[pos]
        if (kind is not None and k != kind) or (value is not None and v != value):
            raise ValueError(f"token {pos}: expected {value or kind}, got {v!r}")
        pos += 1
        return v

    def peek() -> tuple[str, str]:
        return toks[pos] if pos < len(toks) else ("", "")

    def number(tok: str) -> Fraction:
        try:
            return _number(tok)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"token {pos - 1}: expected a number, got {tok!r}") from None

    def integer() -> int:
        tok = take("sym")
        if not tok.isdigit():
            raise ValueError(f"token {pos - 1}: expected a non-negative integer, got {tok!r}")
        return int(tok)

    def braced(read) -> list:
        take("sym", "{")
        items = []
        while peek() != ("sym", "}"):
            if not peek()[0]:
                raise ValueError("unexpected end of .efg")
            items.append(read())
        take("sym", "}")
        return items

    take("sym", "EFG")
    take("sym", "2")
    if peek() not in (("sym", "R"), ("sym", "D")):
        raise ValueError(f"token {pos}: expected R or D, got {peek()[1]!r}")
    take()
    title = take("str")
    players = braced(lambda: take("str"))
    if peek()[0] == "str":
        take("str")  # optional comment
    outcomes: dict[int, list[Fraction]] = {}
    infosets: dict[tuple, dict] = {}

    def outcome(node: dict, terminal: bool) -> None:
        """The outcome number, then its name and payoffs (which may be left out once known);
        outcome 0 is no payoff (a terminal node's payoffs are then 0)."""
        number_ = integer()
        node["outcome"] = number_
        if peek()[0] == "str":
            take("str")
        if peek() == ("sym", "{"):
            outcomes[number_] = braced(lambda: number(take("sym")))
        if number_ == 0:
            if terminal:
                node["payoffs"] = [Fraction(0)] * len(players)
            return
        if number_ not in outcomes:
            raise ValueError(f"token {pos - 1}: outcome {number_} is used before its payoffs "
                             "are given")
        node["payoffs"] = outcomes[number_]

    nodes: list[dict] = []
    pending = 1  # subtrees still to read (pre-order)
    while pending:
        pending -= 1
        kind = take("sym")
        node: dict = {"type": kind}
        take("str")  # node name
        if kind == "t":
            outcome(node, terminal=True)
        elif kind in ("p", "c"):
            if kind == "p":
                node["player"] = integer()
            node["infoset"] = integer()
            node["name"] = take("str") if peek()[0] == "str" else ""
            key = (kind, node.get("player"), node["infoset"])
            if peek() == ("sym", "{"):
                if kind == "c":
                    pairs = braced(lambda: (take("str"), number(take("sym"))))
                    node["actions"] = [a for a, _ in pairs]
                    node["probs"] = [q for _, q in pairs]
                else:
                    node["actions"] = braced(lambda: take("str"))
                infosets.setdefault(key, node)
            elif key in infosets:  # a later member of an infoset: its actions are known
                node["actions"] = infosets[key]["actions"]
                if kind == "c":
                    node["probs"] = infosets[key]["probs"]
            elif pos >= len(toks):
                raise ValueError("unexpected end of .efg")
            else:
                raise ValueError(f"token {pos}: infoset {node['infoset']} has no action list")
            outcome(node, terminal=False)
            pending += len(node["actions"])
        else:
            raise ValueError(f"unknown node type {kind!r}")
        nodes.append(node)
    if pos != len(toks):
        raise ValueError(f"{len(toks) - pos} tokens after the last node")
    return {"title": title, "players": players, "nodes": nodes}


def efg_summary(text: str) -> dict:
    """Counts of an .efg: nodes by type and distinct infosets per player."""
    nodes = read_efg(text)["nodes"]
    infosets = [set(), set()]
    for nd in nodes:
        if nd["type"] == "p":
            infosets[nd["player"] - 1].add(nd["infoset"])
    return {
        "nodes": len(nodes),
        "terminal_nodes": sum(nd["type"] == "t" for nd in nodes),
        "chance_nodes": sum(nd["type"] == "c" for nd in nodes),
        "player_nodes": sum(nd["type"] == "p" for nd in nodes),
        "infosets_p1": len(infosets[0]),
        "infosets_p2": len(infosets[1]),
    }


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


def tree_from_efg(text: str, game: str, variant: dict | None = None) -> Tree:
    """The flat tree of a two-player zero-sum .efg game with perfect recall (SpycfrError
    naming what is wrong otherwise). Nodes are renumbered breadth-first; a payoff on an
    inner node (a non-terminal outcome) is added to every terminal below it; infosets keep
    their names (or "P1 infoset 3") and their actions' names."""
    try:
        efg = read_efg(text)
    except ValueError as exc:
        raise SpycfrError(f"{game}: not a valid .efg file ({exc})") from None
    if len(efg["players"]) != 2:
        raise SpycfrError(f"{game} has {len(efg['players'])} players; spycfr solves "
                          "two-player zero-sum games")
    nodes = efg["nodes"]
    children: list[list[int]] = [[] for _ in nodes]
    stack: list[int] = []  # nodes still waiting for children, in pre-order
    for i, nd in enumerate(nodes):
        if stack:
            parent = stack[-1]
            children[parent].append(i)
            if len(children[parent]) == len(nodes[parent]["actions"]):
                stack.pop()
        if nd["type"] != "t" and nd["actions"]:
            stack.append(i)
    for nd in nodes:
        if nd["type"] != "t" and not nd["actions"]:
            raise SpycfrError(f"{game}: a {'chance' if nd['type'] == 'c' else 'player'} node "
                              "has no actions")

    order, gained = [0], [Fraction(0)] * len(nodes)  # breadth-first; payoff from inner nodes
    new_id = {0: 0}
    for i in order:
        nd = nodes[i]
        if nd["type"] != "t":
            gain = gained[i] + (_zero_sum(nd, game) if "payoffs" in nd else 0)
            for c in children[i]:
                new_id[c] = len(order)
                order.append(c)
                gained[c] = gain
    n = len(order)
    first_child = np.zeros(n, np.int64)
    num_children = np.zeros(n, np.int16)
    node_player = np.full(n, TERMINAL, np.int8)
    node_infoset = np.full(n, -1, np.int32)
    node_action = np.full(n, -1, np.int32)
    utility = np.zeros(n)
    probs: list[float] = []
    infoset_of: dict[tuple[int, int], int] = {}
    info_player, info_actions, info_node, keys, labels = [], [], [], [], []
    own_moves: dict[int, tuple] = {0: ((), ())}  # per node: each player's (infoset, action)s
    info_moves: list[tuple] = []
    for new, old in enumerate(order):
        nd = nodes[old]
        kids = children[old]
        moves = own_moves.pop(new)
        if nd["type"] == "t":
            utility[new] = float(gained[old] + _zero_sum(nd, game))
            continue
        if len(nd["actions"]) > np.iinfo(np.int16).max:
            raise SpycfrError(f"{game}: a node has {len(nd['actions'])} actions (at most "
                              f"{np.iinfo(np.int16).max})")
        first_child[new], num_children[new] = new_id[kids[0]], len(kids)
        for k, c in enumerate(kids):
            node_action[new_id[c]] = k
        if nd["type"] == "c":
            total = sum(nd["probs"])
            if any(q < 0 for q in nd["probs"]) or abs(total - 1) > Fraction(1, 10**6):
                raise SpycfrError(f"{game}: chance node {nd['infoset']}'s probabilities sum "
                                  f"to {float(total):g}, not 1")
            node_player[new], node_infoset[new] = CHANCE, len(probs)
            probs.extend(float(q / total) for q in nd["probs"])
            for c in kids:
                own_moves[new_id[c]] = moves
            continue
        player = nd["player"] - 1
        if player not in (0, 1):
            raise SpycfrError(f"{game}: a node of player {nd['player']}; the players are 1 "
                              "and 2")
        key = (player, nd["infoset"])
        if key not in infoset_of:
            infoset_of[key] = len(info_player)
            info_player.append(player)
            info_actions.append(len(kids))
            info_node.append(new)
            info_moves.append(moves[player])
            keys.append(nd["name"] or f"P{player + 1} infoset {nd['infoset']}")
            labels.append(list(nd["actions"]))
        j = infoset_of[key]
        if labels[j] != list(nd["actions"]):
            raise SpycfrError(f"{game}: P{player + 1} infoset {nd['infoset']} lists different "
                              "actions at different nodes")
        if info_moves[j] != moves[player]:  # CFR's guarantees need perfect recall
            raise SpycfrError(f"{game} does not have perfect recall: P{player + 1} infoset "
                              f"{nd['infoset']} ({keys[j]!r}) is reached after different "
                              "moves of that player; spycfr solves perfect-recall games")
        node_player[new], node_infoset[new] = player, j
        for k, c in enumerate(kids):
            after = list(moves)
            after[player] = moves[player] + ((j, k),)
            own_moves[new_id[c]] = tuple(after)
    if len(set(keys)) < len(keys):  # keys are identifiers: make repeated names unique
        keys = [f"{key} [P{p + 1} infoset {number}]"
                for key, (p, number) in zip(keys, infoset_of, strict=True)]
    return Tree(
        game=game, variant=dict(variant or {}, title=efg["title"]),
        first_child=first_child, num_children=num_children, node_player=node_player,
        node_infoset=node_infoset, node_action=node_action, utility=utility,
        chance_prob=np.asarray(probs, dtype=np.float64),
        infoset_player=np.asarray(info_player, np.int8),
        infoset_num_actions=np.asarray(info_actions, np.int16),
        infoset_node=np.asarray(info_node, np.int64),
        infoset_keys=keys, action_labels=labels,
    )


def _zero_sum(node: dict, game: str) -> Fraction:
    """P1's payoff of an outcome, checked zero-sum."""
    pays = node["payoffs"]
    if len(pays) != 2 or pays[0] + pays[1] != 0:
        shown = ", ".join(f"{float(x):g}" for x in pays)
        raise SpycfrError(f"{game} is not zero-sum: an outcome pays ({shown}); spycfr solves "
                          "two-player zero-sum games")
    return pays[0]
