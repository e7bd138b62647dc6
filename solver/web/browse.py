"""The strategy browser's model: a run's game walked along its public line, and at each public
state the grid of the seat to move (its private states against its moves) with the
opponent's range.

A public state is the set of histories no observer can tell apart from the moves both seats
saw: each step is grouped by what the seat that did not act saw of it (for chance, what both
saw). A history tree run is walked node by node (``items``: tree node, Python state, the
probability of reaching it under the run's strategy), so the grid's numbers are the run's own:
its probabilities, and each move's value as ``spycfr query`` computes it
(:func:`spycfr.analysis.query.query`: counterfactual value over the opponent's reach).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spycfr.analysis.query import tie_tolerance
from spycfr.analysis.views import delta
from spycfr.engine.states import CHANCE_PLAYER
from spycfr.errors import SpycfrError
from spycfr.tree import TERMINAL

MAX_ITEMS = 50_000  # histories in one public state the browser walks (a request's work)
SEATS = ("P1", "P2")
PRIVATE = "(private)"  # the public step of a chance step that each seat saw differently


def public_step(state, child, actor: int) -> str:
    """What both seats saw of the step from ``state`` to ``child``: the other seat's view of
    a move; for chance, the view both share, or the one that hides more (``?``)."""
    seen = [delta(state.information_state(s), child.information_state(s)) for s in (0, 1)]
    if actor != CHANCE_PLAYER:
        return seen[1 - actor] or "(unseen)"
    if seen[0] == seen[1]:
        return seen[0] or "(unseen)"
    masked = [d for d in seen if "?" in d]
    return masked[0] if len(masked) == 1 else PRIVATE


def chance_words(state, child) -> str:
    """A chance step as the browser's line shows it: what both seats saw (``public_step``),
    and which seat alone sees what it is (the seat whose view hides no more than before):
    Agent Avenue's deal read "chance: deal:?| -> chance: (private)", now "deal:?| (seen by
    P1 only) -> (seen by P2 only)"."""
    step = public_step(state, child, CHANCE_PLAYER)
    views = [(state.information_state(s), child.information_state(s)) for s in (0, 1)]
    sees = [s for s, (before, after) in enumerate(views)
            if before != after and after.count("?") <= before.count("?")]
    if len(sees) == 2 and step == PRIVATE:
        return "(each seat sees only its own part)"
    if len(sees) != 1 or ("?" not in step and step != PRIVATE):
        return step
    only = f"(seen by {SEATS[sees[0]]} only)"
    return only if step == PRIVATE else f"{step} {only}"


@dataclass
class Option:
    """One public move from a public state: who made it, how it is written, and the
    histories it leads to."""

    actor: int
    label: str
    items: list = field(default_factory=list)

    @property
    def reach(self) -> float:
        return float(sum(r for _, _, r in self.items))


@dataclass
class Spot:
    """A public state: the public line to it, the histories in it and the public moves on."""

    line: list[str]
    items: list  # (node, state, reach)
    options: list[Option]
    public_tokens: list[str]

    @property
    def reach(self) -> float:
        return float(sum(r for _, _, r in self.items))

    @property
    def actors(self) -> set[int]:
        return {o.actor for o in self.options}


def _options(tree, strategy, items) -> list[Option]:
    groups: dict[tuple[int, str], Option] = {}
    labels_of: dict[tuple[int, str], set[str]] = {}
    chance_of: dict[tuple[int, str], tuple] = {}  # a chance group's first step
    for node, state, reach in items:
        p = int(tree.node_player[node])
        if p == TERMINAL:
            continue
        s, k = int(tree.first_child[node]), int(tree.num_children[node])
        for j in range(k):
            code = int(tree.node_action[s + j])
            child = state.child(code)
            if p == CHANCE_PLAYER:
                w = float(tree.chance_prob[int(tree.node_infoset[node]) + j])
            else:
                w = float(strategy[int(tree.node_infoset[node]), j])
            key = (p, public_step(state, child, p))
            opt = groups.setdefault(key, Option(p, key[1]))
            opt.items.append((s + j, child, reach * w))
            if p != CHANCE_PLAYER:
                labels_of.setdefault(key, set()).add(state.action_label(code))
            else:
                chance_of.setdefault(key, (state, child))
    # a group made by one move whatever the private state, and the only group of that move,
    # is shown by the move's name; others by what the other seat saw (e.g. an attack's answer)
    named = [next(iter(n)) if len(n) == 1 else None for n in labels_of.values()]
    for key, name in zip(labels_of, named, strict=True):
        if name is not None and named.count(name) == 1:
            groups[key].label = name
    for key, (state, child) in chance_of.items():
        groups[key].label = chance_words(state, child)
    return sorted(groups.values(), key=lambda o: (o.actor, o.label))


def walk(tree, strategy, game, line: list[int]) -> Spot:
    """The public state reached by the public moves ``line`` (indices into each state's
    options, in the order :func:`_options` lists them)."""
    items = [(0, game.new_initial_state(), 1.0)]
    names: list[str] = []
    tokens: list[str] = []
    for depth, choice in enumerate(line):
        options = _options(tree, strategy, items)
        if not 0 <= choice < len(options):
            raise SpycfrError(f"step {depth + 1} of the line: there is no public move "
                              f"{choice} here (0..{len(options) - 1})")
        opt = options[choice]
        names.append(f"{who(opt.actor)}: {opt.label}")
        tokens.append(public_step(items[0][1], opt.items[0][1], opt.actor))
        items = opt.items
        if len(items) > MAX_ITEMS:
            raise SpycfrError(f"this public state holds {len(items):,} histories; the browser "
                              f"walks at most {MAX_ITEMS:,}: choose a smaller run")
    return Spot(names, items, _options(tree, strategy, items), tokens)


def who(actor: int) -> str:
    """P1, P2 or chance."""
    return "chance" if actor == CHANCE_PLAYER else SEATS[actor]


@dataclass
class Grid:
    """The seat to move's private states (rows) against its moves (columns)."""

    seat: int
    columns: list[str]
    rows: list[dict]  # private, view, infoset, share, reach, cells {column: (prob, value)}
    opponent_range: list[tuple[str, float]]
    tolerance: float | None


def grid(spot: Spot, tree, strategy, values: tuple, eps: float, private) -> Grid | None:
    """The grid at ``spot`` when a seat moves there (None at chance or the end). ``values``:
    (cfv, reach, opp_reach) of :func:`infoset_values`; ``private(view, seat, tokens)`` names
    a private state."""
    movers = {int(tree.node_player[n]) for n, _, _ in spot.items} - {TERMINAL}
    if len(movers) != 1 or CHANCE_PLAYER in movers:
        return None
    seat = movers.pop()
    cfv, reach, opp_reach = values
    by_infoset: dict[int, dict] = {}
    opp: dict[str, float] = {}
    total = spot.reach
    for node, state, r in spot.items:
        i = int(tree.node_infoset[node])
        row = by_infoset.get(i)
        if row is None:
            view = state.information_state(seat)
            k = int(tree.infoset_num_actions[i])
            labels = [state.action_label(int(a)) for a in
                      tree.node_action[tree.first_child[node]:tree.first_child[node] + k]]
            ok = opp_reach[i] > 0
            cells = {lab: (float(strategy[i, a]),
                           float(cfv[i, a] / opp_reach[i]) if ok else None)
                     for a, lab in enumerate(labels)}
            row = by_infoset[i] = {"private": private(view, seat, spot.public_tokens),
                                   "view": view, "infoset": i, "reach": 0.0, "cells": cells,
                                   "equilibrium_reach": float(reach[i])}
        row["reach"] += r
        other = private(state.information_state(1 - seat), 1 - seat, spot.public_tokens)
        opp[other] = opp.get(other, 0.0) + r
    rows = sorted(by_infoset.values(), key=lambda row: row["private"])
    for row in rows:
        row["share"] = row["reach"] / total if total > 0 else None
    columns = sorted({c for row in rows for c in row["cells"]})
    ranged = sorted(((k, v / total if total > 0 else float("nan")) for k, v in opp.items()),
                    key=lambda kv: (-np.nan_to_num(kv[1]), kv[0]))
    return Grid(seat, columns, rows, ranged, tie_tolerance(eps, min(total, 1.0)))
