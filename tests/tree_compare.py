"""Node-by-node comparison of two trees of one game built by different builders."""

from __future__ import annotations

from collections import Counter

import numpy as np

from spycfr.engine.labels import infoset_labels
from spycfr.tree import CHANCE, TERMINAL, Tree


def assert_same_tree(ours: Tree, ref: Tree, game=None) -> np.ndarray:
    """``ours`` and ``ref`` are the same game tree, whatever their node numbering: same
    children (by action code) everywhere, players, utilities, chance probabilities and
    infoset partition; with ``game`` (a Python game), ``ours``'s labels replayed through it
    are ``ref``'s keys and labels. Returns the map our node -> ref node."""
    assert ours.num_nodes == ref.num_nodes
    for p in (0, 1):
        assert len(ours.infosets_of(p)) == len(ref.infosets_of(p))
    to_ref = np.full(ours.num_nodes, -1, dtype=np.int64)
    to_ref[0] = 0
    for v in range(ours.num_nodes):
        g = to_ref[v]
        k = ours.num_children[v]
        assert k == ref.num_children[g]
        a, b = ours.first_child[v], ref.first_child[g]
        assert np.array_equal(ours.node_action[a:a + k], ref.node_action[b:b + k])
        to_ref[a:a + k] = np.arange(b, b + k)
        if k and ours.node_player[v] == CHANCE:
            i, j = ours.node_infoset[v], ref.node_infoset[g]
            assert np.array_equal(ours.chance_prob[i:i + k], ref.chance_prob[j:j + k])
    assert np.array_equal(np.sort(to_ref), np.arange(ref.num_nodes))
    assert np.array_equal(ours.node_player, ref.node_player[to_ref])
    assert np.array_equal(ours.utility, ref.utility[to_ref])
    term = ours.node_player == TERMINAL
    assert Counter(ours.utility[term]) == Counter(ref.utility[ref.node_player == TERMINAL])
    # Same infoset partition: the map our infoset -> reference infoset is a bijection.
    dec = (~term) & (ours.node_player != CHANCE)
    pairs = set(zip(ours.node_infoset[dec].tolist(),
                    ref.node_infoset[to_ref[dec]].tolist(), strict=True))
    assert len(pairs) == ours.num_infosets == ref.num_infosets
    assert len({r for _, r in pairs}) == ours.num_infosets
    if game is not None:
        keys, labels = infoset_labels(ours, game)
        for i, v in enumerate(ours.infoset_node):
            j = ref.node_infoset[to_ref[v]]
            assert keys[i] == ref.infoset_keys[j]
            assert labels[i] == ref.action_labels[j]
    return to_ref
