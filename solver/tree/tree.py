"""The flat-array game tree every solver runs on.

A game is enumerated once into parallel numpy arrays; nodes are numbered so
that every parent has a smaller index than its children, and the children of a
node are contiguous: ``first_child[n] .. first_child[n] + num_children[n] - 1``.
Child ``k`` of a decision node is the infoset's action ``k`` (every node of an
infoset lists its actions in the same order); child ``k`` of a chance node has
probability ``chance_prob[node_infoset[node] + k]``.

Seats and teams: a decision's ``node_player`` is the team it plays for (0 or 1; the
game is zero-sum between the two teams) and ``infoset_seat`` the seat that acts there
(a seat is one hand of cards and one information state). In a two-player game seat and
team coincide. Utilities are zero-sum and stored for team 0 (P1) only; team 1 receives
the negative.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TERMINAL = -1  # node_player of a terminal node
CHANCE = 2  # node_player of a chance node


@dataclass
class Tree:
    """Flat arrays of one enumerated game (see module docstring for the invariants)."""

    game: str
    variant: dict
    first_child: np.ndarray  # int64[n]: index of the first child (0 for terminals)
    num_children: np.ndarray  # int16[n]: 0 for terminals
    node_player: np.ndarray  # int8[n]: team 0 (P1), team 1 (P2), CHANCE or TERMINAL
    node_infoset: np.ndarray  # int32[n]: infoset id; chance: offset in chance_prob; terminal: -1
    node_action: np.ndarray  # int32[n]: action code of the edge from the parent (-1 at root)
    utility: np.ndarray  # float64[n]: P1's payoff at terminals, 0 elsewhere
    chance_prob: np.ndarray  # float64[m]: outcome probabilities of chance nodes, in child order
    infoset_player: np.ndarray  # int8[n_infosets]: the team acting there
    infoset_num_actions: np.ndarray  # int16[n_infosets]
    infoset_node: np.ndarray  # int64[n_infosets]: one node of the infoset (the first enumerated)
    # int8[n_infosets]: the seat acting (not given: the team's, one seat per team)
    infoset_seat: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int8))
    num_seats: int = 2
    infoset_keys: list[str] | None = None  # information-state strings, when the builder keeps them
    action_labels: list[list[str]] | None = None  # per infoset, label of each action
    build_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.infoset_seat.shape[0] != self.infoset_player.shape[0]:
            self.infoset_seat = self.infoset_player.copy()

    @property
    def num_nodes(self) -> int:
        return int(self.node_player.shape[0])

    @property
    def num_infosets(self) -> int:
        return int(self.infoset_player.shape[0])

    @property
    def max_actions(self) -> int:
        return int(self.infoset_num_actions.max()) if self.num_infosets else 0

    def infosets_of(self, player: int) -> np.ndarray:
        """Indices of the infosets where ``player`` acts."""
        return np.flatnonzero(self.infoset_player == player)

    @property
    def nbytes(self) -> int:
        """Bytes held by the numeric arrays (labels excluded)."""
        arrays = (
            self.first_child, self.num_children, self.node_player, self.node_infoset,
            self.node_action, self.utility, self.chance_prob, self.infoset_player,
            self.infoset_num_actions, self.infoset_node, self.infoset_seat,
        )
        return int(sum(a.nbytes for a in arrays))

    def depth(self) -> int:
        """Length of the longest root-to-leaf path (edges)."""
        return int(_max_depth(self.first_child, self.num_children))

    def parents(self) -> np.ndarray:
        """int64[n]: parent of each node (-1 at the root); computed on demand."""
        return _parents(self.first_child, self.num_children)

    def uniform_strategy(self) -> np.ndarray:
        """float64[n_infosets, max_actions]: every legal action equally likely."""
        k = self.infoset_num_actions.astype(np.int64)[:, None]
        legal = np.arange(max(self.max_actions, 1))[None, :] < k
        return np.where(legal, 1.0 / np.maximum(k, 1), 0.0)

    def summary(self) -> dict:
        """Sizes reported by ``spycfr info``."""
        n_term = int(np.count_nonzero(self.node_player == TERMINAL))
        return {
            "game": self.game,
            "variant": self.variant,
            "nodes": self.num_nodes,
            "terminal_nodes": n_term,
            "chance_nodes": int(np.count_nonzero(self.node_player == CHANCE)),
            "infosets": self.num_infosets,
            "infosets_p1": int(np.count_nonzero(self.infoset_player == 0)),
            "infosets_p2": int(np.count_nonzero(self.infoset_player == 1)),
            "seats": self.num_seats,
            "max_actions": self.max_actions,
            "depth": self.depth(),
            "bytes": self.nbytes,
            "bytes_per_node": self.nbytes / max(self.num_nodes, 1),
            "build_seconds": self.build_seconds,
        }


def _max_depth(first_child: np.ndarray, num_children: np.ndarray) -> int:
    from spycfr.tree.kernels import max_depth

    return max_depth(first_child, num_children)


def _parents(first_child: np.ndarray, num_children: np.ndarray) -> np.ndarray:
    from spycfr.tree.kernels import parents

    return parents(first_child, num_children)
