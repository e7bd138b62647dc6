"""Fixtures shared by the test files: the validation games' trees, built once per session."""

from __future__ import annotations

import pytest

from spycfr.games import build_tree, make_game, tree_labels
from spycfr.tree import Tree


def labelled_tree(name: str, preset: str | None = None, params: dict | None = None) -> Tree:
    """The game's numba tree with its infoset keys and action labels attached."""
    tree = build_tree(make_game(name, preset, params))
    tree_labels(tree)
    return tree


@pytest.fixture(scope="session")
def kuhn() -> Tree:
    return labelled_tree("kuhn")


@pytest.fixture(scope="session")
def leduc() -> Tree:
    return labelled_tree("leduc")
