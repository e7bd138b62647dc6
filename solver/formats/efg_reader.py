"""Reading a Gambit .efg (version 2) into spycfr's flat tree, bounded before it allocates.

A hostile file must not take the process past its memory limit or hang it: numbers are
checked as text before an exact rational is built (so ``1e999999999`` never builds
10^999999999), payoffs are bounded in magnitude (so no float overflows), the number of nodes
is estimated from the file before parsing and the memory budget is checked again as the
nodes are read, and the per-node bookkeeping is a few flat arrays (perfect recall is checked
with interned move sequences: linear in the tree, not quadratic in its depth).
"""

from __future__ import annotations

import codecs
import re
from array import array
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from spycfr.errors import SpycfrError
from spycfr.memory import MemoryBudget
from spycfr.tree import CHANCE, TERMINAL, Tree

MAX_NUMBER_CHARS = 64  # a payoff or probability written with more characters is refused
MAX_EXPONENT = 400  # |e| in 1.5e-7, checked as text (Fraction would build 10^e exactly)
MAX_MAGNITUDE = 1e300  # every number, and its reciprocal when not 0: finite as a float
MAX_PAYOFF = 1e15  # |payoff|: sums along a path stay finite and exact enough as floats
MAX_INTEGER_DIGITS = 18  # infoset and outcome numbers
MAX_READ_NODES = 100_000_000
# What reading costs a node, checked against the budget before reading (from the number of
# node lines): the parser's arrays (~45 B) and the tree's (~150 B where infosets are few).
BYTES_PER_NODE = 200
# What the tree's pass after the parse allocates (tree_pass_bytes, checked before it), bounds
# of what tracemalloc measured (docs/search.md "Memory limits"): per node the flat tree, the
# renumbering's temporaries and both seats' sequences (139-151 B measured where infosets are
# few); per infoset its key, its labels' list, its entries in four lists and a dict; per
# action of an infoset the sequence step it interns, a tuple in a dict
TREE_BYTES_PER_NODE = 160
TREE_BYTES_PER_INFOSET = 800
TREE_BYTES_PER_MOVE = 200
TREE_BYTES_BASE = 2**16  # and once, whatever the size (10.5 KB measured for one decision)

# a quoted string is a run of plain characters then escapes each with its run: one repetition
# of the regex engine per escape, not per character (a frame of its stack each: a label of
# 40 MiB took 5.6 GB to match as (?:[^"\\]|\\.)*)
_TOKEN = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"|([^\s{},"]+)|([{}])|(")')
_DECIMAL = re.compile(r"^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$")
_RATIONAL = re.compile(r"^[+-]?\d+/\d+$")
_KINDS = {"p": 0, "c": 1, "t": 2}


def bounded_number(tok: str) -> Fraction:
    """The exact value of a number token (integer, decimal, ``n/d``), checked as text first:
    at most MAX_NUMBER_CHARS characters, an exponent within +-MAX_EXPONENT, a magnitude
    within [1/MAX_MAGNITUDE, MAX_MAGNITUDE] (or 0)."""
    value = _NUMBERS.get(tok)
    if value is not None:
        return value
    if len(tok) > MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(tok):,} characters (at most {MAX_NUMBER_CHARS})")
    m = _DECIMAL.match(tok)
    if m is not None and (m.group(1) or m.group(2)):
        if m.group(3) is not None and abs(int(m.group(3))) > MAX_EXPONENT:
            magnitude = float("inf")
        else:
            magnitude = abs(float(tok))  # bounded text: a float (or inf), cheaply
            if not magnitude and (m.group(1) + (m.group(2) or "")).strip("0"):
                magnitude = float("inf")  # not 0, but below a float's range
    elif _RATIONAL.match(tok):
        num, den = (int(x) for x in tok.split("/"))
        if den == 0:
            raise ValueError(f"the number {tok} divides by zero")
        magnitude = abs(num / den) if num else 0.0
    else:
        raise ValueError(f"expected a number, got {tok!r}")
    if magnitude and not 1 / MAX_MAGNITUDE <= magnitude <= MAX_MAGNITUDE:
        raise ValueError(f"the number {tok} is out of range (0, or from {1 / MAX_MAGNITUDE:.0e} "
                         f"to {MAX_MAGNITUDE:.0e} in magnitude)")
    value = Fraction(tok)
    if len(_NUMBERS) < 100_000:  # payoffs and probabilities repeat: parse each text once
        _NUMBERS[tok] = value
    return value


_NUMBERS: dict[str, Fraction] = {}


def check_utf8(data: bytes) -> None:
    """ValueError unless ``data`` is UTF-8 (checked in chunks: no decoded copy is kept)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(view), 1 << 22):
        decoder.decode(view[start:start + (1 << 22)])
    decoder.decode(b"", final=True)


class _Tokens:
    """The tokens of an .efg, one at a time: ("str", text) for quoted strings, ("sym", text)
    for words, numbers and braces; ``index`` counts them (for error messages)."""

    def __init__(self, data: bytes) -> None:
        self._it: Iterator[re.Match] = _TOKEN.finditer(data)
        self.index = -1
        self._next = self._read()

    def _read(self) -> tuple[str, str]:
        m = next(self._it, None)
        if m is None:
            return "", ""
        if m.group(4) is not None:
            raise ValueError(f"a string opened at byte {m.start()} is never closed")
        if m.group(1) is not None:
            text = m.group(1).decode("utf-8", "replace")
            return "str", re.sub(r"\\(.)", r"\1", text) if "\\" in text else text
        return "sym", (m.group(2) if m.group(2) is not None else m.group(3)).decode(
            "utf-8", "replace")

    def peek(self) -> tuple[str, str]:
        return self._next

    def take(self, kind: str | None = None, value: str | None = None) -> str:
        k, v = self._next
        if not k:
            raise ValueError("unexpected end of .efg")
        self.index += 1
        if (kind is not None and k != kind) or (value is not None and v != value):
            raise ValueError(f"token {self.index}: expected {value or kind}, got {v[:40]!r}")
        self._next = self._read()
        return v

    def braced(self, read) -> list:
        self.take("sym", "{")
        items = []
        while self._next != ("sym", "}"):
            if not self._next[0]:
                raise ValueError("unexpected end of .efg")
            items.append(read())
        self.take("sym", "}")
        return items


class ParsedEfg:
    """An .efg's nodes in pre-order as flat arrays, and the tables they index.

    ``entries[e]`` = (kind, player, infoset number, actions, probs) is an infoset as one node
    lists it (nodes repeating it share the entry); ``outcomes[o]`` the payoffs of an outcome.
    Per node: ``kind`` (0 p, 1 c, 2 t), ``entry`` (-1 for a terminal), ``outcome`` (-1: none),
    ``name`` (index into ``names``), ``parent`` (-1 for the root), ``child_index``.
    """

    def __init__(self) -> None:
        self.title = ""
        self.players: list[str] = []
        self.kind = bytearray()
        self.entry = array("q")
        self.outcome = array("q")
        self.name = array("q")
        self.parent = array("q")
        self.child_index = array("l")
        self.entries: list[tuple] = []
        self.outcomes: list[tuple[Fraction, ...]] = []
        self.names: list[str] = []

    def __len__(self) -> int:
        return len(self.kind)


def parse_efg(data: bytes | str, memory: MemoryBudget | None = None, what: str = ".efg",
              max_nodes: int = MAX_READ_NODES) -> ParsedEfg:
    """Parse a Gambit .efg (version 2, ``R`` or ``D``; Gambit's shorthands: an outcome's
    payoffs given once and referred to by number after, a repeated infoset's action list
    left out). ValueError naming the token for a malformed file; MemoryLimitError (from
    ``memory``) before the nodes would pass the limit."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    estimate = 1 + sum(data.count(b"\n" + k + b" ") for k in (b"p", b"c", b"t"))
    if memory is not None:
        memory.require(f"reading {what} (about {estimate:,} nodes)", estimate * BYTES_PER_NODE,
                       "give a larger --memory-limit or a smaller game")
    growth = memory.tracker(f"reading {what}", "give a larger --memory-limit or a smaller "
                            "game") if memory is not None else None
    toks = _Tokens(data)
    out = ParsedEfg()
    toks.take("sym", "EFG")
    toks.take("sym", "2")
    if toks.peek() not in (("sym", "R"), ("sym", "D")):
        raise ValueError(f"token {toks.index + 1}: expected R or D, got {toks.peek()[1]!r}")
    toks.take()
    out.title = toks.take("str")
    out.players = toks.braced(lambda: toks.take("str"))
    if toks.peek()[0] == "str":
        toks.take("str")  # optional comment

    def integer() -> int:
        tok = toks.take("sym")
        if not tok.isdigit() or len(tok) > MAX_INTEGER_DIGITS:
            raise ValueError(f"token {toks.index}: expected a non-negative integer of at most "
                             f"{MAX_INTEGER_DIGITS} digits, got {tok[:40]!r}")
        return int(tok)

    def number() -> Fraction:
        tok = toks.take("sym")
        try:
            return bounded_number(tok)
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"token {toks.index}: {exc}") from None

    def payoff() -> Fraction:
        value = number()
        if abs(float(value)) > MAX_PAYOFF:
            raise ValueError(f"token {toks.index}: payoff {float(value):.3g} is out of range "
                             f"(at most {MAX_PAYOFF:.0e} in magnitude)")
        return value

    outcome_index: dict[int, int] = {}  # outcome number -> index into out.outcomes
    zero = tuple(Fraction(0) for _ in out.players)

    def outcome(terminal: bool) -> int:
        """The outcome number, then its name and payoffs (left out once known); outcome 0
        is no payoff (a terminal's payoffs are then 0)."""
        num = integer()
        if toks.peek()[0] == "str":
            toks.take("str")
        if toks.peek() == ("sym", "{"):
            outcome_index[num] = len(out.outcomes)
            out.outcomes.append(tuple(toks.braced(payoff)))
        if num == 0:
            if not terminal:
                return -1
            if 0 not in outcome_index:
                outcome_index[0] = len(out.outcomes)
                out.outcomes.append(zero)
        if num not in outcome_index:
            raise ValueError(f"token {toks.index}: outcome {num} is used before its payoffs "
                             "are given")
        return outcome_index[num]

    entry_of: dict[tuple, int] = {}  # (kind, player, infoset, actions, probs) -> entry
    first_entry: dict[tuple, int] = {}  # (kind, player, infoset) -> its first entry
    name_of: dict[str, int] = {}
    stack: list[list[int]] = []  # [node, children still to read]
    while True:
        node = len(out.kind)
        if node >= max_nodes:
            raise ValueError(f"more than {max_nodes:,} nodes")
        if growth is not None:
            growth.tick(node)
        kind_text = toks.take("sym")
        if kind_text not in _KINDS:
            raise ValueError(f"token {toks.index}: unknown node type {kind_text[:40]!r}")
        kind = _KINDS[kind_text]
        name = toks.take("str")  # the node's name (unused)
        entry, n_actions = -1, 0
        if kind == 2:
            result = outcome(terminal=True)
        else:
            player = integer() if kind == 0 else 0
            infoset = integer()
            name = toks.take("str") if toks.peek()[0] == "str" else ""
            key = (kind, player, infoset)
            if toks.peek() == ("sym", "{"):
                if kind == 1:
                    pairs = toks.braced(lambda: (toks.take("str"), number()))
                    actions, probs = tuple(a for a, _ in pairs), tuple(q for _, q in pairs)
                else:
                    actions, probs = tuple(toks.braced(lambda: toks.take("str"))), ()
                full = (*key, actions, probs)
                known = entry_of.get(full)
                if known is None:
                    entry = entry_of[full] = len(out.entries)
                    out.entries.append(full)
                else:
                    entry = known
                first_entry.setdefault(key, entry)
            elif key in first_entry:  # a later member of an infoset: its actions are known
                entry = first_entry[key]
            elif not toks.peek()[0]:
                raise ValueError("unexpected end of .efg")
            else:
                raise ValueError(f"token {toks.index + 1}: infoset {infoset} has no action "
                                 "list")
            result = outcome(terminal=False)
            n_actions = len(out.entries[entry][3])
        out.kind.append(kind)
        out.entry.append(entry)
        out.outcome.append(result)
        out.name.append(name_of.setdefault(name, len(name_of)))
        if stack:
            top = stack[-1]
            out.parent.append(top[0])
            out.child_index.append(top[2] - top[1])
            top[1] -= 1
            if top[1] == 0:
                stack.pop()
        else:
            out.parent.append(-1)
            out.child_index.append(0)
        if n_actions:
            stack.append([node, n_actions, n_actions])
        if not stack:
            break
    if toks.peek()[0]:
        raise ValueError(f"tokens after the last node (from token {toks.index + 1})")
    out.names = list(name_of)
    return out


def read_efg(text: str | bytes) -> dict:
    """Parse an .efg into plain lists (pre-order nodes), for tests and small files.

    Returns ``{"title", "players", "nodes"}``; each node is a dict with ``type`` ("p", "c"
    or "t") and: ``player``, ``infoset``, ``name``, ``actions`` (p); ``infoset``,
    ``actions``, ``probs`` as Fractions (c); ``outcome``'s ``payoffs`` as Fractions (t, and
    p/c nodes with an outcome). Errors are ValueErrors naming the token.
    """
    efg = parse_efg(text)
    nodes = []
    for i in range(len(efg)):
        kind = "pct"[efg.kind[i]]
        node: dict = {"type": kind}
        if kind != "t":
            _, player, infoset, actions, probs = efg.entries[efg.entry[i]]
            node.update(infoset=infoset, name=efg.names[efg.name[i]], actions=list(actions))
            if kind == "p":
                node["player"] = player
            else:
                node["probs"] = list(probs)
        if efg.outcome[i] >= 0:
            node["payoffs"] = list(efg.outcomes[efg.outcome[i]])
        nodes.append(node)
    return {"title": efg.title, "players": efg.players, "nodes": nodes}


def efg_summary(text: str) -> dict:
    """Counts of an .efg: nodes by type and distinct infosets per player."""
    efg = parse_efg(text)
    infosets: list[set] = [set(), set()]
    for kind, player, infoset, _, _ in efg.entries:
        if kind == 0:
            infosets[player - 1].add(infoset)
    kinds = np.frombuffer(bytes(efg.kind), np.uint8)
    return {
        "nodes": len(efg),
        "terminal_nodes": int(np.count_nonzero(kinds == 2)),
        "chance_nodes": int(np.count_nonzero(kinds == 1)),
        "player_nodes": int(np.count_nonzero(kinds == 0)),
        "infosets_p1": len(infosets[0]),
        "infosets_p2": len(infosets[1]),
    }


def _zero_sum(pays: tuple, game: str) -> Fraction:
    """P1's payoff of an outcome, checked zero-sum."""
    if len(pays) != 2 or pays[0] + pays[1] != 0:
        shown = ", ".join(f"{float(x):g}" for x in pays)
        raise SpycfrError(f"{game} is not zero-sum: an outcome pays ({shown}); spycfr solves "
                          "two-player zero-sum games")
    return pays[0]


def _breadth_first(parent: np.ndarray, child_index: np.ndarray) -> np.ndarray:
    """new id per pre-order node: breadth-first, children in order (level by level)."""
    n = len(parent)
    depth = np.zeros(n, np.int64)
    for i in range(1, n):  # pre-order: a parent comes before its children
        depth[i] = depth[parent[i]] + 1
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[by_depth], np.arange(int(depth.max()) + 2))
    del depth
    new_id = np.empty(n, np.int64)
    new_id[0] = 0
    for d in range(1, len(bounds) - 1):
        level = by_depth[bounds[d]:bounds[d + 1]]
        order = np.lexsort((child_index[level], new_id[parent[level]]))
        new_id[level[order]] = np.arange(bounds[d], bounds[d + 1])
    return new_id


def tree_pass_bytes(efg: ParsedEfg) -> int:
    """An upper bound on what :func:`tree_from_efg` allocates after the parse, from the
    parsed nodes: TREE_BYTES_BASE, TREE_BYTES_PER_NODE a node, TREE_BYTES_PER_INFOSET a
    player's infoset (its distinct numbers among the entries) and TREE_BYTES_PER_MOVE an
    action of one: the pass interns a step (the mover's sequence, infoset, action) per node below a
    decision, and only the infoset's one sequence gets past its perfect-recall check, so the
    distinct steps are at most its actions. Nodes alone were short where every decision is
    its own infoset (a chain of 100,000 decisions: 98 MiB, 515 B a node, against 130 B a
    node counted)."""
    actions: dict[tuple[int, int], int] = {}
    for kind, player, number, names, _ in efg.entries:
        if kind == 0:
            actions[player, number] = max(actions.get((player, number), 0), len(names))
    return (TREE_BYTES_BASE + len(efg) * TREE_BYTES_PER_NODE
            + len(actions) * TREE_BYTES_PER_INFOSET + sum(actions.values()) * TREE_BYTES_PER_MOVE)


def tree_from_efg(data: bytes | str, game: str, variant: dict | None = None,
                  memory: MemoryBudget | None = None) -> Tree:
    """The flat tree of a two-player zero-sum .efg game with perfect recall (SpycfrError
    naming what is wrong otherwise; MemoryLimitError before ``memory``'s limit would be
    passed). Nodes are renumbered breadth-first; a payoff on an inner node (a non-terminal
    outcome) is added to every terminal below it; infosets keep their names (or "P1 infoset
    3") and their actions' names."""
    try:
        efg = parse_efg(data, memory, game)
    except ValueError as exc:
        raise SpycfrError(f"{game}: not a valid .efg file ({exc})") from None
    if memory is not None:
        memory.require(f"the tree of {game} ({len(efg):,} nodes)", tree_pass_bytes(efg),
                       "give a larger --memory-limit")
    if len(efg.players) != 2:
        raise SpycfrError(f"{game} has {len(efg.players)} players; spycfr solves "
                          "two-player zero-sum games")
    pay = [_zero_sum(o, game) for o in efg.outcomes]  # P1's payoff per outcome
    for kind, player, infoset, actions, probs in efg.entries:
        what = "chance" if kind == 1 else "player"
        if not actions:
            raise SpycfrError(f"{game}: a {what} node has no actions")
        if len(actions) > np.iinfo(np.int16).max:
            raise SpycfrError(f"{game}: a node has {len(actions)} actions (at most "
                              f"{np.iinfo(np.int16).max})")
        if kind == 1:
            wrong = [q for q in probs if not 0 <= q <= 1]
            if wrong:
                what = "a negative probability" if wrong[0] < 0 else "a probability above 1"
                raise SpycfrError(f"{game}: chance node {infoset} has {what} "
                                  f"({float(wrong[0]):g}); probabilities are from 0 to 1 and "
                                  "sum to 1")
            total = sum(probs)
            if abs(total - 1) > Fraction(1, 10**6):
                raise SpycfrError(f"{game}: chance node {infoset}'s probabilities sum to "
                                  f"{float(total):g}, not 1")
        elif player not in (1, 2):
            raise SpycfrError(f"{game}: a node of player {player}; the players are 1 and 2")

    n = len(efg)
    kinds = np.frombuffer(bytes(efg.kind), np.uint8)
    entry = np.frombuffer(efg.entry, np.int64)
    parent = np.frombuffer(efg.parent, np.int64)
    child_index = np.asarray(efg.child_index, np.int64)
    new_id = _breadth_first(parent, child_index)

    # Utilities: a terminal's outcome plus every inner outcome above it (pre-order pass only
    # where inner nodes carry payoffs, which is rare).
    outcome = np.frombuffer(efg.outcome, np.int64)
    utility = np.zeros(n)
    terminal = np.flatnonzero(kinds == 2)
    pay_f = np.array([float(p) for p in pay] or [0.0])
    utility[new_id[terminal]] = pay_f[outcome[terminal]]
    inner = np.flatnonzero((kinds != 2) & (outcome >= 0))
    if len(inner):
        gained: dict[int, Fraction] = {}
        for i in range(n):
            g = gained.get(int(parent[i])) if i else None
            o = int(outcome[i])
            if kinds[i] == 2:
                if g is not None:
                    utility[new_id[i]] = float(g + pay[o])
            elif o >= 0 or g is not None:
                gained[i] = (g or Fraction(0)) + (pay[o] if o >= 0 else 0)
    del outcome

    # Per new id: parent, child index, kind, entry.
    par_new = np.full(n, -1, np.int64)
    par_new[new_id[1:]] = new_id[parent[1:]]
    node_action = np.full(n, -1, np.int32)
    node_action[new_id] = child_index
    del child_index
    kind_new = np.empty(n, np.uint8)
    kind_new[new_id] = kinds
    entry_new = np.empty(n, np.int64)
    entry_new[new_id] = entry
    name_new = np.empty(n, np.int64)
    name_new[new_id] = np.frombuffer(efg.name, np.int64)
    del kinds, entry, parent, new_id
    first_child = np.zeros(n, np.int64)
    num_children = np.zeros(n, np.int16)
    counts = np.bincount(par_new[1:], minlength=n)
    has = counts > 0
    num_children[:] = counts
    # Breadth-first: a node's children are contiguous, in order, and after those of earlier
    # nodes, so the first child is 1 + the number of children of all earlier nodes.
    first_child[has] = (1 + np.cumsum(counts) - counts)[has]
    del counts, has

    # Infosets, chance probabilities and perfect recall (one pass, breadth-first).
    node_player = np.full(n, TERMINAL, np.int8)
    node_infoset = np.full(n, -1, np.int32)
    chance_probs: list[float] = []
    chance_offset: dict[int, int] = {}
    infoset_of: dict[tuple[int, int], int] = {}
    info_player: list[int] = []
    info_actions: list[int] = []
    info_node: list[int] = []
    keys: list[str] = []
    labels: list[list[str]] = []
    info_seq: list[int] = []
    names = efg.names
    # Each player's own-move sequence at a node, interned: seq id 0 is the empty sequence,
    # (parent seq, infoset, action) -> a new id. Perfect recall: every node of an infoset
    # has the same sequence.
    seq = np.zeros((2, n), np.int64)
    seq_of: dict[tuple[int, int, int], int] = {}
    for v in range(n):
        k = kind_new[v]
        if v:
            p = par_new[v]
            seq[0, v], seq[1, v] = seq[0, p], seq[1, p]
            if 0 <= node_player[p] <= 1:
                mover = node_player[p]
                step = (int(seq[mover, p]), int(node_infoset[p]), int(node_action[v]))
                seq[mover, v] = seq_of.setdefault(step, len(seq_of) + 1)
        if k == 2:
            continue
        e = int(entry_new[v])
        kind, player_no, infoset_no, actions, qs = efg.entries[e]
        if k == 1:
            off = chance_offset.get(e)
            if off is None:
                off = chance_offset[e] = len(chance_probs)
                total = sum(qs)
                chance_probs.extend(float(q / total) for q in qs)
            node_player[v], node_infoset[v] = CHANCE, off
            continue
        player = player_no - 1
        key = (player, infoset_no)
        j = infoset_of.get(key)
        if j is None:
            j = infoset_of[key] = len(info_player)
            info_player.append(player)
            info_actions.append(len(actions))
            info_node.append(v)
            info_seq.append(int(seq[player, v]))
            keys.append(names[name_new[v]]
                        or f"P{player + 1} infoset {infoset_no}")
            labels.append(list(actions))
        elif labels[j] != list(actions):
            raise SpycfrError(f"{game}: P{player + 1} infoset {infoset_no} lists different "
                              "actions at different nodes")
        if info_seq[j] != seq[player, v]:  # CFR's guarantees need perfect recall
            raise SpycfrError(f"{game} does not have perfect recall: P{player + 1} infoset "
                              f"{infoset_no} ({keys[j]!r}) is reached after different "
                              "moves of that player; spycfr solves perfect-recall games")
        node_player[v], node_infoset[v] = player, j
    if len(set(keys)) < len(keys):  # keys are identifiers: make repeated names unique
        keys = [f"{key} [P{p + 1} infoset {number}]"
                for key, (p, number) in zip(keys, infoset_of, strict=True)]
    return Tree(
        game=game, variant=dict(variant or {}, title=efg.title),
        first_child=first_child, num_children=num_children, node_player=node_player,
        node_infoset=node_infoset, node_action=node_action, utility=utility,
        chance_prob=np.asarray(chance_probs, dtype=np.float64),
        infoset_player=np.asarray(info_player, np.int8),
        infoset_num_actions=np.asarray(info_actions, np.int16),
        infoset_node=np.asarray(info_node, np.int64),
        infoset_keys=keys, action_labels=labels,
    )
