"""Openings: the equilibrium distribution at a game's opening decisions (those its plug-in
names, e.g. Agent Hunter's placements), and the value of every opening move against the
equilibrium opponent.

For each move the table gives its equilibrium probability, its value when play then follows
the equilibrium (``eq_value``) and its best-response value (``br_value``: the most the move
can earn against the equilibrium opponent when the rest of the game is played as well as
possible). Values are the moving player's payoff. The plug-in's ``group`` names what a move
amounts to (Agent Hunter: the set of cards placed), for a summary by group.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from solver.exact.best_response import best_response_values, infoset_values
from solver.games import feature, make_variant, tree_labels
from solver.games.plugin import Openings
from solver.tree import Tree


def openings_spec(game: str) -> Openings:
    """The game's openings, or a one-line error naming the games that have them."""
    return feature(game, "openings", "openings table")


def node_at(tree: Tree, path) -> int:
    """The node reached from the root by the action (or chance outcome) codes ``path``."""
    node = 0
    for a in path:
        s, k = int(tree.first_child[node]), int(tree.num_children[node])
        hits = np.flatnonzero(tree.node_action[s:s + k] == int(a))
        if len(hits) != 1:
            raise ValueError(f"action {a} is not available at node {node}")
        node = s + int(hits[0])
    return node


def opening_infosets(tree: Tree) -> list[tuple[int, int, str]]:
    """(player, infoset id, context) of each opening decision of the tree's game (one row
    per infoset, in the order the game lists them)."""
    spec = openings_spec(tree.game)
    variant = make_variant(tree.game, None, tree.variant)
    out, seen = [], set()
    for player, path, context in spec.paths(variant):
        infoset = int(tree.node_infoset[node_at(tree, path)])
        if infoset not in seen:
            seen.add(infoset)
            out.append((player, infoset, context))
    return out


def openings_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """One row per (player, context, opening move), ranked by best-response value within
    each player and context."""
    spec = openings_spec(tree.game)
    _, labels = tree_labels(tree)
    cfv, reach, opp_reach = infoset_values(tree, strategy)
    best = {p: best_response_values(tree, strategy, p) for p in (0, 1)}
    frames = []
    for player, infoset, context in opening_infosets(tree):
        q, _, opp = best[player]
        k = int(tree.infoset_num_actions[infoset])
        frame = pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": labels[infoset][:k],
            "probability": strategy[infoset, :k],
            "eq_value": cfv[infoset, :k] / opp_reach[infoset],
            "br_value": q[infoset, :k] / opp[infoset],
        })
        if spec.context_name:
            frame.insert(1, spec.context_name, context)
            frame["reach"] = reach[infoset]
        frames.append(frame)
    return _ranked(pd.concat(frames, ignore_index=True), spec, ["br_value", "probability"])


def treeless_table(game: str, raw: pd.DataFrame) -> pd.DataFrame:
    """The openings of a tree-less MCCFR run (``openings.csv``): probabilities only, values
    NaN (they need a tree), most played first."""
    spec = openings_spec(game)
    keep = ["player", *([spec.context_name] if spec.context_name else []), "opening",
            "probability", "seen"]
    table = raw[keep].assign(eq_value=np.nan, br_value=np.nan)
    return _ranked(table, spec, ["probability"])


def _ranked(table: pd.DataFrame, spec: Openings, by: list[str]) -> pd.DataFrame:
    keys = ["player", *([spec.context_name] if spec.context_name else [])]
    table.insert(len(keys) + 1, spec.group_name, table.opening.map(spec.group))
    table = table.sort_values([*keys, *by], ascending=[True] * len(keys) + [False] * len(by),
                              kind="stable")
    table["rank"] = table.groupby(keys, sort=False).cumcount() + 1
    return table.reset_index(drop=True)


def openings_by_group(table: pd.DataFrame, group: str, context: str | None = None
                      ) -> pd.DataFrame:
    """Opening moves grouped by ``group`` (e.g. the set of cards placed, arrangement ignored).

    With ``context`` (several opening decisions per player), a group's probability is its
    share of the player's opening moves: situations weighted by how often they arise
    (``reach``) where the table has it, equally otherwise.
    """
    if context is not None:
        table = table.copy()
        weight = table["reach"] if "reach" in table else pd.Series(1.0, index=table.index)
        per_player = table.assign(w=weight).drop_duplicates(["player", context]).groupby(
            "player").w.sum()
        table["probability"] = table.probability * weight / table.player.map(per_player)
    grouped = table.groupby(["player", group], sort=False).agg(
        probability=("probability", "sum"),
        best_br_value=("br_value", "max"),
        arrangements=("opening", "count"),
    )
    grouped = grouped.reset_index().sort_values(
        ["player", "probability", "best_br_value"], ascending=[True, False, False], kind="stable"
    )
    return grouped.reset_index(drop=True)
