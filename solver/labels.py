"""Human-readable labels of a tree's infosets and actions, whatever builder made the tree."""

from __future__ import annotations

from solver.tree import Tree


def tree_labels(tree: Tree) -> tuple[list[str], list[list[str]]]:
    """(infoset key, action labels) per infoset; cached on the tree once computed."""
    if tree.infoset_keys is None or tree.action_labels is None:
        if tree.game != "agent-hunter":
            raise ValueError(f"tree of {tree.game!r} carries no labels")
        from solver.games.agent_hunter.enumerate import infoset_labels
        from solver.games.agent_hunter.variant import make_variant

        keys, actions = infoset_labels(tree, make_variant(None, dict(tree.variant)))
        tree.infoset_keys, tree.action_labels = list(keys), [list(a) for a in actions]
    return tree.infoset_keys, tree.action_labels
