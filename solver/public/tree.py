"""The public tree in flat arrays: one node per public history, ranges over private states.

Nodes are numbered breadth-first (parents before children, the children of a node
contiguous from ``first_child``). A decision or private-chance node of seat p owns the rows
``row_start[q] .. row_start[q] + n_p - 1``, one per private state i of p; row r lists
``row_num[r]`` actions, action e going to child ``first_child[q] + ent_kid[r, e]`` and
leaving p in private state ``ent_next[r, e]`` (with probability ``ent_prob[r, e]`` at private
chance). A child of a public chance node has probability ``child_prob`` and, per seat, the
factors ``masks[child_mask[c], seat, :]`` over that seat's private states.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL

# Bytes per row entry of the solver's tables: R, S, sigma (+ m and the scratch inst for the
# predictive algorithms) and the tree's ent_kid, ent_next, ent_prob.
TABLE_BYTES = 3 * 8
PREDICTIVE_BYTES = 2 * 8
TREE_ENTRY_BYTES = 4 + 4 + 8


@dataclass
class PublicTree:
    """Flat arrays of one game's public tree (see the module docstring)."""

    game: str
    variant: object
    params: object  # the game's numba params record (selects its protocol)
    n_private: tuple[int, int]
    node_player: np.ndarray  # int8[n]: 0, 1, CHANCE, PRIVATE_CHANCE + seat or TERMINAL
    first_child: np.ndarray  # int64[n]
    num_children: np.ndarray  # int32[n]
    node_label: np.ndarray  # int32[n]: label or outcome code of the edge from the parent
    pub_states: np.ndarray  # [n, state size], the game's public state dtype
    child_prob: np.ndarray  # float64[n]: a public chance outcome's probability (1 elsewhere)
    child_mask: np.ndarray  # int64[n]: row of masks for a public chance child, else -1
    masks: np.ndarray  # float64[m, 2, max private states]
    row_start: np.ndarray  # int64[n]: first row of a decision/private chance, else -1
    row_num: np.ndarray  # int32[rows]
    ent_kid: np.ndarray  # int32[rows, max private actions]
    ent_next: np.ndarray  # int32[rows, max private actions]
    ent_prob: np.ndarray  # float64[rows, max private actions] (private chance rows)
    row_node: np.ndarray  # int64[rows]
    row_priv: np.ndarray  # int32[rows]
    weights: np.ndarray  # float64[2, max private states]: the deal's weights per seat
    compat: np.ndarray  # float64[n0, n1]: compatible(i, j)
    inv_z: float  # 1 / sum of w0[i] w1[j] compat[i, j]
    term_index: np.ndarray  # int64[n]: a terminal's matrix in term_mat, or -1
    term_mat: np.ndarray  # float64[t, n0, n1]: compat * seat 0's payoff / Z per terminal
    build_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_rows(self) -> int:
        return int(self.row_num.shape[0])

    @property
    def max_private_actions(self) -> int:
        return int(self.ent_kid.shape[1])

    @property
    def range_entries(self) -> int:
        """Entries of one range vector per seat at every node: what a pass touches."""
        return self.num_nodes * (self.n_private[0] + self.n_private[1])

    def decision_rows(self, seat: int) -> np.ndarray:
        """int64: the rows of ``seat``'s decisions (the infosets of the public tree)."""
        return np.flatnonzero(self.node_player[self.row_node] == seat).astype(np.int64)

    @property
    def nbytes(self) -> int:
        arrays = (self.node_player, self.first_child, self.num_children, self.node_label,
                  self.pub_states, self.child_prob, self.child_mask, self.masks, self.row_start,
                  self.row_num, self.ent_kid, self.ent_next, self.ent_prob, self.row_node,
                  self.row_priv, self.compat, self.term_index, self.term_mat)
        return int(sum(a.nbytes for a in arrays))

    def summary(self) -> dict:
        """Sizes, for ``--json`` and run.json."""
        player = self.node_player
        decisions = (player == 0) | (player == 1)
        return {
            "public_nodes": self.num_nodes,
            "terminal_nodes": int(np.count_nonzero(player == TERMINAL)),
            "chance_nodes": int(np.count_nonzero((player == CHANCE) | (player >= PRIVATE_CHANCE))),
            "decision_nodes": int(np.count_nonzero(decisions)),
            "private_states": list(self.n_private),
            "range_entries": self.range_entries,
            "infosets": int(np.count_nonzero(decisions[self.row_node])),
            "bytes": self.nbytes,
            "build_seconds": self.build_seconds,
        }


def solver_bytes(n_nodes: int, n_rows: int, max_private_actions: int, max_private: int,
                 predictive: bool) -> int:
    """Bytes a public-tree solver allocates beyond the tree: its tables (rows x actions)
    and the ranges and values (nodes x seats x private states)."""
    per_entry = TABLE_BYTES + (PREDICTIVE_BYTES if predictive else 0)
    return (n_rows * max_private_actions * per_entry + n_rows * 2 * 8
            + n_nodes * 3 * max_private * 8)
