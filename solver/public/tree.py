"""The public tree in flat arrays: one node per public history, ranges over the private
states that can be there.

Nodes are numbered breadth-first (parents before children, the children of a node
contiguous from ``first_child``). A node's **live** private states per seat are those the
public history allows (positive deal weight, chance masks, the actions that lead there);
a range holds one **entry** per live state: seat s's entries at node q are
``live_start[s, q] .. live_start[s, q + 1] - 1`` (seat 0's entries first, then seat 1's, in
one numbering), entry e being private state ``live_priv[e]``. An entry that only passes a
range on (public chance, the other seat's move) names its entry at the parent (``live_up``)
and a chance mask factor (``live_mask``); the mover's entries come from its rows. A node
where either seat has no live state is ``DEAD``: no entries, no children (worth 0).

A decision or private-chance node of seat p owns the rows ``row_start[q] ..``, one per live
entry of p in order (``row_entry``); row r lists ``row_num[r]`` actions, each a **cell**
``c = row_off[r] + e`` of flat arrays (rows at their own width, as the history tree's CSR
children: Agent Hunter's placement rows have 720 actions, most others a few): action e goes
to child ``first_child[q] + ent_kid[c]``, leaving p in private state ``ent_next[c]``, that
is entry ``ent_to[c]`` of the child (with probability ``ent_prob[c]`` at private chance).
The solvers' tables (regrets, strategy sums, strategies) are flat over the same cells.
A terminal's payoffs against live pairs are a dense l0 x l1 block of ``term_vals``
from ``term_index[q]`` (compatibility and 1/Z folded in), or -1: the game's hook.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spycfr.public.protocol import CHANCE, PRIVATE_CHANCE, TERMINAL

DEAD = -3  # a public node no pair of private states reaches: no entries, no children

# Bytes per cell (a row's action) of the solver's tables: R, S, sigma (+ m and the scratch
# inst for the predictive algorithms) and the tree's ent_kid, ent_next, ent_to, ent_prob.
TABLE_BYTES = 3 * 8
PREDICTIVE_BYTES = 2 * 8
TREE_CELL_BYTES = 4 + 4 + 8 + 8
# Bytes per row of the tree: row_num, row_off, row_node, row_entry, row_priv.
TREE_ROW_BYTES = 4 + 8 + 8 + 8 + 4
# Bytes per range entry: the tree's live_priv, live_up, live_mask; the solver's reach, values.
LIVE_BYTES = 4 + 8 + 8
RANGE_BYTES = 8 + 8


@dataclass
class PublicTree:
    """Flat arrays of one game's public tree (see the module docstring)."""

    game: str
    variant: object
    params: object  # the game's numba params record (selects its protocol)
    n_private: tuple[int, int]
    node_player: np.ndarray  # int8[n]: 0, 1, CHANCE, PRIVATE_CHANCE + seat, TERMINAL or DEAD
    first_child: np.ndarray  # int64[n]
    num_children: np.ndarray  # int32[n]
    node_label: np.ndarray  # int32[n]: label or outcome code of the edge from the parent
    pub_states: np.ndarray  # [n, state size], the game's public state dtype
    child_prob: np.ndarray  # float64[n]: a public chance outcome's probability (1 elsewhere)
    live_start: np.ndarray  # int64[2, n + 1]: each seat's entries per node
    live_priv: np.ndarray  # int32[entries]: the private state of an entry
    live_up: np.ndarray  # int64[entries]: the parent's entry it is passed from, or -1
    live_mask: np.ndarray  # float64[entries]: the chance mask factor on the way from live_up
    row_start: np.ndarray  # int64[n]: first row of a decision/private chance, else -1
    row_num: np.ndarray  # int32[rows]
    row_off: np.ndarray  # int64[rows + 1]: a row's first cell; row_off[rows] = cells
    ent_kid: np.ndarray  # int32[cells]
    ent_next: np.ndarray  # int32[cells]
    ent_to: np.ndarray  # int64[cells]: the child's entry
    ent_prob: np.ndarray  # float64[cells] (private chance rows)
    row_node: np.ndarray  # int64[rows]
    row_entry: np.ndarray  # int64[rows]: the row's entry (its node and private state)
    row_priv: np.ndarray  # int32[rows]
    weights: np.ndarray  # float64[2, max private states]: the deal's weights per seat
    compat: np.ndarray  # float64[n0, n1]: compatible(i, j)
    inv_z: float  # 1 / sum of w0[i] w1[j] compat[i, j]
    term_index: np.ndarray  # int64[n]: a terminal's block in term_vals, or -1
    term_vals: np.ndarray  # float64[sum of l0 * l1]: compat * seat 0's payoff / Z
    build_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_rows(self) -> int:
        return int(self.row_num.shape[0])

    @property
    def num_cells(self) -> int:
        """Actions over all rows: the length of the tables."""
        return int(self.ent_kid.shape[0])

    @property
    def max_private_actions(self) -> int:
        """The widest row's actions."""
        return int(self.row_num.max(initial=0))

    @property
    def range_entries(self) -> int:
        """Live entries of both seats' ranges over all nodes: what a pass touches."""
        return int(self.live_priv.shape[0])

    @property
    def dense_range_entries(self) -> int:
        """Entries of dense ranges (every private state at every node), for comparison."""
        return self.num_nodes * (self.n_private[0] + self.n_private[1])

    def decision_rows(self, seat: int) -> np.ndarray:
        """int64: the rows of ``seat``'s decisions (the infosets of the public tree)."""
        return np.flatnonzero(self.node_player[self.row_node] == seat).astype(np.int64)

    @property
    def nbytes(self) -> int:
        arrays = (self.node_player, self.first_child, self.num_children, self.node_label,
                  self.pub_states, self.child_prob, self.live_start, self.live_priv,
                  self.live_up, self.live_mask, self.row_start, self.row_num, self.row_off,
                  self.ent_kid, self.ent_next, self.ent_to, self.ent_prob, self.row_node,
                  self.row_entry, self.row_priv, self.compat, self.term_index, self.term_vals)
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
            "dead_nodes": int(np.count_nonzero(player == DEAD)),
            "private_states": list(self.n_private),
            "range_entries": self.range_entries,
            "dense_range_entries": self.dense_range_entries,
            "infosets": int(np.count_nonzero(decisions[self.row_node])),
            "cells": self.num_cells,
            "bytes": self.nbytes,
            "build_seconds": self.build_seconds,
        }


def solver_bytes(n_entries: int, n_cells: int, predictive: bool) -> int:
    """Bytes a public-tree solver allocates beyond the tree: its tables (one float per cell
    each) and the ranges and values (one float per live range entry each)."""
    per_cell = TABLE_BYTES + (PREDICTIVE_BYTES if predictive else 0)
    return n_cells * per_cell + n_entries * RANGE_BYTES
