"""Fixtures shared by the test files: the validation games' trees, built once per session."""

from __future__ import annotations

import gc

import pytest

from spycfr.games import build_tree, make_game, tree_labels
from spycfr.tree import Tree


def labelled_tree(name: str, preset: str | None = None, params: dict | None = None) -> Tree:
    """The game's numba tree with its infoset keys and action labels attached."""
    tree = build_tree(make_game(name, preset, params))
    tree_labels(tree)
    return tree


@pytest.fixture(autouse=True, scope="module")
def _garbage_collected_after_each_file():
    """Each test file leaves no garbage in reference cycles to the next one in its pytest
    worker: commands run in the worker's own process (cli_helpers.spycfr), where a
    --memory-limit counts the worker's resident memory, as if each file were run alone."""
    yield
    gc.collect()


@pytest.fixture(scope="session")
def kuhn() -> Tree:
    return labelled_tree("kuhn")


@pytest.fixture(scope="session")
def leduc() -> Tree:
    return labelled_tree("leduc")
