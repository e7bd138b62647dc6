"""Optimal openings: the equilibrium distribution over Agent Hunter placements, and the value
of every pure placement against the equilibrium opponent.

P1's placement is the root decision; P2 places without seeing it, so P2's placement is a
single infoset too. For each placement the table gives its equilibrium probability, its
value when play then follows the equilibrium (``eq_value``) and its best-response value
(``br_value``: the most the placement can earn against the equilibrium opponent when the
rest of the game is played as well as possible). Values are the placing player's payoff.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from solver.best_response import best_response_values, infoset_values
from solver.errors import SpycfrError
from solver.labels import tree_labels
from solver.tree import Tree


def opening_infosets(tree: Tree) -> tuple[int, int]:
    """Infoset ids of P1's and P2's placements."""
    if tree.game != "agent-hunter":
        raise SpycfrError(f"openings are defined for agent-hunter, not {tree.game!r}")
    root = tree.node_infoset[0]
    p2 = tree.node_infoset[tree.first_child[0]]
    return int(root), int(p2)


def openings_table(tree: Tree, strategy: np.ndarray) -> pd.DataFrame:
    """One row per (player, placement), ranked by best-response value within each player."""
    _, labels = tree_labels(tree)
    cfv, _, opp_reach = infoset_values(tree, strategy)
    frames = []
    for player, infoset in enumerate(opening_infosets(tree)):
        q, _, opp = best_response_values(tree, strategy, player)
        k = int(tree.infoset_num_actions[infoset])
        names = labels[infoset][:k]
        cards = [n.split(":", 1)[1].split("-") for n in names]
        frames.append(pd.DataFrame({
            "player": "P1" if player == 0 else "P2",
            "opening": names,
            "cards": [",".join(sorted(c, key=int)) for c in cards],
            "probability": strategy[infoset, :k],
            "eq_value": cfv[infoset, :k] / opp_reach[infoset],
            "br_value": q[infoset, :k] / opp[infoset],
        }))
    table = pd.concat(frames, ignore_index=True)
    table = table.sort_values(["player", "br_value", "probability"], ascending=[True, False, False],
                              kind="stable")
    table["rank"] = table.groupby("player").cumcount() + 1
    return table.reset_index(drop=True)


def openings_by_cards(table: pd.DataFrame) -> pd.DataFrame:
    """Placements grouped by the set of cards placed (arrangement ignored)."""
    grouped = table.groupby(["player", "cards"], sort=False).agg(
        probability=("probability", "sum"),
        best_br_value=("br_value", "max"),
        arrangements=("opening", "count"),
    )
    grouped = grouped.reset_index().sort_values(
        ["player", "probability", "best_br_value"], ascending=[True, False, False], kind="stable"
    )
    return grouped.reset_index(drop=True)
