"""Human-readable labels of a tree's infosets and actions, by replaying paths through the
game's Python states (the numba enumerator stores only codes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spycfr.engine.states import Game, State
from spycfr.tree import Tree


def infoset_labels(tree: Tree, game) -> tuple[list[str], list[list[str]]]:
    """(information-state key of the acting seat, action labels) for every infoset.

    ``game`` is the tree's game as a :mod:`spycfr.engine.states` game. Replays the path to each
    ``infoset_node`` (one Python state per ancestor of an infoset node, visited in index
    order): meant for exports and analysis of trees of up to a few million nodes.
    """
    parents = tree.parents()
    needed = np.zeros(tree.num_nodes, dtype=bool)
    for v in tree.infoset_node:
        v = int(v)
        while v >= 0 and not needed[v]:
            needed[v] = True
            v = int(parents[v])
    states = {0: game.new_initial_state()}
    for v in np.flatnonzero(needed)[1:]:
        states[int(v)] = states[int(parents[v])].child(int(tree.node_action[v]))
    keys: list[str] = []
    labels: list[list[str]] = []
    for i, v in enumerate(tree.infoset_node):
        v = int(v)
        state = states[v]
        s, k = int(tree.first_child[v]), int(tree.num_children[v])
        actions = [int(a) for a in tree.node_action[s:s + k]]
        if [int(a) for a in state.legal_actions()] != actions:
            raise RuntimeError(f"infoset {i}: the Python game disagrees on the actions at node {v}")
        keys.append(state.information_state(int(tree.infoset_seat[i])))
        labels.append([state.action_label(a) for a in actions])
    return keys, labels


def state_at(game: Game, path: Sequence[int]) -> State:
    """The Python state after the action (and chance outcome) codes ``path``."""
    state = game.new_initial_state()
    for a in path:
        state = state.child(int(a))
    return state
