"""How games go when both players follow a strategy: outcome probabilities and length."""

from __future__ import annotations

import numpy as np

from spycfr.tree import TERMINAL, Tree
from spycfr.tree.passes import forward_reach


def outcome_stats(tree: Tree, strategy: np.ndarray) -> dict:
    """Exact probabilities that P1 wins (payoff > 0), draws (0) or loses (< 0), and the
    expected number of decisions (both players') in a game, under ``strategy`` and chance."""
    reach = np.zeros((tree.num_nodes, 3))
    forward_reach(tree.first_child, tree.num_children, tree.node_player, tree.node_infoset,
                  np.asarray(tree.chance_prob, dtype=np.float64),
                  np.ascontiguousarray(strategy, dtype=np.float64), reach)
    prob = reach[:, 0] * reach[:, 1] * reach[:, 2]
    terminal = tree.node_player == TERMINAL
    pays = tree.utility[terminal]
    p_term = prob[terminal]
    return {
        "p1_win": float(p_term[pays > 0].sum()),
        "draw": float(p_term[pays == 0].sum()),
        "p2_win": float(p_term[pays < 0].sum()),
        "mean_decisions": float(prob[(tree.node_player == 0) | (tree.node_player == 1)].sum()),
    }
